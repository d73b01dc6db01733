use shader_info::{ShaderVertex, VertexAttribute, VertexFormat};

/// Two pairs of ids, claiming to be matrix columns.
#[derive(Clone, Copy)]
#[repr(C)]
struct IdPairs([u32; 4]);

impl VertexAttribute for IdPairs {
    const FORMAT: VertexFormat = VertexFormat::Uint32x2;
    const COLUMNS: u32 = 2;
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Tagged {
    pos: [f32; 3],
    ids: IdPairs,
}

fn main() {}
