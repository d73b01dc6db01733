use shader_info::ShaderVertex;

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Vertex {
    pos: [f32; 3],
    #[vertex(format = "Unorm8x4")]
    color: [u8; 3],
}

fn main() {}
