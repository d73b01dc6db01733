use shader_info::ShaderStruct;

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std140)]
struct Weights {
    weights: [f32; 4],
}

fn main() {}
