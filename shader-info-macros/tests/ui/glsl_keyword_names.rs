use shader_info::{ShaderEnum, ShaderStruct};

// Each name is valid Rust but not a usable GLSL name: a keyword, a built-in type, a `gl_` prefix, a `__`.
#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
struct Light {
    sample: f32,
    gl_Position: f32,
    a__b: f32,
    ok: f32,
}

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
#[allow(non_camel_case_types)]
struct vec4 {
    x: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ShaderEnum)]
#[repr(u32)]
#[shader(prefix = "")]
enum Mode {
    Flat = 0,
    #[shader(name = "float")]
    Smooth = 1,
}

fn main() {}
