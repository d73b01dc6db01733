use shader_info::shader_struct;

#[shader_struct(auto_pad, std140)]
#[derive(Clone, Copy)]
#[repr(C)]
struct Padded {
    a: f32,
    _pad_before_a: u32,
}

fn main() {}
