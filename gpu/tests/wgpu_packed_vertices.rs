//! Packed vertex formats on wgpu: the same declaration as on ash (`vertex_in_packed`), mapped to wgpu's vertex
//! formats by the plan, draws the pixels of the 32-bit float version. And the declarations that need one of
//! WebGPU's optional features on the way to the rasterizer: 64-bit vertex inputs, line polygons.

use shader_info::{Registry, ShaderCreateInfo, StageInterfaceInfo, Type, VertexFormat};
use shader_info_gpu::library::LibraryOptions;
use shader_info_gpu::wgpu::testing::{assert_quiet, test_context};
use shader_info_gpu::wgpu::{GraphicsOptions, WgpuLibrary};

/// A library over one info whose stages are `vert` and `frag` (written as `<stem>.vert.glsl` and
/// `<stem>.frag.glsl` in a folder of their own, which the returned guard keeps).
fn library_of(
    ctx: &shader_info_gpu::wgpu::WgpuContext,
    info: ShaderCreateInfo,
    vert: &str,
    frag: &str,
) -> (tempfile::TempDir, WgpuLibrary) {
    let dir = tempfile::tempdir().unwrap();
    let (v, f) = (
        format!("{}.vert.glsl", info.name),
        format!("{}.frag.glsl", info.name),
    );
    std::fs::write(dir.path().join(&v), vert).unwrap();
    std::fs::write(dir.path().join(&f), frag).unwrap();
    let mut reg = Registry::new();
    reg.add_info(info.vertex_source(v).fragment_source(f));
    let lib = WgpuLibrary::new(ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    (dir, lib)
}

#[test]
fn snorm16_positions_and_unorm8_colors_draw_on_wgpu() {
    let Some(ctx) = test_context(true) else {
        return;
    };
    let (_dir, mut lib) = library_of(
        &ctx,
        ShaderCreateInfo::new("test_wgpu_packed")
            .vertex_in_packed(0, Type::Vec2, VertexFormat::Snorm16x2, "pos")
            .vertex_in_packed(1, Type::Vec4, VertexFormat::Unorm8x4, "col")
            .vertex_out(&StageInterfaceInfo::new("test_packed_v2f", "").flat(Type::Vec4, "v_color"))
            .fragment_out(0, Type::Vec4, "frag_color"),
        "void main() { v_color = col; gl_Position = vec4(pos, 0.0, 1.0); }\n",
        "void main() { frag_color = v_color; }\n",
    );
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

/// A 64-bit vertex input on wgpu is refused when its pipeline is asked for, naming the info and why: the library
/// takes WGSL to wgpu, and WGSL has no 64-bit floats. (Stored as 64-bit floats and read as 32-bit ones, the other
/// way WebGPU reads such a buffer, is refused by the declaration itself; the backend's own check for WebGPU's
/// VERTEX_ATTRIBUTE_64BIT feature stays behind both.)
#[test]
fn a_64_bit_vertex_input_is_refused_on_wgpu_naming_it() {
    let Some(ctx) = test_context(true) else {
        return;
    };
    let (_dir, mut lib) = library_of(
        &ctx,
        ShaderCreateInfo::new("test_wgpu_wide")
            .vertex_in(0, Type::DVec2, "pos")
            .fragment_out(0, Type::Vec4, "frag_color"),
        "void main() { gl_Position = vec4(vec2(pos), 0.0, 1.0); }\n",
        "void main() { frag_color = vec4(1.0); }\n",
    );
    let e = lib
        .graphics_pipeline("test_wgpu_wide", &GraphicsOptions::default())
        .err()
        .expect("a 64-bit vertex input is refused on wgpu");
    let text = e.to_string();
    assert!(
        text.contains("test_wgpu_wide") && text.contains("64-bit floats"),
        "{text}"
    );
    drop(lib);
    assert_quiet(&ctx);
}

/// Polygons drawn as lines on wgpu (`polygon_mode(Line)`, which needs WebGPU's POLYGON_MODE_LINE feature: the
/// library asks for it, and lavapipe has it): a quad's outline is drawn and its inside left clear.
#[test]
fn line_polygons_draw_outlines_on_wgpu() {
    let Some(ctx) = test_context(true) else {
        return;
    };
    let (_dir, mut lib) = library_of(
        &ctx,
        ShaderCreateInfo::new("test_wgpu_lines")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "frag_color")
            .polygon_mode(shader_info::PolygonMode::Line),
        "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n",
        "void main() { frag_color = vec4(1.0); }\n",
    );
    let pipeline = lib
        .graphics_pipeline("test_wgpu_lines", &GraphicsOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    // One triangle whose edges run along pixel centres' rows and columns of a 32×32 target.
    let tri = [[-0.75f32, -0.75], [0.75, -0.75], [-0.75, 0.75]];
    let bytes: Vec<u8> = tri
        .iter()
        .flat_map(|p| p.iter().flat_map(|v| v.to_le_bytes()))
        .collect();
    let vb = shader_info_gpu::wgpu::testing::vertex_buffer(&ctx, &bytes);
    let size = 32;
    let pixels = shader_info_gpu::wgpu::testing::draw(
        &ctx,
        &pipeline,
        &shader_info_gpu::wgpu::testing::Draw {
            size,
            vertex_buffer: &vb,
            vertex_count: 3,
            groups: &[],
            push: &[],
        },
    );
    let lit = |x: u32, y: u32| pixels[(4 * (y * size + x)) as usize] == 255;
    let lit_count = (0..size * size).filter(|i| lit(i % size, i / size)).count();
    // Filled, the triangle would cover about 288 pixels; its outline is about 3 × 24.
    assert!(
        (40..160).contains(&lit_count),
        "{lit_count} pixels lit: an outline, not a filled triangle"
    );
    assert!(!lit(10, 14), "the inside is left clear");
    drop((pipeline, lib));
    assert_quiet(&ctx);
}
