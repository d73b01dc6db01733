//! Binding by declared name beyond one resource per binding, on ash (lavapipe, validation on): a declared array of
//! textures takes every element and reads each; what cannot be bound right is refused before any descriptor is
//! written — an array given one element or the wrong count, a buffer smaller than its block or without the usage
//! its descriptor needs, a texel buffer without a format of its kind, a cube declaration given a 2D view, a host
//! sampler beside a declared one. A texel buffer with its format reads through a view the pool makes.

use gpu::library::LibraryOptions;
use gpu::vk::resource::Sampler;
use gpu::vk::{Buffer, DescriptorPool, Image2D, Resource, ShaderLibrary, VkContext, raw};
use shader_info::{
    CompareOp, Diagnostic, Frequency, ImageType, Qualifier, Registry, SamplerState,
    ShaderCreateInfo, TextureFormat,
};

fn registry() -> Registry {
    let mut reg = Registry::global().clone();
    reg.add_info(
        ShaderCreateInfo::new("bn_array")
            .sampler(0, ImageType::Float2D, "layers[2]", Frequency::Pass)
            .storage_buf(1, Qualifier::Write, "vec4", "result[]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("bn_array.comp.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("bn_texel")
            .sampler(0, ImageType::FloatBuffer, "lut", Frequency::Pass)
            .storage_buf(1, Qualifier::Write, "vec4", "result[]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("bn_texel.comp.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("bn_storage")
            .image(
                0,
                TextureFormat::Rgba8,
                Qualifier::Write,
                ImageType::Float2D,
                "target",
                Frequency::Pass,
            )
            .local_group_size(1)
            .compute_source("bn_storage.comp.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("bn_cube")
            .sampler(0, ImageType::FloatCube, "sky", Frequency::Pass)
            .sampler_with_state(
                1,
                ImageType::Float2D,
                "pinned",
                Frequency::Pass,
                SamplerState::nearest(),
            )
            .storage_buf(2, Qualifier::Write, "vec4", "result[]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("bn_cube.comp.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("bn_fixed")
            .sampler_with_state(
                0,
                ImageType::Shadow2D,
                "shadow",
                Frequency::Pass,
                SamplerState::nearest().compare(CompareOp::Less),
            )
            .storage_buf(1, Qualifier::Write, "vec4", "result[]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("bn_fixed.comp.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("bn_kinds")
            .sampler(0, ImageType::Int2D, "ids", Frequency::Pass)
            .sampler(1, ImageType::Shadow2D, "shadow", Frequency::Pass)
            .sampler(2, ImageType::Float2D, "color", Frequency::Pass)
            .storage_buf(3, Qualifier::Write, "vec4", "result[]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("bn_kinds.comp.glsl"),
    );
    reg
}

fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (f, text) in [
        (
            "bn_array.comp.glsl",
            "void main() {\n  result[0] = texelFetch(layers[0], ivec2(0), 0);\n  result[1] = texelFetch(layers[1], ivec2(0), 0);\n}\n",
        ),
        (
            "bn_texel.comp.glsl",
            "void main() { result[0] = texelFetch(lut, 0); }\n",
        ),
        (
            "bn_storage.comp.glsl",
            "void main() { imageStore(target, ivec2(0), vec4(1.0)); }\n",
        ),
        (
            "bn_kinds.comp.glsl",
            "void main() {\n  result[0] = vec4(texture(ids, vec2(0.5))) + vec4(texture(shadow, vec3(0.5, 0.5, 0.5)))\n    + texture(color, vec2(0.5));\n}\n",
        ),
        (
            "bn_fixed.comp.glsl",
            "void main() { result[0] = vec4(texture(shadow, vec3(0.5, 0.5, 0.5))); }\n",
        ),
        (
            "bn_cube.comp.glsl",
            "void main() { result[0] = texture(sky, vec3(1.0, 0.0, 0.0)) + texture(pinned, vec2(0.5)); }\n",
        ),
    ] {
        std::fs::write(dir.path().join(f), text).unwrap();
    }
    dir
}

fn texel(ctx: &VkContext, rgba: [u8; 4]) -> Image2D {
    Image2D::texture(ctx, 1, 1, raw::Format::R8G8B8A8_UNORM, &rgba).unwrap()
}

/// Runs `p` once with `handle` bound at `set`, and waits.
fn dispatch(ctx: &VkContext, p: &gpu::vk::ComputePipeline, set: u32, handle: raw::DescriptorSet) {
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; pipeline, set and what it points at live until the wait returns.
        unsafe {
            d.cmd_bind_pipeline(cmd, raw::PipelineBindPoint::COMPUTE, p.handle());
            d.cmd_bind_descriptor_sets(
                cmd,
                raw::PipelineBindPoint::COMPUTE,
                p.layout().handle(),
                set,
                &[handle],
                &[],
            );
            d.cmd_dispatch(cmd, 1, 1, 1);
            gpu::vk::resource::host_read_barrier(
                d,
                cmd,
                raw::PipelineStageFlags2::COMPUTE_SHADER,
                raw::AccessFlags2::SHADER_WRITE,
            );
        }
    })
    .unwrap();
}

/// The one error of a refused bind, with `words` in its message.
fn refused(r: gpu::vk::VkResult<(u32, raw::DescriptorSet)>, words: &[&str]) -> Diagnostic {
    let d = r.unwrap_err().into_diagnostics("bind");
    assert_eq!(d.len(), 1, "{d:?}");
    for w in words {
        assert!(d[0].message.contains(w), "`{w}` not in: {}", d[0].message);
    }
    d[0].clone()
}

#[test]
fn ash_binds_a_texture_array_by_name_and_refuses_what_does_not_fit() {
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let dir = root();
    let mut lib = ShaderLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    let p = lib.compute_pipeline("bn_array").unwrap();
    let pool = DescriptorPool::for_layout(&ctx, p.layout(), 4).unwrap();
    let (red, green) = (texel(&ctx, [255, 0, 0, 255]), texel(&ctx, [0, 255, 0, 255]));
    let sampler = Sampler::new(&ctx, raw::Filter::NEAREST).unwrap();
    let result = Buffer::new(&ctx, 32, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    let small = Buffer::new(&ctx, 8, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    let bind = |resources: &[(&str, Resource<'_>)]| p.layout().descriptor_set(&pool, resources);

    // One element for an array of two: the second would be an unwritten descriptor.
    refused(
        bind(&[
            ("layers", Resource::Sampled(&red, &sampler)),
            ("result", Resource::Buffer(&result)),
        ]),
        &[
            "`layers`",
            "2 textures with samplers",
            "a texture and a sampler was given",
        ],
    );
    let three = [(&red, &sampler), (&green, &sampler), (&red, &sampler)];
    refused(
        bind(&[
            ("layers", Resource::SampledArray(&three)),
            ("result", Resource::Buffer(&result)),
        ]),
        &["`layers`", "3 textures with samplers was given"],
    );
    // A runtime array of vec4 needs one element: 8 bytes would be written past.
    let d = refused(
        bind(&[
            ("layers", Resource::SampledArray(&three[..2])),
            ("result", Resource::Buffer(&small)),
        ]),
        &["`result`", "at least 16 bytes", "a buffer of 8 bytes"],
    );
    assert_eq!(d.item.as_deref(), Some("resource `result`"));

    // Both elements, in order: the shader reads red from the first and green from the second.
    result.write_slice(&[0.5f32; 8]).unwrap();
    let (set, handle) = bind(&[
        (
            "layers",
            Resource::SampledArray(&[(&red, &sampler), (&green, &sampler)]),
        ),
        ("result", Resource::Buffer(&result)),
    ])
    .unwrap();
    dispatch(&ctx, &p, set, handle);
    assert_eq!(
        result.read_vec::<f32>(),
        [1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    );

    // A texel buffer is read through a view of a format: a buffer alone, a format of the other component kind,
    // a buffer without the texel usage are refused; a float format reads the texel.
    let t = lib.compute_pipeline("bn_texel").unwrap();
    let tpool = DescriptorPool::for_layout(&ctx, t.layout(), 2).unwrap();
    let usage = raw::BufferUsageFlags::UNIFORM_TEXEL_BUFFER;
    let lut = Buffer::with_data(&ctx, &[0.25f32, 0.5, 0.75, 1.0], usage).unwrap();
    let plain =
        Buffer::with_data(&ctx, &[0.25f32; 4], raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    let texel_set = |lut: Resource<'_>, result: &Buffer| {
        t.layout().descriptor_set(
            &tpool,
            &[("lut", lut), ("result", Resource::Buffer(result))],
        )
    };
    let d = refused(
        texel_set(Resource::Buffer(&lut), &result),
        &["`lut`", "a texel buffer"],
    );
    assert!(d.hint.unwrap().contains("TexelBuffer"));
    refused(
        texel_set(
            Resource::TexelBuffer(&lut, TextureFormat::Rgba32ui),
            &result,
        ),
        &["`lut`", "float or normalized", "Rgba32ui"],
    );
    // A buffer without the texel-buffer usage: refused at its declaration, before the set is allocated.
    let d = refused(
        texel_set(
            Resource::TexelBuffer(&plain, TextureFormat::Rgba32f),
            &result,
        ),
        &["`lut`", "UNIFORM_TEXEL_BUFFER"],
    );
    assert_eq!(d.item.as_deref(), Some("resource `lut`"));
    assert!(d.origin.file.ends_with("bind_by_name.rs"), "{d:?}");
    // A storage buffer made for uniforms: refused before it reaches a descriptor.
    let uniform = Buffer::new(&ctx, 32, raw::BufferUsageFlags::UNIFORM_BUFFER).unwrap();
    refused(
        texel_set(
            Resource::TexelBuffer(&lut, TextureFormat::Rgba32f),
            &uniform,
        ),
        &["`result`", "STORAGE_BUFFER"],
    );
    result.write_slice(&[0.0f32; 8]).unwrap();
    let (set, handle) =
        texel_set(Resource::TexelBuffer(&lut, TextureFormat::Rgba32f), &result).unwrap();
    dispatch(&ctx, &t, set, handle);
    assert_eq!(result.read_vec::<f32>()[..4], [0.25, 0.5, 0.75, 1.0]);

    // A cube declaration given a 2D view; a host sampler beside a declared one (ignored on Vulkan, used on
    // wgpu: two different frames).
    let c = lib.compute_pipeline("bn_cube").unwrap();
    let cpool = DescriptorPool::for_layout(&ctx, c.layout(), 1).unwrap();
    refused(
        c.layout().descriptor_set(
            &cpool,
            &[
                ("sky", Resource::Sampled(&red, &sampler)),
                ("pinned", Resource::Texture(&green)),
                ("result", Resource::Buffer(&result)),
            ],
        ),
        &["`sky`", "FloatCube", "2D view"],
    );
    refused(
        c.layout().descriptor_set(
            &cpool,
            &[
                ("sky", Resource::Sampled(&red, &sampler)),
                ("pinned", Resource::Sampled(&green, &sampler)),
                ("result", Resource::Buffer(&result)),
            ],
        ),
        &[
            "`pinned`",
            "its sampler is declared",
            "a texture and a sampler was given",
        ],
    );
    // A storage image of another format than the declared one: the shader would write texels of the wrong kind.
    let s = lib.compute_pipeline("bn_storage").unwrap();
    let spool = DescriptorPool::for_layout(&ctx, s.layout(), 2).unwrap();
    let storage = |format| Image2D::new(&ctx, 1, 1, format, raw::ImageUsageFlags::STORAGE).unwrap();
    let (ids, rgba) = (
        storage(raw::Format::R32_UINT),
        storage(raw::Format::R8G8B8A8_UNORM),
    );
    refused(
        s.layout()
            .descriptor_set(&spool, &[("target", Resource::Texture(&ids))]),
        &["`target`", "Rgba8", "R32_UINT"],
    );
    s.layout()
        .descriptor_set(&spool, &[("target", Resource::Texture(&rgba))])
        .unwrap();
    drop((
        s, spool, ids, rgba, p, t, c, pool, tpool, cpool, red, green, sampler, result, small, lut,
        plain, uniform, lib,
    ));
    gpu::vk::testing::assert_no_validation_messages(&ctx);
}

/// A sampler and an image must be able to sample the declared kind: a shadow sampler compares depth (a comparison
/// sampler, a depth image), no other sampler compares, integer texels are not filtered, and an image of depth and
/// stencil is not one aspect. Each is a validation error at the dispatch on Vulkan (wgpu refuses its bind group):
/// refused at the bind, naming the resource.
#[test]
fn ash_refuses_a_sampler_or_image_that_cannot_sample_the_declared_kind() {
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let dir = root();
    let mut lib = ShaderLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    let p = lib.compute_pipeline("bn_kinds").unwrap();
    let pool = DescriptorPool::for_layout(&ctx, p.layout(), 2).unwrap();
    let sampled = |format| Image2D::new(&ctx, 1, 1, format, raw::ImageUsageFlags::SAMPLED).unwrap();
    let (ints, depth, color, depth_stencil) = (
        sampled(raw::Format::R8G8B8A8_SINT),
        sampled(raw::Format::D32_SFLOAT),
        sampled(raw::Format::R8G8B8A8_UNORM),
        sampled(raw::Format::D32_SFLOAT_S8_UINT),
    );
    let nearest = Sampler::new(&ctx, raw::Filter::NEAREST).unwrap();
    let linear = Sampler::new(&ctx, raw::Filter::LINEAR).unwrap();
    let compare =
        Sampler::with_state(&ctx, &SamplerState::nearest().compare(CompareOp::Less)).unwrap();
    let result = Buffer::new(&ctx, 16, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    let bind = |ids: Resource<'_>, shadow: Resource<'_>, c: Resource<'_>| {
        p.layout().descriptor_set(
            &pool,
            &[
                ("ids", ids),
                ("shadow", shadow),
                ("color", c),
                ("result", Resource::Buffer(&result)),
            ],
        )
    };
    // As declared, each of the three; every refusal below changes one of them.
    let (i, s, c) = (
        Resource::Sampled(&ints, &nearest),
        Resource::Sampled(&depth, &compare),
        Resource::Sampled(&color, &linear),
    );
    refused(
        bind(Resource::Sampled(&ints, &linear), s, c),
        &["`ids`", "linear sampler"],
    );
    refused(
        bind(i, Resource::Sampled(&color, &compare), c),
        &["`shadow`", "compares depth"],
    );
    refused(
        bind(i, Resource::Sampled(&depth, &nearest), c),
        &["`shadow`", "does not compare"],
    );
    refused(
        bind(i, s, Resource::Sampled(&color, &compare)),
        &["`color`", "comparison sampler"],
    );
    let e = refused(
        bind(i, s, Resource::Sampled(&depth_stencil, &linear)),
        &["`color`", "depth and stencil"],
    );
    assert!(e.hint.unwrap().contains("depth-only"));
    // As declared: bound, and the dispatch runs with the validation layer on.
    let (set, handle) = bind(i, s, c).unwrap();
    dispatch(&ctx, &p, set, handle);
}

/// An image bound alone where the declaration fixes the sampler (`sampler_with_state`) must suit that sampler as a
/// bound pair must: a comparison needs a depth image. Refused at the bind, naming the resource (it was written, and
/// the dispatch compared a colour image); a depth image binds and the dispatch runs with the validation layer on.
#[test]
fn ash_refuses_an_image_that_cannot_take_the_declared_fixed_sampler() {
    let Some(ctx) = gpu::vk::testing::test_context() else {
        return;
    };
    let dir = root();
    let mut lib = ShaderLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    let p = lib.compute_pipeline("bn_fixed").unwrap();
    let pool = DescriptorPool::for_layout(&ctx, p.layout(), 1).unwrap();
    let sampled = |format| Image2D::new(&ctx, 1, 1, format, raw::ImageUsageFlags::SAMPLED).unwrap();
    let (depth, color) = (
        sampled(raw::Format::D32_SFLOAT),
        sampled(raw::Format::R8G8B8A8_UNORM),
    );
    let result = Buffer::new(&ctx, 16, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    let bind = |shadow: &Image2D| {
        p.layout().descriptor_set(
            &pool,
            &[
                ("shadow", Resource::Texture(shadow)),
                ("result", Resource::Buffer(&result)),
            ],
        )
    };
    refused(bind(&color), &["`shadow`", "compares depth"]);
    let (set, handle) = bind(&depth).unwrap();
    dispatch(&ctx, &p, set, handle);
}
