//! The demo frame of `shader-builder render`: one command buffer that uses many of the library's shaders.
//!
//! 1. Compute: `gpu_compute_pattern` writes a procedural image, `gpu_compute_blur_horizontal` and
//!    `gpu_compute_blur_vertical` blur a copy of it.
//! 2. 3D: `gpu_shader_forward_lit` draws cubes and spheres (generated in [`scene`]) with [`ViewData`] into a linear
//!    HDR target with depth.
//! 3. Display: `gpu_shader_fullscreen_tonemap` maps the HDR target into an `R8G8B8A8_SRGB` image, then 2D shapes go
//!    on top: the sharp and the blurred pattern through `gpu_shader_2D_image`, `gpu_shader_2D_image_color` and
//!    `gpu_shader_2D_image_rect_color`; bars, a hexagon, a triangle and dots through
//!    `gpu_shader_2D_uniform_color`, `gpu_shader_2D_flat_color`, `gpu_shader_2D_smooth_color` and
//!    `gpu_shader_2D_point_round`; text through `gpu_shader_text` with the glyph atlas of [`font`].
//!
//! 2D content is laid out in a virtual 1280 × 720 canvas stretched over the frame, so every size shows the same
//! picture. Nothing depends on time or the device: two devices should produce the same picture up to rounding.
//!
//! ```no_run
//! use gpu::vk::{ContextOptions, LibraryOptions, ShaderLibrary, VkContext};
//! use shaders as _;
//! let ctx = VkContext::new(&ContextOptions::default())?;
//! let mut lib = ShaderLibrary::new(&ctx, shader_info::Registry::global().clone(),
//!                                  LibraryOptions::new(shaders::glsl_root()))?;
//! let frame = shaders::demo::render_frame(&mut lib, 640, 360)?;
//! println!("{} distinct colors", frame.distinct_colors());
//! # Ok::<(), gpu::vk::VkError>(())
//! ```

pub mod font;
#[cfg(feature = "cli")]
pub mod run;
pub mod scene;

use crate::ViewData;
use crate::infos::compute::ComputePattern;
use crate::infos::fullscreen::FullscreenTonemap;
use crate::infos::push::{
    ColorMvpSrgbPush, ForwardLitPush, ImageRectPush, MvpPush, MvpSrgbPush, PointRoundPush,
};
use crate::pipelines::{DEPTH_FORMAT, DISPLAY_FORMAT, HDR_FORMAT, graphics_options};
use glam::{Mat4, Vec2, Vec4};
use gpu::vk::resource::Sampler;
use gpu::vk::{
    Buffer, ComputePipeline, DescriptorPool, GraphicsPipeline, Image2D, PipelineLayout,
    ShaderLibrary, VkContext, VkError, VkResult, raw,
};
use shader_info::{Bool32, Pad, ShaderType};
use std::sync::Arc;

/// Width and height of the virtual canvas the 2D content is laid out in.
pub const CANVAS: Vec2 = Vec2::new(1280.0, 720.0);
/// Side of the square procedural image of the compute pass, in texels.
pub const PATTERN_SIZE: u32 = 256;
/// What the display target is cleared to before the tonemap pass covers it.
const DISPLAY_CLEAR: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// A rendered frame: RGBA8, sRGB-encoded, row-major, top row first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Frame {
    /// The pixel at `(x, y)`.
    ///
    /// # Panics
    /// When `(x, y)` is outside the frame.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        assert!(
            x < self.width && y < self.height,
            "({x}, {y}) is outside the frame"
        );
        let i = ((y * self.width + x) * 4) as usize;
        [
            self.rgba[i],
            self.rgba[i + 1],
            self.rgba[i + 2],
            self.rgba[i + 3],
        ]
    }

    /// Number of distinct RGBA values in the frame.
    pub fn distinct_colors(&self) -> usize {
        let mut set = std::collections::HashSet::new();
        for p in self.rgba.chunks_exact(4) {
            set.insert([p[0], p[1], p[2], p[3]]);
        }
        set.len()
    }

    /// Writes the frame as an 8-bit RGBA PNG (creating the parent directory).
    #[cfg(feature = "cli")]
    pub fn write_png(&self, path: impl AsRef<std::path::Path>) -> Result<(), String> {
        let path = path.as_ref();
        let fail = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
        }
        let file = std::fs::File::create(path).map_err(|e| fail(&e))?;
        let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut writer = encoder.write_header().map_err(|e| fail(&e))?;
        writer.write_image_data(&self.rgba).map_err(|e| fail(&e))?;
        writer.finish().map_err(|e| fail(&e))
    }

    /// Reads an 8-bit RGBA or RGB PNG.
    #[cfg(feature = "cli")]
    pub fn read_png(path: impl AsRef<std::path::Path>) -> Result<Frame, String> {
        let path = path.as_ref();
        let fail = |e: &dyn std::fmt::Display| format!("cannot read {}: {e}", path.display());
        let file = std::fs::File::open(path).map_err(|e| fail(&e))?;
        let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().map_err(|e| fail(&e))?;
        let mut buf = vec![0u8; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).map_err(|e| fail(&e))?;
        buf.truncate(info.buffer_size());
        let rgba = match (info.color_type, info.bit_depth) {
            (png::ColorType::Rgba, png::BitDepth::Eight) => buf,
            (png::ColorType::Rgb, png::BitDepth::Eight) => buf
                .chunks_exact(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect(),
            other => return Err(fail(&format!("unsupported PNG format {other:?}"))),
        };
        Ok(Frame {
            width: info.width,
            height: info.height,
            rgba,
        })
    }

    /// Per-channel absolute differences to `other` (same size): `(max, mean, share of pixels that differ by
    /// more than `tolerance` in any channel)`.
    pub fn difference(&self, other: &Frame, tolerance: u8) -> Result<(u8, f64, f64), String> {
        if (self.width, self.height) != (other.width, other.height) {
            return Err(format!(
                "sizes differ: {}x{} and {}x{}",
                self.width, self.height, other.width, other.height
            ));
        }
        let mut max = 0u8;
        let mut sum = 0u64;
        let mut differing = 0usize;
        for (a, b) in self.rgba.chunks_exact(4).zip(other.rgba.chunks_exact(4)) {
            let d = (0..4).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0);
            sum += (0..4).map(|c| a[c].abs_diff(b[c]) as u64).sum::<u64>();
            max = max.max(d);
            differing += (d > tolerance) as usize;
        }
        let pixels = (self.width as usize * self.height as usize).max(1);
        Ok((
            max,
            sum as f64 / (pixels * 4) as f64,
            differing as f64 / pixels as f64,
        ))
    }
}

/// Parses `WIDTHxHEIGHT` (e.g. `1280x720`), each between 1 and 16384.
///
/// ```
/// assert_eq!(shaders::demo::parse_size("640x360"), Ok((640, 360)));
/// assert!(shaders::demo::parse_size("640").is_err());
/// assert!(shaders::demo::parse_size("0x10").is_err());
/// ```
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("`{s}` is not a size: write WIDTHxHEIGHT, e.g. 1280x720, each 1..=16384");
    let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(1..=16384).contains(&w) || !(1..=16384).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}

/// The bytes of a typed push-constant block for `key`, after checking that `T` is that info's block (names, types
/// and std430 offsets, against its pipeline plan): a struct that drifted from its declaration is an error naming
/// the member, never wrong pixels.
fn typed_push<T: ShaderType + bytemuck::NoUninit>(
    lib: &mut ShaderLibrary,
    key: &str,
    value: T,
) -> VkResult<Vec<u8>> {
    let plan = lib.plan(key)?;
    let problems = plan.push_constant_problems::<T>(lib.registry());
    if !problems.is_empty() {
        return Err(VkError::Diagnostics(problems));
    }
    let size = plan.push_constants.map_or(0, |p| p.size) as usize;
    Ok(bytemuck::bytes_of(&value)[..size].to_vec())
}

/// The push block of a `#[derive(ShaderInfo)]` info: the struct is the block, proven when it was compiled.
fn derived_push<T: bytemuck::NoUninit>(value: T) -> Vec<u8> {
    bytemuck::bytes_of(&value).to_vec()
}

/// The 2D projection: canvas coordinates (pixels of the virtual canvas, y down) to Vulkan clip space.
fn canvas_to_clip() -> Mat4 {
    Mat4::from_cols(
        Vec4::new(2.0 / CANVAS.x, 0.0, 0.0, 0.0),
        Vec4::new(0.0, 2.0 / CANVAS.y, 0.0, 0.0),
        Vec4::new(0.0, 0.0, 1.0, 0.0),
        Vec4::new(-1.0, -1.0, 0.0, 1.0),
    )
}

/// The six corners (two triangles) of a rectangle, each paired with its texture coordinate.
fn rect_corners(x: f32, y: f32, w: f32, h: f32) -> [([f32; 2], [f32; 2]); 6] {
    let c = |u: f32, v: f32| ([x + u * w, y + v * h], [u, v]);
    [
        c(0.0, 0.0),
        c(1.0, 0.0),
        c(1.0, 1.0),
        c(0.0, 0.0),
        c(1.0, 1.0),
        c(0.0, 1.0),
    ]
}

/// A draw of the display pass, prepared before recording so that recording cannot fail.
struct Draw {
    pipeline: Arc<GraphicsPipeline>,
    /// `(set index, set)` pairs to bind.
    sets: Vec<(u32, raw::DescriptorSet)>,
    vertex_buffer: Option<raw::Buffer>,
    vertices: u32,
    push: Vec<u8>,
}

/// A compute dispatch, prepared before recording.
struct Dispatch {
    pipeline: Arc<ComputePipeline>,
    set: raw::DescriptorSet,
    push: Vec<u8>,
    groups: (u32, u32),
}

/// Allocates set `index` of `layout` from a fresh pool kept in `pools`.
fn allocate_set(
    ctx: &VkContext,
    layout: &PipelineLayout,
    index: usize,
    pools: &mut Vec<DescriptorPool>,
) -> VkResult<raw::DescriptorSet> {
    let set_layout = layout.set_layouts().get(index).ok_or_else(|| {
        VkError::Other(format!("the pipeline layout has no descriptor set {index}"))
    })?;
    let pool = DescriptorPool::for_layout(ctx, layout, 1)?;
    let set = pool.allocate(set_layout)?;
    pools.push(pool);
    Ok(set)
}

/// Records `vkCmdPushConstants` of a whole block.
///
/// # Safety
/// `cmd` must be recording and `layout` alive.
unsafe fn push_constants(
    d: &gpu::vk::ash::Device,
    cmd: raw::CommandBuffer,
    layout: &PipelineLayout,
    bytes: &[u8],
) {
    if let Some(pc) = layout.desc().push_constants.as_ref()
        && !bytes.is_empty()
    {
        // SAFETY: guaranteed by the caller; the block is at most the range's size (both come from the same
        // std430 layout of the same info).
        unsafe { d.cmd_push_constants(cmd, layout.handle(), pc.stages, 0, bytes) };
    }
}

/// Sets a full-frame viewport and scissor.
///
/// # Safety
/// `cmd` must be recording inside a rendering scope.
unsafe fn full_viewport(d: &gpu::vk::ash::Device, cmd: raw::CommandBuffer, extent: raw::Extent2D) {
    let viewport = raw::Viewport {
        x: 0.0,
        y: 0.0,
        width: extent.width as f32,
        height: extent.height as f32,
        min_depth: 0.0,
        max_depth: 1.0,
    };
    let scissor = raw::Rect2D {
        offset: raw::Offset2D::default(),
        extent,
    };
    // SAFETY: guaranteed by the caller.
    unsafe {
        d.cmd_set_viewport(cmd, 0, &[viewport]);
        d.cmd_set_scissor(cmd, 0, &[scissor]);
    }
}

/// Uploads `data` as a vertex buffer kept alive in `keep` until the frame is done, and returns its handle.
fn upload_vertices<T: bytemuck::Pod>(
    ctx: &VkContext,
    keep: &mut Keep,
    data: &[T],
) -> VkResult<Option<raw::Buffer>> {
    let b = Buffer::with_data(ctx, data, raw::BufferUsageFlags::VERTEX_BUFFER)?;
    let handle = b.handle();
    keep.buffers.push(b);
    Ok(Some(handle))
}

/// What a frame allocates while its passes are prepared, alive until the frame is read back.
#[derive(Default)]
struct Keep {
    pools: Vec<DescriptorPool>,
    buffers: Vec<Buffer>,
    samplers: Vec<Sampler>,
}

impl Keep {
    /// Allocates set `index` of `layout` from a fresh pool.
    fn set(
        &mut self,
        ctx: &VkContext,
        layout: &PipelineLayout,
        index: usize,
    ) -> VkResult<(raw::DescriptorSet, &DescriptorPool)> {
        let set = allocate_set(ctx, layout, index, &mut self.pools)?;
        let pool = self
            .pools
            .last()
            .ok_or_else(|| VkError::Other("no descriptor pool".into()))?;
        Ok((set, pool))
    }
}

/// The images of one frame.
struct Targets {
    extent: raw::Extent2D,
    /// The procedural pattern, its horizontally blurred copy and the fully blurred one (rgba16f storage).
    sharp: Image2D,
    half_blurred: Image2D,
    blurred: Image2D,
    /// The linear scene with its depth buffer.
    hdr: Image2D,
    depth: Image2D,
    /// The sRGB display target the frame is read back from.
    display: Image2D,
    /// The text's glyph coverage (uploaded from `atlas_staging`).
    atlas: Image2D,
    atlas_staging: Buffer,
    readback: Buffer,
}

impl Targets {
    fn new(
        ctx: &VkContext,
        width: u32,
        height: u32,
        atlas: &font::GlyphAtlas,
    ) -> VkResult<Targets> {
        let pattern = |u: raw::ImageUsageFlags| {
            Image2D::new(
                ctx,
                PATTERN_SIZE,
                PATTERN_SIZE,
                raw::Format::R16G16B16A16_SFLOAT,
                raw::ImageUsageFlags::STORAGE | u,
            )
        };
        use raw::ImageUsageFlags as U;
        Ok(Targets {
            extent: raw::Extent2D { width, height },
            sharp: pattern(U::SAMPLED)?,
            half_blurred: pattern(U::empty())?,
            blurred: pattern(U::SAMPLED)?,
            hdr: Image2D::new(
                ctx,
                width,
                height,
                HDR_FORMAT,
                U::COLOR_ATTACHMENT | U::SAMPLED,
            )?,
            depth: Image2D::new(
                ctx,
                width,
                height,
                DEPTH_FORMAT,
                U::DEPTH_STENCIL_ATTACHMENT,
            )?,
            display: Image2D::new(
                ctx,
                width,
                height,
                DISPLAY_FORMAT,
                U::COLOR_ATTACHMENT | U::TRANSFER_SRC,
            )?,
            atlas: Image2D::new(
                ctx,
                atlas.width,
                atlas.height,
                raw::Format::R8_UNORM,
                U::SAMPLED | U::TRANSFER_DST,
            )?,
            atlas_staging: Buffer::with_data(
                ctx,
                &atlas.texels,
                raw::BufferUsageFlags::TRANSFER_SRC,
            )?,
            readback: Buffer::new(
                ctx,
                width as u64 * height as u64 * 4,
                raw::BufferUsageFlags::TRANSFER_DST,
            )?,
        })
    }
}

/// The compute pass: pattern → blur horizontal → blur vertical.
fn compute_pass(lib: &mut ShaderLibrary, t: &Targets, keep: &mut Keep) -> VkResult<Vec<Dispatch>> {
    let ctx = lib.context().clone();
    let groups = PATTERN_SIZE.div_ceil(8);
    let mut dispatches = Vec::new();
    for (name, images, push) in [
        (
            ComputePattern::NAME,
            vec![&t.sharp],
            derived_push(ComputePattern { time: 1.0 }),
        ),
        (
            "gpu_compute_blur_horizontal",
            vec![&t.sharp, &t.half_blurred],
            Vec::new(),
        ),
        (
            "gpu_compute_blur_vertical",
            vec![&t.half_blurred, &t.blurred],
            Vec::new(),
        ),
    ] {
        let pipeline = lib.compute_pipeline(name)?;
        let (set, pool) = keep.set(&ctx, pipeline.layout(), 0)?;
        for (binding, image) in images.iter().enumerate() {
            pool.write_storage_image(set, binding as u32, image);
        }
        dispatches.push(Dispatch {
            pipeline,
            set,
            push,
            groups: (groups, groups),
        });
    }
    Ok(dispatches)
}

/// The 3D pass: lit cubes and spheres into the HDR target.
struct ScenePass {
    pipeline: Arc<GraphicsPipeline>,
    set: raw::DescriptorSet,
    /// `(vertex buffer, index buffer, index count)` per mesh.
    meshes: Vec<(Buffer, Buffer, u32)>,
    /// `(mesh index, push block)` per object.
    objects: Vec<(usize, Vec<u8>)>,
}

fn scene_pass(lib: &mut ShaderLibrary, t: &Targets, keep: &mut Keep) -> VkResult<ScenePass> {
    let ctx = lib.context().clone();
    let view: ViewData = scene::view_data(t.extent.width, t.extent.height);
    let view_buffer = Buffer::new(
        &ctx,
        size_of::<ViewData>() as u64,
        raw::BufferUsageFlags::UNIFORM_BUFFER,
    )?;
    view_buffer.write(bytemuck::bytes_of(&view));
    let mut meshes = Vec::new();
    for m in [scene::cube(), scene::sphere(24, 48)] {
        meshes.push((
            Buffer::with_data(&ctx, &m.vertices, raw::BufferUsageFlags::VERTEX_BUFFER)?,
            Buffer::with_data(&ctx, &m.indices, raw::BufferUsageFlags::INDEX_BUFFER)?,
            m.indices.len() as u32,
        ));
    }
    let name = "gpu_shader_forward_lit";
    let pipeline = lib.graphics_pipeline(name, &graphics_options(name))?;
    let (set, pool) = keep.set(&ctx, pipeline.layout(), 0)?;
    pool.write_buffer(set, 0, raw::DescriptorType::UNIFORM_BUFFER, &view_buffer);
    keep.buffers.push(view_buffer);
    let mut objects = Vec::new();
    for o in scene::objects() {
        let push = ForwardLitPush {
            base_color: o.base_color,
            shininess: o.shininess,
            _pad: Pad::ZERO,
            ModelMatrix: o.model,
        };
        let mesh = match o.shape {
            scene::Shape::Cube => 0,
            scene::Shape::Sphere => 1,
        };
        objects.push((mesh, typed_push(lib, name, push)?));
    }
    Ok(ScenePass {
        pipeline,
        set,
        meshes,
        objects,
    })
}

/// The display pass: tonemap the HDR target, then 2D shapes, images, points and text on top.
fn display_pass(
    lib: &mut ShaderLibrary,
    t: &Targets,
    keep: &mut Keep,
    glyphs: &[crate::GlyphQuad],
) -> VkResult<Vec<Draw>> {
    let ctx = lib.context().clone();
    let mvp = canvas_to_clip();
    // Point sizes are in framebuffer pixels; scale them with the canvas.
    let px = t.extent.height as f32 / CANVAS.y;
    let srgb = Bool32::TRUE;
    let linear = Sampler::new(&ctx, raw::Filter::LINEAR)?;
    let nearest = Sampler::new(&ctx, raw::Filter::NEAREST)?;
    let read_only = raw::ImageLayout::SHADER_READ_ONLY_OPTIMAL;
    let pipeline = |lib: &mut ShaderLibrary, name: &str| -> VkResult<Arc<GraphicsPipeline>> {
        lib.graphics_pipeline(name, &graphics_options(name))
    };
    let mut draws = Vec::new();

    let tonemap = pipeline(lib, FullscreenTonemap::NAME)?;
    let (set, pool) = keep.set(&ctx, tonemap.layout(), 0)?;
    pool.write_sampled_image(set, 0, &t.hdr, &linear, read_only);
    draws.push(Draw {
        push: derived_push(FullscreenTonemap {
            exposure: 0.75,
            srgb_target: srgb,
        }),
        pipeline: tonemap,
        sets: vec![(0, set)],
        vertex_buffer: None,
        vertices: 3,
    });

    // Bars behind the text (one draw, two rectangles).
    let bars: Vec<[f32; 2]> = rect_corners(0.0, 0.0, CANVAS.x, 64.0)
        .iter()
        .chain(rect_corners(0.0, CANVAS.y - 52.0, CANVAS.x, 52.0).iter())
        .map(|(p, _)| *p)
        .collect();
    let name = "gpu_shader_2D_uniform_color";
    draws.push(Draw {
        pipeline: pipeline(lib, name)?,
        sets: Vec::new(),
        vertex_buffer: upload_vertices(&ctx, keep, &bars)?,
        vertices: bars.len() as u32,
        push: typed_push(
            lib,
            name,
            ColorMvpSrgbPush {
                color: Vec4::new(0.06, 0.07, 0.10, 0.8),
                ModelViewProjectionMatrix: mvp,
                srgb_target: srgb,
                _pad: Pad::ZERO,
            },
        )?,
    });

    // The sharp pattern, the blurred one tinted, and a blurred detail through the rectangle shader.
    let quad = |r: [f32; 4]| -> Vec<[f32; 4]> {
        rect_corners(r[0], r[1], r[2], r[3])
            .iter()
            .map(|(p, uv)| [p[0], p[1], uv[0], uv[1]])
            .collect()
    };
    for (name, image, rect, push) in [
        (
            "gpu_shader_2D_image",
            &t.sharp,
            [24.0, 88.0, 192.0, 192.0],
            typed_push(
                lib,
                "gpu_shader_2D_image",
                MvpPush {
                    ModelViewProjectionMatrix: mvp,
                },
            )?,
        ),
        (
            "gpu_shader_2D_image_color",
            &t.blurred,
            [24.0, 296.0, 192.0, 192.0],
            typed_push(
                lib,
                "gpu_shader_2D_image_color",
                ColorMvpSrgbPush {
                    color: Vec4::new(1.0, 0.8, 0.55, 1.0),
                    ModelViewProjectionMatrix: mvp,
                    srgb_target: srgb,
                    _pad: Pad::ZERO,
                },
            )?,
        ),
    ] {
        let p = pipeline(lib, name)?;
        let (set, pool) = keep.set(&ctx, p.layout(), 1)?;
        pool.write_sampled_image(set, 0, image, &linear, read_only);
        draws.push(Draw {
            pipeline: p,
            sets: vec![(1, set)],
            vertex_buffer: upload_vertices(&ctx, keep, &quad(rect))?,
            vertices: 6,
            push,
        });
    }
    let name = "gpu_shader_2D_image_rect_color";
    let rect_color = pipeline(lib, name)?;
    let (set, pool) = keep.set(&ctx, rect_color.layout(), 1)?;
    pool.write_sampled_image(set, 0, &t.blurred, &linear, read_only);
    draws.push(Draw {
        push: typed_push(
            lib,
            name,
            ImageRectPush {
                rect: Vec4::new(24.0, 504.0, 192.0, 152.0),
                uv_rect: Vec4::new(0.25, 0.3, 0.75, 0.7),
                color: Vec4::new(0.7, 0.9, 1.0, 1.0),
                ModelViewProjectionMatrix: mvp,
                srgb_target: srgb,
                _pad: Pad::ZERO,
            },
        )?,
        pipeline: rect_color,
        sets: vec![(1, set)],
        vertex_buffer: None,
        vertices: 6,
    });

    // A hexagon of flat-colored triangles and a smooth-colored triangle (pos vec2 + col vec4, interleaved).
    let palette = [
        [0.95, 0.30, 0.25, 1.0],
        [0.98, 0.70, 0.20, 1.0],
        [0.95, 0.95, 0.30, 1.0],
        [0.35, 0.85, 0.40, 1.0],
        [0.25, 0.60, 0.95, 1.0],
        [0.65, 0.40, 0.90, 1.0],
    ];
    let center = Vec2::new(1150.0, 540.0);
    let corner = |i: usize| {
        let a = std::f32::consts::TAU * i as f32 / 6.0;
        center + Vec2::new(a.cos(), a.sin()) * 90.0
    };
    let mut hexagon: Vec<[f32; 6]> = Vec::new();
    for (i, c) in palette.iter().enumerate() {
        for p in [center, corner(i), corner(i + 1)] {
            hexagon.push([p.x, p.y, c[0], c[1], c[2], c[3]]);
        }
    }
    let triangle: Vec<[f32; 6]> = vec![
        [1040.0, 110.0, 1.0, 0.0, 0.0, 1.0],
        [1250.0, 110.0, 0.0, 1.0, 0.0, 1.0],
        [1145.0, 290.0, 0.0, 0.0, 1.0, 1.0],
    ];
    let mvp_srgb = MvpSrgbPush {
        ModelViewProjectionMatrix: mvp,
        srgb_target: srgb,
        _pad: Pad::ZERO,
    };
    for (name, vertices) in [
        ("gpu_shader_2D_flat_color", hexagon),
        ("gpu_shader_2D_smooth_color", triangle),
    ] {
        draws.push(Draw {
            pipeline: pipeline(lib, name)?,
            sets: Vec::new(),
            vertex_buffer: upload_vertices(&ctx, keep, &vertices)?,
            vertices: vertices.len() as u32,
            push: typed_push(lib, name, mvp_srgb)?,
        });
    }

    // A row of round points.
    let dots: Vec<[f32; 2]> = (0..9).map(|i| [320.0 + 70.0 * i as f32, 620.0]).collect();
    let name = "gpu_shader_2D_point_round";
    draws.push(Draw {
        pipeline: pipeline(lib, name)?,
        sets: Vec::new(),
        vertex_buffer: upload_vertices(&ctx, keep, &dots)?,
        vertices: dots.len() as u32,
        push: typed_push(
            lib,
            name,
            PointRoundPush {
                color: Vec4::new(1.0, 0.85, 0.2, 1.0),
                point_size: (28.0 * px).max(1.0),
                _pad0: Pad::ZERO,
                ModelViewProjectionMatrix: mvp,
                srgb_target: srgb,
                _pad1: Pad::ZERO,
            },
        )?,
    });

    // Text: the glyph atlas and one quad per glyph in a storage buffer.
    let glyph_buffer = Buffer::new(
        &ctx,
        std::mem::size_of_val(glyphs) as u64,
        raw::BufferUsageFlags::STORAGE_BUFFER,
    )?;
    glyph_buffer.write(bytemuck::cast_slice(glyphs));
    let name = "gpu_shader_text";
    let text = pipeline(lib, name)?;
    let (set, pool) = keep.set(&ctx, text.layout(), 1)?;
    pool.write_sampled_image(set, 0, &t.atlas, &nearest, read_only);
    pool.write_buffer(set, 1, raw::DescriptorType::STORAGE_BUFFER, &glyph_buffer);
    keep.buffers.push(glyph_buffer);
    draws.push(Draw {
        push: typed_push(lib, name, mvp_srgb)?,
        pipeline: text,
        sets: vec![(1, set)],
        vertex_buffer: None,
        vertices: glyphs.len() as u32 * 6,
    });
    // The samplers must outlive the frame too; the descriptor sets only hold their handles.
    keep.samplers.extend([linear, nearest]);
    Ok(draws)
}

/// Renders the demo frame at `width` × `height` with the library's pipelines (created on first use) and reads
/// it back: the compute, 3D and display passes are prepared first (everything that can fail), then recorded
/// into one command buffer. Fails cleanly when the size exceeds the device's image limit.
pub fn render_frame(lib: &mut ShaderLibrary, width: u32, height: u32) -> VkResult<Frame> {
    let ctx = lib.context().clone();
    let max = ctx.properties().limits.max_image_dimension2_d;
    if width == 0 || height == 0 || width > max || height > max {
        return Err(VkError::Other(format!(
            "a {width}x{height} frame does not fit {}: images are 1..={max} texels on a side",
            ctx.device_name()
        )));
    }
    let atlas = font::GlyphAtlas::new();
    let mut glyphs = atlas.layout("SHADER-INFO DEMO", 24.0, 18.0, 4.0, Vec4::ONE);
    glyphs.extend(atlas.layout(
        "COMPUTE + 2D + TEXT + LIT 3D + TONEMAP",
        24.0,
        CANVAS.y - 37.0,
        3.0,
        Vec4::new(0.85, 0.92, 1.0, 1.0),
    ));
    let t = Targets::new(&ctx, width, height, &atlas)?;
    let mut keep = Keep::default();
    let dispatches = compute_pass(lib, &t, &mut keep)?;
    let scene = scene_pass(lib, &t, &mut keep)?;
    let draws = display_pass(lib, &t, &mut keep, &glyphs)?;
    ctx.submit_and_wait(|d, cmd| {
        // SAFETY: `cmd` is recording; every pipeline, set, buffer and image used is alive until the wait returns
        // (`t`, `keep`, the passes); each image is transitioned before use, and every rendering scope uses formats
        // that match its pipelines (both come from `graphics_options`).
        unsafe {
            record_atlas_upload(cmd, &t);
            record_compute(d, cmd, &t, &dispatches);
            record_scene(d, cmd, &t, &scene);
            record_display(d, cmd, &t, &draws);
        }
    })?;
    Ok(Frame {
        width,
        height,
        rgba: t.readback.read(),
    })
}

use raw::AccessFlags2 as A;
use raw::ImageLayout as L;
use raw::PipelineStageFlags2 as S;
const READ_ONLY: L = L::SHADER_READ_ONLY_OPTIMAL;

/// Copies the glyph atlas from its staging buffer.
///
/// # Safety
/// `cmd` must be recording and `t` alive until it completes.
unsafe fn record_atlas_upload(cmd: raw::CommandBuffer, t: &Targets) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        t.atlas.transition(
            cmd,
            L::UNDEFINED,
            L::TRANSFER_DST_OPTIMAL,
            S::NONE,
            A::NONE,
            S::COPY,
            A::TRANSFER_WRITE,
        );
        t.atlas.copy_from_buffer(cmd, &t.atlas_staging);
        t.atlas.transition(
            cmd,
            L::TRANSFER_DST_OPTIMAL,
            READ_ONLY,
            S::COPY,
            A::TRANSFER_WRITE,
            S::FRAGMENT_SHADER,
            A::SHADER_SAMPLED_READ,
        );
    }
}

/// Pattern → blur horizontal → blur vertical, each pass reading what the one before wrote; then the sharp and the
/// blurred images become readable by fragment shaders.
///
/// # Safety
/// `cmd` must be recording and everything used alive until it completes.
unsafe fn record_compute(
    d: &gpu::vk::ash::Device,
    cmd: raw::CommandBuffer,
    t: &Targets,
    dispatches: &[Dispatch],
) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        for image in [&t.sharp, &t.half_blurred, &t.blurred] {
            image.transition(
                cmd,
                L::UNDEFINED,
                L::GENERAL,
                S::NONE,
                A::NONE,
                S::COMPUTE_SHADER,
                A::SHADER_STORAGE_WRITE | A::SHADER_STORAGE_READ,
            );
        }
        for (i, dispatch) in dispatches.iter().enumerate() {
            if i > 0 {
                let barrier = [raw::MemoryBarrier2::default()
                    .src_stage_mask(S::COMPUTE_SHADER)
                    .src_access_mask(A::SHADER_STORAGE_WRITE)
                    .dst_stage_mask(S::COMPUTE_SHADER)
                    .dst_access_mask(A::SHADER_STORAGE_READ | A::SHADER_STORAGE_WRITE)];
                d.cmd_pipeline_barrier2(
                    cmd,
                    &raw::DependencyInfo::default().memory_barriers(&barrier),
                );
            }
            let layout = dispatch.pipeline.layout();
            d.cmd_bind_pipeline(
                cmd,
                raw::PipelineBindPoint::COMPUTE,
                dispatch.pipeline.handle(),
            );
            d.cmd_bind_descriptor_sets(
                cmd,
                raw::PipelineBindPoint::COMPUTE,
                layout.handle(),
                0,
                &[dispatch.set],
                &[],
            );
            push_constants(d, cmd, layout, &dispatch.push);
            d.cmd_dispatch(cmd, dispatch.groups.0, dispatch.groups.1, 1);
        }
        for image in [&t.sharp, &t.blurred] {
            image.transition(
                cmd,
                L::GENERAL,
                READ_ONLY,
                S::COMPUTE_SHADER,
                A::SHADER_STORAGE_WRITE,
                S::FRAGMENT_SHADER,
                A::SHADER_SAMPLED_READ,
            );
        }
    }
}

/// The lit geometry into the HDR target (cleared to the sky color) with depth, then the HDR target becomes
/// readable by the tonemap pass.
///
/// # Safety
/// `cmd` must be recording and everything used alive until it completes.
unsafe fn record_scene(
    d: &gpu::vk::ash::Device,
    cmd: raw::CommandBuffer,
    t: &Targets,
    scene: &ScenePass,
) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        t.hdr.transition(
            cmd,
            L::UNDEFINED,
            L::COLOR_ATTACHMENT_OPTIMAL,
            S::NONE,
            A::NONE,
            S::COLOR_ATTACHMENT_OUTPUT,
            A::COLOR_ATTACHMENT_WRITE,
        );
        t.depth.transition(
            cmd,
            L::UNDEFINED,
            L::DEPTH_ATTACHMENT_OPTIMAL,
            S::NONE,
            A::NONE,
            S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS,
            A::DEPTH_STENCIL_ATTACHMENT_READ | A::DEPTH_STENCIL_ATTACHMENT_WRITE,
        );
        let color = [color_attachment(&t.hdr, scene::SKY)];
        let depth_attachment = raw::RenderingAttachmentInfo::default()
            .image_view(t.depth.view())
            .image_layout(L::DEPTH_ATTACHMENT_OPTIMAL)
            .load_op(raw::AttachmentLoadOp::CLEAR)
            .store_op(raw::AttachmentStoreOp::DONT_CARE)
            .clear_value(raw::ClearValue {
                depth_stencil: raw::ClearDepthStencilValue {
                    depth: 1.0,
                    stencil: 0,
                },
            });
        d.cmd_begin_rendering(
            cmd,
            &raw::RenderingInfo::default()
                .render_area(full_area(t.extent))
                .layer_count(1)
                .color_attachments(&color)
                .depth_attachment(&depth_attachment),
        );
        full_viewport(d, cmd, t.extent);
        let p = &scene.pipeline;
        d.cmd_bind_pipeline(cmd, raw::PipelineBindPoint::GRAPHICS, p.handle());
        d.cmd_bind_descriptor_sets(
            cmd,
            raw::PipelineBindPoint::GRAPHICS,
            p.layout().handle(),
            0,
            &[scene.set],
            &[],
        );
        for (mesh, push) in &scene.objects {
            let (vb, ib, count) = &scene.meshes[*mesh];
            d.cmd_bind_vertex_buffers(cmd, 0, &[vb.handle()], &[0]);
            d.cmd_bind_index_buffer(cmd, ib.handle(), 0, raw::IndexType::UINT32);
            push_constants(d, cmd, p.layout(), push);
            d.cmd_draw_indexed(cmd, *count, 1, 0, 0, 0);
        }
        d.cmd_end_rendering(cmd);
        t.hdr.transition(
            cmd,
            L::COLOR_ATTACHMENT_OPTIMAL,
            READ_ONLY,
            S::COLOR_ATTACHMENT_OUTPUT,
            A::COLOR_ATTACHMENT_WRITE,
            S::FRAGMENT_SHADER,
            A::SHADER_SAMPLED_READ,
        );
    }
}

/// Tonemap and 2D into the display target, then its copy into the readback buffer.
///
/// # Safety
/// `cmd` must be recording and everything used alive until it completes.
unsafe fn record_display(
    d: &gpu::vk::ash::Device,
    cmd: raw::CommandBuffer,
    t: &Targets,
    draws: &[Draw],
) {
    // SAFETY: guaranteed by the caller.
    unsafe {
        t.display.transition(
            cmd,
            L::UNDEFINED,
            L::COLOR_ATTACHMENT_OPTIMAL,
            S::NONE,
            A::NONE,
            S::COLOR_ATTACHMENT_OUTPUT,
            A::COLOR_ATTACHMENT_WRITE | A::COLOR_ATTACHMENT_READ,
        );
        let color = [color_attachment(&t.display, DISPLAY_CLEAR)];
        d.cmd_begin_rendering(
            cmd,
            &raw::RenderingInfo::default()
                .render_area(full_area(t.extent))
                .layer_count(1)
                .color_attachments(&color),
        );
        full_viewport(d, cmd, t.extent);
        for draw in draws {
            let layout = draw.pipeline.layout();
            d.cmd_bind_pipeline(
                cmd,
                raw::PipelineBindPoint::GRAPHICS,
                draw.pipeline.handle(),
            );
            for (index, set) in &draw.sets {
                d.cmd_bind_descriptor_sets(
                    cmd,
                    raw::PipelineBindPoint::GRAPHICS,
                    layout.handle(),
                    *index,
                    &[*set],
                    &[],
                );
            }
            if let Some(vb) = draw.vertex_buffer {
                d.cmd_bind_vertex_buffers(cmd, 0, &[vb], &[0]);
            }
            push_constants(d, cmd, layout, &draw.push);
            d.cmd_draw(cmd, draw.vertices, 1, 0, 0);
        }
        d.cmd_end_rendering(cmd);
        t.display.transition(
            cmd,
            L::COLOR_ATTACHMENT_OPTIMAL,
            L::TRANSFER_SRC_OPTIMAL,
            S::COLOR_ATTACHMENT_OUTPUT,
            A::COLOR_ATTACHMENT_WRITE,
            S::COPY,
            A::TRANSFER_READ,
        );
        t.display.copy_to_buffer(cmd, &t.readback);
    }
}

/// A color attachment cleared to `clear` and stored.
fn color_attachment(image: &Image2D, clear: [f32; 4]) -> raw::RenderingAttachmentInfo<'static> {
    raw::RenderingAttachmentInfo::default()
        .image_view(image.view())
        .image_layout(L::COLOR_ATTACHMENT_OPTIMAL)
        .load_op(raw::AttachmentLoadOp::CLEAR)
        .store_op(raw::AttachmentStoreOp::STORE)
        .clear_value(raw::ClearValue {
            color: raw::ClearColorValue { float32: clear },
        })
}

/// The whole frame.
fn full_area(extent: raw::Extent2D) -> raw::Rect2D {
    raw::Rect2D {
        offset: raw::Offset2D::default(),
        extent,
    }
}
