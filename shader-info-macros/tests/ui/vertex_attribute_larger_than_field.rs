use shader_info::{ShaderVertex, VertexAttribute, VertexFormat};

/// Four bytes of colour, claiming to be four floats.
#[derive(Clone, Copy)]
#[repr(transparent)]
struct Rgba(u32);

impl VertexAttribute for Rgba {
    const FORMAT: VertexFormat = VertexFormat::Float32x4;
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Colored {
    pos: [f32; 3],
    color: Rgba,
    uv: [f32; 2],
}

fn main() {}
