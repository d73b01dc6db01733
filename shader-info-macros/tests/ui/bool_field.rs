use shader_info::ShaderStruct;

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
struct Flags {
    enabled: bool,
}

fn main() {}
