use shader_info::ShaderInfo;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(
    slots_per_kind,
    sampler(0, Float2D, "color_tex", Batch),
    uniform_buf(0, "vec4", "material", Batch),
)]
struct PerKind;

fn main() {}
