use glam::Mat4;
use shader_info::ShaderInfo;

/// Over 128 bytes a block is spilled to a storage buffer; past 64 KiB it belongs in a declared buffer.
#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
#[shader(vertex_source("big.vert.glsl"))]
struct HugePush {
    model: Mat4,
    bones: [Mat4; 1024],
}

fn main() {}
