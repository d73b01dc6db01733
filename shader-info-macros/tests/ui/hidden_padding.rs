use shader_info::ShaderStruct;

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
struct Gap {
    scale: f32,
    color: glam::Vec4,
}

fn main() {}
