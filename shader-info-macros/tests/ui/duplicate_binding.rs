use shader_info::ShaderInfo;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(
    sampler(0, Float2D, "color_tex", Batch),
    sampler(1, Float2D, "normal_tex", Batch),
    uniform_buf(1, "vec4", "material", Batch),
)]
struct Clash;

fn main() {}
