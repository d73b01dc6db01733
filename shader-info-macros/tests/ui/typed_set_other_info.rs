// A typed pipeline of one info takes only that info's sets (`BindingSet<Info = P>`): another info's set does
// not compile.
use shader_info::{BindingSet, HostTypes, ShaderInfo, Unsupported};

struct Host;
impl HostTypes for Host {
    type Buffer = [u8];
    type Texture = str;
    type Sampler = ();
    type AccelerationStructure = Unsupported;
}

#[derive(Clone, Copy, ShaderInfo)]
#[shader(uniform_buf(0, "vec4", "params", Pass), local_group_size(64), compute_source("a.comp.glsl"))]
struct Blur;

#[derive(Clone, Copy, ShaderInfo)]
#[shader(uniform_buf(0, "vec4", "params", Pass), local_group_size(64), compute_source("b.comp.glsl"))]
struct Sharpen;

/// What `Typed<Pipeline, Blur>::bind` requires of its set.
fn bind_blur<'a, S: BindingSet<'a, Host, Info = Blur>>(_: &S) {}

fn main() {
    let bytes = [0u8; 16];
    bind_blur(&SharpenPassSet::<Host> { params: &bytes[..] });
}
