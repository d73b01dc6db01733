use shader_info::ShaderInfo;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(sampler(0, Float2D, "albedo map", Batch))]
struct Spaced;

fn main() {}
