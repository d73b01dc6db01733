//! Storage writes outside compute and capabilities that need a device feature, on a real device with validation
//! on: a fragment stage that counts its fragments into a storage buffer (order-independent transparency, picking
//! and counters do this) needs `fragmentStoresAndAtomics`, and a cube-map array needs `imageCubeArray`. The
//! context enables them where the device has them; without them a module would break a valid-usage rule.

use shader_info::{Frequency, ImageType, Qualifier, Registry, ShaderCreateInfo, Type};
use shader_info_gpu::library::LibraryOptions;
use shader_info_gpu::vk::testing::{
    OffscreenDraw, assert_no_validation_messages, draw_offscreen, test_context,
};
use shader_info_gpu::vk::{Buffer, DescriptorPool, GraphicsOptions, Resource, ShaderLibrary, raw};

#[test]
fn a_fragment_stage_writes_a_storage_buffer_and_a_compute_stage_reads_a_cube_array() {
    let Some(ctx) = test_context() else { return };
    for feature in ["fragmentStoresAndAtomics", "imageCubeArray"] {
        assert!(
            ctx.feature_enabled(feature),
            "{feature} is not enabled on {}",
            ctx.device_name()
        );
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("count.vert.glsl"),
        "void main() {\n  vec2 p = vec2((gl_VertexIndex << 1) & 2, gl_VertexIndex & 2);\n  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("count.frag.glsl"),
        "void main() {\n  atomicAdd(hits[0], 1u);\n  frag_color = vec4(1.0);\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("cube.comp.glsl"),
        "void main() { result[0] = texture(probes, vec4(1.0, 0.0, 0.0, 0.0)); }\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("stores_fragment_count")
            .storage_buf(0, Qualifier::ReadWrite, "uint", "hits[]", Frequency::Pass)
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("count.vert.glsl")
            .fragment_source("count.frag.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("stores_cube_array")
            .sampler(0, ImageType::FloatCubeArray, "probes", Frequency::Pass)
            .storage_buf(1, Qualifier::Write, "vec4", "result[]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("cube.comp.glsl"),
    );
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let p = lib
        .graphics_pipeline("stores_fragment_count", &GraphicsOptions::default())
        .unwrap();
    // The cube array compiles and its pipeline is made (binding a cube-array view is the host's own).
    lib.compute_pipeline("stores_cube_array").unwrap();
    let hits = Buffer::new(&ctx, 16, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    hits.write_slice(&[0u32; 4]).unwrap();
    let pool = DescriptorPool::for_layout(&ctx, p.layout(), 1).unwrap();
    let (set, handle) = p
        .layout()
        .descriptor_set(&pool, &[("hits", Resource::Buffer(&hits))])
        .unwrap();
    let pixels = draw_offscreen(
        &ctx,
        &p,
        &OffscreenDraw {
            size: 8,
            clear: [0.0; 4],
            vertex_buffers: &[],
            sets: &[(set, handle)],
            push: &[],
            vertex_count: 3,
        },
    );
    assert!(
        pixels.chunks(4).all(|px| px[0] == 255),
        "the triangle covers the target"
    );
    assert_eq!(
        hits.read_vec::<u32>()[0],
        64,
        "one count per fragment of the 8×8 target"
    );
    drop((p, pool, hits, lib));
    assert_no_validation_messages(&ctx);
}
