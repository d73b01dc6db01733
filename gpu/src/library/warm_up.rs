//! Pipeline warm-up from declarations, on any backend: every requested pipeline created up front, its modules
//! made in parallel (compiled or translated, checked and created) and its pipelines created in parallel
//! (`vkCreate*Pipelines` and wgpu's device are thread-safe, and the device's pipeline cache is internally
//! synchronized), so a renderer's first frame does not hitch.

use super::{Backend, Library, ModuleKey, Parts, keep};

use rayon::prelude::*;
use shader_info::{Diagnostic, PipelineKind, RenderState, SpecValues};
use std::time::Instant;

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

/// A pipeline of any kind, just created.
enum Made<B: Backend> {
    /// Graphics parts prepared, no pipeline ([`Library::warm_up_parts`]).
    Prepared,
    Graphics(B::Graphics),
    Compute(B::Compute),
    RayTracing(B::RayTracing),
}

/// What the parallel phase needs for one request: its parts, checked state and layout.
struct Ready<B: Backend> {
    index: usize,
    parts: Parts<B::Module>,
    state: RenderState,
    layout: B::Layout,
}

impl<B: Backend> Library<B> {
    /// Creates every requested pipeline now, into the device's pipeline cache, and keeps it as
    /// [`Self::graphics_pipeline`] (and the others) would have: a later fetch with the same key and options
    /// returns it at once, and reload rebuilds it like any other. Requests already created are not created again.
    ///
    /// ```no_run
    /// # fn f(lib: &mut gpu::vk::ShaderLibrary) {
    /// use gpu::vk::{GraphicsOptions, WarmUp};
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
        let t = Instant::now();
        self.make_modules(requests);
        let mut ready: Vec<Ready<B>> = Vec::new();
        for (index, r) in requests.iter().enumerate() {
            if self.has(r) {
                continue;
            }
            match self.prepare(r) {
                Ok((parts, state, layout)) => ready.push(Ready {
                    index,
                    parts,
                    state,
                    layout,
                }),
                Err(d) => report.failed.push((r.key().to_string(), d)),
            }
        }
        report.compile_ms = t.elapsed().as_secs_f64() * 1e3;

        let t = Instant::now();
        let backend = &self.backend;
        let made: Vec<_> = ready
            .into_par_iter()
            .map(|r| {
                let t = Instant::now();
                let refs = r.parts.refs();
                let plan = &r.parts.plan;
                let out = match &requests[r.index] {
                    WarmUp::Graphics { options, .. } if parts_only => backend
                        .prepare_graphics(plan, &r.state, &refs, &r.layout, options)
                        .map(|()| Made::Prepared),
                    WarmUp::Graphics { options, .. } => backend
                        .create_graphics(plan, &r.state, &refs, r.layout, options)
                        .map(Made::Graphics),
                    WarmUp::Compute { .. } => backend
                        .create_compute(plan, refs[0].1, r.layout, &SpecValues::default())
                        .map(Made::Compute),
                    WarmUp::RayTracing { .. } => backend
                        .create_ray_tracing(plan, &refs, r.layout)
                        .map(Made::RayTracing),
                };
                let ms = t.elapsed().as_secs_f64() * 1e3;
                (r.index, ms, out, r.parts.built_from)
            })
            .collect();
        report.create_ms = t.elapsed().as_secs_f64() * 1e3;

        for (i, ms, out, built_from) in made {
            let r = &requests[i];
            match out {
                Ok(Made::Prepared) => {
                    // Its first use links prepared parts: not a stall, so not late.
                    self.late.prepared.insert(r.key().to_string());
                    report.created.push(WarmedPipeline {
                        key: r.key().to_string(),
                        kind: r.kind(),
                        create_ms: ms,
                    });
                }
                Ok(p) => {
                    self.keep_warmed(r, p, built_from);
                    report.created.push(WarmedPipeline {
                        key: r.key().to_string(),
                        kind: r.kind(),
                        create_ms: ms,
                    });
                }
                Err(d) => report.failed.push((r.key().to_string(), d)),
            }
        }
        self.late.warmed_up = true;
        self.late.stats.warmed += report.created.len();
        report
    }

    /// Makes every module the requests need and the library lacks, in parallel; failures are left for
    /// [`Self::prepare`] to report against the requests that need them.
    fn make_modules(&mut self, requests: &[WarmUp<B::GraphicsOptions>]) {
        let mut units: Vec<(ModuleKey, std::sync::Arc<shader_info::ValidatedInfo>)> = Vec::new();
        let mut seen: std::collections::HashSet<ModuleKey> = std::collections::HashSet::new();
        for r in requests {
            let Ok(info) = self.sources.validated(r.key()) else {
                continue;
            };
            for stage in info.stages() {
                let mkey = (r.key().to_string(), stage);
                if !self.modules.contains_key(&mkey) && seen.insert(mkey.clone()) {
                    units.push((mkey, info.clone()));
                }
            }
        }
        let flow = self.sources.flow();
        let backend = &self.backend;
        let made: Vec<_> = units
            .par_iter()
            .filter_map(|((key, stage), info)| {
                let (hash, source) = backend.source(&flow, info, *stage, None).ok()??;
                let entry = super::new_entry(backend, key, hash, source).ok()?;
                Some(((key.clone(), *stage), entry))
            })
            .collect();
        drop(flow);
        self.modules.extend(made);
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

    /// The checked parts, state and layout of one request (serial: the modules exist by now).
    #[allow(clippy::type_complexity)]
    fn prepare(
        &mut self,
        r: &WarmUp<B::GraphicsOptions>,
    ) -> Result<(Parts<B::Module>, RenderState, B::Layout), Vec<Diagnostic>> {
        let parts = self.parts(r.key(), r.kind())?;
        let state = match r {
            WarmUp::Graphics { options, .. } => self.graphics_checks(&parts, options)?,
            _ => RenderState::default(),
        };
        let layout = self.backend.create_layout(&parts.plan, &parts.refs())?;
        Ok((parts, state, layout))
    }

    fn keep_warmed(
        &mut self,
        r: &WarmUp<B::GraphicsOptions>,
        made: Made<B>,
        built_from: super::BuiltFrom,
    ) {
        match (r, made) {
            (WarmUp::Graphics { key, options }, Made::Graphics(p)) => {
                keep(
                    &mut self.graphics,
                    (key.clone(), options.clone()),
                    (p, built_from),
                );
            }
            (WarmUp::Compute { key }, Made::Compute(p)) => {
                keep(
                    &mut self.compute,
                    (key.clone(), SpecValues::default()),
                    (p, built_from),
                );
            }
            (WarmUp::RayTracing { key }, Made::RayTracing(p)) => {
                keep(&mut self.ray_tracing, key.clone(), (p, built_from));
            }
            // `made` is created from `r`'s own arm above.
            _ => unreachable!("a warmed pipeline of another kind than its request"),
        }
    }
}
