//! Packed vertex formats on wgpu: the same declaration as on ash (`vertex_in_packed`), mapped to wgpu's vertex
//! formats by the plan, draws the pixels of the 32-bit float version.

use shader_info::{Registry, ShaderCreateInfo, StageInterfaceInfo, Type, VertexFormat};
use shader_info_gpu::library::LibraryOptions;
use shader_info_gpu::wgpu::testing::{assert_quiet, test_context};
use shader_info_gpu::wgpu::{GraphicsOptions, WgpuLibrary};

#[test]
fn snorm16_positions_and_unorm8_colors_draw_on_wgpu() {
    let Some(ctx) = test_context(true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("packed.vert.glsl"),
        "void main() { v_color = col; gl_Position = vec4(pos, 0.0, 1.0); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("packed.frag.glsl"),
        "void main() { frag_color = v_color; }\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_wgpu_packed")
            .vertex_in_packed(0, Type::Vec2, VertexFormat::Snorm16x2, "pos")
            .vertex_in_packed(1, Type::Vec4, VertexFormat::Unorm8x4, "col")
            .vertex_out(&StageInterfaceInfo::new("test_packed_v2f", "").flat(Type::Vec4, "v_color"))
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("packed.vert.glsl")
            .fragment_source("packed.frag.glsl"),
    );
    let mut lib = WgpuLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let pipeline = lib
        .graphics_pipeline("test_wgpu_packed", &GraphicsOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    // A quad over the middle half of the target, color 0.2, 1.0, 0.6, 1.0 in 8 bits.
    let snorm = |v: f32| ((v * 32767.0).round() as i16).to_le_bytes();
    let quad = [
        [-0.5f32, -0.5],
        [0.5, -0.5],
        [0.5, 0.5],
        [-0.5, -0.5],
        [0.5, 0.5],
        [-0.5, 0.5],
    ];
    let rgba8 = [51u8, 255, 153, 255];
    let bytes: Vec<u8> = quad
        .iter()
        .flat_map(|p| [snorm(p[0]).to_vec(), snorm(p[1]).to_vec(), rgba8.to_vec()].concat())
        .collect();
    let vb = shader_info_gpu::wgpu::testing::vertex_buffer(&ctx, &bytes);
    let size = 32;
    let pixels = shader_info_gpu::wgpu::testing::draw(
        &ctx,
        &pipeline,
        &shader_info_gpu::wgpu::testing::Draw {
            size,
            vertex_buffer: &vb,
            vertex_count: 6,
            groups: &[],
            push: &[],
        },
    );
    let at = |x: u32, y: u32| pixels[(4 * (y * size + x)) as usize..][..4].to_vec();
    assert_eq!(at(16, 16), rgba8, "inside the quad");
    assert_eq!(at(1, 1), [0, 0, 0, 255], "outside the quad");
    drop((pipeline, lib));
    assert_quiet(&ctx);
}
