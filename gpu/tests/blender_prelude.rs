//! The Blender prelude on a Vulkan device: `gl_InstanceID` reads `gl_BaseInstanceARB`, whose SPIR-V capability
//! (`DrawParameters`) needs the device feature `shaderDrawParameters`; the device enables it where supported, so a
//! pipeline using it is created without a validation message.

use shader_info::{Frequency, Registry, ShaderCreateInfo, StageInterfaceInfo, Type};
use shader_info_gpu::vk::testing::{assert_no_validation_messages, test_context};
use shader_info_gpu::vk::{GraphicsOptions, LibraryOptions, ShaderLibrary};

#[test]
fn a_pipeline_reading_gl_instance_id_through_the_prelude_is_valid() {
    let Some(ctx) = test_context() else {
        return;
    };
    assert!(ctx.feature_enabled("shaderDrawParameters"));
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("inst.vert.glsl"),
        "void main() {\n  vec4 rect = rects[widgetID];\n  vec2 corner = vec2(float(gl_VertexID & 1), \
         float(gl_VertexID >> 1));\n  tint = vec4(float(widgetID) / 4.0);\n  gl_Position = vec4(mix(rect.xy, \
         rect.zw, corner), 0.0, 1.0);\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("inst.frag.glsl"),
        "void main() {\n  frag_color = tint;\n}\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_prelude_instances")
            .define_value("widgetID", "gl_InstanceID")
            .vertex_out(&StageInterfaceInfo::new("test_prelude_iface", "").flat(Type::Vec4, "tint"))
            .fragment_out(0, Type::Vec4, "frag_color")
            .uniform_buf(0, "vec4", "rects[4]", Frequency::Pass)
            .vertex_source("inst.vert.glsl")
            .fragment_source("inst.frag.glsl")
            .blender_compat(),
    );
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    lib.graphics_pipeline("test_prelude_instances", &GraphicsOptions::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_no_validation_messages(&ctx);
}
