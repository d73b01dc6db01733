use shader_info::{ShaderInfo, ShaderVertex};

// A raw identifier as a type name makes the generated types' names from its text, without panicking.
#[derive(Clone, Copy, ShaderInfo)]
#[shader(branch("FOG"))]
#[allow(non_camel_case_types)]
struct r#match;

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Vertex {
    #[vertex(format = "r#Float32x2")]
    uv: [f32; 2],
}

// The generated branch struct, named without the `r#`.
const _: fn() -> matchBranches = matchBranches::default;

// A push constant or vertex field whose name GLSL cannot take is refused at the field.
#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
struct Blit {
    sample: u32,
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Corner {
    input: [f32; 2],
}

fn main() {
    let _ = r#match;
}
