//! The clip-space convention, chosen: by default the sources are Vulkan's (y = −1 at the top) and the wgpu
//! backend's translated modules flip y, so a triangle in the upper half of Vulkan's clip space is drawn in the
//! upper half of the picture on wgpu too; with `ClipSpace::Source` the position is kept as written, for sources
//! written for wgpu's y-up clip space (lavapipe, validation on).

use gpu::flow::ClipSpace;
use gpu::library::LibraryOptions;
use gpu::wgpu::testing::{Draw, draw, vertex_buffer};
use gpu::wgpu::{GraphicsOptions, WgpuLibrary};
use shader_info::{Registry, ShaderCreateInfo, Type};

fn registry() -> Registry {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("clip_half")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "color")
            .vertex_source("half.vert.glsl")
            .fragment_source("half.frag.glsl"),
    );
    reg
}

/// Whether the picture's top row and bottom row are lit (red), for a triangle covering clip-space y in 0..1.
fn lit_rows(clip_space: ClipSpace) -> (bool, bool) {
    let ctx = gpu::wgpu::testing::test_context(true).expect("wgpu on lavapipe");
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("half.vert.glsl"),
        "void main() {\n  gl_Position = vec4(pos, 0.0, 1.0);\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("half.frag.glsl"),
        "void main() {\n  color = vec4(1.0, 0.0, 0.0, 1.0);\n}\n",
    )
    .unwrap();
    let opts = LibraryOptions {
        clip_space,
        ..LibraryOptions::new(dir.path())
    };
    let mut lib = WgpuLibrary::new(&ctx, registry(), opts).unwrap();
    let p = lib
        .graphics_pipeline("clip_half", &GraphicsOptions::default())
        .unwrap();
    // y from 0 to 1 over the whole width (the triangle's third corner is past the edge).
    let tri: [[f32; 2]; 3] = [[-1.0, 0.0], [3.0, 0.0], [-1.0, 2.0]];
    let vb = vertex_buffer(&ctx, bytemuck::cast_slice(&tri));
    let size = 16;
    let pixels = draw(
        &ctx,
        &p,
        &Draw {
            size,
            vertex_buffer: &vb,
            vertex_count: 3,
            groups: &[],
            push: &[],
        },
    );
    gpu::wgpu::testing::assert_quiet(&ctx);
    let red = |row: u32| pixels[(row * size * 4) as usize] == 255;
    (red(1), red(size - 2))
}

#[test]
fn the_translations_keep_or_convert_the_clip_space_as_chosen() {
    if gpu::wgpu::testing::test_context(true).is_none() {
        return;
    }
    // Vulkan's clip space: y in 0..1 is the lower half of the picture, on wgpu as on Vulkan.
    assert_eq!(lit_rows(ClipSpace::Vulkan), (false, true));
    // Written for wgpu: y in 0..1 is the upper half.
    assert_eq!(lit_rows(ClipSpace::Source), (true, false));
}
