use shader_info::ShaderEnum;

#[derive(Clone, Copy, ShaderEnum)]
#[repr(u32)]
enum Mode {
    #[shader(name = "MODE_ON")]
    On = 0,
    #[shader(name = "MODE_ON")]
    Enabled = 1,
}

fn main() {}
