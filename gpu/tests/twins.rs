//! Per-target twins in the libraries: an info with a geometry stage names the info that replaces it where that
//! stage cannot run. The wgpu library (WebGPU has no geometry stage) builds the twin; the Vulkan library builds the
//! info itself on a device with `geometryShader` and the twin on one without.

use shader_info::{
    PrimitiveIn, PrimitiveOut, Registry, ShaderCreateInfo, StageInterfaceInfo, Type,
};
use shader_info_gpu::library::LibraryOptions;
use shader_info_gpu::vk::ShaderLibrary;
use shader_info_gpu::wgpu::{GraphicsOptions, WgpuLibrary};

fn sources() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        (
            "tri.vert.glsl",
            "void main() {\n  v.color = vec4(0.2, 1.0, 0.6, 1.0);\n  gl_Position = vec4(pos, 0.0, 1.0);\n}\n",
        ),
        (
            "tri.geom.glsl",
            "void main() {\n  for (int i = 0; i < 3; i++) {\n    v_out.color = v_in[i].color;\n    \
             gl_Position = gl_in[i].gl_Position;\n    EmitVertex();\n  }\n  EndPrimitive();\n}\n",
        ),
        (
            "tri.frag.glsl",
            "void main() {\n  frag_color = v.color;\n}\n",
        ),
    ] {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn registry() -> Registry {
    let iface = StageInterfaceInfo::new("test_twin_iface", "v").smooth(Type::Vec4, "color");
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_with_geometry")
            .vertex_in(0, Type::Vec2, "pos")
            .vertex_out(&iface)
            .geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, 3)
            .geometry_out(&iface)
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("tri.vert.glsl")
            .geometry_source("tri.geom.glsl")
            .fragment_source("tri.frag.glsl")
            .twin("test_without_geometry"),
    );
    reg.add_info(
        ShaderCreateInfo::new("test_without_geometry")
            .vertex_in(0, Type::Vec2, "pos")
            .vertex_out(&iface)
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("tri.vert.glsl")
            .fragment_source("tri.frag.glsl"),
    );
    reg
}

#[test]
fn the_wgpu_library_builds_the_twin_of_an_info_with_a_geometry_stage() {
    let Some(ctx) = shader_info_gpu::wgpu::testing::test_context(false) else {
        return;
    };
    let dir = sources();
    let mut lib = WgpuLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    let info = lib.validated("test_with_geometry").unwrap();
    assert_eq!(info.name, "test_without_geometry");
    lib.graphics_pipeline("test_with_geometry", &GraphicsOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_vulkan_library_builds_the_info_itself_where_the_device_has_geometry_shaders() {
    let Some(ctx) = shader_info_gpu::vk::testing::test_context() else {
        return;
    };
    let dir = sources();
    let mut lib = ShaderLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    let info = lib.validated("test_with_geometry").unwrap();
    let expected = if ctx.feature_enabled("geometryShader") {
        "test_with_geometry"
    } else {
        "test_without_geometry"
    };
    assert_eq!(info.name, expected);
}

#[test]
fn two_infos_naming_each_other_as_twins_stay_finite() {
    let Some(ctx) = shader_info_gpu::wgpu::testing::test_context(false) else {
        return;
    };
    let dir = sources();
    let mut reg = Registry::new();
    let iface = StageInterfaceInfo::new("test_twin_iface", "v").smooth(Type::Vec4, "color");
    for (name, other) in [
        ("test_twin_a", "test_twin_b"),
        ("test_twin_b", "test_twin_a"),
    ] {
        reg.add_info(
            ShaderCreateInfo::new(name)
                .vertex_in(0, Type::Vec2, "pos")
                .vertex_out(&iface)
                .geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, 3)
                .geometry_out(&iface)
                .fragment_out(0, Type::Vec4, "frag_color")
                .vertex_source("tri.vert.glsl")
                .geometry_source("tri.geom.glsl")
                .fragment_source("tri.frag.glsl")
                .twin(other),
        );
    }
    let mut lib = WgpuLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    // The twin is taken as declared; its own twin is not followed. Neither runs on wgpu: an error, not a loop.
    assert_eq!(lib.validated("test_twin_a").unwrap().name, "test_twin_b");
    assert!(
        lib.graphics_pipeline("test_twin_a", &GraphicsOptions::default())
            .is_err()
    );
}

/// Without a declared topology, the pipeline draws what the geometry stage takes: a stage that takes lines got
/// triangle lists, which Vulkan refuses (the geometry input must fit the topology); one that takes lines with
/// adjacency (as Blender's outline and shadow shaders do) gets lists with adjacency. The validation layer does not
/// check that rule on lavapipe, so the plan's topology is asserted, and each pipeline made without a message.
#[test]
fn a_geometry_stage_gets_the_topology_it_takes_without_a_declared_one() {
    let Some(ctx) = shader_info_gpu::vk::testing::test_context() else {
        return;
    };
    if !ctx.feature_enabled("geometryShader") {
        assert!(
            std::env::var_os("SHADER_INFO_REQUIRE_VULKAN").is_none(),
            "lavapipe has geometryShader"
        );
        return;
    }
    let dir = sources();
    std::fs::write(
        dir.path().join("line.geom.glsl"),
        "void main() {\n  for (int i = 0; i < 2; i++) {\n    v_out.color = v_in[i].color;\n    \
         gl_Position = gl_in[i].gl_Position;\n    EmitVertex();\n  }\n  EndPrimitive();\n}\n",
    )
    .unwrap();
    let iface = StageInterfaceInfo::new("test_line_iface", "v").smooth(Type::Vec4, "color");
    let mut reg = Registry::new();
    for (name, input) in [
        ("test_lines", PrimitiveIn::Lines),
        ("test_lines_adjacency", PrimitiveIn::LinesAdjacency),
    ] {
        reg.add_info(
            ShaderCreateInfo::new(name)
                .vertex_in(0, Type::Vec2, "pos")
                .vertex_out(&iface)
                .geometry_layout(input, PrimitiveOut::LineStrip, 2)
                .geometry_out(&iface)
                .fragment_out(0, Type::Vec4, "frag_color")
                .vertex_source("tri.vert.glsl")
                .geometry_source("line.geom.glsl")
                .fragment_source("tri.frag.glsl"),
        );
    }
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    for (name, topology) in [
        ("test_lines", shader_info::Topology::LineList),
        (
            "test_lines_adjacency",
            shader_info::Topology::LineListWithAdjacency,
        ),
    ] {
        let plan = lib.plan(name).unwrap();
        assert_eq!(
            plan.render_state.as_ref().map(|s| s.topology),
            Some(topology)
        );
        lib.graphics_pipeline(name, &shader_info_gpu::vk::GraphicsOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    shader_info_gpu::vk::testing::assert_no_validation_messages(&ctx);
}
