use shader_info::ShaderStruct;

#[derive(Clone, Copy, ShaderStruct)]
struct NoRepr {
    a: f32,
}

fn main() {}
