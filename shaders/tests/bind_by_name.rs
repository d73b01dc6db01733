//! Binding by declared name beyond one resource per binding, on ash (lavapipe, validation on): a declared array of
//! textures takes every element and reads each; what cannot be bound right is refused before any descriptor is
//! written — an array given one element or the wrong count, a buffer smaller than its block, a texel buffer (whose
//! view the declaration cannot make), a cube declaration given a 2D view, a host sampler beside a declared one.

use gpu::library::LibraryOptions;
use gpu::vk::resource::Sampler;
use gpu::vk::{Buffer, DescriptorPool, Image2D, Resource, ShaderLibrary, VkContext, raw};
use shader_info::{
    Diagnostic, Frequency, ImageType, Qualifier, Registry, SamplerState, ShaderCreateInfo,
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
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; pipeline, set, images and buffer live until the wait returns.
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
    assert_eq!(
        result.read_vec::<f32>(),
        [1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0]
    );

    // A texel buffer reads through a view of a format the declaration does not give: never a null view.
    let t = lib.compute_pipeline("bn_texel").unwrap();
    let tpool = DescriptorPool::for_layout(&ctx, t.layout(), 1).unwrap();
    let d = refused(
        t.layout().descriptor_set(
            &tpool,
            &[
                ("lut", Resource::Buffer(&result)),
                ("result", Resource::Buffer(&result)),
            ],
        ),
        &["`lut`", "a buffer view"],
    );
    assert!(d.hint.unwrap().contains("write_texel_buffer"));

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
    drop((
        p, t, c, pool, tpool, cpool, red, green, sampler, result, small, lib,
    ));
    gpu::vk::testing::assert_no_validation_messages(&ctx);
}
