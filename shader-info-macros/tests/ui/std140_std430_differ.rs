use glam::Vec2;
use shader_info::ShaderStruct;

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
struct Pair {
    x: Vec2,
    y: Vec2,
}

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
struct Outer {
    scale: f32,
    pair: Pair,
}

fn main() {}
