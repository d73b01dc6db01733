//! The demo frame as data: every dispatch and draw with its info, its resources at their declared set and binding,
//! its vertex data and its push-constant bytes. Both backends ([`super::vk`], [`super::wgpu`]) execute this one
//! description, so they cannot drift apart: a difference in their pictures is a difference in the shaders or the
//! backends, never in what the demo asked for.
//!
//! ```
//! let passes = shaders::demo::passes::describe(shader_info::Registry::global(), 640, 360).unwrap();
//! assert_eq!(passes.dispatches.len(), 3);
//! assert!(passes.display.iter().any(|d| d.info == "gpu_shader_2D_point_quad_round"));
//! // A depth-only and a transparent technique, each with the render state of its declaration.
//! assert!(passes.prepass.iter().all(|d| d.info == "gpu_shader_3D_depth_only"));
//! assert!(passes.scene.iter().any(|d| d.info == "gpu_shader_3D_transparent"));
//! ```

use super::{CANVAS, PATTERN_SIZE, font, scene};
use crate::infos::compute::ComputePattern;
use crate::infos::fullscreen::FullscreenTonemap;
use crate::infos::push::{
    ColorMvpSrgbPush, ForwardLitPush, ImageRectPush, ModelPush, MvpPush, MvpSrgbPush,
    PointQuadRoundPush, WidgetPush,
};
use glam::{Mat4, Vec2, Vec4};
use shader_info::{Bool32, Diagnostic, Pad, PipelinePlan, Registry, ShaderType};

/// The images of a frame. The pattern images are `PATTERN_SIZE`² rgba16f storage images; `Hdr` is the linear
/// scene target (rgba16f) with a depth buffer; `Atlas` is the glyph coverage (r8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageId {
    Sharp,
    HalfBlurred,
    Blurred,
    Hdr,
    Atlas,
}

/// How a sampled image is filtered (both clamp to the edge, no mipmaps).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Filter {
    Linear,
    Nearest,
}

/// A resource bound to a declared binding.
#[derive(Clone, Debug, PartialEq)]
pub enum Resource {
    StorageImage(ImageId),
    /// A combined image sampler (a texture and a sampler on targets that split them).
    Sampled(ImageId, Filter),
    /// [`Passes::buffers`]`[i]` as a uniform buffer.
    UniformBuffer(usize),
    /// [`Passes::buffers`]`[i]` as a storage buffer.
    StorageBuffer(usize),
}

/// A resource at its declared `set` and `binding`.
#[derive(Clone, Debug, PartialEq)]
pub struct Bound {
    pub set: u32,
    pub binding: u32,
    pub resource: Resource,
}

/// A compute dispatch.
#[derive(Clone, Debug, PartialEq)]
pub struct Dispatch {
    pub info: &'static str,
    pub resources: Vec<Bound>,
    pub push: Vec<u8>,
    pub groups: [u32; 3],
}

/// What a draw reads its vertices from.
#[derive(Clone, Debug, PartialEq)]
pub enum Geometry {
    /// `count` vertices, read from `buffer` (interleaved, as the info's plan lays them out) when the info has
    /// vertex inputs, built from the vertex index otherwise.
    Vertices { buffer: Option<Vec<u8>>, count: u32 },
    /// The indexed mesh [`Passes::meshes`]`[i]`.
    Mesh(usize),
}

/// A draw.
#[derive(Clone, Debug, PartialEq)]
pub struct Draw {
    pub info: &'static str,
    pub resources: Vec<Bound>,
    pub geometry: Geometry,
    pub push: Vec<u8>,
}

/// The whole frame: compute, then the depth prepass (depth cleared to 1), then the 3D scene into `Hdr` (cleared to
/// [`scene::SKY`], the prepass's depth kept), then the display pass into the sRGB display target (cleared to
/// [`DISPLAY_CLEAR`]). Each technique's render state (depth only, opaque, alpha blended) comes from its
/// declaration.
#[derive(Clone, Debug)]
pub struct Passes {
    pub width: u32,
    pub height: u32,
    pub atlas: font::GlyphAtlas,
    /// Indexed meshes, each in the vertex layout of the techniques that draw it.
    pub meshes: Vec<MeshData>,
    /// Uniform and storage buffer contents.
    pub buffers: Vec<Vec<u8>>,
    pub dispatches: Vec<Dispatch>,
    /// The depth prepass: every opaque object through the depth-only technique, into the depth target alone.
    pub prepass: Vec<Draw>,
    /// The opaque objects (depth tested against the prepass), then the transparent ones, back to front.
    pub scene: Vec<Draw>,
    pub display: Vec<Draw>,
}

/// An indexed triangle list as bytes in one technique's vertex layout.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshData {
    /// Interleaved vertices, as the drawing info's plan lays them out.
    pub vertices: Vec<u8>,
    pub indices: Vec<u32>,
}

/// The meshes of the scene in both vertex layouts: position and normal (the lit techniques), position alone (the
/// depth-only technique, whose declaration reads nothing else); see [`mesh_of`]. Each vertex struct is checked
/// against the declarations that draw it first.
fn meshes(registry: &Registry) -> Result<Vec<MeshData>, Vec<Diagnostic>> {
    typed_vertices::<scene::LitVertex>(registry, "gpu_shader_forward_lit")?;
    typed_vertices::<scene::LitVertex>(registry, "gpu_shader_3D_transparent")?;
    typed_vertices::<scene::PositionVertex>(registry, "gpu_shader_3D_depth_only")?;
    let shapes = [scene::cube(), scene::sphere(24, 48)];
    let lit = shapes.iter().map(|m| MeshData {
        vertices: bytemuck::cast_slice(&m.vertices).to_vec(),
        indices: m.indices.clone(),
    });
    let positions = shapes.iter().map(|m| {
        let vertices: Vec<scene::PositionVertex> = m
            .vertices
            .iter()
            .map(|v| scene::PositionVertex { pos: v.pos })
            .collect();
        MeshData {
            vertices: bytemuck::cast_slice(&vertices).to_vec(),
            indices: m.indices.clone(),
        }
    });
    Ok(lit.chain(positions).collect())
}

/// Checks that `T` is the vertex layout `info` declares (names, offsets, formats, stride).
fn typed_vertices<T: shader_info::ShaderVertex>(
    registry: &Registry,
    info: &str,
) -> Result<(), Vec<Diagnostic>> {
    let problems = PipelinePlan::new(&registry.validated(info)?, registry).vertex_problems::<T>();
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

/// The mesh of `shape` in the lit layout, or in the position-only one.
fn mesh_of(shape: scene::Shape, positions_only: bool) -> Geometry {
    let base = if positions_only { 2 } else { 0 };
    Geometry::Mesh(
        base + match shape {
            scene::Shape::Cube => 0,
            scene::Shape::Sphere => 1,
        },
    )
}

/// What the display target is cleared to before the tonemap pass covers it.
pub const DISPLAY_CLEAR: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// The bytes of a typed push-constant block for `info`, after checking that `T` is that info's block (names,
/// types and std430 offsets, against its pipeline plan): a struct that drifted from its declaration is an error
/// naming the member, never wrong pixels.
fn typed_push<T: ShaderType + bytemuck::NoUninit>(
    registry: &Registry,
    info: &str,
    value: T,
) -> Result<Vec<u8>, Vec<Diagnostic>> {
    let plan = PipelinePlan::new(&registry.validated(info)?, registry);
    let problems = plan.push_constant_problems::<T>(registry);
    if !problems.is_empty() {
        return Err(problems);
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

fn vertices<T: bytemuck::Pod>(data: &[T]) -> Geometry {
    Geometry::Vertices {
        buffer: Some(bytemuck::cast_slice(data).to_vec()),
        count: data.len() as u32,
    }
}

fn bound(set: u32, binding: u32, resource: Resource) -> Bound {
    Bound {
        set,
        binding,
        resource,
    }
}

/// Describes the demo frame at `width` × `height`; typed push blocks are checked against `registry`'s plans.
pub fn describe(registry: &Registry, width: u32, height: u32) -> Result<Passes, Vec<Diagnostic>> {
    let atlas = font::GlyphAtlas::new();
    let mut glyphs = atlas.layout("SHADER-INFO DEMO", 24.0, 18.0, 4.0, Vec4::ONE);
    glyphs.extend(atlas.layout(
        "COMPUTE + 2D + TEXT + LIT 3D + TONEMAP",
        24.0,
        CANVAS.y - 37.0,
        3.0,
        Vec4::new(0.85, 0.92, 1.0, 1.0),
    ));
    let mut passes = Passes {
        width,
        height,
        atlas,
        meshes: meshes(registry)?,
        buffers: Vec::new(),
        dispatches: compute(),
        prepass: Vec::new(),
        scene: Vec::new(),
        display: Vec::new(),
    };
    let view = scene::view_data(passes.width, passes.height);
    passes.buffers.push(bytemuck::bytes_of(&view).to_vec());
    let view = vec![bound(
        0,
        0,
        Resource::UniformBuffer(passes.buffers.len() - 1),
    )];
    passes.prepass = prepass_draws(registry, &view)?;
    passes.scene = scene_draws(registry, &view)?;
    passes.display = display_draws(registry, &mut passes, &glyphs)?;
    Ok(passes)
}

/// Pattern → blur horizontal → blur vertical, each reading what the one before wrote.
fn compute() -> Vec<Dispatch> {
    use ImageId::*;
    let groups = PATTERN_SIZE.div_ceil(8);
    [
        (
            ComputePattern::NAME,
            vec![Sharp],
            derived_push(ComputePattern { time: 1.0 }),
        ),
        (
            "gpu_compute_blur_horizontal",
            vec![Sharp, HalfBlurred],
            Vec::new(),
        ),
        (
            "gpu_compute_blur_vertical",
            vec![HalfBlurred, Blurred],
            Vec::new(),
        ),
    ]
    .into_iter()
    .map(|(info, images, push)| Dispatch {
        info,
        resources: images
            .into_iter()
            .enumerate()
            .map(|(b, image)| bound(0, b as u32, Resource::StorageImage(image)))
            .collect(),
        push,
        groups: [groups, groups, 1],
    })
    .collect()
}

/// Lit cubes and spheres, then the glass in front of them.
fn scene_draws(registry: &Registry, view: &[Bound]) -> Result<Vec<Draw>, Vec<Diagnostic>> {
    let opaque = scene::objects()
        .into_iter()
        .map(|o| ("gpu_shader_forward_lit", o));
    let glass = scene::transparent_objects()
        .into_iter()
        .map(|o| ("gpu_shader_3D_transparent", o));
    opaque
        .chain(glass)
        .map(|(info, o)| {
            let push = ForwardLitPush {
                base_color: o.base_color,
                shininess: o.shininess,
                _pad: Pad::ZERO,
                ModelMatrix: o.model,
            };
            Ok(Draw {
                info,
                resources: view.to_vec(),
                geometry: mesh_of(o.shape, false),
                push: typed_push(registry, info, push)?,
            })
        })
        .collect()
}

/// The opaque objects' depth, drawn first so the lit pass shades each pixel once.
fn prepass_draws(registry: &Registry, view: &[Bound]) -> Result<Vec<Draw>, Vec<Diagnostic>> {
    let info = "gpu_shader_3D_depth_only";
    scene::objects()
        .into_iter()
        .map(|o| {
            Ok(Draw {
                info,
                resources: view.to_vec(),
                geometry: mesh_of(o.shape, true),
                push: typed_push(
                    registry,
                    info,
                    ModelPush {
                        ModelMatrix: o.model,
                    },
                )?,
            })
        })
        .collect()
}

/// Tonemap the HDR target, then 2D shapes, images, points and text on top.
fn display_draws(
    registry: &Registry,
    passes: &mut Passes,
    glyphs: &[crate::GlyphQuad],
) -> Result<Vec<Draw>, Vec<Diagnostic>> {
    use ImageId::*;
    let mvp = canvas_to_clip();
    let srgb = Bool32::TRUE;
    let mut draws = Vec::new();

    draws.push(Draw {
        info: FullscreenTonemap::NAME,
        resources: vec![bound(0, 0, Resource::Sampled(Hdr, Filter::Linear))],
        geometry: Geometry::Vertices {
            buffer: None,
            count: 3,
        },
        push: derived_push(FullscreenTonemap {
            exposure: 0.75,
            srgb_target: srgb,
        }),
    });

    // Bars behind the text (one draw, two rectangles).
    let bars: Vec<[f32; 2]> = rect_corners(0.0, 0.0, CANVAS.x, 64.0)
        .iter()
        .chain(rect_corners(0.0, CANVAS.y - 52.0, CANVAS.x, 52.0).iter())
        .map(|(p, _)| *p)
        .collect();
    let info = "gpu_shader_2D_uniform_color";
    draws.push(Draw {
        info,
        resources: Vec::new(),
        geometry: vertices(&bars),
        push: typed_push(
            registry,
            info,
            ColorMvpSrgbPush {
                color: Vec4::new(0.06, 0.07, 0.10, 0.8),
                ModelViewProjectionMatrix: mvp,
                srgb_target: srgb,
                _pad: Pad::ZERO,
            },
        )?,
    });

    // Two widget boxes behind the bottom bar's text: a push block too large to push, spilled and pushed anyway.
    let info = "gpu_shader_2D_widget_base";
    for (i, (inner, outline)) in [
        (
            Vec4::new(0.28, 0.30, 0.36, 0.95),
            Vec4::new(0.55, 0.60, 0.70, 1.0),
        ),
        (
            Vec4::new(0.20, 0.42, 0.70, 0.95),
            Vec4::new(0.45, 0.70, 1.00, 1.0),
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let mut parameters = [Vec4::ZERO; 12];
        parameters[0] = Vec4::new(300.0 + 230.0 * i as f32, 84.0, 210.0, 44.0);
        parameters[1] = Vec4::new(10.0, 1.5, 0.08, -0.08);
        parameters[2] = inner;
        parameters[3] = outline;
        draws.push(Draw {
            info,
            resources: Vec::new(),
            geometry: Geometry::Vertices {
                buffer: None,
                count: 6,
            },
            push: typed_push(
                registry,
                info,
                WidgetPush {
                    parameters,
                    ModelViewProjectionMatrix: mvp,
                    srgb_target: srgb,
                    _pad: Pad::ZERO,
                },
            )?,
        });
    }

    // The sharp pattern, the blurred one tinted, and a blurred detail through the rectangle shader.
    let quad = |r: [f32; 4]| -> Vec<[f32; 4]> {
        rect_corners(r[0], r[1], r[2], r[3])
            .iter()
            .map(|(p, uv)| [p[0], p[1], uv[0], uv[1]])
            .collect()
    };
    let info = "gpu_shader_2D_image";
    draws.push(Draw {
        info,
        resources: vec![bound(1, 0, Resource::Sampled(Sharp, Filter::Linear))],
        geometry: vertices(&quad([24.0, 88.0, 192.0, 192.0])),
        push: typed_push(
            registry,
            info,
            MvpPush {
                ModelViewProjectionMatrix: mvp,
            },
        )?,
    });
    let info = "gpu_shader_2D_image_color";
    draws.push(Draw {
        info,
        resources: vec![bound(1, 0, Resource::Sampled(Blurred, Filter::Linear))],
        geometry: vertices(&quad([24.0, 296.0, 192.0, 192.0])),
        push: typed_push(
            registry,
            info,
            ColorMvpSrgbPush {
                color: Vec4::new(1.0, 0.8, 0.55, 1.0),
                ModelViewProjectionMatrix: mvp,
                srgb_target: srgb,
                _pad: Pad::ZERO,
            },
        )?,
    });
    let info = "gpu_shader_2D_image_rect_color";
    draws.push(Draw {
        info,
        resources: vec![bound(1, 0, Resource::Sampled(Blurred, Filter::Linear))],
        geometry: Geometry::Vertices {
            buffer: None,
            count: 6,
        },
        push: typed_push(
            registry,
            info,
            ImageRectPush {
                rect: Vec4::new(24.0, 504.0, 192.0, 152.0),
                uv_rect: Vec4::new(0.25, 0.3, 0.75, 0.7),
                color: Vec4::new(0.7, 0.9, 1.0, 1.0),
                ModelViewProjectionMatrix: mvp,
                srgb_target: srgb,
                _pad: Pad::ZERO,
            },
        )?,
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
    for (info, data) in [
        ("gpu_shader_2D_flat_color", hexagon),
        ("gpu_shader_2D_smooth_color", triangle),
    ] {
        draws.push(Draw {
            info,
            resources: Vec::new(),
            geometry: vertices(&data),
            push: typed_push(registry, info, mvp_srgb)?,
        });
    }

    // A row of round points, expanded to quads in the vertex stage (sized in framebuffer pixels, scaled with the
    // canvas).
    let dots: Vec<[f32; 2]> = (0..9).map(|i| [320.0 + 70.0 * i as f32, 620.0]).collect();
    passes.buffers.push(bytemuck::cast_slice(&dots).to_vec());
    let info = "gpu_shader_2D_point_quad_round";
    draws.push(Draw {
        info,
        resources: vec![bound(
            1,
            0,
            Resource::StorageBuffer(passes.buffers.len() - 1),
        )],
        geometry: Geometry::Vertices {
            buffer: None,
            count: dots.len() as u32 * 6,
        },
        push: typed_push(
            registry,
            info,
            PointQuadRoundPush {
                color: Vec4::new(1.0, 0.85, 0.2, 1.0),
                viewport_size: Vec2::new(passes.width as f32, passes.height as f32),
                point_size: (28.0 * passes.height as f32 / CANVAS.y).max(1.0),
                _pad0: Pad::ZERO,
                ModelViewProjectionMatrix: mvp,
                srgb_target: srgb,
                _pad1: Pad::ZERO,
            },
        )?,
    });

    // Text: the glyph atlas and one quad per glyph in a storage buffer.
    passes.buffers.push(bytemuck::cast_slice(glyphs).to_vec());
    let info = "gpu_shader_text";
    draws.push(Draw {
        info,
        resources: vec![
            bound(1, 0, Resource::Sampled(Atlas, Filter::Nearest)),
            bound(1, 1, Resource::StorageBuffer(passes.buffers.len() - 1)),
        ],
        geometry: Geometry::Vertices {
            buffer: None,
            count: glyphs.len() as u32 * 6,
        },
        push: typed_push(registry, info, mvp_srgb)?,
    });
    Ok(draws)
}

/// The demo's pipeline set: every dispatch's info and every draw's info with the options `options` gives it
/// (the targets each backend draws it into), each once. Warming this up before the first frame and then running
/// the library in strict mode proves the frame creates no pipeline ([`gpu::library::Library::set_strict`]).
pub fn pipeline_set<O: Clone + PartialEq>(
    passes: &Passes,
    options: impl Fn(&str) -> O,
) -> Vec<gpu::library::WarmUp<O>> {
    use gpu::library::WarmUp;
    let mut out: Vec<WarmUp<O>> = Vec::new();
    for d in &passes.dispatches {
        if !out
            .iter()
            .any(|r| matches!(r, WarmUp::Compute { key } if key == d.info))
        {
            out.push(WarmUp::Compute {
                key: d.info.to_string(),
            });
        }
    }
    for d in passes
        .prepass
        .iter()
        .chain(&passes.scene)
        .chain(&passes.display)
    {
        let o = options(d.info);
        let known = out.iter().any(
            |r| matches!(r, WarmUp::Graphics { key, options } if key == d.info && *options == o),
        );
        if !known {
            out.push(WarmUp::Graphics {
                key: d.info.to_string(),
                options: o,
            });
        }
    }
    out
}
