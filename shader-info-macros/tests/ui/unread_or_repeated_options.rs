use shader_info::{ShaderEnum, ShaderInfo, ShaderStruct, ShaderVertex};

// An option where the derive reads none would do nothing: refused where it is written.
#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
struct Light {
    #[shader(name = "light_color")]
    color: [f32; 4],
}

#[derive(Clone, Copy, ShaderInfo)]
#[shader(name = "blit")]
#[repr(C)]
struct Blit {
    #[shader(name = "scale")]
    offset: [f32; 2],
}

#[derive(Clone, Copy, ShaderVertex)]
#[vertex(format = "Unorm8x4")]
#[repr(C)]
struct Corner {
    position: [f32; 2],
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Padded {
    position: [f32; 2],
    #[vertex(format = "Unorm8x4")]
    _pad: shader_info::Pad<4>,
}

// An option given twice: one would silently win.
#[derive(Clone, Copy, ShaderStruct)]
#[shader(name = "Sun")]
#[shader(name = "Moon")]
#[repr(C)]
struct Sky {
    color: [f32; 4],
}

#[derive(Clone, Copy, ShaderInfo)]
#[shader(name = "first", name = "second")]
struct Twice;

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Tinted {
    #[vertex(format = "Unorm8x4", format = "Snorm8x4")]
    tint: [u8; 4],
}

#[derive(Clone, Copy, ShaderEnum)]
#[repr(u32)]
enum Mode {
    #[shader(name = "MODE_A")]
    #[shader(name = "MODE_B")]
    A = 0,
}

#[derive(Clone, Copy, ShaderEnum)]
#[shader(prefix = "M_", prefix = "N_")]
#[repr(u32)]
enum Other {
    A = 0,
}

fn main() {}
