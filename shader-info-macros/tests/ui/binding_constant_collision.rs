use shader_info::ShaderInfo;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(
    sampler(0, Float2D, "albedo_map", Batch),
    sampler(1, Float2D, "albedoMap", Batch),
)]
struct TwoSpellings;

fn main() {}
