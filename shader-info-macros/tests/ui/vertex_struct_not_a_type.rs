use shader_info::ShaderInfo;

// The vertex struct must be named by its path: a string names nothing the builder can take as a type.
#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
#[shader(
    name = "mesh",
    vertex_struct("Vertex", 0),
    vertex_source("m.vert"),
    fragment_source("m.frag")
)]
struct Mesh {
    scale: f32,
}

fn main() {}
