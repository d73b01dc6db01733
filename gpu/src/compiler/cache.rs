//! The in-memory, include-aware cache of compiled modules.
//!
//! - Key: a 128-bit xxh3 hash of (options version, stage, profile, input name, include base, full source text).
//! - Entry: the module plus every file resolved while compiling it, with a content hash and metadata.
//! - Lookup: when the change journal vouches that nothing changed since the entry was last validated, that is
//!   the whole cost (no syscall but the journal's empty read). Otherwise each file is checked by metadata (size,
//!   modification time, inode); only a file whose metadata changed, or whose modification time is too recent to
//!   trust, is read and its content hash compared. A changed or unreadable file evicts the entry.
//! - Concurrency: one slot per key. The first thread compiles; later threads for the same key wait on the slot's
//!   condition variable; different keys compile in parallel.

use super::compiled::CompiledModule;
use super::error::CompileError;
use super::files::{FileMeta, FileRecord, content_hash};
use super::includes::{Absent, LocateError, deepest_existing_dir, locate};
use super::journal::ChangeJournal;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, RwLock};
use std::time::{Duration, SystemTime};

/// Counters of one [`super::Compiler`].
///
/// ```no_run
/// # let compiler = shader_info_gpu::compiler::Compiler::new("shaders").unwrap();
/// let s = compiler.stats();
/// println!("{} hits, {} misses, {:?} compiling", s.hits, s.misses, s.compile_time);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    /// Lookups answered from the cache.
    pub hits: u64,
    /// Lookups that compiled (first compile or recompile after an invalidation), or loaded from the disk cache.
    pub misses: u64,
    /// Of the misses, those the disk cache answered (no shaderc run).
    pub disk_hits: u64,
    /// Entries evicted because a file they depend on changed or vanished.
    pub invalidations: u64,
    /// Total time spent inside shaderc.
    pub compile_time: Duration,
    /// Total time threads spent waiting for another thread's compile of the same unit (two variants whose
    /// generated source is the same are compiled once; the second waits). The static pass leaves a unit's other
    /// jobs to the thread compiling it, so its jobs never wait.
    pub waited: Duration,
    /// File contents read (sources, includes, validation by content). Zero on a hit whose metadata is unchanged.
    pub file_reads: u64,
    /// Files whose metadata was checked (`stat`) during lookups.
    pub metadata_checks: u64,
}

/// What a compilation depended on: the files it read, and the candidates an include search found empty (a file
/// appearing at one of those would be included instead).
#[derive(Debug, Default)]
pub(crate) struct Dependencies {
    pub files: Vec<FileRecord>,
    pub absent: Vec<Absent>,
}

/// The mutable part of a file record: the metadata last seen to go with the recorded content.
#[derive(Clone, Copy)]
struct Seen {
    meta: FileMeta,
    checked_at: SystemTime,
}

pub(crate) struct Entry {
    pub module: Arc<CompiledModule>,
    files: Vec<FileRecord>,
    absent: Vec<Absent>,
    seen: RwLock<Vec<Seen>>,
    /// Journal generation at which every file was last known to match; `u64::MAX` when the journal cannot vouch.
    valid_at: AtomicU64,
}

enum SlotState {
    Compiling,
    Ready(Arc<Entry>),
    Failed(Box<CompileError>),
}

struct Slot {
    state: Mutex<SlotState>,
    ready: Condvar,
    /// Threads waiting on `ready`, changed and read only under `state`'s lock. std's condvar makes a futex
    /// syscall on every notify, waiters or not, and nearly every compile has none: the static pass made one such
    /// syscall per compile (933 a pass).
    waiters: AtomicUsize,
}

/// What a file check found.
enum Check {
    Same,
    Changed(String),
}

/// The part of a `compile_from_file` lookup that avoids reading the main file: its metadata when its text was
/// last hashed, and the key that text gave.
struct MainIndex {
    path: PathBuf,
    key: u128,
    seen: Seen,
    /// Journal generation at which the metadata last matched; `u64::MAX` when the journal cannot vouch.
    valid_at: AtomicU64,
}

pub(crate) struct Cache {
    slots: crate::sharded::ShardedMap<Arc<Slot>>,
    mains: RwLock<HashMap<(String, u8, u8), MainIndex>>,
    pub(crate) journal: ChangeJournal,
    root: PathBuf,
    hits: AtomicU64,
    misses: AtomicU64,
    pub(crate) disk_hits: AtomicU64,
    invalidations: AtomicU64,
    compile_nanos: AtomicU64,
    wait_nanos: AtomicU64,
    pub(crate) reads: AtomicU64,
    stats_checks: AtomicU64,
}

impl Cache {
    pub(crate) fn new(root: PathBuf, watch: bool) -> Cache {
        Cache {
            slots: Default::default(),
            mains: RwLock::new(HashMap::new()),
            journal: ChangeJournal::new(watch),
            root,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            disk_hits: AtomicU64::new(0),
            invalidations: AtomicU64::new(0),
            compile_nanos: AtomicU64::new(0),
            wait_nanos: AtomicU64::new(0),
            reads: AtomicU64::new(0),
            stats_checks: AtomicU64::new(0),
        }
    }

    pub(crate) fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            disk_hits: self.disk_hits.load(Ordering::Relaxed),
            invalidations: self.invalidations.load(Ordering::Relaxed),
            compile_time: Duration::from_nanos(self.compile_nanos.load(Ordering::Relaxed)),
            waited: Duration::from_nanos(self.wait_nanos.load(Ordering::Relaxed)),
            file_reads: self.reads.load(Ordering::Relaxed),
            metadata_checks: self.stats_checks.load(Ordering::Relaxed),
        }
    }

    pub(crate) fn add_compile_time(&self, d: Duration) {
        self.compile_nanos
            .fetch_add(d.as_nanos().min(u64::MAX as u128) as u64, Ordering::Relaxed);
    }

    /// Number of entries held (compiled or compiling).
    pub(crate) fn len(&self) -> usize {
        self.slots.len()
    }

    /// Drops every entry.
    pub(crate) fn clear(&self) {
        self.slots.clear();
        self.mains
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// The key of a main file whose metadata is unchanged since its text was hashed, without reading it.
    ///
    /// `generation` is the journal's generation polled once for the whole lookup (one syscall per hit).
    pub(crate) fn main_key(&self, index: (String, u8, u8), generation: u64) -> Option<u128> {
        let mains = self.mains.read().unwrap_or_else(|e| e.into_inner());
        let m = mains.get(&index)?;
        if m.valid_at.load(Ordering::Acquire) == generation {
            return Some(m.key);
        }
        self.stats_checks.fetch_add(1, Ordering::Relaxed);
        if !self.watch_file(&m.path) {
            m.valid_at.store(u64::MAX, Ordering::Release);
        }
        let meta = FileMeta::of(&m.path).ok()?;
        if meta != m.seen.meta || meta.racy(m.seen.checked_at) {
            return None;
        }
        if self.journal.active() && m.valid_at.load(Ordering::Acquire) != u64::MAX {
            m.valid_at.store(generation, Ordering::Release);
        }
        Some(m.key)
    }

    /// Records the key of a main file's text (called after reading it, with the metadata taken before the read).
    pub(crate) fn remember_main(
        &self,
        index: (String, u8, u8),
        path: PathBuf,
        meta: FileMeta,
        key: u128,
        generation: u64,
    ) {
        let checked_at = SystemTime::now();
        let valid_at = if self.watch_file(&path) && !meta.racy(checked_at) {
            generation
        } else {
            u64::MAX
        };
        self.mains
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(
                index,
                MainIndex {
                    path,
                    key,
                    seen: Seen { meta, checked_at },
                    valid_at: AtomicU64::new(valid_at),
                },
            );
    }

    /// Watches a file and every directory from the root down to it.
    fn watch_file(&self, path: &Path) -> bool {
        if !self.journal.active() {
            return false;
        }
        let mut ok = self.journal.watch(&self.root);
        if let Ok(rel) = path.strip_prefix(&self.root) {
            let mut cur = self.root.clone();
            for c in rel.parent().into_iter().flat_map(|p| p.components()) {
                cur.push(c);
                ok &= self.journal.watch(&cur);
            }
        }
        ok & self.journal.watch(path)
    }

    /// The cached module for `key` if it is ready and still valid (a hit); `None` leaves everything to
    /// [`Cache::get_or_compile`].
    pub(crate) fn lookup_only(&self, key: u128, generation: u64) -> Option<Arc<CompiledModule>> {
        let slot = self.slots.shard(key).get(&key)?.clone();
        let entry = match &*slot.state.lock().unwrap_or_else(|e| e.into_inner()) {
            SlotState::Ready(e) => e.clone(),
            _ => return None,
        };
        match self.validate(&entry, generation) {
            Check::Same => {
                self.hits.fetch_add(1, Ordering::Relaxed);
                Some(entry.module.clone())
            }
            Check::Changed(_) => None,
        }
    }

    /// The cached module for `key`, validated; or the result of `compile`, stored on success.
    ///
    /// `compile` returns the module and the files it resolved; it runs at most once per key at a time.
    pub(crate) fn get_or_compile(
        &self,
        key: u128,
        compile: impl FnOnce() -> Result<(Arc<CompiledModule>, Dependencies), CompileError>,
    ) -> Result<Arc<CompiledModule>, CompileError> {
        loop {
            let (slot, fresh) = {
                let mut slots = self.slots.shard(key);
                match slots.get(&key) {
                    Some(s) => (s.clone(), false),
                    None => {
                        let s = Arc::new(Slot {
                            state: Mutex::new(SlotState::Compiling),
                            ready: Condvar::new(),
                            waiters: AtomicUsize::new(0),
                        });
                        slots.insert(key, s.clone());
                        (s, true)
                    }
                }
            };
            if fresh {
                return self.fill(key, &slot, compile);
            }
            // Wait for a compile in flight; then validate what it produced.
            let entry = {
                let mut st = slot.state.lock().unwrap_or_else(|e| e.into_inner());
                if matches!(*st, SlotState::Compiling) {
                    let waiting = std::time::Instant::now();
                    slot.waiters.fetch_add(1, Ordering::Relaxed);
                    while matches!(*st, SlotState::Compiling) {
                        st = slot.ready.wait(st).unwrap_or_else(|e| e.into_inner());
                    }
                    slot.waiters.fetch_sub(1, Ordering::Relaxed);
                    self.wait_nanos.fetch_add(
                        waiting.elapsed().as_nanos().min(u64::MAX as u128) as u64,
                        Ordering::Relaxed,
                    );
                }
                match &*st {
                    SlotState::Ready(e) => e.clone(),
                    // The compile we waited for failed: that is our answer too (same key, same text).
                    SlotState::Failed(err) => return Err((**err).clone()),
                    SlotState::Compiling => continue,
                }
            };
            // A module that read no file (a generated stage without includes: variants of one unit in a pass)
            // cannot be stale, and needs no poll of the journal.
            let check = if entry.files.is_empty() && entry.absent.is_empty() {
                Check::Same
            } else {
                self.validate(&entry, self.journal.poll())
            };
            match check {
                Check::Same => {
                    self.hits.fetch_add(1, Ordering::Relaxed);
                    return Ok(entry.module.clone());
                }
                Check::Changed(why) => {
                    // Only the thread that finds the stale entry still in place recompiles; others wait for it.
                    let mut st = slot.state.lock().unwrap_or_else(|e| e.into_inner());
                    if matches!(&*st, SlotState::Ready(e) if Arc::ptr_eq(e, &entry)) {
                        tracing::debug!(module = %entry.module.name, reason = %why, "cache entry invalidated");
                        self.invalidations.fetch_add(1, Ordering::Relaxed);
                        *st = SlotState::Compiling;
                        drop(st);
                        return self.fill(key, &slot, compile);
                    }
                    // Someone else already replaced it: go round again.
                }
            }
        }
    }

    fn fill(
        &self,
        key: u128,
        slot: &Arc<Slot>,
        compile: impl FnOnce() -> Result<(Arc<CompiledModule>, Dependencies), CompileError>,
    ) -> Result<Arc<CompiledModule>, CompileError> {
        self.misses.fetch_add(1, Ordering::Relaxed);
        // The entry is valid at a generation no later than the one its files were read at. The last one seen is
        // such a generation and costs no syscall: an event still pending now is read by a later lookup, which
        // then checks the entry's files by metadata (a needless check, never a stale hit). A poll here was a
        // `read` syscall under one lock on every compile, from every thread of the pass.
        let generation = self.journal.last_seen();
        // Watch before compiling reads anything is done by the includer; here we only decide whether the journal
        // can vouch for every file afterwards.
        let result = compile();
        let mut st = slot.state.lock().unwrap_or_else(|e| e.into_inner());
        let out = match result {
            Ok((module, Dependencies { files, absent })) => {
                let now = SystemTime::now();
                let mut watched = true;
                for f in &files {
                    watched &= self.watch_file(&f.path) && !f.meta.racy(now);
                }
                for a in &absent {
                    watched &= self.watch_file(&deepest_existing_dir(&self.root, &a.name));
                }
                let seen = files
                    .iter()
                    .map(|f| Seen {
                        meta: f.meta,
                        checked_at: now,
                    })
                    .collect();
                let entry = Arc::new(Entry {
                    module: module.clone(),
                    files,
                    absent,
                    seen: RwLock::new(seen),
                    valid_at: AtomicU64::new(if watched { generation } else { u64::MAX }),
                });
                *st = SlotState::Ready(entry);
                Ok(module)
            }
            Err(e) => {
                // Failures are not cached: the fix may be a new file that changes nothing we could key on.
                *st = SlotState::Failed(Box::new(e.clone()));
                let mut slots = self.slots.shard(key);
                if slots.get(&key).is_some_and(|s| Arc::ptr_eq(s, slot)) {
                    slots.remove(&key);
                }
                Err(e)
            }
        };
        // Under the lock, so no waiter can count itself in between.
        if slot.waiters.load(Ordering::Relaxed) > 0 {
            slot.ready.notify_all();
        }
        drop(st);
        out
    }

    /// Checks every file of an entry: journal first, then metadata, then content only where metadata changed.
    fn validate(&self, entry: &Entry, generation: u64) -> Check {
        if entry.valid_at.load(Ordering::Acquire) == generation {
            return Check::Same;
        }
        let now = SystemTime::now();
        let mut all_watched = true;
        let mut refresh: Vec<(usize, FileMeta)> = Vec::new();
        {
            let seen = entry.seen.read().unwrap_or_else(|e| e.into_inner());
            for (i, f) in entry.files.iter().enumerate() {
                // Watch before looking, so a change after this check is journaled.
                all_watched &= self.watch_file(&f.path);
                self.stats_checks.fetch_add(1, Ordering::Relaxed);
                let meta = match FileMeta::of(&f.path) {
                    Ok(m) => m,
                    Err(e) => return Check::Changed(format!("`{}`: {e}", f.name)),
                };
                let s = seen[i];
                if meta == s.meta && !meta.racy(s.checked_at) {
                    continue;
                }
                match self.same_content(f, meta) {
                    Check::Same => refresh.push((i, meta)),
                    changed => return changed,
                }
                all_watched &= !meta.racy(now);
            }
        }
        for a in &entry.absent {
            // Watch the deepest existing directory first: a directory created on the way is then journaled.
            all_watched &= self.watch_file(&deepest_existing_dir(&self.root, &a.name));
            self.stats_checks.fetch_add(1, Ordering::Relaxed);
            if !matches!(locate(&self.root, &a.name), Err(LocateError::Missing(_))) {
                return Check::Changed(format!(
                    "`{}` appeared where an include search found nothing",
                    a.name
                ));
            }
        }
        if !refresh.is_empty() {
            // Same content under new metadata: remember the new metadata so the next lookup is cheap again.
            let mut seen = entry.seen.write().unwrap_or_else(|e| e.into_inner());
            for (i, meta) in refresh {
                seen[i] = Seen {
                    meta,
                    checked_at: now,
                };
            }
        }
        entry.valid_at.store(
            if all_watched { generation } else { u64::MAX },
            Ordering::Release,
        );
        Check::Same
    }

    /// Re-resolves a file (it must still lie inside the root) and compares its content hash.
    fn same_content(&self, f: &FileRecord, _meta: FileMeta) -> Check {
        if let Err(e) = locate(&self.root, &f.name) {
            return Check::Changed(e.message());
        }
        self.reads.fetch_add(1, Ordering::Relaxed);
        match std::fs::read(&f.path) {
            Ok(bytes) if content_hash(&bytes) == f.hash => Check::Same,
            Ok(_) => Check::Changed(format!("`{}` changed", f.name)),
            Err(e) => Check::Changed(format!("`{}`: {e}", f.name)),
        }
    }
}
