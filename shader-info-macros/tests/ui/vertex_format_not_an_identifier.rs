use shader_info::ShaderVertex;

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Vertex {
    pos: [f32; 3],
    #[vertex(format = "Unorm 8x4")]
    color: [u8; 4],
}

fn main() {}
