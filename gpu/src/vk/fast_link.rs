//! No frame waits for a pipeline: graphics pipelines linked from parts made ahead (`VK_EXT_graphics_pipeline_library`).
//! Each pipeline is four parts — vertex input, pre-rasterization shaders, fragment shader, fragment output — each
//! derived from the plan, the state and the options, and shared by every pipeline whose part is the same (the mesh
//! ubershader's hundreds of variants share a few vertex-input and fragment-output parts). A pipeline whose parts
//! exist is linked without link-time optimization in a fraction of a monolithic creation; the optimized pipeline
//! is made whole on a background thread, and the library hands it out from the next fetch on
//! ([`crate::library::Backend::better`]). Devices without the extension keep monolithic creation.

use super::device::VkContext;
use super::error::{VkError, VkResult};
use super::layout::PipelineLayout;
use super::module::ShaderModule;
use super::pipeline::{
    GraphicsOptions, GraphicsPipeline, OwnedPipeline, Part, Pending, Specialization, color_formats,
    consumed_vertex_input, create_handle,
};
use ash::vk;
use shader_info::{PipelinePlan, RenderState, Stage};
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The four parts, in the order a linked pipeline lists them.
const PARTS: [vk::GraphicsPipelineLibraryFlagsEXT; 4] = [
    vk::GraphicsPipelineLibraryFlagsEXT::VERTEX_INPUT_INTERFACE,
    vk::GraphicsPipelineLibraryFlagsEXT::PRE_RASTERIZATION_SHADERS,
    vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_SHADER,
    vk::GraphicsPipelineLibraryFlagsEXT::FRAGMENT_OUTPUT_INTERFACE,
];

/// One pipeline library (a part); destroyed on drop. A linked pipeline does not reference its libraries after
/// creation, so the cache may drop a part while pipelines linked from it live.
type Library = OwnedPipeline;

/// How many parts, links and swaps a library made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct FastLinkStats {
    /// Parts created, by kind: vertex input, pre-rasterization, fragment shader, fragment output.
    pub parts: [usize; 4],
    /// Pipelines linked without optimization.
    pub linked: usize,
    /// Optimized pipelines swapped in at a fetch.
    pub optimized: usize,
    /// Parts held now: those made from code a reload replaced are dropped.
    pub held: usize,
}

/// A part, with the SPIR-V hashes of the modules it was made from (none for the vertex-input and fragment-output
/// parts).
type HeldPart = (Arc<Library>, Vec<u128>);

/// The parts of one device, shared by every pipeline whose part is the same.
#[derive(Default)]
pub(crate) struct PartCache {
    parts: Mutex<HashMap<u128, HeldPart>>,
    counts: [AtomicUsize; 4],
    linked: AtomicUsize,
    pub(crate) optimized: AtomicUsize,
    /// The one background thread that makes optimized pipelines, one after the other: a thread per pipeline
    /// would compete with the renderer's own first uses for the driver (measured on the H100: first-use p99 went
    /// from under a millisecond to 12 ms with 808 concurrent creations). Started on first use; it ends when the
    /// cache is dropped, which skips what is still queued and waits for the creation under way: no driver call
    /// outlives the library (a process that exits with one in flight can crash in the driver's teardown).
    background: Mutex<Option<Background>>,
    /// Set when the cache is dropped: queued creations are skipped.
    cancelled: Arc<std::sync::atomic::AtomicBool>,
}

/// A background creation.
type Job = Box<dyn FnOnce() + Send>;

/// The background thread and the queue it reads.
struct Background {
    queue: std::sync::mpsc::Sender<Job>,
    thread: std::thread::JoinHandle<()>,
}

impl PartCache {
    /// Queues `job` on the background thread; it does not run once the cache is dropped.
    fn in_background(&self, job: Job) {
        let mut background = self.background.lock().unwrap_or_else(|p| p.into_inner());
        let b = background.get_or_insert_with(|| {
            let (queue, rx) = std::sync::mpsc::channel::<Job>();
            let cancelled = self.cancelled.clone();
            let thread = std::thread::spawn(move || {
                for job in rx {
                    if !cancelled.load(Ordering::Relaxed) {
                        job();
                    }
                }
            });
            Background { queue, thread }
        });
        if let Err(std::sync::mpsc::SendError(job)) = b.queue.send(job) {
            // The thread is gone (it cannot be, short of a panic in a job): run it here rather than lose it.
            job();
        }
    }

    pub fn stats(&self) -> FastLinkStats {
        FastLinkStats {
            parts: std::array::from_fn(|i| self.counts[i].load(Ordering::Relaxed)),
            linked: self.linked.load(Ordering::Relaxed),
            optimized: self.optimized.load(Ordering::Relaxed),
            held: self.parts.lock().unwrap_or_else(|p| p.into_inner()).len(),
        }
    }

    /// Drops the parts made from a module whose SPIR-V is not `live`: an edited shader's parts are never used
    /// again, and a session that reloads for hours made one set per edit. Pipelines linked from them do not need
    /// them (see [`Library`]).
    pub(crate) fn retain_for(&self, live: &std::collections::HashSet<u128>) {
        self.parts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, (_, made_from)| made_from.iter().all(|h| live.contains(h)));
    }
}

impl Drop for PartCache {
    fn drop(&mut self) {
        self.cancelled.store(true, Ordering::Relaxed);
        let background = self
            .background
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(Background { queue, thread }) = background {
            drop(queue);
            // A job that panicked has already been reported by the panic hook; the fast-linked pipeline stays.
            let _ = thread.join();
        }
    }
}

/// The SPIR-V hashes of the modules part `index` is made from (the pre-rasterization part: every stage but the
/// fragment stage; the fragment-shader part: that stage; the others: none). Variants whose code is the same share
/// parts: modules are named by their SPIR-V, not by which module object holds it.
fn made_from(index: usize, modules: &[(Stage, &ShaderModule)]) -> Vec<(Stage, u128)> {
    modules
        .iter()
        .filter(|(s, _)| match index {
            1 => *s != Stage::Fragment,
            2 => *s == Stage::Fragment,
            _ => false,
        })
        .map(|(s, m)| (*s, m.spirv_hash()))
        .collect()
}

/// What a part depends on, as one key: only the inputs its subset reads, so pipelines that differ elsewhere share
/// it.
fn part_key(
    index: usize,
    plan: &PipelinePlan,
    state: &RenderState,
    modules: &[(Stage, &ShaderModule)],
    layout: &PipelineLayout,
    opts: &GraphicsOptions,
) -> VkResult<u128> {
    let spec = Specialization::new(plan, &opts.specialization)?;
    let spec = (
        &spec.data,
        spec.entries
            .iter()
            .map(|e| e.constant_id)
            .collect::<Vec<_>>(),
    );
    let text = match index {
        0 => {
            let vin = consumed_vertex_input(plan, modules, opts.vertex_layout);
            let tess = modules.iter().any(|(s, _)| *s == Stage::TessControl);
            format!(
                "vi {:?} {:?} {:?} {} {tess}",
                vin.bindings, vin.attributes, state.topology, state.primitive_restart,
            )
        }
        1 => format!(
            "pr {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
            made_from(1, modules),
            layout.desc(),
            state.polygon_mode,
            state.cull,
            state.front_face,
            state.line_width(),
            state.depth_bias,
            state.dynamic,
            opts.patch_control_points.or(plan.patch_control_points),
            state.topology,
            spec,
        ),
        2 => format!(
            "fs {:?} {:?} {:?} {:?} {:?} {} {:?} {:?}",
            made_from(2, modules),
            layout.desc(),
            state.depth,
            state.stencil,
            opts.samples,
            state.alpha_to_coverage,
            state.dynamic,
            spec,
        ),
        _ => {
            let formats = color_formats(plan, opts);
            let blends: Vec<String> = (0..formats.len() as u32)
                .map(|l| {
                    let writes = crate::library::color_writes(plan, state, l);
                    format!("{:?}/{writes:?}", state.blend_at(l))
                })
                .collect();
            format!(
                "fo {formats:?} {:?} {blends:?} {:?} {} {:?}",
                opts.depth_format, opts.samples, state.alpha_to_coverage, state.dynamic,
            )
        }
    };
    Ok(xxhash_rust::xxh3::xxh3_128(text.as_bytes()))
}

/// The four parts of a pipeline, made where the cache lacks them.
#[allow(clippy::too_many_arguments)]
fn parts(
    ctx: &VkContext,
    cache: &PartCache,
    plan: &PipelinePlan,
    state: &RenderState,
    modules: &[(Stage, &ShaderModule)],
    layout: &PipelineLayout,
    opts: &GraphicsOptions,
) -> VkResult<[Arc<Library>; 4]> {
    let mut out = Vec::with_capacity(4);
    for (i, flags) in PARTS.into_iter().enumerate() {
        let key = part_key(i, plan, state, modules, layout, opts)?;
        if let Some(p) = cache
            .parts
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
        {
            out.push(p.0.clone());
            continue;
        }
        // Made outside the lock: parts of different pipelines are made in parallel during warm-up. Two threads
        // making the same part keep the first.
        let handle = create_handle(
            ctx,
            plan,
            state,
            modules,
            layout,
            opts,
            Part::Library(flags),
        )
        .map_err(|e| VkError::Other(format!("the {flags:?} part of `{}`: {e}", plan.key)))?;
        let made = Arc::new(Library {
            ctx: ctx.clone(),
            handle,
        });
        let hashes = made_from(i, modules).into_iter().map(|(_, h)| h).collect();
        let mut parts = cache.parts.lock().unwrap_or_else(|p| p.into_inner());
        let kept = parts.entry(key).or_insert_with(|| {
            cache.counts[i].fetch_add(1, Ordering::Relaxed);
            (made, hashes)
        });
        out.push(kept.0.clone());
    }
    Ok(out
        .try_into()
        .unwrap_or_else(|_| unreachable!("four parts")))
}

/// Links `parts` without optimization: the fast link of a first use.
fn link(
    ctx: &VkContext,
    parts: &[Arc<Library>; 4],
    plan: &PipelinePlan,
    state: &RenderState,
    layout: &PipelineLayout,
    opts: &GraphicsOptions,
) -> VkResult<vk::Pipeline> {
    let libraries: Vec<vk::Pipeline> = parts.iter().map(|p| p.handle).collect();
    create_handle(
        ctx,
        plan,
        state,
        &[],
        layout,
        opts,
        Part::Link {
            libraries: &libraries,
        },
    )
}

/// A graphics pipeline linked from its parts without optimization (the parts made where missing), with the
/// optimized pipeline started on a background thread. The optimized one is made whole, from the same modules and
/// state, rather than by an optimizing link: that needs the parts made with RETAIN_LINK_TIME_OPTIMIZATION_INFO,
/// which NVIDIA's driver 580 refuses for pre-rasterization parts (`VK_ERROR_OUT_OF_HOST_MEMORY`), and a whole
/// creation is what the driver optimizes best anyway.
pub(crate) fn create_linked(
    ctx: &VkContext,
    cache: &Arc<PartCache>,
    plan: &PipelinePlan,
    state: &RenderState,
    modules: &[(Stage, &ShaderModule)],
    layout: Arc<PipelineLayout>,
    opts: &GraphicsOptions,
) -> VkResult<GraphicsPipeline> {
    let parts = parts(ctx, cache, plan, state, modules, &layout, opts)?;
    let handle = link(ctx, &parts, plan, state, &layout, opts)?;
    cache.linked.fetch_add(1, Ordering::Relaxed);
    let mut fast = GraphicsPipeline::owning(ctx, plan, handle, layout.clone(), opts);
    let pending: Pending = Arc::new(Mutex::new(None));
    fast.optimized = Some(pending.clone());
    // Clones share the module handles, which stay alive until the background creation is done.
    let modules: Vec<(Stage, ShaderModule)> =
        modules.iter().map(|(s, m)| (*s, (*m).clone())).collect();
    let (ctx, plan, state, opts) = (ctx.clone(), plan.clone(), state.clone(), opts.clone());
    cache.in_background(Box::new(move || {
        let refs: Vec<(Stage, &ShaderModule)> = modules.iter().map(|(s, m)| (*s, m)).collect();
        let made = create_handle(&ctx, &plan, &state, &refs, &layout, &opts, Part::Whole)
            .map(|h| GraphicsPipeline::owning(&ctx, &plan, h, layout, &opts))
            .map_err(|e| VkError::Other(format!("the optimized pipeline of `{}`: {e}", plan.key)));
        *pending.lock().unwrap_or_else(|p| p.into_inner()) = Some(made);
    }));
    Ok(fast)
}

/// Makes the parts of a pipeline without linking it (warm-up of the libraries: a later first use only links).
pub(crate) fn prepare(
    ctx: &VkContext,
    cache: &PartCache,
    plan: &PipelinePlan,
    state: &RenderState,
    modules: &[(Stage, &ShaderModule)],
    layout: &PipelineLayout,
    opts: &GraphicsOptions,
) -> VkResult<()> {
    parts(ctx, cache, plan, state, modules, layout, opts).map(drop)
}

/// The optimized pipeline of a fast-linked one, once its background link finished (its error is logged, and the
/// fast one stays).
pub(crate) fn take_optimized(p: &GraphicsPipeline) -> Option<GraphicsPipeline> {
    let pending = p.optimized.as_ref()?;
    match pending.lock().unwrap_or_else(|p| p.into_inner()).take()? {
        Ok(optimized) => Some(optimized),
        Err(e) => {
            tracing::warn!("{e}; keeping the fast-linked one");
            None
        }
    }
}
