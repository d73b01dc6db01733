// A buffer given for a combined sampler does not compile: the field's type is the kind the declaration takes.
use shader_info::{HostTypes, ShaderInfo, Unsupported};

struct Host;
impl HostTypes for Host {
    type Buffer = [u8];
    type Texture = str;
    type Sampler = ();
    type AccelerationStructure = Unsupported;
}

#[derive(Clone, Copy, ShaderInfo)]
#[shader(
    sampler(0, Float2D, "albedo", Batch),
    fragment_out(0, Vec4, "color"),
    vertex_source("v.glsl"),
    fragment_source("f.glsl"),
)]
struct Surface;

fn main() {
    let bytes = [0u8; 16];
    let _ = SurfaceBatchSet::<Host> { albedo: &bytes[..] };
}
