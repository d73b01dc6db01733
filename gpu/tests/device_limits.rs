//! Declarations past the device's own limits — descriptors per stage, geometry invocations, interface locations —
//! are refused with a located diagnostic before the driver sees them, on Vulkan and on wgpu, and the same
//! declarations at the limits build without a validation message. Before, lavapipe's validation layer reported
//! each over-limit pipeline (VUID-VkPipelineLayoutCreateInfo-descriptorType-03016/03017,
//! VUID-VkPipelineShaderStageCreateInfo-stage-00715) while the library returned it as made.

mod vk_support;

use shader_info::{
    Code, Frequency, ImageType, PrimitiveIn, PrimitiveOut, Qualifier, Registry, ShaderCreateInfo,
    StageInterfaceInfo, Type,
};
use shader_info_gpu::vk::testing::{assert_no_validation_messages, test_context};
use shader_info_gpu::vk::{GraphicsOptions, LibraryOptions, ShaderLibrary, VkError};

const VERT: &str = "void main() { gl_Position = vec4(0.0); }\n";

/// A shader root holding `files` (name, text).
fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// A compute stage copying the uniform block `params` to `result[0]`, and its info.
const COPY: (&str, &str) = ("copy.comp.glsl", "void main() { result[0] = params; }\n");

fn ring_reader() -> ShaderCreateInfo {
    ShaderCreateInfo::new("ring_reader")
        .uniform_buf(0, "vec4", "params", Frequency::Pass)
        .storage_buf(1, Qualifier::Write, "vec4", "result[]", Frequency::Pass)
        .local_group_size(1)
        .compute_source(COPY.0)
}
const GEOM: &str = "void main() { for (int i = 0; i < 3; i++) { gl_Position = gl_in[i].gl_Position; x = wide_in[i].m0; EmitVertex(); } EndPrimitive(); }\n";

/// A fragment stage summing `n` textures of `tex[n]`.
fn sampling(name: &str, n: u32) -> ShaderCreateInfo {
    ShaderCreateInfo::new(name)
        .sampler(0, ImageType::Float2D, format!("tex[{n}]"), Frequency::Pass)
        .fragment_out(0, Type::Vec4, "c")
        .vertex_source("a.vert")
        .fragment_source("tex.frag")
}

/// A fragment stage reading `n` uniform buffers `u0`…
fn uniforms(name: &str, n: u32) -> ShaderCreateInfo {
    (0..n).fold(
        ShaderCreateInfo::new(name)
            .fragment_out(0, Type::Vec4, "c")
            .vertex_source("a.vert")
            .fragment_source(format!("{name}.frag")),
        |info, i| info.uniform_buf(i, "vec4", format!("u{i}"), Frequency::Pass),
    )
}

/// A geometry stage of `invocations` reading `locations` vec4 inputs and emitting up to `max_vertices` vertices of
/// one vec4 (and the gl_PerVertex block: 11 components each).
fn geometry(name: &str, invocations: u32, locations: u32, max_vertices: u32) -> ShaderCreateInfo {
    let inputs = (0..locations).fold(StageInterfaceInfo::new("wide", ""), |i, m| {
        i.smooth(Type::Vec4, format!("m{m}"))
    });
    ShaderCreateInfo::new(name)
        .geometry_layout_instanced(
            PrimitiveIn::Triangles,
            PrimitiveOut::TriangleStrip,
            max_vertices,
            invocations,
        )
        .vertex_out(&inputs)
        .geometry_out(&StageInterfaceInfo::new("narrow", "").smooth(Type::Vec4, "x"))
        .fragment_out(0, Type::Vec4, "c")
        .vertex_source("a.vert")
        .geometry_source("a.geom")
        .fragment_source("x.frag")
}

/// The one error of `r`, which must be a located `OutOfRange` diagnostic of `info` naming `count` and `limit`.
fn refused(r: Result<(), VkError>, info: &str, count: u32, limit: u32) -> shader_info::Diagnostic {
    let e = r.expect_err("past the device's limit");
    let d = e.diagnostics();
    assert_eq!(d.len(), 1, "{e}");
    let d = d[0].clone();
    assert_eq!((d.code, d.info.as_str()), (Code::OutOfRange, info), "{e}");
    assert!(
        d.message.contains(&format!(" {count} ")) && d.message.contains(&format!("allows {limit}")),
        "{e}"
    );
    assert!(
        d.origin.file.ends_with("device_limits.rs") && d.origin.line > 0,
        "located at the declaration: {e}"
    );
    d
}

#[test]
fn declarations_past_the_devices_limits_are_refused_before_the_driver_sees_them() {
    let Some(ctx) = test_context() else { return };
    let limits = ctx.properties().limits;
    let samplers = limits.max_per_stage_descriptor_samplers;
    let ubos = limits
        .max_per_stage_descriptor_uniform_buffers
        .min(limits.max_descriptor_set_uniform_buffers);
    let invocations = limits.max_geometry_shader_invocations;
    let components = limits.max_geometry_input_components;
    // The built-in gl_PerVertex block counts against the limit too (lavapipe: 64 components, 14 locations).
    let geometry_in = (components - shader_info::PER_VERTEX_COMPONENTS) / 4;
    // Past these, declarations are refused by validation before any device is asked (lavapipe: 32, 15, 32, 14).
    if samplers >= 1 << 20 || ubos > 4095 || invocations >= 127 || geometry_in >= 32 {
        eprintln!(
            "this device's limits are past what a declaration can reach; nothing to test here"
        );
        return;
    }
    let dir = tree(&[
        ("a.vert", VERT),
        ("a.geom", GEOM),
        ("x.frag", "void main() { c = x; }\n"),
        (
            "tex.frag",
            "void main() { c = vec4(0.0); for (int i = 0; i < tex.length(); i++) c += texture(tex[i], vec2(0.5)); }\n",
        ),
    ]);
    let write = |f: &str, t: &str| std::fs::write(dir.path().join(f), t).unwrap();
    let mut reg = Registry::new();
    for (name, n) in [("ubo_max", ubos), ("ubo_over", ubos + 1)] {
        let reads: String = (0..n).map(|i| format!(" c += u{i};")).collect();
        write(
            &format!("{name}.frag"),
            &format!("void main() {{ c = vec4(0.0);{reads} }}\n"),
        );
        reg.add_info(uniforms(name, n));
    }
    reg.add_info(sampling("tex_max", samplers));
    reg.add_info(sampling("tex_over", samplers + 1));
    // One invocation emits its vertices' components: 11 each here (a vec4 and the gl_PerVertex block's 7).
    let total = limits.max_geometry_total_output_components;
    let vertices = (total / 11).min(shader_info::MAX_GEOMETRY_OUTPUT_VERTICES - 1);
    reg.add_info(geometry("geom_max", invocations, geometry_in, vertices));
    reg.add_info(geometry("geom_invocations_over", invocations + 1, 1, 3));
    reg.add_info(geometry("geom_inputs_over", 1, geometry_in + 1, 3));
    reg.add_info(geometry("geom_output_over", 1, 1, vertices + 1));
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let mut graphics = |key: &str| -> Result<(), VkError> {
        lib.graphics_pipeline(key, &GraphicsOptions::default())
            .map(drop)
    };

    let d = refused(graphics("tex_over"), "tex_over", samplers + 1, samplers);
    assert!(
        d.message.contains("samplers") && d.message.contains("`tex["),
        "{}",
        d.message
    );
    assert_eq!(d.item.as_deref(), Some("sampler `tex`"));
    let d = refused(graphics("ubo_over"), "ubo_over", ubos + 1, ubos);
    assert!(d.message.contains("uniform buffers"), "{}", d.message);
    let d = refused(
        graphics("geom_invocations_over"),
        "geom_invocations_over",
        invocations + 1,
        invocations,
    );
    assert_eq!(d.item.as_deref(), Some("geometry_layout"));
    let d = refused(
        graphics("geom_inputs_over"),
        "geom_inputs_over",
        geometry_in + 1,
        components,
    );
    assert!(
        d.message.contains(&format!("({geometry_in} locations)")),
        "{}",
        d.message
    );
    assert_eq!(d.item.as_deref(), Some("vertex_out `wide`"));
    if 11 * (vertices + 1) > total {
        let d = refused(
            graphics("geom_output_over"),
            "geom_output_over",
            vertices + 1,
            total,
        );
        assert!(
            d.message
                .contains(&format!("{} components;", 11 * (vertices + 1))),
            "{}",
            d.message
        );
    }
    assert_eq!(d.stage, Some(shader_info::Stage::Geometry));
    // At the limits, every one of them is made, and the layer says nothing about any.
    for key in ["tex_max", "ubo_max", "geom_max"] {
        graphics(key).unwrap_or_else(|e| panic!("{key}: {e}"));
    }
    drop(lib);
    assert_no_validation_messages(&ctx);
}

#[test]
fn wgpu_refuses_descriptors_past_its_limits_with_the_same_diagnostic() {
    let Some(wctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let max = wctx.device.limits().max_storage_buffers_per_shader_stage;
    if max > 4095 {
        eprintln!("this adapter allows more storage buffers than a declaration can bind");
        return;
    }
    let dir = tree(&[]);
    let mut reg = Registry::new();
    for (name, n) in [("ssbo_max", max), ("ssbo_over", max + 1)] {
        let info = (0..n).fold(
            ShaderCreateInfo::new(name)
                .local_group_size(1)
                .compute_source(format!("{name}.comp.glsl")),
            |info, i| {
                info.storage_buf(
                    i,
                    Qualifier::ReadWrite,
                    "uint",
                    format!("b{i}[]"),
                    Frequency::Pass,
                )
            },
        );
        let body: String = (0..n).map(|i| format!(" b{i}[0] += 1u;")).collect();
        std::fs::write(
            dir.path().join(format!("{name}.comp.glsl")),
            format!("void main() {{{body} }}\n"),
        )
        .unwrap();
        reg.add_info(info);
    }
    let mut lib =
        shader_info_gpu::wgpu::WgpuLibrary::new(&wctx, reg, LibraryOptions::new(dir.path()))
            .unwrap();
    let e = lib
        .compute_pipeline("ssbo_over")
        .map(drop)
        .expect_err("past the limit");
    let d = e.diagnostics();
    assert_eq!(d.len(), 1, "{e}");
    assert_eq!(d[0].code, Code::OutOfRange, "{e}");
    assert!(
        d[0].message
            .contains(&format!("{} storage buffers", max + 1))
            && d[0].message.contains(&format!("allows {max} per stage")),
        "{e}"
    );
    lib.compute_pipeline("ssbo_max")
        .unwrap_or_else(|e| panic!("at the limit: {e}"));
    drop(lib);
    shader_info_gpu::wgpu::testing::assert_quiet(&wctx);
}

/// A ring buffer larger than one descriptor spans, bound by name to a uniform block: the descriptor spans what
/// the device allows (it was bound whole, past `maxUniformBufferRange`), and the shader reads the block.
#[test]
fn a_buffer_larger_than_a_descriptor_spans_is_bound_up_to_the_devices_range() {
    use shader_info_gpu::vk::{Buffer, DescriptorPool, Resource, raw};
    let Some(ctx) = test_context() else { return };
    let dir = tree(&[COPY]);
    let range = u64::from(ctx.properties().limits.max_uniform_buffer_range);
    let mut reg = Registry::new();
    reg.add_info(ring_reader());
    // A block past the device's range is refused when the pipeline is made, at its declaration.
    let rows = range / 16 + 1;
    reg.add_info(
        ShaderCreateInfo::new("too_big_block")
            .uniform_buf(0, "vec4", format!("rows[{rows}]"), Frequency::Pass)
            .local_group_size(1)
            .compute_source("copy.comp.glsl"),
    );
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let e = lib
        .compute_pipeline("too_big_block")
        .map(drop)
        .expect_err("past the range");
    let d = e.diagnostics();
    assert_eq!(d.len(), 1, "{e}");
    assert!(
        d[0].message.contains(&format!("{} bytes", rows * 16))
            && d[0].message.contains(&format!("at most {range} bytes")),
        "{e}"
    );
    assert_eq!(d[0].item.as_deref(), Some("uniform_buf `rows`"));
    let p = lib.compute_pipeline("ring_reader").unwrap();
    let ring = Buffer::new(&ctx, range + 4096, raw::BufferUsageFlags::UNIFORM_BUFFER).unwrap();
    ring.write_slice(&[1.0f32, 2.0, 3.0, 4.0]).unwrap();
    let result = Buffer::new(&ctx, 16, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    let pool = DescriptorPool::for_layout(&ctx, p.layout(), 1).unwrap();
    let (set_index, set) = p
        .layout()
        .descriptor_set(
            &pool,
            &[
                ("params", Resource::Buffer(&ring)),
                ("result", Resource::Buffer(&result)),
            ],
        )
        .unwrap();
    assert_eq!(set_index, 0, "`params` and `result` are Pass resources");
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; the pipeline, layout and set live until the wait returns.
        unsafe {
            vk_support::record_dispatch(d, cmd, &p, set, 1);
            shader_info_gpu::vk::resource::host_read_barrier(
                d,
                cmd,
                raw::PipelineStageFlags2::COMPUTE_SHADER,
                raw::AccessFlags2::SHADER_WRITE,
            );
        }
    })
    .unwrap();
    assert_eq!(result.read_vec::<f32>(), vec![1.0, 2.0, 3.0, 4.0]);
    drop((p, pool, ring, result, lib));
    assert_no_validation_messages(&ctx);
}

/// The same on wgpu: a uniform buffer past `max_uniform_buffer_binding_size`, bound by name, made a bind group
/// wgpu refused (it was bound whole).
#[test]
fn wgpu_binds_a_buffer_larger_than_a_binding_spans_up_to_its_limit() {
    use shader_info_gpu::wgpu::{Bind, raw as w};
    let Some(wctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let dir = tree(&[COPY]);
    let mut reg = Registry::new();
    reg.add_info(ring_reader());
    let mut lib =
        shader_info_gpu::wgpu::WgpuLibrary::new(&wctx, reg, LibraryOptions::new(dir.path()))
            .unwrap();
    let p = lib.compute_pipeline("ring_reader").unwrap();
    let max = wctx.device.limits().max_uniform_buffer_binding_size;
    let ring = wctx.device.create_buffer(&w::BufferDescriptor {
        label: Some("ring"),
        size: max + 4096,
        usage: w::BufferUsages::UNIFORM | w::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let values: Vec<u8> = [1.0f32, 2.0, 3.0, 4.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    wctx.queue.write_buffer(&ring, 0, &values);
    let result = shader_info_gpu::wgpu::testing::storage_buffer(&wctx, &[0u8; 16]);
    let group = p
        .bind_group(
            &wctx,
            &[
                ("params", Bind::Buffer(&ring)),
                ("result", Bind::Buffer(&result)),
            ],
        )
        .unwrap();
    let mut enc = wctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&p.pipeline);
        group.set_compute(&mut pass);
        pass.dispatch_workgroups(1, 1, 1);
    }
    wctx.queue.submit([enc.finish()]);
    assert_eq!(wctx.read_buffer(&result).unwrap(), values);
    drop((p, lib));
    shader_info_gpu::wgpu::testing::assert_quiet(&wctx);
}

/// An interleaved vertex whose float input follows a 2-byte packed one: Vulkan reads a Float32x3 only at a
/// multiple of 4 (lavapipe's layer does not check it; the pipeline read its data from the wrong bytes) and wgpu
/// refused the pipeline with its own message. Refused at the input, on both; one buffer per input is fine. Bytes
/// at any offset are valid on Vulkan and made there; WebGPU's stricter rule refuses them on wgpu only.
#[test]
fn an_interleaved_vertex_read_unaligned_is_refused_at_its_input_on_both_backends() {
    use shader_info::{VertexArrangement, VertexFormat};
    let dir = tree(&[
        (
            "v.vert",
            "void main() { gl_Position = vec4(pos + vec3(uv, 0.0), 1.0); }\n",
        ),
        ("v.frag", "void main() { c = vec4(1.0); }\n"),
        (
            "bytes.vert",
            "void main() { gl_Position = vec4(a, b) + color; }\n",
        ),
    ]);
    let mut reg = Registry::new();
    // Valid for Vulkan, which reads Unorm8x4 bytes anywhere; WebGPU reads it only at a multiple of 4.
    reg.add_info(
        ShaderCreateInfo::new("bytes")
            .vertex_in_packed(0, Type::Vec2, VertexFormat::Unorm8x2, "a")
            .vertex_in_packed(1, Type::Vec4, VertexFormat::Unorm8x4, "color")
            .vertex_in_packed(2, Type::Vec2, VertexFormat::Unorm8x2, "b")
            .fragment_out(0, Type::Vec4, "c")
            .vertex_source("bytes.vert")
            .fragment_source("v.frag"),
    );
    reg.add_info(
        ShaderCreateInfo::new("unaligned")
            .vertex_in_packed(0, Type::Vec2, VertexFormat::Unorm8x2, "uv")
            .vertex_in(1, Type::Vec3, "pos")
            .fragment_out(0, Type::Vec4, "c")
            .vertex_source("v.vert")
            .fragment_source("v.frag"),
    );
    // `pos` at byte 2, and a 14-byte vertex that puts the next one's `pos` at byte 16.
    let check = |e: String, diagnostics: &[shader_info::Diagnostic]| {
        assert_eq!(diagnostics.len(), 2, "{e}");
        for d in diagnostics {
            assert_eq!(d.item.as_deref(), Some("vertex_in `pos`"), "{e}");
            assert!(d.origin.file.ends_with("device_limits.rs"), "{e}");
        }
        assert!(
            diagnostics[0].message.contains("at byte 2")
                && diagnostics[0].message.contains("multiples of 4"),
            "{e}"
        );
        assert!(
            diagnostics[1]
                .message
                .contains("14 bytes, not a multiple of 4"),
            "{e}"
        );
    };
    if let Some(ctx) = test_context() {
        let mut lib =
            ShaderLibrary::new(&ctx, reg.clone(), LibraryOptions::new(dir.path())).unwrap();
        let e = lib
            .graphics_pipeline("unaligned", &GraphicsOptions::default())
            .map(drop)
            .expect_err("unaligned");
        check(e.to_string(), e.diagnostics());
        let per_input = GraphicsOptions {
            vertex_layout: VertexArrangement::PerInput,
            ..GraphicsOptions::default()
        };
        lib.graphics_pipeline("unaligned", &per_input)
            .expect("one buffer per input reads every input at 0");
        lib.graphics_pipeline("bytes", &GraphicsOptions::default())
            .expect("Vulkan reads bytes at any offset");
        drop(lib);
        assert_no_validation_messages(&ctx);
    }
    let Some(wctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let mut lib =
        shader_info_gpu::wgpu::WgpuLibrary::new(&wctx, reg, LibraryOptions::new(dir.path()))
            .unwrap();
    let e = lib
        .graphics_pipeline(
            "unaligned",
            &shader_info_gpu::wgpu::GraphicsOptions::default(),
        )
        .map(drop)
        .expect_err("unaligned");
    check(e.to_string(), e.diagnostics());
    let e = lib
        .graphics_pipeline("bytes", &shader_info_gpu::wgpu::GraphicsOptions::default())
        .map(drop)
        .expect_err("WebGPU reads an Unorm8x4 at multiples of 4");
    let d = e.diagnostics();
    assert_eq!(d.len(), 1, "{e}");
    assert_eq!(d[0].item.as_deref(), Some("vertex_in `color`"), "{e}");
    assert!(
        d[0].message.contains("at byte 2")
            && d[0]
                .message
                .contains("WebGPU reads it only at multiples of 4"),
        "{e}"
    );
    drop(lib);
    shader_info_gpu::wgpu::testing::assert_quiet(&wctx);
}

/// An image bound by name must have been made for the descriptor it fills and hold texels of the declared kind:
/// a storage image without `STORAGE` usage, and a `usampler2D` given a normalized image, were written into the
/// set (wgpu's bind-group validation refuses both).
#[test]
fn an_image_bound_by_name_has_the_declared_usage_and_texel_kind() {
    use shader_info_gpu::vk::resource::Sampler;
    use shader_info_gpu::vk::{DescriptorPool, Image2D, Resource, raw};
    let Some(ctx) = test_context() else { return };
    let dir = tree(&[(
        "ids.comp.glsl",
        "void main() { imageStore(out_image, ivec2(0), vec4(texture(ids, vec2(0.5)))); }\n",
    )]);
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("ids_to_image")
            .sampler(0, ImageType::Uint2D, "ids", Frequency::Pass)
            .image(
                1,
                shader_info::TextureFormat::Rgba8,
                Qualifier::Write,
                ImageType::Float2D,
                "out_image",
                Frequency::Pass,
            )
            .local_group_size(1)
            .compute_source("ids.comp.glsl"),
    );
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(dir.path())).unwrap();
    let p = lib.compute_pipeline("ids_to_image").unwrap();
    let pool = DescriptorPool::for_layout(&ctx, p.layout(), 4).unwrap();
    let sampler = Sampler::new(&ctx, raw::Filter::NEAREST).unwrap();
    let sampled = raw::ImageUsageFlags::SAMPLED | raw::ImageUsageFlags::TRANSFER_DST;
    let unorm = Image2D::new(&ctx, 4, 4, raw::Format::R8G8B8A8_UNORM, sampled).unwrap();
    let uint = Image2D::new(&ctx, 4, 4, raw::Format::R32_UINT, sampled).unwrap();
    let storage = Image2D::new(
        &ctx,
        4,
        4,
        raw::Format::R8G8B8A8_UNORM,
        raw::ImageUsageFlags::STORAGE,
    )
    .unwrap();
    let bind = |ids: &Image2D, out: &Image2D| {
        p.layout()
            .descriptor_set(
                &pool,
                &[
                    ("ids", Resource::Sampled(ids, &sampler)),
                    ("out_image", Resource::Texture(out)),
                ],
            )
            .map(drop)
    };
    let e = bind(&unorm, &storage).expect_err("a normalized image for a usampler2D");
    let d = e.diagnostics();
    assert_eq!(d.len(), 1, "{e}");
    assert_eq!(d[0].item.as_deref(), Some("resource `ids`"), "{e}");
    assert!(
        d[0].message.contains("unsigned integer") && d[0].message.contains("R8G8B8A8_UNORM"),
        "{e}"
    );
    let e = bind(&uint, &unorm).expect_err("a storage image without STORAGE usage");
    let d = e.diagnostics();
    assert_eq!(d.len(), 1, "{e}");
    assert_eq!(d[0].item.as_deref(), Some("resource `out_image`"), "{e}");
    assert!(d[0].message.contains("without STORAGE"), "{e}");
    bind(&uint, &storage).expect("the declared usage and kinds");
    drop((p, pool, sampler, unorm, uint, storage, lib));
    assert_no_validation_messages(&ctx);
}
