use shader_info::{ShaderInfo, ShaderStruct};

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
struct Tint {
    color: glam::Vec4,
}

#[derive(Clone, Copy, ShaderInfo)]
#[repr(C)]
#[shader(fragment_source("tint.frag.glsl"))]
struct TintPush {
    tint: Tint,
}

fn main() {}
