use shader_info::ShaderStruct;

// A glam::DMat2 is 32 bytes with 16-byte alignment, the size of a std140 mat2: as a mat2 the GPU would read its
// f64 halves as floats, and no size check would tell.
#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std140)]
struct Rot {
    rotation: glam::DMat2,
}

fn main() {}
