//! The host-side mistakes a renderer makes, each refused where it is made with a message naming the declared
//! item — never a silent wrong frame — on ash and on wgpu (lavapipe, validation on; any message fails). The
//! README's "The host side" table lists these cases and their messages.

use glam::Vec4;
use gpu::library::{Backend, Key, Library, LibraryOptions};
use gpu::vk::{Buffer, DescriptorPool, Resource, ShaderLibrary, raw};
use gpu::wgpu::{Bind, WgpuLibrary};
use shader_info::{
    Code, Diagnostic, Frequency, ImageType, NoPush, NoVertices, Qualifier, Registry,
    ShaderCreateInfo, ShaderStruct, ShaderVertex, SpecValues, Type,
};
use shaders::infos::compute::ComputePrefixSum;

/// A compute info with a push block (`float scale; uint count;`), a storage buffer and a uniform buffer in set 0,
/// and a specialization constant.
fn compute_info() -> ShaderCreateInfo {
    ShaderCreateInfo::new("hm_compute")
        .storage_buf(0, Qualifier::Write, "float", "result[]", Frequency::Pass)
        .uniform_buf(1, "vec4", "params", Frequency::Pass)
        .push_constant(Type::Float, "scale")
        .push_constant(Type::Uint, "count")
        .specialization_constant(Type::Uint, "TAPS", 4u32)
        .local_group_size(1)
        .compute_source("hm.comp.glsl")
}

/// A graphics info reading `pos` and `color`, with a texture and a uniform in set 1 and a buffer in set 0, and
/// two branches whose both-on permutation is never used.
fn draw_info() -> ShaderCreateInfo {
    ShaderCreateInfo::new("hm_draw")
        .vertex_in(0, Type::Vec2, "pos")
        .vertex_in(1, Type::Vec4, "color")
        .fragment_out(0, Type::Vec4, "frag_color")
        .storage_buf(0, Qualifier::Read, "float", "weights[]", Frequency::Pass)
        .sampler(0, ImageType::Float2D, "tex", Frequency::Batch)
        .uniform_buf(1, "vec4", "tint", Frequency::Batch)
        .push_constant(Type::Vec4, "offset")
        .branch("GRAYSCALE")
        .branch("TINT")
        .specialize(|v| {
            if v.get("GRAYSCALE") && v.get("TINT") {
                v.never_used();
            }
        })
        .vertex_source("hm.vert.glsl")
        .fragment_source("hm.frag.glsl")
}

const COMP: &str =
    "void main() {\n  result[0] = scale * float(count) + params.x + float(TAPS);\n}\n";
const VERT: &str = "void main() {\n  gl_Position = vec4(pos + offset.xy + vec2(weights[0]), 0.0, 1.0);\n  v_color = color;\n}\n";
const FRAG: &str = "void main() {\n  frag_color = v_color * texture(tex, vec2(0.5)) * tint;\n  if (GRAYSCALE) { frag_color = frag_color.ggga; }\n}\n";

fn registry() -> Registry {
    let iface = shader_info::StageInterfaceInfo::new("hm_iface", "").smooth(Type::Vec4, "v_color");
    let mut reg = Registry::global().clone();
    reg.add_info(compute_info());
    reg.add_info(draw_info().vertex_out(&iface));
    reg.add_info(
        ShaderCreateInfo::new("hm_no_push")
            .storage_buf(0, Qualifier::Write, "float", "result[]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("hm_no_push.comp.glsl"),
    );
    reg
}

fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (f, text) in [
        ("hm.comp.glsl", COMP),
        ("hm.vert.glsl", VERT),
        ("hm.frag.glsl", FRAG),
        ("hm_no_push.comp.glsl", "void main() { result[0] = 1.0; }\n"),
    ] {
        std::fs::write(dir.path().join(f), text).unwrap();
    }
    dir
}

/// The compute info's block as its twin.
#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
struct ComputePush {
    scale: f32,
    count: u32,
}

/// A push struct that drifted: `count` renamed.
#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
struct DriftedPush {
    scale: f32,
    counter: u32,
}

#[derive(Clone, Copy, ShaderStruct)]
#[repr(C)]
#[shader(std430)]
struct DrawPush {
    offset: Vec4,
}

#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable, ShaderVertex)]
#[repr(C)]
struct DrawVertex {
    pos: [f32; 2],
    color: [f32; 4],
}

/// The vertex struct with its fields in the wrong order.
#[derive(Clone, Copy, bytemuck::Pod, bytemuck::Zeroable, ShaderVertex)]
#[repr(C)]
struct SwappedVertex {
    color: [f32; 4],
    pos: [f32; 2],
}

/// The first error's diagnostics (the library's error as diagnostics naming the key).
fn diagnostics<B: Backend, T>(r: Result<T, B::Error>, key: &str) -> Vec<Diagnostic> {
    match r {
        Ok(_) => panic!("`{key}`: the mistake was accepted"),
        Err(e) => B::diagnostics(e, key),
    }
}

/// Asserts one diagnostic of `code` whose message names every one of `names`, and returns it.
fn named(d: &[Diagnostic], code: Code, names: &[&str]) -> Diagnostic {
    d.iter()
        .find(|d| d.code == code && names.iter().all(|n| d.message.contains(n)))
        .unwrap_or_else(|| {
            panic!(
                "no {code:?} naming {names:?}:\n{}",
                shader_info::render_all(d)
            )
        })
        .clone()
}

/// The mistakes every backend refuses the same way, through the core.
/// `per_input`: options whose vertex inputs are one buffer each.
fn refused_alike<B: Backend>(
    lib: &mut Library<B>,
    draw_options: &B::GraphicsOptions,
    per_input: &B::GraphicsOptions,
) {
    // 1. A push struct that drifted from the block: at the fetch, naming the member.
    let d = diagnostics::<B, _>(lib.typed_compute::<DriftedPush>("hm_compute"), "hm_compute");
    named(&d, Code::HostMismatch, &["count"]);
    // 2. A vertex struct whose fields are in another order: at the fetch, naming the field.
    let d = diagnostics::<B, _>(
        lib.typed_graphics::<SwappedVertex, DrawPush>("hm_draw", draw_options),
        "hm_draw",
    );
    named(&d, Code::HostMismatch, &["pos"]);
    // 3. No vertex struct for an info that reads vertex inputs.
    let d = diagnostics::<B, _>(
        lib.typed_graphics::<NoVertices, DrawPush>("hm_draw", draw_options),
        "hm_draw",
    );
    named(&d, Code::HostMismatch, &["pos", "color", "NoVertices"]);
    // 3b. The vertex struct is one interleaved buffer: a pipeline reading a buffer per input would read other
    //     strides.
    let d = diagnostics::<B, _>(
        lib.typed_graphics::<DrawVertex, DrawPush>("hm_draw", per_input),
        "hm_draw",
    );
    named(
        &d,
        Code::HostMismatch,
        &["DrawVertex", "VertexArrangement::PerInput", "2 buffers"],
    );
    // 4. No push block for an info that declares one.
    let d = diagnostics::<B, _>(lib.typed_compute::<NoPush>("hm_compute"), "hm_compute");
    named(&d, Code::HostMismatch, &["push-constant block", "NoPush"]);
    // 5. The #[derive(ShaderInfo)] block of another info.
    let d = diagnostics::<B, _>(
        lib.typed_compute::<ComputePrefixSum>("hm_compute"),
        "hm_compute",
    );
    named(
        &d,
        Code::HostMismatch,
        &["ComputePrefixSum", "gpu_compute_prefix_sum", "hm_compute"],
    );
    // 6. A branch that is not declared: did you mean.
    let d = diagnostics::<B, _>(lib.variant("hm_draw", &[("GREYSCALE", true)]), "hm_draw");
    let e = named(&d, Code::Branch, &["GREYSCALE"]);
    assert!(e.hint.unwrap().contains("`GRAYSCALE`"));
    // 7. A permutation the info's specialize function never produces.
    let d = diagnostics::<B, _>(
        lib.variant("hm_draw", &[("GRAYSCALE", true), ("TINT", true)]),
        "hm_draw",
    );
    named(&d, Code::Branch, &["hm_draw", "GRAYSCALE", "TINT"]);
    // 8. A key made for a variant the info does not have (a key kept from an older declaration).
    let stale = Key::variant_of("hm_draw", 7);
    let d = diagnostics::<B, _>(lib.graphics_pipeline(&stale, draw_options), "hm_draw");
    assert!(
        d.iter().any(|d| d.message.contains("hm_draw")),
        "{}",
        shader_info::render_all(&d)
    );
    // 9. A specialization value of the wrong type: naming the constant.
    let d = diagnostics::<B, _>(
        lib.compute_pipeline_with("hm_compute", &SpecValues::default().set("TAPS", 1.5f32)),
        "hm_compute",
    );
    assert!(
        d.iter().any(|d| d.message.contains("TAPS")),
        "{}",
        shader_info::render_all(&d)
    );
    // 10. A pipeline of the wrong kind: the call that fetches it.
    let d = diagnostics::<B, _>(
        lib.graphics_pipeline("hm_compute", draw_options),
        "hm_compute",
    );
    let e = named(&d, Code::MixedPipelineKinds, &["hm_compute"]);
    assert!(e.hint.unwrap().contains("compute_pipeline"));
    // 11. Branches chosen on a variant's key: its own choice would be replaced, silently.
    let variant = lib.variant("hm_draw", &[("TINT", true)]).unwrap();
    let d = diagnostics::<B, _>(lib.variant(variant.as_str(), &[("TINT", false)]), "hm_draw");
    let e = named(&d, Code::Branch, &["is a variant of `hm_draw`"]);
    assert!(e.hint.unwrap().contains("pass `hm_draw`"));
    // The right types pass, once checked.
    lib.typed_graphics::<DrawVertex, DrawPush>(&variant, draw_options)
        .unwrap_or_else(|e| panic!("{}", shader_info::render_all(&B::diagnostics(e, "hm_draw"))));
    lib.typed_compute::<ComputePush>("hm_compute")
        .unwrap_or_else(|e| {
            panic!(
                "{}",
                shader_info::render_all(&B::diagnostics(e, "hm_compute"))
            )
        });
}

/// Asserts a binding error names the resource, and that the declaration's Rust line is this file.
fn names_declared(d: &[Diagnostic], names: &[&str]) {
    let e = named(d, Code::HostMismatch, names);
    if e.item.is_some() {
        assert!(
            e.origin.file.ends_with("host_mistakes.rs"),
            "the declaration's line: {e:?}"
        );
    }
}

#[test]
fn ash_refuses_each_host_mistake_naming_the_declared_item() {
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let dir = root();
    let mut lib = ShaderLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    let per_input = gpu::vk::GraphicsOptions {
        vertex_layout: shader_info::VertexArrangement::PerInput,
        ..Default::default()
    };
    refused_alike(&mut lib, &gpu::vk::GraphicsOptions::default(), &per_input);

    let p = lib
        .typed_graphics::<DrawVertex, DrawPush>("hm_draw", &Default::default())
        .unwrap();
    let pool = DescriptorPool::for_layout(&ctx, p.layout(), 4).unwrap();
    let buffer = Buffer::new(
        &ctx,
        64,
        raw::BufferUsageFlags::STORAGE_BUFFER | raw::BufferUsageFlags::UNIFORM_BUFFER,
    )
    .unwrap();
    let bind = |resources: &[(&str, Resource<'_>)]| p.layout().descriptor_set(&pool, resources);
    let err = |r: gpu::vk::VkResult<(u32, raw::DescriptorSet)>| {
        r.unwrap_err().into_diagnostics("hm_draw")
    };
    // 11. A resource left out of its set: named, with where it was declared.
    names_declared(
        &err(bind(&[("tint", Resource::Buffer(&buffer))])),
        &["`tex`", "left out"],
    );
    // 12. A resource of the wrong kind.
    let image =
        gpu::vk::Image2D::texture(&ctx, 1, 1, raw::Format::R8G8B8A8_UNORM, &[255; 4]).unwrap();
    let sampler = gpu::vk::Sampler::new(&ctx, raw::Filter::NEAREST).unwrap();
    names_declared(
        &err(bind(&[
            ("tint", Resource::Texture(&image)),
            ("tex", Resource::Sampled(&image, &sampler)),
        ])),
        &["`tint`", "takes a buffer"],
    );
    // 13. Resources of two sets in one group (the set is derived, never typed).
    names_declared(
        &err(bind(&[
            ("weights", Resource::Buffer(&buffer)),
            ("tint", Resource::Buffer(&buffer)),
        ])),
        &["one set", "`weights` is in set 0", "`tint` is in set 1"],
    );
    // 14. An unknown name: did you mean.
    let d = err(bind(&[("tin", Resource::Buffer(&buffer))]));
    assert!(
        named(&d, Code::HostMismatch, &["`tin`"])
            .hint
            .unwrap()
            .contains("`tint`")
    );
    // The complete set binds, at the derived set.
    let (set, _) = bind(&[
        ("tex", Resource::Sampled(&image, &sampler)),
        ("tint", Resource::Buffer(&buffer)),
    ])
    .unwrap();
    assert_eq!(set, 1);
    // 15. Push bytes of the wrong length (the raw entry point): naming the info and both sizes.
    let c = lib.compute_pipeline("hm_compute").unwrap();
    let mut pushed = Ok(());
    ctx.submit_and_wait(|_, cmd| {
        // SAFETY: `cmd` is recording; the pushed length is checked before anything is recorded.
        pushed = unsafe { c.layout().push(cmd, &[0u8; 12]) };
    })
    .unwrap();
    let d = pushed.unwrap_err().into_diagnostics("hm_compute");
    named(
        &d,
        Code::HostMismatch,
        &["hm_compute", "8 bytes", "12 bytes were pushed"],
    );
    // 15b. Bytes pushed to a pipeline whose info declares no block: refused as on wgpu, never dropped silently.
    let n = lib.compute_pipeline("hm_no_push").unwrap();
    let mut pushed = Ok(());
    ctx.submit_and_wait(|_, cmd| {
        // SAFETY: `cmd` is recording; nothing is recorded for a refused push.
        pushed = unsafe { n.layout().push(cmd, &[0u8; 8]) };
    })
    .unwrap();
    let d = pushed.unwrap_err().into_diagnostics("hm_no_push");
    named(
        &d,
        Code::HostMismatch,
        &["hm_no_push", "declares no push constants"],
    );
    drop((p, c, n, pool, buffer, image, sampler, lib));
    gpu::vk::testing::assert_no_validation_messages(&ctx);
}

#[test]
fn wgpu_refuses_each_host_mistake_naming_the_declared_item() {
    use gpu::wgpu::raw as w;
    let Some(ctx) = gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let dir = root();
    let mut lib = WgpuLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    let per_input = gpu::wgpu::GraphicsOptions {
        vertex_layout: shader_info::VertexArrangement::PerInput,
        ..Default::default()
    };
    refused_alike(&mut lib, &gpu::wgpu::GraphicsOptions::default(), &per_input);

    let p = lib
        .typed_graphics::<DrawVertex, DrawPush>("hm_draw", &Default::default())
        .unwrap();
    let buffer = gpu::wgpu::testing::storage_buffer(&ctx, &[0u8; 64]);
    let uniform = ctx.device.create_buffer(&w::BufferDescriptor {
        label: None,
        size: 16,
        usage: w::BufferUsages::UNIFORM,
        mapped_at_creation: false,
    });
    let err =
        |r: gpu::wgpu::WgpuResult<gpu::wgpu::SetGroup>| r.unwrap_err().into_diagnostics("hm_draw");
    names_declared(
        &err(p.bind_group(&ctx, &[("tint", Bind::Buffer(&uniform))])),
        &["`tex`", "left out"],
    );
    let texture = ctx.device.create_texture(&w::TextureDescriptor {
        label: None,
        size: w::Extent3d {
            width: 1,
            height: 1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: w::TextureDimension::D2,
        format: w::TextureFormat::Rgba8Unorm,
        usage: w::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    let view = texture.create_view(&Default::default());
    let sampler = ctx.device.create_sampler(&Default::default());
    names_declared(
        &err(p.bind_group(
            &ctx,
            &[
                ("tint", Bind::Texture(&view)),
                ("tex", Bind::Sampled(&view, &sampler)),
            ],
        )),
        &["`tint`", "takes a buffer"],
    );
    names_declared(
        &err(p.bind_group(
            &ctx,
            &[
                ("weights", Bind::Buffer(&buffer)),
                ("tint", Bind::Buffer(&uniform)),
            ],
        )),
        &["one set"],
    );
    let d = err(p.bind_group(&ctx, &[("tin", Bind::Buffer(&uniform))]));
    assert!(
        named(&d, Code::HostMismatch, &["`tin`"])
            .hint
            .unwrap()
            .contains("`tint`")
    );
    // Set 1 (`tex` and `tint`) with one of them wrong.
    let set1 =
        |tex: Bind<'_>, tint: Bind<'_>| err(p.bind_group(&ctx, &[("tex", tex), ("tint", tint)]));
    // A uniform given a storage-only buffer: before wgpu, whose refusal names the buffer's label.
    names_declared(
        &set1(Bind::Sampled(&view, &sampler), Bind::Buffer(&buffer)),
        &["`tint`", "without BufferUsages(UNIFORM)"],
    );
    // What wgpu itself refuses is said at the declared resource, through the WGSL binding number its message
    // names: a comparison sampler for a float texture (the sampler half of a combined sampler has a binding number
    // of its own, one the user never declared).
    let compare = ctx.device.create_sampler(&w::SamplerDescriptor {
        compare: Some(w::CompareFunction::Less),
        ..Default::default()
    });
    names_declared(
        &set1(Bind::Sampled(&view, &compare), Bind::Buffer(&uniform)),
        &["`tex`", "wgpu refused"],
    );
    // A combined sampler without a declared state cannot be bound as a texture alone.
    names_declared(
        &err(p.bind_group(
            &ctx,
            &[
                ("tex", Bind::Texture(&view)),
                ("tint", Bind::Buffer(&uniform)),
            ],
        )),
        &["`tex`", "a texture and a sampler"],
    );
    let group = p
        .bind_group(
            &ctx,
            &[
                ("tex", Bind::Sampled(&view, &sampler)),
                ("tint", Bind::Buffer(&uniform)),
            ],
        )
        .unwrap();
    assert_eq!(group.set, 1);
    let c = lib.compute_pipeline("hm_compute").unwrap();
    let d = c
        .push(&ctx, &[0u8; 12])
        .unwrap_err()
        .into_diagnostics("hm_compute");
    named(
        &d,
        Code::HostMismatch,
        &["hm_compute", "12 bytes were pushed"],
    );
    let n = lib.compute_pipeline("hm_no_push").unwrap();
    let d = n
        .push(&ctx, &[0u8; 8])
        .unwrap_err()
        .into_diagnostics("hm_no_push");
    named(
        &d,
        Code::HostMismatch,
        &["hm_no_push", "declares no push constants"],
    );
    drop(n);
    gpu::wgpu::testing::assert_quiet(&ctx);

    // 16. What wgpu raises later about the library's objects (here a dispatch without its bind group) is
    //     reported by the next fetch of that info (or the next reload), naming it, not printed at exit.
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&c.pipeline);
        pass.dispatch_workgroups(1, 1, 1);
    }
    ctx.queue.submit([enc.finish()]);
    ctx.wait_idle();
    // Another key's fetch is not failed by it (its draw would be dropped for nothing); `hm_compute`'s is.
    lib.compute_pipeline("hm_no_push")
        .expect("an error about hm_compute does not fail hm_no_push's fetch");
    let d =
        diagnostics::<gpu::wgpu::WgpuBackend, _>(lib.compute_pipeline("hm_compute"), "hm_compute");
    named(&d, Code::Device, &["hm_compute"]);
    lib.compute_pipeline("hm_compute")
        .expect("a raised error is reported once");
    // Those errors (the encoder's, then the submission's) were the test's own doing; the layer saw nothing.
    assert!(
        ctx.uncaptured_errors()
            .iter()
            .all(|e| e.contains("hm_compute") || e.contains("Invalid"))
    );
    drop((p, c, group, lib));
    ctx.wait_idle();
    assert!(gpu::wgpu::messages::captured().is_empty());
}
