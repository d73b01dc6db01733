// A set struct needs every resource its info declares in that set: leaving one out does not compile.
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
    uniform_buf(1, "vec4", "material", Batch),
    fragment_out(0, Vec4, "color"),
    vertex_source("v.glsl"),
    fragment_source("f.glsl"),
)]
struct Surface;

fn main() {
    let sampler = ();
    let _ = SurfaceBatchSet::<Host> { albedo: ("albedo.png", &sampler) };
}
