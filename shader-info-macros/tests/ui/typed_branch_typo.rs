// Branches are fields of the generated struct: a mistyped branch does not compile.
use shader_info::ShaderInfo;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(branch("GRAYSCALE"), local_group_size(64), compute_source("c.glsl"))]
struct Sprite;

fn main() {
    let _ = SpriteBranches { greyscale: true };
}
