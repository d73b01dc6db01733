//! Tessellation from the declaration alone: the layouts, the per-control-point and per-patch interfaces and the
//! evaluation stage's output are generated, chained vertex → control → evaluation → fragment, and drawn on the
//! device with the patch size the declaration gives.

mod vk_support;

use shader_info::{
    FrontFace, GenerateOptions, MemoryLoader, Registry, ShaderCreateInfo, Stage,
    StageInterfaceInfo, TessDomain, TessSpacing, Topology, Type, generate,
};
use shader_info_gpu::vk::testing::{assert_no_validation_messages, pixel, test_context};
use shader_info_gpu::vk::{
    Buffer, GraphicsOptions, GraphicsPipeline, LayoutCache, PipelineLayout, describe_layout, raw,
};
use std::sync::Arc;
use vk_support::{SIZE, clear_rgba8, module, render, validated};

/// The same interface (and instance name) on both sides of the tessellation stages, as Blender infos pass one
/// interface through a geometry stage: inputs are renamed `v_in` where a stage declares both.
fn registry() -> (Registry, MemoryLoader) {
    let v = StageInterfaceInfo::new("TessVert", "v").smooth(Type::Vec3, "color");
    let patch = StageInterfaceInfo::new("TessPatch", "patch_data").smooth(Type::Float, "gain");
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_tessellated")
            .vertex_in(0, Type::Vec2, "pos")
            .vertex_in(1, Type::Vec3, "color_in")
            .vertex_out(&v)
            .tessellation_layout(
                3,
                TessDomain::Triangles,
                TessSpacing::Equal,
                FrontFace::CounterClockwise,
            )
            .tess_control_out(&v)
            .tess_patch_out(&patch)
            .tess_evaluation_out(&v)
            .fragment_out(0, Type::Vec4, "frag_color")
            .topology(Topology::PatchList)
            .vertex_source("t.vert.glsl")
            .tess_control_source("t.tesc.glsl")
            .tess_evaluation_source("t.tese.glsl")
            .fragment_source("t.frag.glsl"),
    );
    let loader = MemoryLoader::default()
        .with(
            "t.vert.glsl",
            "void main() {\n  gl_Position = vec4(pos, 0.0, 1.0);\n  v.color = color_in;\n}\n",
        )
        .with(
            "t.tesc.glsl",
            "void main() {\n  gl_out[gl_InvocationID].gl_Position = gl_in[gl_InvocationID].gl_Position;\n  v[gl_InvocationID].color = v_in[gl_InvocationID].color;\n  if (gl_InvocationID == 0) {\n    gl_TessLevelOuter[0] = 4.0;\n    gl_TessLevelOuter[1] = 4.0;\n    gl_TessLevelOuter[2] = 4.0;\n    gl_TessLevelInner[0] = 4.0;\n    patch_data.gain = 0.6;\n  }\n}\n",
        )
        .with(
            "t.tese.glsl",
            "void main() {\n  vec3 w = gl_TessCoord;\n  gl_Position = w.x * gl_in[0].gl_Position + w.y * gl_in[1].gl_Position + w.z * gl_in[2].gl_Position;\n  v.color = (w.x * v_in[0].color + w.y * v_in[1].color + w.z * v_in[2].color) * patch_data.gain;\n}\n",
        )
        .with(
            "t.frag.glsl",
            "void main() {\n  frag_color = vec4(v.color, 1.0);\n}\n",
        );
    (reg, loader)
}

#[test]
fn the_declared_interfaces_chain_through_the_tessellation_stages() {
    let (reg, loader) = registry();
    let (info, plan) = validated(&reg, "test_tessellated");
    assert_eq!(plan.patch_control_points, Some(3));
    let opts = GenerateOptions::new(&loader, &reg);
    let src = |stage| generate(&info, stage, &opts).unwrap().source;
    let tesc = src(Stage::TessControl);
    assert!(tesc.contains("layout(vertices = 3) out;"), "{tesc}");
    assert!(tesc.contains("in TessVert {"), "{tesc}");
    assert!(tesc.contains("} v_in[];"), "{tesc}");
    assert!(tesc.contains("} v[];"), "{tesc}");
    assert!(tesc.contains("patch out TessPatch {"), "{tesc}");
    let tese = src(Stage::TessEvaluation);
    assert!(
        tese.contains("layout(triangles, equal_spacing, ccw) in;"),
        "{tese}"
    );
    assert!(tese.contains("patch in TessPatch {"), "{tese}");
    assert!(
        tese.contains("} v_in[];") && tese.contains("} v;"),
        "{tese}"
    );
    // Per-vertex and per-patch blocks never share a location.
    assert!(
        tese.contains("layout(location = 1) patch in TessPatch"),
        "{tese}"
    );
}

#[test]
fn a_tessellated_triangle_draws_its_interpolated_patch_data() {
    let Some(ctx) = test_context() else { return };
    let (reg, loader) = registry();
    let (info, plan) = validated(&reg, "test_tessellated");
    let stages = [
        Stage::Vertex,
        Stage::TessControl,
        Stage::TessEvaluation,
        Stage::Fragment,
    ];
    let modules: Vec<_> = stages
        .iter()
        .map(|s| (*s, module(&ctx, &reg, &loader, &info, *s)))
        .collect();
    let refs: Vec<_> = modules.iter().map(|(s, m)| (*s, m)).collect();
    let cache = LayoutCache::new(&ctx);
    let layout = Arc::new(PipelineLayout::new(&ctx, &cache, &describe_layout(&plan)).unwrap());
    let p = GraphicsPipeline::new(&ctx, &plan, &refs, layout, &GraphicsOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    // One red triangle over the lower-left half of the target.
    let vertices: [[f32; 5]; 3] = [
        [-1.0, -1.0, 1.0, 0.0, 0.0],
        [1.0, 1.0, 1.0, 0.0, 0.0],
        [-1.0, 1.0, 1.0, 0.0, 0.0],
    ];
    let vb = Buffer::with_data(&ctx, &vertices, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let pixels = render(&ctx, &p, &[&vb], 3, &[]);
    // The color went vertex → control → evaluation (times the per-patch gain of 0.6) → fragment.
    let inside = pixel(&pixels, SIZE, 4, SIZE - 4);
    assert!(
        inside[0].abs_diff(153) <= 1 && inside[1..] == [0, 0, 255],
        "{inside:?}"
    );
    assert_eq!(pixel(&pixels, SIZE, SIZE - 4, 4), clear_rgba8());
    drop((p, vb, modules, cache));
    assert_no_validation_messages(&ctx);
}
