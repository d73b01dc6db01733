//! What a hot reload did, backend-neutral: the Vulkan and wgpu libraries report the same way.

use shader_info::{Diagnostic, Stage};
use std::collections::HashMap;
use std::path::PathBuf;
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
    /// Files the watcher reported, when the reload came from it.
    pub changed_files: Vec<PathBuf>,
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
        Ok(())
    }
}

/// The module ids a pipeline was built from, by stage: reload rebuilds it when a current id differs.
pub(crate) type BuiltFrom = Vec<(Stage, u64)>;

/// A pipeline just built, with the module ids it was built from, or why it could not be.
pub(crate) type Built<P> = Result<(P, BuiltFrom), Vec<Diagnostic>>;

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

/// The outcome of rebuilding one pipeline: stored by `store` on success, the previous one kept otherwise.
pub(crate) fn rebuilt<P>(built: Built<P>, store: impl FnOnce(P, BuiltFrom)) -> PipelineOutcome {
    match built {
        Ok((p, built_from)) => {
            store(p, built_from);
            PipelineOutcome::Rebuilt
        }
        Err(diagnostics) => PipelineOutcome::KeptPrevious { diagnostics },
    }
}
