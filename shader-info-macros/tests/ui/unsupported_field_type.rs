use shader_info::ShaderStruct;

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
struct HasString {
    a: f32,
    b: u64,
}

fn main() {}
