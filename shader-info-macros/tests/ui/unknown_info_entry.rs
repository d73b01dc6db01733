use shader_info::ShaderInfo;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(vertex_source("a.vert.glsl"), vertx_in(0, Vec3, "pos"))]
struct Typo;

fn main() {}
