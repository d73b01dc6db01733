//! Subpass inputs, emulated: `subpass_in` becomes a sampled image read at the fragment's own pixel, bound where
//! the plan derives it; shader code reads the declared name as a value. Every output pixel is computed from the
//! input texel under it, exactly.

mod vk_support;

use shader_info::{
    Code, GenerateOptions, MemoryLoader, Registry, ShaderCreateInfo, Stage, Type, generate,
    render_all,
};
use shader_info_gpu::vk::testing::{
    OffscreenDraw, assert_no_validation_messages, draw_offscreen, test_context,
};
use shader_info_gpu::vk::{Buffer, DescriptorPool, Image2D, raw};
use vk_support::{graphics_pipeline, validated};

const SIZE: u32 = 16;
use vk_support::FULL_QUAD as QUAD;

fn registry() -> (Registry, MemoryLoader) {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("test_invert_previous")
            .vertex_in(0, Type::Vec2, "pos")
            .subpass_in(0, Type::Vec3, "previous")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("p.vert.glsl")
            .fragment_source("p.frag.glsl"),
    );
    let loader = MemoryLoader::default()
        .with(
            "p.vert.glsl",
            "void main() {\n  gl_Position = vec4(pos, 0.0, 1.0);\n}\n",
        )
        .with(
            "p.frag.glsl",
            "void main() {\n  vec3 c = previous;\n  frag_color = vec4(1.0 - c, 1.0);\n}\n",
        );
    (reg, loader)
}

#[test]
fn the_declared_name_reads_the_attachment_texel_under_the_fragment() {
    let (reg, loader) = registry();
    let (info, plan) = validated(&reg, "test_invert_previous");
    let binding = plan
        .bindings()
        .find(|(_, b)| b.name == "previous_input")
        .map(|(set, b)| (set, b.binding))
        .expect("the emulating texture is a binding of the plan");
    assert_eq!(binding, (0, 0));
    let frag = generate(&info, Stage::Fragment, &GenerateOptions::new(&loader, &reg))
        .unwrap()
        .source;
    assert!(
        frag.contains("#define previous texelFetch(previous_input, ivec2(gl_FragCoord.xy), 0).xyz"),
        "{frag}"
    );

    let Some(ctx) = test_context() else { return };
    let texels: Vec<[u8; 4]> = (0..SIZE * SIZE)
        .map(|i| {
            [
                (i % SIZE * 16) as u8,
                (i / SIZE * 16) as u8,
                ((i * 7) % 256) as u8,
                255,
            ]
        })
        .collect();
    let texture = Image2D::texture(
        &ctx,
        SIZE,
        SIZE,
        raw::Format::R8G8B8A8_UNORM,
        bytemuck::cast_slice(&texels),
    )
    .unwrap();
    let p = graphics_pipeline(&ctx, &reg, &loader, &info, &plan).unwrap();
    let pool = DescriptorPool::for_layout(&ctx, p.layout(), 1).unwrap();
    let set = pool.allocate(&p.layout().set_layouts()[0]).unwrap();
    // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
    unsafe {
        pool.write_image_with_immutable_sampler(
            set,
            0,
            &texture,
            raw::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
        )
    };
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let pixels = draw_offscreen(
        &ctx,
        &p,
        &OffscreenDraw {
            size: SIZE,
            clear: [0.0, 0.0, 0.0, 1.0],
            vertex_buffers: &[&vb],
            sets: &[(0, set)],
            push: &[],
            vertex_count: 6,
        },
    );
    for (i, t) in texels.iter().enumerate() {
        let got = &pixels[i * 4..i * 4 + 4];
        assert_eq!(got, [255 - t[0], 255 - t[1], 255 - t[2], 255], "pixel {i}");
    }
    drop((p, pool, vb, texture));
    assert_no_validation_messages(&ctx);
}

#[test]
fn subpass_inputs_that_cannot_be_read_are_refused() {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("bad_subpass")
            .subpass_in(0, Type::Mat4, "m")
            .subpass_in(0, Type::Vec4, "again")
            .subpass_in(9, Type::Vec4, "far")
            .local_group_size(1)
            .compute_source("x.comp"),
    );
    let d = vk_support::problems(&reg, "bad_subpass");
    let text = render_all(&d);
    assert!(d.iter().any(|d| d.code == Code::UnknownType), "{text}");
    assert!(text.contains("read by two subpass inputs"), "{text}");
    assert!(text.contains("reads attachment 9"), "{text}");
    assert!(text.contains("no fragment stage"), "{text}");
}
