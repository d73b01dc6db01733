use shader_info::ShaderEnum;

#[derive(Clone, Copy, ShaderEnum)]
#[repr(u32)]
enum Mode {
    Off = 0,
    On,
}

fn main() {}
