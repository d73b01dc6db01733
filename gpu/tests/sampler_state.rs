//! Sampler state declared with a sampler: on ash an immutable sampler of the set layout (the host binds the image
//! alone, and no sampler it passes could change the result), on wgpu a sampler made from the same state. Two
//! infos differ only in their declared filter and draw the pixels that filter gives, on both backends.

mod vk_support;

use shader_info::{
    Code, CompareOp, Frequency, ImageType, MemoryLoader, Registry, SamplerState, ShaderCreateInfo,
    StageInterfaceInfo, TexelFilter, Type, WrapMode,
};
use shader_info_gpu::library::LibraryOptions;
use shader_info_gpu::vk::testing::{
    OffscreenDraw, assert_no_validation_messages, draw_offscreen, test_context,
};
use shader_info_gpu::vk::{Buffer, DescriptorPool, Image2D, describe_layout, raw};
use vk_support::{graphics_pipeline, validated};

const VERT: &str =
    "void main() {\n  uv = pos * 0.5 + 0.5;\n  gl_Position = vec4(pos, 0.0, 1.0);\n}\n";
const FRAG: &str = "void main() {\n  frag_color = texture(image, uv);\n}\n";
const SIZE: u32 = 32;
/// A full-target quad.
use vk_support::FULL_QUAD as QUAD;

fn info(name: &str, state: SamplerState) -> ShaderCreateInfo {
    ShaderCreateInfo::new(name)
        .vertex_in(0, Type::Vec2, "pos")
        .vertex_out(&StageInterfaceInfo::new("test_uv_iface", "").smooth(Type::Vec2, "uv"))
        .fragment_out(0, Type::Vec4, "frag_color")
        .sampler_with_state(0, ImageType::Float2D, "image", Frequency::Batch, state)
        .vertex_source("s.vert.glsl")
        .fragment_source("s.frag.glsl")
}

fn registry() -> Registry {
    let mut reg = Registry::new();
    reg.add_info(info("test_nearest", SamplerState::nearest()));
    reg.add_info(info("test_linear", SamplerState::linear()));
    reg
}

/// Red of the pixel at column `x` of the middle row, for a 2×1 texture black | white stretched over the target.
fn red_at(pixels: &[u8], x: u32) -> u8 {
    pixels[((SIZE / 2 * SIZE + x) * 4) as usize]
}

/// Nearest: hard black | white halves. Linear: a ramp between the texel centers (x = 8 and 24), gray in between.
fn check_filter(name: &str, pixels: &[u8]) {
    let (left, mid, right) = (red_at(pixels, 12), red_at(pixels, 15), red_at(pixels, 20));
    if name == "test_nearest" {
        assert_eq!((left, mid, right), (0, 0, 255), "{name}");
    } else {
        assert!(left > 40 && left < 110, "{name}: {left}");
        assert!(mid > 100 && mid < 150, "{name}: {mid}");
        assert!(right > 150 && right < 230, "{name}: {right}");
    }
}

#[test]
fn a_declared_state_is_the_sampler_on_ash_whatever_the_host_binds() {
    let Some(ctx) = test_context() else { return };
    let reg = registry();
    let loader = MemoryLoader::default()
        .with("s.vert.glsl", VERT)
        .with("s.frag.glsl", FRAG);
    let texels: [[u8; 4]; 2] = [[0, 0, 0, 255], [255, 255, 255, 255]];
    let texture = Image2D::texture(
        &ctx,
        2,
        1,
        raw::Format::R8G8B8A8_UNORM,
        bytemuck::cast_slice(&texels),
    )
    .unwrap();
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    // The host's own sampler is linear: ignored where the declaration fixed the sampler.
    let host_sampler =
        shader_info_gpu::vk::resource::Sampler::new(&ctx, raw::Filter::LINEAR).unwrap();
    for name in ["test_nearest", "test_linear"] {
        let (v, plan) = validated(&reg, name);
        let desc = describe_layout(&plan);
        assert!(desc.sets[1][0].immutable_sampler.is_some(), "{name}");
        let p = graphics_pipeline(&ctx, &reg, &loader, &v, &plan).unwrap();
        let pool = DescriptorPool::for_layout(&ctx, p.layout(), 2).unwrap();
        for with_host_sampler in [false, true] {
            let set = pool.allocate(&p.layout().set_layouts()[1]).unwrap();
            if with_host_sampler {
                // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
                unsafe {
                    pool.write_sampled_image(
                        set,
                        0,
                        &texture,
                        &host_sampler,
                        raw::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                    )
                };
            } else {
                // SAFETY: the set was just allocated from `pool`; no command buffer uses it yet.
                unsafe {
                    pool.write_image_with_immutable_sampler(
                        set,
                        0,
                        &texture,
                        raw::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                    )
                };
            }
            let pixels = draw_offscreen(
                &ctx,
                &p,
                &OffscreenDraw {
                    size: SIZE,
                    clear: [0.0, 0.0, 1.0, 1.0],
                    vertex_buffers: &[&vb],
                    sets: &[(1, set)],
                    push: &[],
                    vertex_count: 6,
                },
            );
            check_filter(name, &pixels);
        }
        drop((p, pool));
    }
    drop((texture, vb, host_sampler));
    assert_no_validation_messages(&ctx);
}

#[test]
fn a_declared_state_makes_the_sampler_on_wgpu() {
    use shader_info_gpu::wgpu::testing::{Draw, assert_quiet, draw, vertex_buffer};
    use shader_info_gpu::wgpu::{Bind, GraphicsOptions, WgpuLibrary, raw as w};
    use w::util::DeviceExt;
    let Some(ctx) = shader_info_gpu::wgpu::testing::test_context(true) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("s.vert.glsl"), VERT).unwrap();
    std::fs::write(dir.path().join("s.frag.glsl"), FRAG).unwrap();
    let mut lib = WgpuLibrary::new(&ctx, registry(), LibraryOptions::new(dir.path())).unwrap();
    let texture = ctx.device.create_texture_with_data(
        &ctx.queue,
        &w::TextureDescriptor {
            label: None,
            size: w::Extent3d {
                width: 2,
                height: 1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: w::TextureDimension::D2,
            format: w::TextureFormat::Rgba8Unorm,
            usage: w::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        w::util::TextureDataOrder::LayerMajor,
        &[0, 0, 0, 255, 255, 255, 255, 255],
    );
    let view = texture.create_view(&Default::default());
    let vb = vertex_buffer(&ctx, bytemuck::cast_slice(&QUAD));
    for name in ["test_nearest", "test_linear"] {
        let pipeline = lib
            .graphics_pipeline(name, &GraphicsOptions::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let group = pipeline
            .bind_group(&ctx, &[("image", Bind::Texture(&view))])
            .unwrap_or_else(|e| panic!("{e}"));
        let pixels = draw(
            &ctx,
            &pipeline,
            &Draw {
                size: SIZE,
                vertex_buffer: &vb,
                vertex_count: 6,
                groups: &[(group.set, &group.group)],
                push: &[],
            },
        );
        check_filter(name, &pixels);
    }
    drop(lib);
    assert_quiet(&ctx);
}

#[test]
fn states_that_cannot_work_are_refused_naming_the_sampler() {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("bad_states")
            .sampler_with_state(
                0,
                ImageType::Float2D,
                "compared",
                Frequency::Pass,
                SamplerState::linear().compare(CompareOp::Less),
            )
            .sampler_with_state(
                1,
                ImageType::Shadow2D,
                "shadow",
                Frequency::Pass,
                SamplerState::linear(),
            )
            .sampler_with_state(
                2,
                ImageType::Uint2D,
                "ids",
                Frequency::Pass,
                SamplerState::linear().wrap(WrapMode::Repeat),
            )
            .sampler_with_state(
                3,
                ImageType::Float2D,
                "aniso",
                Frequency::Pass,
                SamplerState::linear()
                    .mipmaps(TexelFilter::Linear)
                    .anisotropy(32),
            )
            .sampler_with_state(
                4,
                ImageType::FloatBuffer,
                "texels",
                Frequency::Pass,
                SamplerState::nearest(),
            )
            // Anisotropy with nearest filtering: Vulkan would apply it, WebGPU refuses it.
            .sampler_with_state(
                5,
                ImageType::Float2D,
                "aniso_nearest",
                Frequency::Pass,
                SamplerState::nearest().anisotropy(4),
            ),
    );
    let d = vk_support::problems(&reg, "bad_states");
    let text = shader_info::render_all(&d);
    assert_eq!(
        d.iter().filter(|d| d.code == Code::InvalidImage).count(),
        6,
        "{text}"
    );
    for what in [
        "sampler `compared`",
        "sampler `shadow`",
        "sampler `ids`",
        "sampler `aniso`",
        "sampler `texels`",
        "sampler `aniso_nearest`",
    ] {
        assert!(text.contains(what), "{what}: {text}");
    }
}
