use shader_info::{Pad, ShaderCreateInfo, ShaderVertex};

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct OnlyPadding {
    _pad: Pad<16>,
}

fn main() {
    let _ = ShaderCreateInfo::new("mesh").vertex_struct::<OnlyPadding>(0);
}
