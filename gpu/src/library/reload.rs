//! What a hot reload did, backend-neutral: the Vulkan and wgpu libraries report the same way.

use super::build::{Base, Batch, BuiltFrom, Outcome, Want};
use super::{Backend, ModuleEntry, ModuleKey};
use rayon::prelude::*;
use shader_info::{Diagnostic, Stage, ValidatedInfo};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// What reload did to one pipeline.
#[derive(Clone, Debug, PartialEq)]
pub enum PipelineOutcome {
    /// A module changed and the new pipeline replaced the old one.
    Rebuilt,
    /// None of its modules changed.
    Unchanged,
    /// Compiling or creating failed; the previous pipeline is still in use.
    KeptPrevious { diagnostics: Vec<Diagnostic> },
}

/// The result of a library's reload ([`crate::vk::ShaderLibrary::reload`], and the wgpu library's).
#[derive(Clone, Debug, Default)]
pub struct ReloadReport {
    /// Each pipeline (by key; one entry per cached pipeline) and its outcome, sorted by key.
    pub pipelines: Vec<(String, PipelineOutcome)>,
    /// Modules whose SPIR-V changed (and were recreated).
    pub modules_changed: Vec<(String, Stage)>,
    /// Modules whose compile or check failed, with diagnostics.
    pub modules_failed: Vec<(String, Stage, Vec<Diagnostic>)>,
    /// Files the watcher reported, when the reload came from it (the root itself when its events overflowed or
    /// it reported an error: any file may have changed).
    pub changed_files: Vec<PathBuf>,
    /// What the watcher reported going wrong since the last reload ([`crate::watch::ShaderWatcher::take_errors`]):
    /// a directory it could not watch is one whose edits no reload will see.
    pub watch_errors: Vec<String>,
    /// Keys whose rebuilt pipelines have another layout than before (a stage started or stopped using a binding,
    /// so the binding's visibility changed): one warning each, naming the bindings. Bind groups and descriptor sets
    /// made for the previous pipeline do not fit the new one — make them again (on wgpu a draw with an old group
    /// is dropped, and reported at the next fetch).
    pub layouts_changed: Vec<Diagnostic>,
    pub duration: Duration,
}

impl ReloadReport {
    /// Number of pipelines whose outcome satisfies `kind`.
    pub fn count(&self, kind: fn(&PipelineOutcome) -> bool) -> usize {
        self.pipelines.iter().filter(|(_, o)| kind(o)).count()
    }

    /// The outcome of the first pipeline keyed `name`.
    pub fn outcome(&self, name: &str) -> Option<&PipelineOutcome> {
        self.pipelines
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, o)| o)
    }
}

impl std::fmt::Display for ReloadReport {
    /// One line: counts, then the pipelines that did not stay unchanged.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rebuilt = self.count(|o| *o == PipelineOutcome::Rebuilt);
        let kept = self.count(|o| matches!(o, PipelineOutcome::KeptPrevious { .. }));
        let unchanged = self.count(|o| *o == PipelineOutcome::Unchanged);
        write!(
            f,
            "reload in {:.1} ms: {rebuilt} rebuilt, {unchanged} unchanged, {kept} kept previous",
            self.duration.as_secs_f64() * 1e3
        )?;
        for (n, o) in &self.pipelines {
            match o {
                PipelineOutcome::Rebuilt => write!(f, "; {n}: rebuilt")?,
                PipelineOutcome::KeptPrevious { diagnostics } => {
                    let first = diagnostics.first().map_or("", |d| d.message.as_str());
                    let first = first.lines().next().unwrap_or("");
                    write!(f, "; {n}: kept previous ({first})")?
                }
                PipelineOutcome::Unchanged => {}
            }
        }
        for e in &self.watch_errors {
            write!(f, "; {e}")?;
        }
        for d in &self.layouts_changed {
            write!(f, "; {}", d.message)?;
        }
        Ok(())
    }
}

/// What reload does with a pipeline of `key` built from the module ids `built_from`: keep it (one of its modules
/// failed), leave it (every module is still the one it was built from: `current(stage)` is the module id now), or
/// `None`: rebuild it.
pub(crate) fn decide(
    failed: &HashMap<(String, Stage), Vec<Diagnostic>>,
    key: &str,
    built_from: &[(Stage, u64)],
    current: impl Fn(Stage) -> Option<u64>,
) -> Option<PipelineOutcome> {
    let diagnostics: Vec<Diagnostic> = built_from
        .iter()
        .filter_map(|(s, _)| failed.get(&(key.to_string(), *s)))
        .flatten()
        .cloned()
        .collect();
    if !diagnostics.is_empty() {
        return Some(PipelineOutcome::KeptPrevious { diagnostics });
    }
    let unchanged = built_from.iter().all(|(s, id)| current(*s) == Some(*id));
    unchanged.then_some(PipelineOutcome::Unchanged)
}

/// A reload's work, owned like a [`Batch`], so it runs on the caller's thread ([`Library::reload`]) or on a
/// worker ([`Library::poll_reload_in_background`]): make every module again (in parallel; the compiler's cache
/// skips unchanged sources), decide each pipeline, and rebuild those whose modules changed.
///
/// [`Library::reload`]: super::Library::reload
/// [`Library::poll_reload_in_background`]: super::Library::poll_reload_in_background
pub(crate) struct ReloadJob<B: Backend> {
    pub backend: Arc<B>,
    pub base: Arc<Base>,
    /// Every module the library holds, with the info it is made from.
    pub modules: Vec<(ModuleKey, Arc<ValidatedInfo>, ModuleEntry<B::Module>)>,
    /// Modules whose key no longer validates.
    pub refused: Vec<(ModuleKey, Vec<Diagnostic>)>,
    /// Every cached pipeline, with the module ids it was built from and its key's info (or why it has none).
    pub pipelines: Vec<Cached<B::GraphicsOptions>>,
}

/// A cached pipeline as a reload sees it: what it is, the module ids it was built from, its key's info.
pub(crate) type Cached<O> = (
    Want<O>,
    BuiltFrom,
    Result<Arc<ValidatedInfo>, Vec<Diagnostic>>,
);

/// What a reload made, for the library to swap in.
pub(crate) struct ReloadOutput<B: Backend> {
    pub changed: Vec<(ModuleKey, ModuleEntry<B::Module>)>,
    pub failed: Vec<(ModuleKey, Vec<Diagnostic>)>,
    /// Pipelines left as they are (unchanged, or kept because a module failed).
    pub decided: Vec<(Want<B::GraphicsOptions>, PipelineOutcome)>,
    /// Pipelines rebuilt, or why not.
    pub rebuilt: Vec<(Want<B::GraphicsOptions>, Outcome<B>, f64)>,
}

impl<B: Backend> ReloadJob<B> {
    pub fn run(self) -> ReloadOutput<B> {
        let ReloadJob {
            backend,
            base,
            modules,
            refused,
            pipelines,
        } = self;
        let flow = base.flow();
        let shared: &B = &backend;
        let made: Vec<_> = modules
            .par_iter()
            .map(|(mkey, info, entry)| {
                let r = shared
                    .source(&flow, info, mkey.1, Some(entry.hash))
                    .and_then(|s| match s {
                        None => Ok(None),
                        Some((hash, source)) => {
                            super::new_entry(shared, &mkey.0, hash, source).map(Some)
                        }
                    });
                (mkey.clone(), r)
            })
            .collect();
        drop(flow);
        let mut current: HashMap<ModuleKey, ModuleEntry<B::Module>> = modules
            .into_iter()
            .map(|(mkey, _, entry)| (mkey, entry))
            .collect();
        let mut failed: HashMap<ModuleKey, Vec<Diagnostic>> = refused.into_iter().collect();
        let mut changed = Vec::new();
        for (mkey, r) in made {
            match r {
                Ok(None) => {}
                Ok(Some(entry)) => {
                    current.insert(mkey.clone(), entry.clone());
                    changed.push((mkey, entry));
                }
                Err(d) => {
                    failed.insert(mkey, d);
                }
            }
        }
        let mut decided = Vec::new();
        let mut wants = Vec::new();
        for (want, built_from, info) in pipelines {
            let key = want.key().to_string();
            let now = |s: Stage| current.get(&(key.clone(), s)).map(|e| e.id);
            match (decide(&failed, &key, &built_from, now), info) {
                (Some(outcome), _) => decided.push((want, outcome)),
                (None, Ok(info)) => wants.push((want, info)),
                (None, Err(diagnostics)) => {
                    decided.push((want, PipelineOutcome::KeptPrevious { diagnostics }))
                }
            }
        }
        let rebuilt = Batch {
            backend,
            base,
            wants,
            known: current,
            parts_only: false,
        }
        .run()
        .made;
        let mut failed: Vec<_> = failed.into_iter().collect();
        failed.sort_by(|a, b| a.0.cmp(&b.0));
        ReloadOutput {
            changed,
            failed,
            decided,
            rebuilt,
        }
    }
}

/// The warning for a key whose layout a reload changed: each binding whose stages differ, before and after.
pub(crate) fn layout_change(
    key: &str,
    before: &[(u32, u32, shader_info::StageMask)],
    now: &[(u32, u32, shader_info::StageMask)],
) -> Diagnostic {
    let changed: Vec<String> = now
        .iter()
        .filter_map(|(set, binding, stages)| {
            let was = before
                .iter()
                .find(|(s, b, _)| s == set && b == binding)
                .map(|(_, _, st)| *st);
            (was != Some(*stages)).then(|| {
                format!(
                    "set {set} binding {binding}: {stages:?} (was {})",
                    was.map_or("absent".to_string(), |w| format!("{w:?}"))
                )
            })
        })
        .collect();
    Diagnostic::warning(
        shader_info::Code::Device,
        key,
        format!(
            "the rebuilt pipelines of `{key}` have another layout: {}",
            changed.join("; ")
        ),
    )
    .hint("make its bind groups and descriptor sets again: those made for the previous pipeline do not fit it")
}
