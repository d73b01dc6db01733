use shader_info::ShaderStruct;

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std140)]
struct Short {
    position: glam::Vec3,
    radius: f32,
    falloff: f32,
}

fn main() {}
