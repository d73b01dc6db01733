//! The pass's record: a pass that succeeded leaves its report and every file it read — the sources its loader
//! gave, the files `#include` resolved, the include candidates it found empty — in the persistent cache, under a
//! key of everything else its outcome depends on (the executable, the declarations, the options, the compiler and
//! the checkers). A later pass with the same key whose files are unchanged answers with that report instead of
//! validating, expanding and generating every module again to find each one in the cache: on the library's 1,675
//! modules that was 0.14 s of a 0.16 s warm start, and is now one read and a `stat` per file.
//!
//! Files are checked as the compiler's manifests check them: metadata equal to what was recorded (and old enough
//! to trust) vouches for the content; otherwise the file is read and hashed, and a file with the same content
//! under new metadata (a checkout, a copy) refreshes the record. A pass with failures, outputs to write or no
//! persistent cache is not recorded: it runs whole every time.

use super::{
    BuildOptions, BuildReport, InfoReport, ModuleReport, Shard, TargetCounts, TargetReport,
};
use crate::compiler::files::{FileMeta, content_hash};
use crate::compiler::includes::{LocateError, locate};
use crate::cross::persist::{CachedSpec, host_uniforms_back};
use crate::cross::{Target, VerdictKind};
use crate::disk_cache::{
    DiskCache, DiskCacheStats, Kind, TOOL_VERSIONS, executable_identity, key_of,
};
use crate::flow::StageCompiler;
use crate::reflect::ModuleReflection;
use serde::{Deserialize, Serialize};
use shader_info::{Registry, SourceLoader};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Instant, SystemTime};

/// Bumped when the record's layout or what a pass reports changes.
const RECORD_VERSION: &str = "pass record 2";

/// Where a pass's record lives and what its files are checked against.
pub(super) struct Recording<'a> {
    disk: &'a DiskCache,
    key: u128,
    /// The compiler's include root: absent include candidates are looked for under it.
    root: &'a Path,
}

impl<'a> Recording<'a> {
    /// The record's place for this pass; `None` where a pass is not recorded (no persistent cache, outputs to
    /// write, a compiler that does not say what it is, an executable that cannot be identified).
    pub(super) fn of(
        registry: &Registry,
        compiler: &'a dyn StageCompiler,
        opts: &BuildOptions,
    ) -> Option<Recording<'a>> {
        if opts.out_dir.is_some() {
            return None;
        }
        let disk = compiler.disk_cache()?;
        let (compiler_identity, root) = compiler.identity()?;
        let exe = executable_identity()?;
        // Everything but the files: the code (the executable), the declarations, what the pass was asked for,
        // the compiler, and which checkers there are. `jobs` is left out: the outcome does not depend on it.
        let options = format!(
            "{:?} {:?} {} {:?} {} {:?}",
            opts.filter,
            opts.profile,
            opts.branch_limit,
            opts.cross.targets,
            opts.cross.check,
            opts.shard
        );
        let checkers = crate::cross::check::checkers_key(&opts.cross);
        let key = key_of(&[
            RECORD_VERSION.as_bytes(),
            TOOL_VERSIONS.as_bytes(),
            exe.as_bytes(),
            registry.identity().as_bytes(),
            options.as_bytes(),
            format!("{:?}", opts.cross.values).as_bytes(),
            checkers.as_bytes(),
            &compiler_identity.to_le_bytes(),
        ]);
        Some(Recording { disk, key, root })
    }

    /// The recorded report, when every file the recorded pass read is as it was then.
    pub(super) fn replay(&self, loader: &dyn SourceLoader, start: Instant) -> Option<BuildReport> {
        let before = self.disk.stats();
        let mut record: Record =
            serde_json::from_slice(&self.disk.get(Kind::Pass, self.key)?).ok()?;
        let mut refreshed = false;
        for read in record.sources.iter_mut() {
            // Another loader (another root) reads other files under the same names.
            if read.path.is_some() && loader.file_path(&read.name) != read.path {
                return None;
            }
            refreshed |= read.unchanged(|name| loader.load(name).ok().map(String::into_bytes))?;
        }
        for read in record.includes.iter_mut() {
            // Through the include rules again: a file that now leads out of the root is not the same input.
            refreshed |=
                read.unchanged(|name| std::fs::read(locate(self.root, name).ok()?.0).ok())?;
        }
        if record.missing.iter().any(|name| loader.load(name).is_ok())
            || record
                .absent
                .iter()
                .any(|name| !matches!(locate(self.root, name), Err(LocateError::Missing(_))))
        {
            return None;
        }
        if refreshed {
            // Same content under new metadata: the next start is cheap again.
            self.put(&record);
        }
        // Answered without reading a module: what else the command reads is not the pass's pack.
        self.disk.mark_pack_partial();
        record
            .report
            .into_report(start, self.disk.stats().since(&before))
    }

    /// Records a successful pass with the files it read.
    pub(super) fn store(
        &self,
        report: &BuildReport,
        loaded: &HashMap<String, Result<String, String>>,
        loader: &dyn SourceLoader,
    ) {
        if report.success()
            && let Some(record) = Record::of(report, loaded, loader)
        {
            self.put(&record);
        }
    }

    fn put(&self, record: &Record) {
        if let Ok(json) = serde_json::to_vec(record) {
            self.disk.put(Kind::Pass, self.key, &json);
        }
    }
}

#[derive(Serialize, Deserialize)]
struct Record {
    /// Files the loader gave.
    sources: Vec<Read>,
    /// Names the loader could not give (the pass succeeded without them): each must still fail to load.
    missing: Vec<String>,
    /// Files `#include` resolved, under the compiler's root.
    includes: Vec<Read>,
    /// Include candidates found empty: each must still be empty.
    absent: Vec<String>,
    report: Recorded,
}

impl Record {
    /// The record of a pass that succeeded; `None` when a file it read has changed since (its report is already
    /// out of date).
    fn of(
        report: &BuildReport,
        loaded: &HashMap<String, Result<String, String>>,
        loader: &dyn SourceLoader,
    ) -> Option<Record> {
        let sources = loaded
            .iter()
            .filter_map(|(name, text)| Some((name, text.as_ref().ok()?)))
            .map(|(name, text)| {
                Read::now(name, loader.file_path(name), content_hash(text.as_bytes()))
            })
            .collect::<Option<Vec<_>>>()?;
        let mut missing: Vec<String> = loaded
            .iter()
            .filter(|(_, text)| text.is_err())
            .map(|(name, _)| name.clone())
            .collect();
        missing.sort_unstable();
        let mut includes: BTreeMap<&str, (&Path, u128)> = BTreeMap::new();
        let mut absent: Vec<String> = Vec::new();
        for m in &report.module_reports {
            for f in m.reads.files() {
                let before = includes.insert(&f.name, (&f.path, f.content_hash));
                // Edited during the pass: its modules were compiled from two versions.
                if before.is_some_and(|(_, h)| h != f.content_hash) {
                    return None;
                }
            }
            absent.extend(m.reads.absent().cloned());
        }
        absent.sort_unstable();
        absent.dedup();
        let includes = includes
            .into_iter()
            .map(|(name, (path, hash))| Read::now(name, Some(path.to_path_buf()), hash))
            .collect::<Option<Vec<_>>>()?;
        Some(Record {
            sources,
            missing,
            includes,
            absent,
            report: Recorded::of(report),
        })
    }
}

/// One file a pass read, with the metadata it had when its content was hashed.
#[derive(Serialize, Deserialize)]
struct Read {
    name: String,
    /// On disk, when it is a file there (a loader need not say).
    path: Option<PathBuf>,
    hash: u128,
    meta: Option<FileMeta>,
    /// When `meta` was seen with this content: a time stamp too close to it cannot vouch (`FileMeta::racy`).
    seen: SystemTime,
}

impl Read {
    /// The file as it is now, if its content is still `hash` (metadata taken before the content, so a write
    /// between the two shows as changed metadata next time); `None` when it changed.
    fn now(name: &str, path: Option<PathBuf>, hash: u128) -> Option<Read> {
        let seen = SystemTime::now();
        let meta = match &path {
            Some(p) => {
                let meta = FileMeta::of(p).ok()?;
                if content_hash(&std::fs::read(p).ok()?) != hash {
                    return None;
                }
                Some(meta)
            }
            None => None,
        };
        Some(Read {
            name: name.to_string(),
            path,
            hash,
            meta,
            seen,
        })
    }

    /// `Some(refreshed)` when the content is unchanged (`refreshed`: under new metadata, now recorded), `None`
    /// when it changed or cannot be read. `load` gives the content by name, by the rules the pass read it with.
    fn unchanged(&mut self, load: impl FnOnce(&str) -> Option<Vec<u8>>) -> Option<bool> {
        let seen = SystemTime::now();
        let meta = match &self.path {
            Some(path) => {
                let meta = FileMeta::of(path).ok()?;
                if self.meta == Some(meta) && !meta.racy(self.seen) {
                    return Some(false);
                }
                Some(meta)
            }
            None => None,
        };
        if content_hash(&load(&self.name)?) != self.hash {
            return None;
        }
        let refreshed = meta.is_some();
        self.meta = meta;
        self.seen = seen;
        Some(refreshed)
    }
}

/// The report as recorded: what a replay gives back. Times are this run's, so each module's and info's is 0.
#[derive(Serialize, Deserialize)]
struct Recorded {
    infos_total: usize,
    infos_passed: usize,
    modules: usize,
    infos: Vec<InfoReport>,
    targets: BTreeMap<Target, TargetCounts>,
    shard: Option<Shard>,
    module_reports: Vec<RecordedModule>,
    /// Each distinct SPIR-V module's reflection, by [`crate::flow::spirv_key`].
    reflections: Vec<(u128, ModuleReflection)>,
}

#[derive(Serialize, Deserialize)]
struct RecordedModule {
    info: String,
    stage: String,
    variant: Option<usize>,
    spirv_hash: u128,
    spirv_bytes: usize,
    targets: Vec<RecordedTarget>,
}

/// A [`TargetReport`] of a pass that succeeded (no diagnostics) and wrote nothing (no file, no text).
#[derive(Serialize, Deserialize)]
struct RecordedTarget {
    target: Target,
    verdict: VerdictKind,
    twin: Option<String>,
    reasons: Vec<String>,
    entry_point: Option<String>,
    requires: Vec<String>,
    host_uniforms: Vec<String>,
    spec_constants: Option<CachedSpec>,
    webgpu_limits: std::collections::BTreeMap<String, u64>,
}

impl Recorded {
    fn of(r: &BuildReport) -> Recorded {
        let mut reflections: HashMap<u128, &ModuleReflection> = HashMap::new();
        let module_reports = r
            .module_reports
            .iter()
            .map(|m| {
                reflections.insert(m.spirv_hash, &m.reflection);
                RecordedModule {
                    info: m.info.clone(),
                    stage: m.stage.clone(),
                    variant: m.variant,
                    spirv_hash: m.spirv_hash,
                    spirv_bytes: m.spirv_bytes,
                    targets: m
                        .targets
                        .iter()
                        .map(|t| RecordedTarget {
                            target: t.target,
                            verdict: t.verdict,
                            twin: t.twin.clone(),
                            reasons: t.reasons.clone(),
                            entry_point: t.entry_point.clone(),
                            requires: t.requires.clone(),
                            host_uniforms: t.host_uniforms.iter().map(|h| h.to_string()).collect(),
                            spec_constants: t.spec_constants.as_ref().map(CachedSpec::from),
                            webgpu_limits: t.webgpu_limits.clone(),
                        })
                        .collect(),
                }
            })
            .collect();
        Recorded {
            infos_total: r.infos_total,
            infos_passed: r.infos_passed,
            modules: r.modules,
            infos: r.infos.clone(),
            targets: r.targets.clone(),
            shard: r.shard,
            module_reports,
            reflections: reflections
                .into_iter()
                .map(|(k, v)| (k, v.clone()))
                .collect(),
        }
    }

    /// The report again; `None` when the record holds what this version cannot take back.
    fn into_report(self, start: Instant, cache: DiskCacheStats) -> Option<BuildReport> {
        let reflections: HashMap<u128, Arc<ModuleReflection>> = self
            .reflections
            .into_iter()
            .map(|(k, v)| (k, Arc::new(v)))
            .collect();
        let module_reports = self
            .module_reports
            .into_iter()
            .map(|m| {
                let targets = m
                    .targets
                    .into_iter()
                    .map(|t| {
                        Some(TargetReport {
                            target: t.target,
                            verdict: t.verdict,
                            twin: t.twin,
                            reasons: t.reasons,
                            file: None,
                            entry_point: t.entry_point,
                            requires: t.requires,
                            host_uniforms: host_uniforms_back(&t.host_uniforms)?,
                            spec_constants: match t.spec_constants {
                                Some(s) => Some(s.handling()?),
                                None => None,
                            },
                            webgpu_limits: t.webgpu_limits,
                            diagnostics: Vec::new(),
                            text: None,
                        })
                    })
                    .collect::<Option<Vec<_>>>()?;
                Some(ModuleReport {
                    reflection: reflections.get(&m.spirv_hash)?.clone(),
                    info: m.info,
                    stage: m.stage,
                    variant: m.variant,
                    spirv_hash: m.spirv_hash,
                    spirv_bytes: m.spirv_bytes,
                    seconds: 0.0,
                    targets,
                    reads: Default::default(),
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(BuildReport {
            infos_total: self.infos_total,
            infos_passed: self.infos_passed,
            modules: self.modules,
            seconds: start.elapsed().as_secs_f64(),
            failed: Vec::new(),
            infos: self
                .infos
                .into_iter()
                .map(|i| InfoReport { seconds: 0.0, ..i })
                .collect(),
            targets: self.targets,
            phases: Default::default(),
            cache: Some(cache),
            shard: self.shard,
            split: None,
            replayed: true,
            module_reports,
        })
    }
}
