use glam::Vec3;
use shader_info::ShaderStruct;

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std140)]
struct Light {
    position: Vec3,
    color: Vec3,
    radius: f32,
}

fn main() {}
