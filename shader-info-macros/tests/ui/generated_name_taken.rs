use shader_info::ShaderInfo;

// Names the derive generates itself: the `NAME` constant, a set's `by_name` field (an info with an
// `additional_info`), the branch struct's `inherited` field.
#[derive(Clone, Copy, ShaderInfo)]
#[shader(uniform_buf(0, "vec4", "name", Batch))]
struct Named;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(additional_info("base"), uniform_buf(0, "vec4", "by_name", Batch))]
struct ByName;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(additional_info("base"), branch("INHERITED"))]
struct Inherited;

fn main() {}
