use shader_info::ShaderEnum;

#[derive(Clone, Copy, ShaderEnum)]
enum Mode {
    Off = 0,
    On = 1,
}

fn main() {}
