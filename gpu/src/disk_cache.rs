//! The persistent cache: compiled modules, their reflection and their cross-language translations, kept on disk
//! between processes (and, optionally, in a shared object store) so that a second start compiles nothing that has
//! not changed.
//!
//! - **Content-addressed.** Every entry is named by a 128-bit hash of everything that decides its content: for a
//!   module, the stage, profile, options, generated source, the compiler's fingerprint and the content hashes of
//!   every file it included (through a small *manifest* per source, since the includes are known only after a
//!   compile); for a reflection, the SPIR-V; for a translation, the portable SPIR-V, the target, the binding map
//!   and the translator's version. An entry is never rewritten with other content, so concurrent readers and
//!   writers, in several processes, need no lock.
//! - **Checked.** Each file is the [`crate::cache_file`] container (magic, format version, length, xxh3) around
//!   the entry's kind and key: a truncated, corrupted, misplaced or other-version file is reported once as a
//!   warning, deleted and recompiled, never loaded.
//! - **Atomic.** Writes go to a temporary file renamed into place.
//! - **Bounded.** [`DiskCache::trim`] evicts the least recently used entries past the size limit (a hit refreshes
//!   an entry's modification time, at most once a minute).
//! - **Shared.** [`DiskCache::with_remote`] adds a second level ([`RemoteStore`]: S3, GCS, Azure or a path through
//!   `object_store`, feature `remote-cache`) that holds *packs* ([`pack`]): every entry one run used, as one
//!   object, pulled before a run ([`DiskCache::pull_pack`]) and pushed after it ([`DiskCache::push_pack`]), each
//!   entry with the same checks as a local one.
//!
//! Why not `cacache`: its index is an append-only log keyed by strings with SHA-256 integrity, built for npm's
//! tarballs; here every lookup is one `open` of a file named by the key, the checksum is the container's xxh3 (a
//! few GB/s), and the same bytes go to the remote store unchanged.
//!
//! ```no_run
//! use shader_info_gpu::compiler::{Compiler, CompilerOptions};
//! use shader_info_gpu::disk_cache::DiskCache;
//! use std::sync::Arc;
//! let cache = Arc::new(DiskCache::open(DiskCache::build_dir("target"), DiskCache::DEFAULT_LIMIT)?);
//! let opts = CompilerOptions { disk_cache: Some(cache.clone()), ..Default::default() };
//! let compiler = Compiler::with_options("shaders/glsl", opts).unwrap();
//! // … compile; a second process with the same directory loads instead of compiling.
//! println!("{:?}", cache.stats());
//! cache.trim()?;
//! # Ok::<(), std::io::Error>(())
//! ```

pub mod pack;

use crate::cache_file;
use crate::sharded::ShardedMap;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

/// Bumped when the layout of any entry kind changes: entries of another version live in another directory and
/// are never read (and are evicted by [`DiskCache::trim`] like any old entry).
const FORMAT_DIR: &str = "v1";

/// A hit refreshes the entry's time (for eviction) when it is older than this, so hits cost no write each time.
const TOUCH_AFTER: Duration = Duration::from_secs(60);

/// What an entry holds. The kind is part of the file's directory and of its checked header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The dependency sets seen for one source (include names and content hashes) and the module each gave.
    Manifest,
    /// A compiled SPIR-V module with its include list and warnings.
    Module,
    /// A module's reflection.
    Reflection,
    /// One module's verdict on one cross-language target (the translated text, or why it is unsupported).
    Translation,
    /// A compiler's fingerprint, by the identity of the executable that computed it (computing it runs shaderc
    /// once, and glslang's first compile in a process costs tens of milliseconds).
    Compiler,
    /// A finished static pass's report with every file it read (`builder`'s record): a later identical pass whose
    /// files are unchanged answers with it. Keyed by the executable, like [`Kind::Compiler`].
    Pass,
}

impl Kind {
    /// Every kind.
    pub const ALL: [Kind; 6] = [
        Kind::Manifest,
        Kind::Module,
        Kind::Reflection,
        Kind::Translation,
        Kind::Compiler,
        Kind::Pass,
    ];

    /// The directory (and remote prefix) of the kind.
    pub fn dir(self) -> &'static str {
        match self {
            Kind::Manifest => "manifest",
            Kind::Module => "module",
            Kind::Reflection => "reflection",
            Kind::Translation => "translation",
            Kind::Compiler => "compiler",
            Kind::Pass => "pass",
        }
    }

    /// True for what a build produces; false for this machine's own bookkeeping (the compiler fingerprint and the
    /// pass records, keyed by the local executable), which no other machine could use and which the hit and miss
    /// counts leave out.
    fn is_build_result(self) -> bool {
        !matches!(self, Kind::Compiler | Kind::Pass)
    }

    /// What happens instead of reading a refused entry of this kind.
    fn remade(self) -> &'static str {
        match self {
            Kind::Manifest | Kind::Module => "its module compiled again",
            Kind::Reflection => "its module reflected again",
            Kind::Translation => "its module translated again",
            Kind::Compiler => "the compiler probed again",
            Kind::Pass => "the pass run again",
        }
    }

    fn tag(self) -> u8 {
        match self {
            Kind::Manifest => b'm',
            Kind::Module => b's',
            Kind::Reflection => b'r',
            Kind::Translation => b't',
            Kind::Compiler => b'c',
            Kind::Pass => b'p',
        }
    }
}

/// A second cache level shared between machines: whole objects by name (the packs of [`pack`], `v1/pack/<hash>`).
///
/// `object_store` backs it with feature `remote-cache` ([`crate::remote_cache`]); anything that can get and put
/// bytes by name can.
pub trait RemoteStore: Send + Sync {
    /// The object stored under `name` when it is at most `max_bytes` long (else only its size is read), `Err`
    /// when the store cannot be reached.
    fn get(&self, name: &str, max_bytes: u64) -> Result<Fetched, String>;
    /// Stores `bytes` under `name` (a whole-object write: readers see the old object or the new one).
    fn put(&self, name: &str, bytes: &[u8]) -> Result<(), String>;
    /// Where it is, for messages (`s3://bucket/prefix`).
    fn describe(&self) -> String;
}

/// What [`RemoteStore::get`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Fetched {
    /// No object of that name.
    Missing,
    /// An object past the size asked for, of this many bytes: not read.
    TooLarge(u64),
    /// The object's bytes.
    Bytes(Vec<u8>),
}

/// Counters of a [`DiskCache`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DiskCacheStats {
    /// Entries found (locally or remotely) and loaded (the compiler's fingerprint not counted).
    pub hits: u64,
    /// Entries looked for and not found (the compiler's fingerprint not counted).
    pub misses: u64,
    /// Of the hits, those on entries a pack from the remote store brought.
    pub remote_hits: u64,
    /// Entries written.
    pub writes: u64,
    /// Entries refused because they were damaged (and deleted).
    pub corrupt: u64,
    /// Writes that failed (the cache stays usable; the work is not lost, only not kept).
    pub write_errors: u64,
}

impl DiskCacheStats {
    /// What happened between `before` and `self` (counters of one pass in a longer-lived process).
    pub fn since(&self, before: &DiskCacheStats) -> DiskCacheStats {
        DiskCacheStats {
            hits: self.hits - before.hits,
            misses: self.misses - before.misses,
            remote_hits: self.remote_hits - before.remote_hits,
            writes: self.writes - before.writes,
            corrupt: self.corrupt - before.corrupt,
            write_errors: self.write_errors - before.write_errors,
        }
    }
}

/// What [`DiskCache::trim`] found and removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TrimReport {
    pub files: u64,
    pub bytes: u64,
    pub removed_files: u64,
    pub removed_bytes: u64,
}

/// The persistent cache: one directory, any number of processes. See the [module docs](self).
pub struct DiskCache {
    dir: PathBuf,
    limit: u64,
    remote: Option<Box<dyn RemoteStore>>,
    /// Set after the first failure to reach the remote store: the build goes on locally and says so once.
    remote_down: AtomicBool,
    /// The build results this process read or wrote, by key (a bit per kind): what its pack holds.
    used: ShardedMap<u8>,
    /// The entries the pulled pack held, by key (a bit per kind): hits on them are remote hits.
    pulled: ShardedMap<u8>,
    /// Whether this process's results should replace the remote pack: none was found, part of it was refused, or
    /// this process compiled what it did not hold.
    pack_outdated: AtomicBool,
    /// Set when this process's reads are not a whole run's (a static pass answered from its record reads no
    /// entry): its pack would hold only what the rest of the command read, so it is not pushed.
    pack_partial: AtomicBool,
    warned: Mutex<HashSet<String>>,
    warnings: Mutex<Vec<String>>,
    hits: AtomicU64,
    misses: AtomicU64,
    remote_hits: AtomicU64,
    writes: AtomicU64,
    corrupt: AtomicU64,
    write_errors: AtomicU64,
    /// Bytes written since the last trim: a process that wrote trims again as it drops the cache, and a long one
    /// (`watch`) once it has written a tenth of the limit, so no command grows the cache past its limit — while a
    /// pass (tens of MiB against the default GiB) walks the folder at most at its end.
    written_since_trim: AtomicU64,
}

impl Drop for DiskCache {
    fn drop(&mut self) {
        if self.written_since_trim.load(Ordering::Relaxed) > 0 {
            let _ = self.trim();
        }
    }
}

impl std::fmt::Debug for DiskCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DiskCache")
            .field("dir", &self.dir)
            .field("limit", &self.limit)
            .field("remote", &self.remote.as_ref().map(|r| r.describe()))
            .finish()
    }
}

/// The fewest bytes written between two trims of a long-lived cache ([`DiskCache::put`]).
const TRIM_FLOOR: u64 = 64 << 10;

impl DiskCache {
    /// The default size limit: 1 GiB (the whole library with every translation is about 40 MiB).
    pub const DEFAULT_LIMIT: u64 = 1 << 30;

    /// Opens (creating it) the cache in `dir`, evicting past `limit` bytes when trimmed.
    pub fn open(dir: impl Into<PathBuf>, limit: u64) -> std::io::Result<DiskCache> {
        let dir = dir.into();
        std::fs::create_dir_all(dir.join(FORMAT_DIR))?;
        Ok(DiskCache {
            dir,
            limit,
            remote: None,
            remote_down: AtomicBool::new(false),
            used: ShardedMap::default(),
            pulled: ShardedMap::default(),
            pack_outdated: AtomicBool::new(false),
            pack_partial: AtomicBool::new(false),
            warned: Mutex::new(HashSet::new()),
            warnings: Mutex::new(Vec::new()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            remote_hits: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            corrupt: AtomicU64::new(0),
            write_errors: AtomicU64::new(0),
            written_since_trim: AtomicU64::new(0),
        })
    }

    /// Adds a shared second level of packs ([`Self::pull_pack`], [`Self::push_pack`]).
    pub fn with_remote(mut self, remote: Box<dyn RemoteStore>) -> DiskCache {
        self.remote = Some(remote);
        self
    }

    /// Where builds keep it: `<target>/shader-cache` (beside cargo's own outputs, so `cargo clean` clears it).
    ///
    /// ```
    /// let d = shader_info_gpu::disk_cache::DiskCache::build_dir("target");
    /// assert!(d.ends_with("shader-cache"));
    /// ```
    pub fn build_dir(target: impl AsRef<Path>) -> PathBuf {
        target.as_ref().join("shader-cache")
    }

    /// Where an application keeps it: the platform's cache directory for `app` (`~/.cache/<app>/shaders` on
    /// Linux, `~/Library/Caches/<app>/shaders` on macOS, `%LOCALAPPDATA%\<app>\cache\shaders` on Windows); `None`
    /// where the platform has no home directory.
    ///
    /// ```
    /// if let Some(d) = shader_info_gpu::disk_cache::DiskCache::app_dir("my-renderer") {
    ///     assert!(d.ends_with("shaders"));
    /// }
    /// ```
    pub fn app_dir(app: &str) -> Option<PathBuf> {
        directories::ProjectDirs::from("", "", app).map(|d| d.cache_dir().join("shaders"))
    }

    /// The cache directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The remote store, when there is one.
    pub fn remote(&self) -> Option<&dyn RemoteStore> {
        self.remote.as_deref()
    }

    /// Counters since this cache was opened.
    pub fn stats(&self) -> DiskCacheStats {
        let l = |c: &AtomicU64| c.load(Ordering::Relaxed);
        DiskCacheStats {
            hits: l(&self.hits),
            misses: l(&self.misses),
            remote_hits: l(&self.remote_hits),
            writes: l(&self.writes),
            corrupt: l(&self.corrupt),
            write_errors: l(&self.write_errors),
        }
    }

    /// Every warning so far (each said once: damaged entries, an unreachable remote, failed writes).
    pub fn warnings(&self) -> Vec<String> {
        self.warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The entry's name inside the cache (and the remote store): `v1/<kind>/<2 hex>/<30 hex>`.
    pub fn entry_name(kind: Kind, key: u128) -> String {
        let hex = format!("{key:032x}");
        format!("{FORMAT_DIR}/{}/{}/{}", kind.dir(), &hex[..2], &hex[2..])
    }

    /// The entry's file.
    pub fn entry_path(&self, kind: Kind, key: u128) -> PathBuf {
        self.dir.join(Self::entry_name(kind, key))
    }

    /// Says `message` once per `topic` (to `tracing` and [`Self::warnings`]).
    fn warn_once(&self, topic: &str, message: String) {
        if self
            .warned
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(topic.to_string())
        {
            tracing::warn!("{message}");
            self.warnings
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(message);
        }
    }

    /// The data stored under (`kind`, `key`), checked; `None` when there is none or it is damaged (then deleted,
    /// and said once).
    pub fn get(&self, kind: Kind, key: u128) -> Option<Vec<u8>> {
        let path = self.entry_path(kind, key);
        let found = self.read_local(kind, key, &path);
        if kind.is_build_result() {
            let counter = match found {
                Some(_) => {
                    self.mark_used(kind, key);
                    if self.remote.is_some() && pack::holds(&self.pulled, kind, key) {
                        self.remote_hits.fetch_add(1, Ordering::Relaxed);
                    }
                    &self.hits
                }
                None => &self.misses,
            };
            counter.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Records that this process used an entry (only where a remote store will want its pack).
    fn mark_used(&self, kind: Kind, key: u128) {
        if self.remote.is_some() {
            *self.used.shard(key).entry(key).or_default() |= pack::bit(kind);
        }
    }

    fn read_local(&self, kind: Kind, key: u128, path: &Path) -> Option<Vec<u8>> {
        use std::io::Read;
        let mut file = std::fs::File::open(path).ok()?;
        let mut bytes = Vec::new();
        if let Err(e) = file.read_to_end(&mut bytes) {
            self.warn_once(
                &path.display().to_string(),
                format!(
                    "shader cache entry `{}` cannot be read: {e}",
                    path.display()
                ),
            );
            return None;
        }
        match open_entry(&bytes, kind, key) {
            Ok(data) => {
                if let Ok(m) = file.metadata()
                    && m.modified().is_ok_and(|t| {
                        SystemTime::now()
                            .duration_since(t)
                            .is_ok_and(|age| age > TOUCH_AFTER)
                    })
                {
                    let _ = file.set_modified(SystemTime::now());
                }
                Some(data.to_vec())
            }
            Err(why) => {
                self.corrupt.fetch_add(1, Ordering::Relaxed);
                self.warn_once(
                    &path.display().to_string(),
                    format!(
                        "shader cache entry `{}` is refused ({why}); it is deleted and {}",
                        path.display(),
                        kind.remade()
                    ),
                );
                let _ = std::fs::remove_file(path);
                None
            }
        }
    }

    /// The remote store, unless it is down.
    fn remote_up(&self) -> Option<&dyn RemoteStore> {
        let remote = self.remote.as_deref()?;
        (!self.remote_down.load(Ordering::Relaxed)).then_some(remote)
    }

    /// Says that this process's entries are not a whole run's: its pack is not pushed (see [`pack`]).
    pub fn mark_pack_partial(&self) {
        self.pack_partial.store(true, Ordering::Relaxed);
    }

    fn remote_unreachable(&self, remote: &dyn RemoteStore, error: &str) {
        self.remote_down.store(true, Ordering::Relaxed);
        self.warn_once(
            "remote",
            format!(
                "the remote shader cache `{}` cannot be reached ({error}); building with the local cache only",
                remote.describe()
            ),
        );
    }

    /// Stores `data` under (`kind`, `key`) (and, where there is a remote store, in this process's pack, which
    /// then replaces the remote one: see [`pack`]).
    pub fn put(&self, kind: Kind, key: u128, data: &[u8]) {
        self.refresh(kind, key, data);
        if kind.is_build_result() && self.remote.is_some() {
            self.pack_outdated.store(true, Ordering::Relaxed);
        }
    }

    /// [`Self::put`] for data that says what the entry said in other words (a manifest's file metadata after a
    /// checkout): in this process's pack, but no reason to upload it, or every fresh checkout would.
    pub fn refresh(&self, kind: Kind, key: u128, data: &[u8]) {
        let bytes = seal_entry(kind, key, data);
        let path = self.entry_path(kind, key);
        self.write_local(&path, &bytes);
        if kind.is_build_result() {
            self.mark_used(kind, key);
        }
    }

    fn write_local(&self, path: &Path, bytes: &[u8]) {
        self.write_local_with(path, bytes, |p, b| {
            cache_file::write_atomic(p, b).map(|()| true)
        });
    }

    /// Writes an entry where there is none: another writer's file stays (true when this one was written).
    fn write_local_new(&self, path: &Path, bytes: &[u8]) -> bool {
        self.write_local_with(path, bytes, cache_file::write_new)
    }

    fn write_local_with(
        &self,
        path: &Path,
        bytes: &[u8],
        write: impl FnOnce(&Path, &[u8]) -> std::io::Result<bool>,
    ) -> bool {
        match write(path, bytes) {
            Ok(false) => false,
            Ok(true) => {
                self.writes.fetch_add(1, Ordering::Relaxed);
                let len = bytes.len() as u64;
                let since = self.written_since_trim.fetch_add(len, Ordering::Relaxed) + len;
                // Of the writers that crossed the mark, the one that takes the count back to 0 trims. At least 64
                // KiB apart: each trim walks the whole cache, and a tiny limit would walk it at every write.
                let mark = (self.limit / 10).max(TRIM_FLOOR);
                if since >= mark && self.written_since_trim.swap(0, Ordering::Relaxed) >= mark {
                    let _ = self.trim();
                }
                true
            }
            Err(e) => {
                self.write_errors.fetch_add(1, Ordering::Relaxed);
                self.warn_once(
                    "write",
                    format!(
                        "cannot write to the shader cache `{}` ({e}); going on without keeping results",
                        self.dir.display()
                    ),
                );
                false
            }
        }
    }

    /// Evicts the least recently used entries until the cache is under 90 % of its limit (when it is over the
    /// limit), and removes temporary files left by writers that died more than an hour ago.
    ///
    /// Only the cache's own files are counted or removed: entries (hex names) and its writers' temporary files
    /// (`.tmp…`) under its format folders (`v1`; another `v<N>` is another format, evicted first). The folder may
    /// be shared (`--cache .`, `--cache ~/.cache`), and nothing else in it is ever touched.
    pub fn trim(&self) -> std::io::Result<TrimReport> {
        self.written_since_trim.store(0, Ordering::Relaxed);
        let mut entries: Vec<(SystemTime, u64, PathBuf)> = Vec::new();
        let mut report = TrimReport::default();
        let now = SystemTime::now();
        let mut stack = Vec::new();
        for e in std::fs::read_dir(&self.dir)?.flatten() {
            if is_format_dir(&e.file_name().to_string_lossy())
                && e.file_type().is_ok_and(|t| t.is_dir())
            {
                stack.push(e.path());
            }
        }
        let current = self.dir.join(FORMAT_DIR);
        while let Some(dir) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&dir) else {
                continue;
            };
            for e in rd.flatten() {
                // Not followed through links: `DirEntry::metadata` does not traverse them.
                let Ok(meta) = e.metadata() else { continue };
                if meta.is_dir() {
                    stack.push(e.path());
                    continue;
                }
                let name = e.file_name();
                let name = name.to_string_lossy();
                let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
                if name.starts_with(".tmp") {
                    if now
                        .duration_since(mtime)
                        .is_ok_and(|a| a > Duration::from_secs(3600))
                        && std::fs::remove_file(e.path()).is_ok()
                    {
                        report.removed_files += 1;
                        report.removed_bytes += meta.len();
                    }
                    continue;
                }
                if !is_entry_name(&name) {
                    continue;
                }
                report.files += 1;
                report.bytes += meta.len();
                // Older formats are dead weight: evicted first.
                let other_format = !e.path().starts_with(&current);
                entries.push((
                    if other_format {
                        SystemTime::UNIX_EPOCH
                    } else {
                        mtime
                    },
                    meta.len(),
                    e.path(),
                ));
            }
        }
        if report.bytes <= self.limit {
            return Ok(report);
        }
        entries.sort();
        let target = self.limit / 10 * 9;
        let mut total = report.bytes;
        for (_, len, path) in entries {
            if total <= target {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total -= len;
                report.removed_files += 1;
                report.removed_bytes += len;
            }
        }
        Ok(report)
    }
}

/// A top-level folder of one of the cache's formats: `v` and digits.
fn is_format_dir(name: &str) -> bool {
    name.strip_prefix('v')
        .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// An entry's file name: the hex digits of its key after the two of its folder.
fn is_entry_name(name: &str) -> bool {
    name.len() >= 16 && name.bytes().all(|b| b.is_ascii_hexdigit())
}

/// An entry file: the container around the kind, the key and the data, so that a file copied under another name
/// or kind is refused like a damaged one.
fn seal_entry(kind: Kind, key: u128, data: &[u8]) -> Vec<u8> {
    let mut payload = Vec::with_capacity(17 + data.len());
    payload.push(kind.tag());
    payload.extend_from_slice(&key.to_le_bytes());
    payload.extend_from_slice(data);
    cache_file::wrap(&payload)
}

/// The data of an entry file, or why it is refused.
fn open_entry(bytes: &[u8], kind: Kind, key: u128) -> Result<&[u8], String> {
    let payload = cache_file::unwrap(bytes)?;
    if payload.len() < 17 {
        return Err("it has no entry header".into());
    }
    if payload[0] != kind.tag() {
        return Err(format!("it is not a {} entry", kind.dir()));
    }
    if payload[1..17] != key.to_le_bytes() {
        return Err("it holds another key's entry".into());
    }
    Ok(&payload[17..])
}

/// A length-prefixed hash of `parts`: no two different tuples give the same byte stream.
pub(crate) fn key_of(parts: &[&[u8]]) -> u128 {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for part in parts {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.digest128()
}

/// Versions of the crates whose output the cache keeps (read from `Cargo.lock` by the build script), so that an
/// upgrade of naga or shaderc never meets entries of the old one.
pub(crate) const TOOL_VERSIONS: &str = env!("SHADER_INFO_TOOL_VERSIONS");

/// The running executable's path, size, modification time and inode: what changes when it is rebuilt, for
/// entries that hold what this build of the code made (its behaviour is not in any other key).
pub(crate) fn executable_identity() -> Option<String> {
    let path = std::env::current_exe().ok()?;
    let m = std::fs::metadata(&path).ok()?;
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let inode = 0u64;
    Some(format!(
        "{} {} {:?} {inode}",
        path.display(),
        m.len(),
        m.modified().ok()
    ))
}

/// Splits an entry's data into a JSON head and a binary tail (`[u32 head length][head][tail]`).
pub(crate) fn split_head(data: &[u8]) -> Option<(&[u8], &[u8])> {
    let len = u32::from_le_bytes(data.get(..4)?.try_into().ok()?) as usize;
    let head = data.get(4..4 + len)?;
    Some((head, &data[4 + len..]))
}

/// The inverse of [`split_head`].
pub(crate) fn join_head(head: &[u8], tail: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + head.len() + tail.len());
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(head);
    out.extend_from_slice(tail);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_refuse_other_keys_and_kinds() {
        let sealed = seal_entry(Kind::Module, 7, b"words");
        assert_eq!(open_entry(&sealed, Kind::Module, 7), Ok(&b"words"[..]));
        assert!(open_entry(&sealed, Kind::Module, 8).is_err());
        assert!(open_entry(&sealed, Kind::Reflection, 7).is_err());
    }

    #[test]
    fn heads_split_back() {
        let joined = join_head(b"{}", b"tail");
        assert_eq!(split_head(&joined), Some((&b"{}"[..], &b"tail"[..])));
        assert_eq!(split_head(&joined[..5]), None);
    }
}
