//! The demo frame on wgpu (feature `wgpu`): [`super::passes`] executed with the pipelines of a [`WgpuLibrary`].
//! Bind groups are built from each pipeline's plan: a resource named at a declared (set, binding) goes to every
//! binding of the WGSL target map that carries that declaration (a combined sampler is a texture and a sampler).
//!
//! ```no_run
//! use gpu::library::LibraryOptions;
//! use gpu::wgpu::{WgpuContext, WgpuContextOptions, WgpuLibrary};
//! use shaders as _;
//! let ctx = WgpuContext::new(&WgpuContextOptions::default())?;
//! let mut lib = WgpuLibrary::new(&ctx, shader_info::Registry::global().clone(),
//!                                LibraryOptions::new(shaders::glsl_root()))?;
//! let frame = shaders::demo::wgpu::render_frame(&mut lib, 640, 360)?;
//! println!("{} distinct colors", frame.distinct_colors());
//! # Ok::<(), gpu::wgpu::WgpuError>(())
//! ```

use super::passes::{self, Bound, DISPLAY_CLEAR, Filter, Geometry, ImageId, Passes, Resource};
use super::{Frame, PATTERN_SIZE, scene};
use crate::pipelines::render_options;
use gpu::wgpu::{
    Bind, GraphicsPipeline, PushData, WgpuContext, WgpuError, WgpuLibrary, WgpuResult, raw as w,
};
use shader_info::PipelinePlan;
use std::sync::Arc;
use w::util::DeviceExt;

/// A texture with its default view.
struct Image {
    texture: w::Texture,
    view: w::TextureView,
}

/// The images, buffers and samplers of one frame.
struct Targets {
    sharp: Image,
    half_blurred: Image,
    blurred: Image,
    hdr: Image,
    depth: Image,
    display: Image,
    atlas: Image,
    /// [`Passes::buffers`].
    buffers: Vec<w::Buffer>,
    /// `(vertex buffer, index buffer, index count)` per mesh.
    meshes: Vec<(w::Buffer, w::Buffer, u32)>,
    linear: w::Sampler,
    nearest: w::Sampler,
}

/// A dispatch or a draw, prepared before recording.
struct Prepared<P> {
    pipeline: Arc<P>,
    groups: Vec<(u32, w::BindGroup)>,
    push: PushData,
    /// Vertex buffer and vertex count, or the index of the mesh to draw (draws only).
    geometry: Result<(Option<w::Buffer>, u32), usize>,
    groups_xyz: [u32; 3],
}

fn image(
    ctx: &WgpuContext,
    label: &str,
    size: (u32, u32),
    format: w::TextureFormat,
    usage: w::TextureUsages,
) -> Image {
    let texture = ctx.device.create_texture(&w::TextureDescriptor {
        label: Some(label),
        size: w::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: w::TextureDimension::D2,
        format,
        usage,
        view_formats: &[],
    });
    let view = texture.create_view(&Default::default());
    Image { texture, view }
}

impl Targets {
    fn new(ctx: &WgpuContext, p: &Passes) -> Targets {
        use w::TextureFormat as F;
        use w::TextureUsages as U;
        let d = &ctx.device;
        let size = (p.width, p.height);
        let pattern = (PATTERN_SIZE, PATTERN_SIZE);
        let buffer = |label: &str, contents: &[u8], usage| {
            d.create_buffer_init(&w::util::BufferInitDescriptor {
                label: Some(label),
                contents,
                usage,
            })
        };
        let sampler = |filter| {
            d.create_sampler(&w::SamplerDescriptor {
                mag_filter: filter,
                min_filter: filter,
                ..Default::default()
            })
        };
        let atlas = image(
            ctx,
            "glyph atlas",
            (p.atlas.width, p.atlas.height),
            F::R8Unorm,
            U::TEXTURE_BINDING | U::COPY_DST,
        );
        ctx.queue.write_texture(
            atlas.texture.as_image_copy(),
            &p.atlas.texels,
            w::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(p.atlas.width),
                rows_per_image: None,
            },
            atlas.texture.size(),
        );
        Targets {
            sharp: image(
                ctx,
                "sharp",
                pattern,
                F::Rgba16Float,
                U::STORAGE_BINDING | U::TEXTURE_BINDING,
            ),
            half_blurred: image(
                ctx,
                "half blurred",
                pattern,
                F::Rgba16Float,
                U::STORAGE_BINDING,
            ),
            blurred: image(
                ctx,
                "blurred",
                pattern,
                F::Rgba16Float,
                U::STORAGE_BINDING | U::TEXTURE_BINDING,
            ),
            hdr: image(
                ctx,
                "hdr",
                size,
                F::Rgba16Float,
                U::RENDER_ATTACHMENT | U::TEXTURE_BINDING,
            ),
            depth: image(ctx, "depth", size, F::Depth32Float, U::RENDER_ATTACHMENT),
            display: image(
                ctx,
                "display",
                size,
                F::Rgba8UnormSrgb,
                U::RENDER_ATTACHMENT | U::COPY_SRC,
            ),
            atlas,
            buffers: p
                .buffers
                .iter()
                .map(|b| {
                    buffer(
                        "demo data",
                        b,
                        w::BufferUsages::UNIFORM | w::BufferUsages::STORAGE,
                    )
                })
                .collect(),
            meshes: p
                .meshes
                .iter()
                .map(|m| {
                    (
                        buffer("mesh vertices", &m.vertices, w::BufferUsages::VERTEX),
                        buffer(
                            "mesh indices",
                            bytemuck::cast_slice(&m.indices),
                            w::BufferUsages::INDEX,
                        ),
                        m.indices.len() as u32,
                    )
                })
                .collect(),
            linear: sampler(w::FilterMode::Linear),
            nearest: sampler(w::FilterMode::Nearest),
        }
    }

    fn image(&self, id: ImageId) -> &Image {
        match id {
            ImageId::Sharp => &self.sharp,
            ImageId::HalfBlurred => &self.half_blurred,
            ImageId::Blurred => &self.blurred,
            ImageId::Hdr => &self.hdr,
            ImageId::Atlas => &self.atlas,
        }
    }

    /// A bind group for every set `resources` use, each resource under the declared name at its binding.
    fn bind_groups(
        &self,
        plan: &PipelinePlan,
        resources: &[Bound],
        bind: impl Fn(&[(&str, Bind<'_>)]) -> WgpuResult<w::BindGroup>,
    ) -> WgpuResult<Vec<(u32, w::BindGroup)>> {
        let mut sets: Vec<u32> = resources.iter().map(|b| b.set).collect();
        sets.sort_unstable();
        sets.dedup();
        let mut out = Vec::new();
        for set in sets {
            let mut named = Vec::new();
            for b in resources.iter().filter(|b| b.set == set) {
                let declared = plan
                    .sets
                    .iter()
                    .find(|s| s.set == set)
                    .and_then(|s| s.bindings.iter().find(|d| d.binding == b.binding));
                let name = declared.map_or("", |d| d.name.as_str());
                // A sampler the declaration fixes is the one the shader samples with: the texture goes alone.
                let fixed = declared.is_some_and(|d| d.resource.fixed_sampler().is_some());
                let resource = match b.resource {
                    Resource::Sampled(id, _) if fixed => Bind::Texture(&self.image(id).view),
                    Resource::Sampled(id, Filter::Linear) => {
                        Bind::Sampled(&self.image(id).view, &self.linear)
                    }
                    Resource::Sampled(id, Filter::Nearest) => {
                        Bind::Sampled(&self.image(id).view, &self.nearest)
                    }
                    Resource::StorageImage(id) => Bind::Texture(&self.image(id).view),
                    Resource::UniformBuffer(i) | Resource::StorageBuffer(i) => {
                        Bind::Buffer(&self.buffers[i])
                    }
                };
                named.push((name, resource));
            }
            out.push((set, bind(&named)?));
        }
        Ok(out)
    }

    fn draws(
        &self,
        lib: &mut WgpuLibrary,
        draws: &[passes::Draw],
    ) -> WgpuResult<Vec<Prepared<GraphicsPipeline>>> {
        let ctx = lib.context().clone();
        let mut out = Vec::new();
        for d in draws {
            let pipeline = lib.graphics_pipeline(d.info, &render_options(d.info))?;
            let groups = self.bind_groups(&pipeline.plan, &d.resources, |r| {
                pipeline.bind_group(&ctx, r).map(|g| g.group)
            })?;
            let geometry = match &d.geometry {
                Geometry::Vertices { buffer, count } => Ok((
                    buffer.as_ref().map(|bytes| {
                        ctx.device
                            .create_buffer_init(&w::util::BufferInitDescriptor {
                                label: Some(d.info),
                                contents: bytes,
                                usage: w::BufferUsages::VERTEX,
                            })
                    }),
                    *count,
                )),
                Geometry::Mesh(i) => Err(*i),
            };
            out.push(Prepared {
                push: pipeline.push(&ctx, &d.push)?,
                pipeline,
                groups,
                geometry,
                groups_xyz: [0; 3],
            });
        }
        Ok(out)
    }
}

/// Renders the demo frame at `width` × `height` through wgpu, with the library's pipelines (created on first use),
/// and reads it back. Fails cleanly when the size exceeds the device's texture limit or wgpu refuses a resource.
pub fn render_frame(lib: &mut WgpuLibrary, width: u32, height: u32) -> WgpuResult<Frame> {
    let ctx = lib.context().clone();
    let max = ctx.device.limits().max_texture_dimension_2d;
    if width == 0 || height == 0 || width > max || height > max {
        return Err(WgpuError::Device(format!(
            "a {width}x{height} frame does not fit {}: textures are 1..={max} texels on a side",
            ctx.device_name()
        )));
    }
    let p = passes::describe(lib.registry(), width, height).map_err(WgpuError::Diagnostics)?;
    let t = ctx.checked("the demo's targets", || Targets::new(&ctx, &p))?;
    let mut dispatches = Vec::new();
    for d in &p.dispatches {
        let pipeline = lib.compute_pipeline(d.info)?;
        dispatches.push(Prepared {
            groups: t.bind_groups(&pipeline.plan, &d.resources, |r| {
                pipeline.bind_group(&ctx, r).map(|g| g.group)
            })?,
            push: pipeline.push(&ctx, &d.push)?,
            pipeline,
            geometry: Ok((None, 0)),
            groups_xyz: d.groups,
        });
    }
    let prepass_draws = t.draws(lib, &p.prepass)?;
    let scene_draws = t.draws(lib, &p.scene)?;
    let display_draws = t.draws(lib, &p.display)?;

    let commands = ctx.checked("the demo frame", || {
        let mut enc = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_compute_pass(&Default::default());
            for d in &dispatches {
                pass.set_pipeline(&d.pipeline.pipeline);
                for (index, group) in &d.groups {
                    pass.set_bind_group(*index, group, &[]);
                }
                d.push.set_compute(&mut pass);
                let [x, y, z] = d.groups_xyz;
                pass.dispatch_workgroups(x, y, z);
            }
        }
        let clear = |c: [f32; 4]| w::Color {
            r: c[0] as f64,
            g: c[1] as f64,
            b: c[2] as f64,
            a: c[3] as f64,
        };
        let color = |view, c| {
            [Some(w::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: w::Operations {
                    load: w::LoadOp::Clear(clear(c)),
                    store: w::StoreOp::Store,
                },
            })]
        };
        let depth = |load, store| {
            Some(w::RenderPassDepthStencilAttachment {
                view: &t.depth.view,
                depth_ops: Some(w::Operations { load, store }),
                stencil_ops: None,
            })
        };
        {
            let mut pass = enc.begin_render_pass(&w::RenderPassDescriptor {
                label: Some("depth prepass"),
                depth_stencil_attachment: depth(w::LoadOp::Clear(1.0), w::StoreOp::Store),
                ..Default::default()
            });
            record_draws(&mut pass, &t, &prepass_draws);
        }
        {
            let mut pass = enc.begin_render_pass(&w::RenderPassDescriptor {
                label: Some("scene"),
                color_attachments: &color(&t.hdr.view, scene::SKY),
                depth_stencil_attachment: depth(w::LoadOp::Load, w::StoreOp::Discard),
                ..Default::default()
            });
            record_draws(&mut pass, &t, &scene_draws);
        }
        {
            let mut pass = enc.begin_render_pass(&w::RenderPassDescriptor {
                label: Some("display"),
                color_attachments: &color(&t.display.view, DISPLAY_CLEAR),
                ..Default::default()
            });
            record_draws(&mut pass, &t, &display_draws);
        }
        enc.finish()
    })?;
    ctx.queue.submit([commands]);
    let rgba = ctx.read_texture(&t.display.texture)?;
    Ok(Frame {
        width,
        height,
        rgba,
    })
}

/// Records prepared draws into a render pass.
fn record_draws(pass: &mut w::RenderPass<'_>, t: &Targets, draws: &[Prepared<GraphicsPipeline>]) {
    for d in draws {
        d.pipeline.set_render(pass);
        for (index, group) in &d.groups {
            pass.set_bind_group(*index, group, &[]);
        }
        d.push.set_render(pass);
        match &d.geometry {
            Ok((vertex_buffer, count)) => {
                if let Some(vb) = vertex_buffer {
                    pass.set_vertex_buffer(0, vb.slice(..));
                }
                pass.draw(0..*count, 0..1);
            }
            Err(mesh) => {
                let (vb, ib, count) = &t.meshes[*mesh];
                pass.set_vertex_buffer(0, vb.slice(..));
                pass.set_index_buffer(ib.slice(..), w::IndexFormat::Uint32);
                pass.draw_indexed(0..*count, 0, 0..1);
            }
        }
    }
}
