use shader_info::ShaderInfo;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(sampler(0, Float2D, "color_tex"))]
struct MissingFrequency;

fn main() {}
