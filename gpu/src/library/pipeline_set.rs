//! The pipelines a renderer can ever ask for, derived from its declarations, and proof that it asked for no other:
//! a renderer states what the library cannot know (per pass: the attachments, the infos it draws and which of
//! their variants), [`Library::pipeline_set`] derives every pipeline that follows (info × unique variant ×
//! options, deduplicated), [`Library::warm_up`] creates them, and the library counts every pipeline created after
//! that ("late", [`PipelineStats`]); in strict mode ([`Library::set_strict`]) a late creation is an error naming
//! the key, so a renderer's test can prove its frames create nothing. The usage log ([`PipelineLog`]) records what
//! was fetched, to warm the most-used pipelines first within a budget on the next start.

use super::build::Want;
use super::{Backend, Key, Library, WarmUp};
use shader_info::{Code, Diagnostic, PipelineKind};
use std::collections::BTreeMap;
use std::path::Path;

/// Which variants of an info a pass draws.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Variants {
    /// The info as declared (every branch off).
    Declared,
    /// The variant these branch values select (by name; branches left out are off).
    Values(Vec<(String, bool)>),
    /// Every unique variant of the info.
    All,
}

/// What one pass draws: its attachments (the backend's graphics options) and the infos with their variants.
/// Compute infos listed here get compute pipelines; the options do not apply to them.
#[derive(Clone, Debug)]
pub struct PassPipelines<O> {
    pub options: O,
    pub infos: Vec<(String, Variants)>,
}

/// Pipelines created after warm-up, by key: what a frame would have waited for.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct PipelineStats {
    /// Pipelines created by warm-up.
    pub warmed: usize,
    /// Pipelines created on first use after a warm-up, by key (reload rebuilds are not late).
    pub late: BTreeMap<String, usize>,
}

impl PipelineStats {
    /// All late creations.
    pub fn late_count(&self) -> usize {
        self.late.values().sum()
    }
}

/// What a library fetched, with counts: saved at exit, read at the next start to warm the most-used pipelines
/// first ([`PipelineLog::prioritize`]).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PipelineLog {
    /// `(kind, key, fetches)`, most fetched first.
    pub entries: Vec<(PipelineKind, String, u64)>,
}

impl PipelineLog {
    const VERSION: u32 = 1;

    /// Writes the log as JSON, through a temporary file of its own and a rename: a crash leaves the old log, and
    /// two processes saving at once leave one whole log (a fixed temporary name let them write into one file).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let text = serde_json::json!({ "version": Self::VERSION, "entries": self.entries });
        crate::cache_file::write_atomic(path, &serde_json::to_vec_pretty(&text)?)
    }

    /// Reads a log written by [`Self::save`]; another version or a damaged file is an error saying so (start
    /// with an empty log then).
    pub fn load(path: &Path) -> std::io::Result<PipelineLog> {
        let bad = |m: String| std::io::Error::new(std::io::ErrorKind::InvalidData, m);
        let value: serde_json::Value = serde_json::from_slice(&std::fs::read(path)?)
            .map_err(|e| bad(format!("{}: not a pipeline log: {e}", path.display())))?;
        if value["version"] != Self::VERSION {
            return Err(bad(format!(
                "{}: pipeline log version {} (this library reads {})",
                path.display(),
                value["version"],
                Self::VERSION
            )));
        }
        let entries = serde_json::from_value(value["entries"].clone())
            .map_err(|e| bad(format!("{}: damaged pipeline log: {e}", path.display())))?;
        Ok(PipelineLog { entries })
    }

    /// `requests` ordered most-used first by this log (those it does not know keep their order, after), cut to
    /// `budget` pipelines when one is given.
    pub fn prioritize<O: Clone>(
        &self,
        requests: &[WarmUp<O>],
        budget: Option<usize>,
    ) -> Vec<WarmUp<O>> {
        let uses = |r: &WarmUp<O>| {
            self.entries
                .iter()
                .find(|(k, key, _)| *k == r.kind() && key == r.key())
                .map_or(0, |e| e.2)
        };
        let mut out: Vec<(u64, WarmUp<O>)> =
            requests.iter().map(|r| (uses(r), r.clone())).collect();
        out.sort_by_key(|(uses, _)| std::cmp::Reverse(*uses));
        out.into_iter()
            .map(|(_, r)| r)
            .take(budget.unwrap_or(usize::MAX))
            .collect()
    }
}

impl<B: Backend> Library<B> {
    /// Every pipeline `passes` can ask for: for each pass, each info in the variants it names, with the pass's
    /// options (compute infos without them), deduplicated. Warm it up with [`Self::warm_up`].
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary) -> shader_info_gpu::vk::VkResult<()> {
    /// use shader_info_gpu::library::{PassPipelines, Variants};
    /// let set = lib.pipeline_set(&[PassPipelines {
    ///     options: shader_info_gpu::vk::GraphicsOptions::hdr(),
    ///     infos: vec![("gpu_shader_mesh".into(), Variants::All)],
    /// }])?;
    /// println!("{} pipelines", set.len());
    /// lib.warm_up(&set);
    /// lib.set_strict(true); // from now on, a pipeline the set missed is an error, not a hitch
    /// # Ok(()) }
    /// ```
    pub fn pipeline_set(
        &mut self,
        passes: &[PassPipelines<B::GraphicsOptions>],
    ) -> Result<Vec<WarmUp<B::GraphicsOptions>>, B::Error> {
        let mut out: Vec<WarmUp<B::GraphicsOptions>> = Vec::new();
        for pass in passes {
            for (info, variants) in &pass.infos {
                let keys: Vec<Key> = match variants {
                    Variants::Declared => vec![Key::from(info.as_str())],
                    Variants::Values(values) => {
                        let values: Vec<(&str, bool)> =
                            values.iter().map(|(n, v)| (n.as_str(), *v)).collect();
                        vec![self.variant(info, &values)?]
                    }
                    Variants::All => {
                        let set = self.variants(info)?;
                        if set.branches.is_empty() {
                            vec![Key::from(info.as_str())]
                        } else {
                            (0..set.variants.len())
                                .map(|i| Key::variant_of(info, i))
                                .collect()
                        }
                    }
                };
                for key in keys {
                    let request = match self.pipeline_kind(&key)? {
                        PipelineKind::Graphics => WarmUp::Graphics {
                            key: key.into(),
                            options: pass.options.clone(),
                        },
                        PipelineKind::Compute => WarmUp::Compute { key: key.into() },
                        PipelineKind::RayTracing => WarmUp::RayTracing { key: key.into() },
                    };
                    if !out.iter().any(|r| same_request(r, &request)) {
                        out.push(request);
                    }
                }
            }
        }
        Ok(out)
    }

    /// In strict mode, a pipeline created on first use after a warm-up is an error ([`Code::LatePipeline`])
    /// naming its key, instead of a creation the frame waits for.
    pub fn set_strict(&mut self, strict: bool) {
        self.late.strict = strict;
    }

    /// Pipelines created by warm-up, and those created on first use after it.
    pub fn stats(&self) -> &PipelineStats {
        &self.late.stats
    }

    /// What this library fetched so far, with counts (every fetch, cached or not), most fetched first.
    pub fn usage_log(&self) -> PipelineLog {
        let kinds = [
            PipelineKind::Graphics,
            PipelineKind::Compute,
            PipelineKind::RayTracing,
        ];
        let mut entries: Vec<(PipelineKind, String, u64)> = self
            .late
            .usage
            .iter()
            .flat_map(|(key, counts)| {
                kinds
                    .iter()
                    .zip(counts)
                    .filter(|(_, n)| **n > 0)
                    .map(|(kind, n)| (*kind, key.clone(), *n))
            })
            .collect();
        entries.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.1.cmp(&b.1)));
        PipelineLog { entries }
    }

    /// Counts a fetch of `key`.
    pub(super) fn count_use(&mut self, kind: PipelineKind, key: &str) {
        let i = kind as usize;
        // Looked up by `&str`: a fetch of a cached pipeline allocates nothing.
        match self.late.usage.get_mut(key) {
            Some(counts) => counts[i] += 1,
            None => {
                let mut counts = [0; 3];
                counts[i] = 1;
                self.late.usage.insert(key.to_string(), counts);
            }
        }
    }

    /// Before creating a pipeline on first use: counted late after a warm-up, refused in strict mode.
    pub(super) fn first_use(
        &mut self,
        want: &Want<B::GraphicsOptions>,
    ) -> Result<(), Vec<Diagnostic>> {
        let (kind, key) = (want.kind(), want.key());
        if !self.late.warmed_up || self.late.prepared.contains(&Late::id(want)) {
            return Ok(());
        }
        if self.late.strict {
            return Err(vec![
                Diagnostic::error(
                    Code::LatePipeline,
                    key,
                    format!(
                        "the {kind:?} pipeline of `{key}` was not warmed up: creating it now would stall the frame"
                    ),
                )
                .hint("add it to the pipeline set the library warms up (Library::pipeline_set), with the same options"),
            ]);
        }
        *self.late.stats.late.entry(key.to_string()).or_default() += 1;
        Ok(())
    }
}

/// Two requests for one pipeline.
fn same_request<O: PartialEq>(a: &WarmUp<O>, b: &WarmUp<O>) -> bool {
    match (a, b) {
        (WarmUp::Graphics { key, options }, WarmUp::Graphics { key: k, options: o }) => {
            key == k && options == o
        }
        (WarmUp::Compute { key }, WarmUp::Compute { key: k }) => key == k,
        (WarmUp::RayTracing { key }, WarmUp::RayTracing { key: k }) => key == k,
        _ => false,
    }
}

/// The late-pipeline bookkeeping of a library.
#[derive(Default)]
pub(super) struct Late {
    pub warmed_up: bool,
    pub strict: bool,
    pub stats: PipelineStats,
    /// Fetches per key, by [`PipelineKind`] (graphics, compute, ray tracing).
    pub usage: std::collections::HashMap<String, [u64; 3]>,
    /// The graphics pipelines (key and options: [`Late::id`]) whose parts were prepared
    /// ([`Library::warm_up_parts`]): their first use only links.
    pub prepared: std::collections::HashSet<u64>,
}

impl Late {
    /// A request's identity in [`Late::prepared`]: parts prepared with one set of options do not make another's
    /// first use a link.
    pub fn id<O: std::hash::Hash>(want: &Want<O>) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        want.hash(&mut h);
        h.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_saved_at_once_to_one_path_leave_one_whole_log() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("usage.json");
        let logs: Vec<PipelineLog> = (0..8u64)
            .map(|i| PipelineLog {
                entries: (0..200)
                    .map(|k| (PipelineKind::Compute, format!("info_{i}_{k}"), k))
                    .collect(),
            })
            .collect();
        std::thread::scope(|s| {
            for log in &logs {
                let path = &path;
                s.spawn(move || {
                    for _ in 0..20 {
                        log.save(path).unwrap();
                    }
                });
            }
        });
        let saved = PipelineLog::load(&path).unwrap();
        assert!(logs.contains(&saved), "a torn log");
        let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(files.len(), 1, "temporary files left: {files:?}");
    }
}
