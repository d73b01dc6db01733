use shader_info::ShaderStruct;

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
struct Transform {
    normal: glam::Mat3,
}

fn main() {}
