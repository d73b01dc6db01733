use glam::Mat4;
use shader_info::ShaderInfo;

#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
#[shader(vertex_source("big.vert.glsl"))]
struct BigPush {
    model: Mat4,
    view: Mat4,
    proj: Mat4,
}

fn main() {}
