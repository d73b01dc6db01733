use shader_info::ShaderInfo;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(
    branch("FOG"),
    resources_if(branch("FOG"), define("FOG_DENSITY")),
)]
struct NotAResource;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(resources_if(branch("FOG")))]
struct NothingDeclared;

fn main() {}
