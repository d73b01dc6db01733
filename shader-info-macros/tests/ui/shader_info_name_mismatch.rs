use shader_info::{shader_info, ShaderCreateInfo};

#[shader_info]
fn blur_horizontal() -> ShaderCreateInfo {
    ShaderCreateInfo::new("blur_vertical")
}

fn main() {}
