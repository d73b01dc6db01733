use shader_info::ShaderVertex;

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Vertex {
    pos: [f32; 3],
    #[vertex(format = "Unorm16x2")]
    uv: [i16; 2],
}

fn main() {}
