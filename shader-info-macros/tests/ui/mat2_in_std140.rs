use shader_info::ShaderStruct;

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std140)]
struct Rot {
    rotation: glam::Mat2,
}

fn main() {}
