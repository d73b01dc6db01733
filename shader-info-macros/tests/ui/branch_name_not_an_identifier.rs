use shader_info::ShaderInfo;

// A branch name that makes no Rust field: an error at the name, not a panic of the macro.
#[derive(Clone, Copy, ShaderInfo)]
#[shader(branch("2D_SHADOWS"), branch("FOG-ON"))]
struct Lit;

fn main() {}
