//! Pipeline warm-up from declarations: every requested pipeline created up front, its modules compiled in
//! parallel and the pipelines created in parallel (`vkCreate*Pipelines` is thread-safe, and the device's
//! pipeline cache is internally synchronized), so a renderer's first frame does not hitch.

use super::{Cached, GraphicsKey, ShaderLibrary, ids};
use crate::vk::{
    ComputePipeline, GraphicsOptions, GraphicsPipeline, PipelineLayout, RayTracingPipeline,
    ShaderModule, VkError, VkResult,
};
use rayon::prelude::*;
use shader_info::{PipelineKind, PipelinePlan, SpecValues, Stage};
use std::sync::Arc;
use std::time::Instant;

/// One pipeline to create up front.
#[derive(Clone, Debug)]
pub enum WarmUp {
    /// The graphics pipeline of an info (or variant) key into these render targets.
    Graphics {
        key: String,
        options: GraphicsOptions,
    },
    /// The compute pipeline of a key with its declared specialization defaults.
    Compute { key: String },
    /// The ray-tracing pipeline of a key.
    RayTracing { key: String },
}

impl WarmUp {
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

/// One pipeline [`ShaderLibrary::warm_up`] created.
#[derive(Clone, Debug, serde::Serialize)]
pub struct WarmedPipeline {
    pub key: String,
    pub kind: PipelineKind,
    /// Creating its pipeline object (on its worker thread).
    pub create_ms: f64,
}

/// What [`ShaderLibrary::warm_up`] did.
#[derive(Debug, Default)]
pub struct WarmUpReport {
    /// In request order.
    pub created: Vec<WarmedPipeline>,
    /// Requests that failed, with the error (nothing else is affected).
    pub failed: Vec<(String, VkError)>,
    /// Wall time of generating, compiling and checking every module (in parallel), then creating the modules
    /// and layouts.
    pub compile_ms: f64,
    /// Wall time of creating every pipeline (in parallel).
    pub create_ms: f64,
    /// Worker threads used.
    pub threads: usize,
}

/// The parts of one pipeline, gathered before the parallel phase.
struct Parts {
    plan: PipelinePlan,
    modules: Vec<(Stage, Arc<ShaderModule>)>,
    layout: Arc<PipelineLayout>,
}

enum Built {
    Graphics(GraphicsPipeline),
    Compute(ComputePipeline),
    RayTracing(RayTracingPipeline),
}

impl ShaderLibrary {
    /// Creates every requested pipeline now, into the device's pipeline cache, and keeps it as
    /// [`Self::graphics_pipeline`] (and the others) would have: a later fetch with the same key and options
    /// returns it at once, and reload rebuilds it like any other. Requests already created are not created again.
    ///
    /// ```no_run
    /// # fn f(lib: &mut gpu::vk::ShaderLibrary) {
    /// use gpu::vk::{GraphicsOptions, WarmUp};
    /// let report = lib.warm_up(&[
    ///     WarmUp::Graphics { key: "gpu_shader_forward_lit".into(), options: GraphicsOptions::default() },
    ///     WarmUp::Compute { key: "gpu_shader_histogram".into() },
    /// ]);
    /// println!("{} pipelines in {:.1} + {:.1} ms", report.created.len(), report.compile_ms, report.create_ms);
    /// # }
    /// ```
    pub fn warm_up(&mut self, requests: &[WarmUp]) -> WarmUpReport {
        let mut report = WarmUpReport {
            threads: rayon::current_num_threads(),
            ..WarmUpReport::default()
        };
        let t = Instant::now();
        // Compile every module in parallel first (the compiler is shared and thread-safe); the serial pass
        // below then only finds them in its cache.
        let mut units = Vec::new();
        for r in requests {
            if let Ok(info) = self.validated(r.key()) {
                units.extend(info.stages().into_iter().map(|s| (info.clone(), s)));
            }
        }
        {
            let flow = self.sources.flow();
            units.par_iter().for_each(|(info, stage)| {
                let _ = flow.compile(info, *stage);
            });
        }
        let mut todo: Vec<(usize, Parts)> = Vec::new();
        for (i, r) in requests.iter().enumerate() {
            if self.has(r) {
                continue;
            }
            match self.warm_parts(r) {
                Ok(p) => todo.push((i, p)),
                Err(e) => report.failed.push((r.key().to_string(), e)),
            }
        }
        report.compile_ms = t.elapsed().as_secs_f64() * 1e3;

        let t = Instant::now();
        let ctx = &self.ctx;
        let built: Vec<(usize, f64, VkResult<Built>)> = todo
            .par_iter()
            .map(|(i, p)| {
                let t = Instant::now();
                let refs: Vec<(Stage, &ShaderModule)> =
                    p.modules.iter().map(|(s, m)| (*s, m.as_ref())).collect();
                let layout = p.layout.clone();
                let out = match &requests[*i] {
                    WarmUp::Graphics { options, .. } => {
                        GraphicsPipeline::new(ctx, &p.plan, &refs, layout, options)
                            .map(Built::Graphics)
                    }
                    WarmUp::Compute { .. } => ComputePipeline::new(
                        ctx,
                        &p.plan,
                        refs[0].1,
                        layout,
                        &SpecValues::default(),
                    )
                    .map(Built::Compute),
                    WarmUp::RayTracing { .. } => {
                        RayTracingPipeline::new(ctx, &p.plan, &refs, layout, &SpecValues::default())
                            .map(Built::RayTracing)
                    }
                };
                (*i, t.elapsed().as_secs_f64() * 1e3, out)
            })
            .collect();
        report.create_ms = t.elapsed().as_secs_f64() * 1e3;

        for ((i, ms, out), (_, parts)) in built.into_iter().zip(&todo) {
            let r = &requests[i];
            let built_from = ids(&parts.modules);
            match out {
                Ok(b) => {
                    self.keep(r, b, built_from);
                    report.created.push(WarmedPipeline {
                        key: r.key().to_string(),
                        kind: r.kind(),
                        create_ms: ms,
                    });
                }
                Err(e) => report.failed.push((r.key().to_string(), e)),
            }
        }
        report
    }

    /// True when the request's pipeline exists already.
    fn has(&self, r: &WarmUp) -> bool {
        match r {
            WarmUp::Graphics { key, options } => self.graphics.contains_key(&GraphicsKey {
                info: key.clone(),
                options: options.clone(),
            }),
            WarmUp::Compute { key } => self
                .compute
                .contains_key(&(key.clone(), SpecValues::default())),
            WarmUp::RayTracing { key } => self.ray_tracing.contains_key(key),
        }
    }

    fn warm_parts(&mut self, r: &WarmUp) -> VkResult<Parts> {
        let (plan, modules, layout) = match r {
            WarmUp::Graphics { key, .. } => self.parts(key, |s| s.is_graphics())?,
            WarmUp::Compute { key } => self.compute_parts(key)?,
            WarmUp::RayTracing { key } => {
                if self.ctx.ray_tracing().is_none() {
                    return Err(VkError::Declaration {
                        info: key.clone(),
                        message: format!(
                            "{} has no VK_KHR_ray_tracing_pipeline",
                            self.ctx.device_name()
                        ),
                    });
                }
                self.parts(key, |s| s.is_ray_tracing())?
            }
        };
        Ok(Parts {
            plan,
            modules,
            layout,
        })
    }

    fn keep(&mut self, r: &WarmUp, built: Built, built_from: Vec<(Stage, u64)>) {
        match (r, built) {
            (WarmUp::Graphics { key, options }, Built::Graphics(p)) => {
                self.graphics.insert(
                    GraphicsKey {
                        info: key.clone(),
                        options: options.clone(),
                    },
                    Cached {
                        pipeline: Arc::new(p),
                        built_from,
                    },
                );
            }
            (WarmUp::Compute { key }, Built::Compute(p)) => {
                self.compute.insert(
                    (key.clone(), SpecValues::default()),
                    Cached {
                        pipeline: Arc::new(p),
                        built_from,
                    },
                );
            }
            (WarmUp::RayTracing { key }, Built::RayTracing(p)) => {
                self.ray_tracing.insert(
                    key.clone(),
                    Cached {
                        pipeline: Arc::new(p),
                        built_from,
                    },
                );
            }
            _ => {}
        }
    }
}
