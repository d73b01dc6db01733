use shader_info::ShaderStruct;

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C, align(16))]
struct Aligned {
    a: glam::Vec4,
}

fn main() {}
