use shader_info::ShaderStruct;

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std140, packed)]
struct Params {
    a: glam::Vec4,
}

fn main() {}
