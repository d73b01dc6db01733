//! Packs: the entries one run used, as one object in the remote store. An entry a time, a run with an empty local
//! cache asked the store once per entry and a cold one wrote it once per entry (8,465 entries for
//! `build --target all`): over a server on the loopback address, 16–22 s to read and 38–44 s to fill, against
//! 4–6 s compiling everything, and a store across a network answers each request in tens of milliseconds. A pack
//! is one request each way.
//!
//! A run pulls the pack named for what it does ([`DiskCache::pull_pack`]: `build` with its profile, targets and
//! filter, `render` with its backend) before it starts, and writes the entries its local cache lacks; every entry
//! is the local cache's own checked container, so one damaged entry is refused alone (and said once), and the run
//! compiles it. After the run, [`DiskCache::push_pack`] replaces the pack with the entries the run used, when it
//! compiled anything, found no pack or refused part of it: a run that only hit uploads nothing, and neither does one
//! whose static pass answered from its record (it read no entry, so its pack would hold only the rest). A pack
//! larger than the local cache's limit is not read. Two runners
//! pushing at once leave one whole pack (an object write is atomic), and entries are named by their content, so
//! any pack serves every run whose entries it holds; those it lacks are compiled.
//!
//! Framing: [`MAGIC`], then per entry its length (`u64`, little-endian) and the entry's container, as its file
//! holds it. A truncated pack keeps its whole entries.

use super::{DiskCache, FORMAT_DIR, Fetched, Kind};
use crate::cache_file;
use crate::sharded::ShardedMap;
use rayon::prelude::*;
use std::sync::atomic::Ordering;

/// The first bytes of a pack.
pub const MAGIC: &[u8; 8] = b"SIPACK1\n";

/// The bit of `kind` in a key's set of kinds.
pub(super) fn bit(kind: Kind) -> u8 {
    1 << Kind::ALL.iter().position(|k| *k == kind).unwrap_or(0)
}

/// Whether `set` holds the entry (`kind`, `key`).
pub(super) fn holds(set: &ShardedMap<u8>, kind: Kind, key: u128) -> bool {
    set.shard(key).get(&key).is_some_and(|b| b & bit(kind) != 0)
}

/// The object name of pack `name` (any text: the run's description), in the store's format folder.
pub fn object_name(name: &str) -> String {
    format!(
        "{FORMAT_DIR}/pack/{:032x}",
        xxhash_rust::xxh3::xxh3_128(name.as_bytes())
    )
}

/// The pack of `entries` (each an entry container, as its file holds it).
pub fn write<'a>(entries: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    for e in entries {
        append(&mut out, e);
    }
    out
}

/// Adds one entry container to a pack.
fn append(pack: &mut Vec<u8>, entry: &[u8]) {
    pack.extend_from_slice(&(entry.len() as u64).to_le_bytes());
    pack.extend_from_slice(entry);
}

/// One entry of a pack: its kind and key (from its checked container) and the container's bytes.
pub struct PackedEntry<'a> {
    pub kind: Kind,
    pub key: u128,
    pub bytes: &'a [u8],
}

/// The entries of `pack` in order, each checked: `Ok` for an entry whose container is whole, `Err` with why one is
/// refused. An error in the framing (not a pack, a length past the end) is the last item. One at a time, so a
/// pack of many tiny bad entries costs no more memory than the pack.
pub fn read(pack: &[u8]) -> impl Iterator<Item = Result<PackedEntry<'_>, String>> {
    let mut rest = pack.strip_prefix(MAGIC.as_slice());
    let mut header_said = false;
    std::iter::from_fn(move || {
        let Some(r) = rest else {
            // Not a pack at all: said once.
            return (!std::mem::replace(&mut header_said, true))
                .then(|| Err("it is not a shader-info pack (no header)".to_string()));
        };
        if r.is_empty() {
            return None;
        }
        let Some((len, tail)) = r.split_first_chunk::<8>() else {
            rest = Some(&[]);
            return Some(Err("it ends inside an entry's length".to_string()));
        };
        let len = u64::from_le_bytes(*len);
        let Some(bytes) = usize::try_from(len).ok().and_then(|n| tail.get(..n)) else {
            rest = Some(&[]);
            return Some(Err(format!(
                "an entry of {len} bytes runs past its end ({} bytes left)",
                tail.len()
            )));
        };
        rest = Some(&tail[bytes.len()..]);
        Some(entry(bytes))
    })
}

/// The kind and key a checked container says it holds.
fn entry(bytes: &[u8]) -> Result<PackedEntry<'_>, String> {
    let payload = cache_file::unwrap(bytes)?;
    let (tag, key) = match payload {
        [tag, key @ ..] if key.len() >= 16 => (*tag, &key[..16]),
        _ => return Err("it has no entry header".to_string()),
    };
    let kind = Kind::ALL
        .into_iter()
        .find(|k| k.tag() == tag && k.is_build_result())
        .ok_or_else(|| format!("it holds an entry of unknown kind {tag}"))?;
    let key = u128::from_le_bytes(key.try_into().unwrap_or_default());
    Ok(PackedEntry { kind, key, bytes })
}

impl DiskCache {
    /// Fetches pack `name` from the remote store (one request) and writes the entries the local cache lacks;
    /// returns how many entries the pack held. Without a remote store, or without that pack, nothing happens (a
    /// run then compiles, and [`Self::push_pack`] uploads its pack). A damaged entry is refused and said once; an
    /// unreachable store is said once, and the run goes on with the local cache.
    ///
    /// ```
    /// use shader_info_gpu::disk_cache::DiskCache;
    /// // A cache given a remote store (`with_remote`, e.g. `remote_cache::ObjectStoreRemote`); without one both
    /// // calls do nothing.
    /// fn run(cache: &DiskCache) {
    ///     cache.pull_pack("build debug");
    ///     // … the run, reading and writing `cache` …
    ///     cache.push_pack("build debug");
    /// }
    /// let dir = tempfile::tempdir().unwrap();
    /// run(&DiskCache::open(dir.path(), DiskCache::DEFAULT_LIMIT).unwrap());
    /// ```
    pub fn pull_pack(&self, name: &str) -> usize {
        let Some(remote) = self.remote_up() else {
            return 0;
        };
        let object = object_name(name);
        let bytes = match remote.get(&object, self.limit) {
            Ok(Fetched::Bytes(b)) => b,
            Ok(Fetched::Missing) => {
                self.pack_outdated.store(true, Ordering::Relaxed);
                return 0;
            }
            Ok(Fetched::TooLarge(size)) => {
                self.pack_outdated.store(true, Ordering::Relaxed);
                self.warn_once(
                    &object,
                    format!(
                        "remote shader cache pack `{}/{object}` is {} MiB, past this cache's limit of {} MiB: not \
                         read; this run compiles, and replaces it",
                        remote.describe(),
                        size >> 20,
                        self.limit >> 20
                    ),
                );
                return 0;
            }
            Err(e) => {
                self.remote_unreachable(remote, &e);
                return 0;
            }
        };
        let mut whole = Vec::new();
        for e in read(&bytes) {
            match e {
                Ok(e) => whole.push(e),
                Err(why) => {
                    self.corrupt.fetch_add(1, Ordering::Relaxed);
                    self.pack_outdated.store(true, Ordering::Relaxed);
                    self.warn_once(
                        &object,
                        format!(
                            "remote shader cache pack `{}/{object}` is refused in part ({why}); what it lacks is \
                             compiled here, and a run that compiles replaces the pack",
                            remote.describe()
                        ),
                    );
                }
            }
        }
        // Each entry a file: written from every core (creating thousands of files is the pull's cost). Only where
        // the local cache has none (another process may have written it meanwhile: its copy stays), and counted
        // as the pack's only then.
        whole.par_iter().for_each(|e| {
            let path = self.entry_path(e.kind, e.key);
            if !path.exists() && self.write_local_new(&path, e.bytes) {
                *self.pulled.shard(e.key).entry(e.key).or_default() |= bit(e.kind);
            }
        });
        whole.len()
    }

    /// Uploads the entries this process used as pack `name` (one request), when the remote pack is not already
    /// those: none was found, part of it was refused, or this process compiled something. Returns whether it
    /// uploaded. An unreachable store is said once.
    pub fn push_pack(&self, name: &str) -> bool {
        let Some(remote) = self.remote_up() else {
            return false;
        };
        if self.pack_partial.load(Ordering::Relaxed) {
            return false;
        }
        // Cleared before the entries are gathered: a put meanwhile sets it again, for the next push.
        if !self.pack_outdated.swap(false, Ordering::Relaxed) {
            return false;
        }
        let mut pack = MAGIC.to_vec();
        let mut used = self.used.entries();
        // In key order: the same run gives the same pack.
        used.sort_unstable();
        for (key, kinds) in used {
            for kind in Kind::ALL.into_iter().filter(|k| kinds & bit(*k) != 0) {
                // An entry trimmed away since (or never written, or damaged on this disk) is left out: the pack
                // is a cache too.
                if let Ok(bytes) = std::fs::read(self.entry_path(kind, key))
                    && cache_file::unwrap(&bytes).is_ok()
                {
                    append(&mut pack, &bytes);
                }
            }
        }
        if pack.len() == MAGIC.len() {
            return false;
        }
        let object = object_name(name);
        match remote.put(&object, &pack) {
            Ok(()) => true,
            Err(e) => {
                self.pack_outdated.store(true, Ordering::Relaxed);
                self.warn_once(
                    "push",
                    format!(
                        "the shader cache pack `{}/{object}` ({} MiB) was not uploaded ({e}); this run's results \
                         are kept locally only",
                        remote.describe(),
                        pack.len() >> 20
                    ),
                );
                false
            }
        }
    }
}
