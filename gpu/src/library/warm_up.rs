//! Pipeline warm-up from declarations, on any backend: every requested pipeline created up front, its modules
//! made in parallel (compiled or translated, checked and created) and its pipelines created in parallel
//! (`vkCreate*Pipelines` and wgpu's device are thread-safe, and the device's pipeline cache is internally
//! synchronized), so a renderer's first frame does not hitch.

use super::build::Want;
use super::{Backend, Library};
use shader_info::{Diagnostic, PipelineKind, SpecValues};

/// One pipeline to create up front; `O` is the backend's graphics options.
#[derive(Clone, Debug)]
pub enum WarmUp<O> {
    /// The graphics pipeline of an info (or variant) key into these render targets.
    Graphics { key: String, options: O },
    /// The compute pipeline of a key with its declared specialization defaults.
    Compute { key: String },
    /// The ray-tracing pipeline of a key.
    RayTracing { key: String },
}

impl<O> WarmUp<O> {
    /// The info (or variant) key.
    pub fn key(&self) -> &str {
        match self {
            WarmUp::Graphics { key, .. } | WarmUp::Compute { key } | WarmUp::RayTracing { key } => {
                key
            }
        }
    }

    /// The kind of pipeline.
    pub fn kind(&self) -> PipelineKind {
        match self {
            WarmUp::Graphics { .. } => PipelineKind::Graphics,
            WarmUp::Compute { .. } => PipelineKind::Compute,
            WarmUp::RayTracing { .. } => PipelineKind::RayTracing,
        }
    }
}

/// One pipeline [`Library::warm_up`] created.
#[derive(Clone, Debug, serde::Serialize)]
pub struct WarmedPipeline {
    pub key: String,
    pub kind: PipelineKind,
    /// Creating its pipeline object (on its worker thread).
    pub create_ms: f64,
}

/// What [`Library::warm_up`] did.
#[derive(Debug, Default)]
pub struct WarmUpReport {
    /// In request order.
    pub created: Vec<WarmedPipeline>,
    /// Requests that failed, with their diagnostics (nothing else is affected).
    pub failed: Vec<(String, Vec<Diagnostic>)>,
    /// Wall time of generating, compiling (or translating) and checking every module and creating it (in
    /// parallel), then the layouts.
    pub compile_ms: f64,
    /// Wall time of creating every pipeline (in parallel).
    pub create_ms: f64,
    /// Worker threads used.
    pub threads: usize,
}

impl<O: Clone> WarmUp<O> {
    /// The request as the library's caches key it.
    pub(super) fn want(&self) -> Want<O> {
        match self {
            WarmUp::Graphics { key, options } => Want::Graphics(key.clone(), options.clone()),
            WarmUp::Compute { key } => Want::Compute(key.clone(), SpecValues::default()),
            WarmUp::RayTracing { key } => Want::RayTracing(key.clone()),
        }
    }
}

impl<B: Backend> Library<B> {
    /// Creates every requested pipeline now, into the device's pipeline cache, and keeps it as
    /// [`Self::graphics_pipeline`] (and the others) would have: a later fetch with the same key and options
    /// returns it at once, and reload rebuilds it like any other. Requests already created are not created again.
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary) {
    /// use shader_info_gpu::vk::{GraphicsOptions, WarmUp};
    /// let report = lib.warm_up(&[
    ///     WarmUp::Graphics { key: "gpu_shader_forward_lit".into(), options: GraphicsOptions::default() },
    ///     WarmUp::Compute { key: "gpu_compute_histogram".into() },
    /// ]);
    /// println!("{} pipelines in {:.1} + {:.1} ms", report.created.len(), report.compile_ms, report.create_ms);
    /// # }
    /// ```
    pub fn warm_up(&mut self, requests: &[WarmUp<B::GraphicsOptions>]) -> WarmUpReport {
        self.warm(requests, false)
    }

    /// Like [`Self::warm_up`], but graphics pipelines are only prepared ([`Backend::prepare_graphics`]: on
    /// Vulkan with fast link, their pipeline-library parts), so that their first use links them in a fraction of
    /// a creation. Compute and ray-tracing requests are created as by `warm_up`. Prepared pipelines are not
    /// "created" for the late counter: their first use counts.
    pub fn warm_up_parts(&mut self, requests: &[WarmUp<B::GraphicsOptions>]) -> WarmUpReport {
        self.warm(requests, true)
    }

    fn warm(&mut self, requests: &[WarmUp<B::GraphicsOptions>], parts_only: bool) -> WarmUpReport {
        let mut report = WarmUpReport {
            threads: rayon::current_num_threads(),
            ..WarmUpReport::default()
        };
        // A request named twice is built and reported once.
        let mut seen = std::collections::HashSet::new();
        let wants: Vec<_> = requests
            .iter()
            .filter(|r| !self.has(r))
            .map(WarmUp::want)
            .filter(|w| seen.insert(w.clone()))
            .collect();
        let (batch, refused) = self.batch(wants, parts_only);
        for (want, d) in refused {
            report.failed.push((want.key().to_string(), d));
        }
        let out = batch.run();
        report.compile_ms = out.compile_ms;
        report.create_ms = out.create_ms;
        for (want, outcome, ms) in self.merge(out) {
            let key = want.key().to_string();
            match outcome {
                Ok(prepared) => {
                    if prepared {
                        // Its first use (with these options) links prepared parts: not a stall, so not late.
                        self.late
                            .prepared
                            .insert(super::pipeline_set::Late::id(&want));
                    }
                    report.created.push(WarmedPipeline {
                        key,
                        kind: want.kind(),
                        create_ms: ms,
                    });
                }
                Err(d) => report.failed.push((key, d)),
            }
        }
        self.late.warmed_up = true;
        self.late.stats.warmed += report.created.len();
        report
    }

    /// True when the request's pipeline exists already.
    fn has(&self, r: &WarmUp<B::GraphicsOptions>) -> bool {
        match r {
            WarmUp::Graphics { key, options } => {
                self.graphics.contains_key(&(key.clone(), options.clone()))
            }
            WarmUp::Compute { key } => self
                .compute
                .contains_key(&(key.clone(), SpecValues::default())),
            WarmUp::RayTracing { key } => self.ray_tracing.contains_key(key),
        }
    }
}
