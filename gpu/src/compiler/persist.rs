//! The compiler's entries in the [`DiskCache`]: a *manifest* per compilation unit (its key covers the stage,
//! profile, options, name and full text) listing the dependency sets it has been compiled with, and a *module*
//! entry per dependency set, named by the unit's key and the content hash of every included file.
//!
//! A lookup checks one manifest alternative's files the cheap way first: metadata equal to what was recorded (and
//! old enough to trust) vouches for the recorded content hash; otherwise the file is read and hashed (once per
//! process per file version, whatever number of units include it). Files an include search found absent must
//! still be absent. Only then is the module entry read.

use super::cache::Dependencies;
use super::files::{FileMeta, FileRecord, content_hash};
use super::includes::{Absent, LocateError, locate, normalize};
use super::{CompiledModule, Profile, SourceFile};
use crate::disk_cache::{DiskCache, Kind, join_head, key_of, split_head};
use serde::{Deserialize, Serialize};
use shader_info::Stage;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

/// Dependency sets kept per unit (a header switched back and forth between branches hits both).
const ALTERNATIVES: usize = 8;

#[derive(Serialize, Deserialize, Default)]
struct Manifest {
    alternatives: Vec<Alternative>,
}

#[derive(Serialize, Deserialize, Clone)]
struct Alternative {
    files: Vec<Dep>,
    absent: Vec<String>,
    /// The module entry's key, hex.
    module: String,
}

#[derive(Serialize, Deserialize, Clone)]
struct Dep {
    name: String,
    hash: String,
    meta: FileMeta,
    /// When `meta` was seen with this content: a time stamp too close to it cannot vouch (see `FileMeta::racy`).
    seen: SystemTime,
}

/// The JSON head of a module entry; the SPIR-V words follow it.
#[derive(Serialize, Deserialize)]
struct ModuleHead {
    name: String,
    stage: String,
    profile: u8,
    files: Vec<(String, String)>,
    /// shaderc's warning text, mapped again on load (the mapping is deterministic for the same unit and files).
    warnings: String,
}

/// A module loaded from the cache, with what the in-memory cache needs to watch it.
pub(crate) struct Loaded {
    pub module: CompiledModule,
    pub deps: Dependencies,
    pub warnings: String,
}

/// Content hashes of files, remembered with the metadata they were taken under (per compiler, across units).
#[derive(Default)]
pub(crate) struct FileHashes {
    known: Mutex<HashMap<String, (FileMeta, SystemTime, u128)>>,
}

impl FileHashes {
    /// The content hash of the root-relative `name` as it is now, with its metadata; `None` when it cannot be
    /// read or no longer resolves inside the root.
    fn current(&self, root: &Path, name: &str, reads: &AtomicU64) -> Option<(FileMeta, u128)> {
        let path = root.join(name);
        let meta = FileMeta::of(&path).ok()?;
        if let Some((m, at, h)) = self
            .known
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            && *m == meta
            && !meta.racy(*at)
        {
            return Some((meta, *h));
        }
        locate(root, name).ok()?;
        let now = SystemTime::now();
        reads.fetch_add(1, Ordering::Relaxed);
        let hash = content_hash(&std::fs::read(&path).ok()?);
        // Metadata taken before the read: a write during it shows as a change next time.
        self.known
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(name.to_string(), (meta, now, hash));
        Some((meta, hash))
    }
}

fn hex(h: u128) -> String {
    format!("{h:032x}")
}

fn unhex(s: &str) -> Option<u128> {
    u128::from_str_radix(s, 16).ok()
}

/// The module of `unit_key` for the files as they are now, if the cache has it.
pub(crate) fn load(
    disk: &DiskCache,
    root: &Path,
    unit_key: u128,
    hashes: &FileHashes,
    reads: &AtomicU64,
) -> Option<Loaded> {
    let manifest: Manifest = serde_json::from_slice(&disk.get(Kind::Manifest, unit_key)?).ok()?;
    for (index, alt) in manifest.alternatives.iter().enumerate() {
        let Some((files, refreshed)) = check(alt, root, hashes, reads) else {
            continue;
        };
        let Some(module_key) = unhex(&alt.module) else {
            continue;
        };
        let Some(data) = disk.get(Kind::Module, module_key) else {
            continue;
        };
        let Some(module) = decode_module(&data) else {
            continue;
        };
        if refreshed || index > 0 {
            // Same content under new metadata (a checkout, a copy): record it, so the next start is cheap again;
            // and put the alternative that matched first.
            let mut alt = alt.clone();
            let now = SystemTime::now();
            for (dep, f) in alt.files.iter_mut().zip(&files) {
                dep.meta = f.meta;
                dep.seen = now;
            }
            put_manifest(
                disk,
                unit_key,
                manifest.alternatives.clone(),
                alt,
                Put::Refresh,
            );
        }
        let absent = alt
            .absent
            .iter()
            .map(|name| Absent { name: name.clone() })
            .collect();
        let (module, warnings) = module;
        return Some(Loaded {
            module,
            deps: Dependencies { files, absent },
            warnings,
        });
    }
    None
}

/// The files of an alternative as they are now, if every one still has the recorded content and every absent
/// candidate is still absent; and whether any file's metadata changed.
fn check(
    alt: &Alternative,
    root: &Path,
    hashes: &FileHashes,
    reads: &AtomicU64,
) -> Option<(Vec<FileRecord>, bool)> {
    // The compiler records only normalized root-relative names; any other name came from a damaged or planted
    // manifest (a pack is shared), and its metadata must not vouch for a file outside the root.
    let recorded = |name: &str| normalize("", name).is_ok_and(|n| n == name);
    if !alt.files.iter().all(|d| recorded(&d.name)) || !alt.absent.iter().all(|a| recorded(a)) {
        return None;
    }
    let mut files = Vec::with_capacity(alt.files.len());
    let mut refreshed = false;
    for dep in &alt.files {
        let path = root.join(&dep.name);
        let hash = unhex(&dep.hash)?;
        let meta = FileMeta::of(&path).ok()?;
        let meta = if meta == dep.meta && !meta.racy(dep.seen) {
            meta
        } else {
            let (meta, now) = hashes.current(root, &dep.name, reads)?;
            if now != hash {
                return None;
            }
            refreshed = true;
            meta
        };
        files.push(FileRecord {
            name: dep.name.clone(),
            path,
            hash,
            meta,
        });
    }
    for name in &alt.absent {
        if !matches!(locate(root, name), Err(LocateError::Missing(_))) {
            return None;
        }
    }
    Some((files, refreshed))
}

/// Keeps a compiled module for `unit_key` with the files it read.
pub(crate) fn store(
    disk: &DiskCache,
    unit_key: u128,
    module: &CompiledModule,
    deps: &Dependencies,
    warnings: &str,
) {
    let unit = unit_key.to_le_bytes();
    let mut parts: Vec<&[u8]> = vec![b"module", &unit];
    let hashes: Vec<[u8; 16]> = deps.files.iter().map(|f| f.hash.to_le_bytes()).collect();
    for (f, h) in deps.files.iter().zip(&hashes) {
        parts.push(f.name.as_bytes());
        parts.push(h);
    }
    parts.push(b"absent");
    for a in &deps.absent {
        parts.push(a.name.as_bytes());
    }
    let module_key = key_of(&parts);
    disk.put(Kind::Module, module_key, &encode_module(module, warnings));
    let now = SystemTime::now();
    let alt = Alternative {
        files: deps
            .files
            .iter()
            .map(|f| Dep {
                name: f.name.clone(),
                hash: hex(f.hash),
                meta: f.meta,
                seen: now,
            })
            .collect(),
        absent: deps.absent.iter().map(|a| a.name.clone()).collect(),
        module: hex(module_key),
    };
    let existing = disk
        .get(Kind::Manifest, unit_key)
        .and_then(|d| serde_json::from_slice::<Manifest>(&d).ok())
        .unwrap_or_default();
    put_manifest(disk, unit_key, existing.alternatives, alt, Put::New);
}

/// Whether a manifest put records a new compile, or the same dependency sets under new metadata or in a new order.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Put {
    New,
    Refresh,
}

/// Writes the manifest with `first` at the front and the others after it (at most [`ALTERNATIVES`]). Two
/// processes updating one manifest at once may drop each other's alternative: that costs a compile, never a wrong
/// module, since module entries are named by their content's inputs.
fn put_manifest(
    disk: &DiskCache,
    unit_key: u128,
    others: Vec<Alternative>,
    first: Alternative,
    put: Put,
) {
    let module = first.module.clone();
    let mut alternatives = vec![first];
    alternatives.extend(others.into_iter().filter(|a| a.module != module));
    alternatives.truncate(ALTERNATIVES);
    if let Ok(json) = serde_json::to_vec(&Manifest { alternatives }) {
        match put {
            Put::New => disk.put(Kind::Manifest, unit_key, &json),
            // A fresh checkout refreshes every manifest's metadata: no reason to upload a pack.
            Put::Refresh => disk.refresh(Kind::Manifest, unit_key, &json),
        }
    }
}

fn encode_module(m: &CompiledModule, warnings: &str) -> Vec<u8> {
    let head = ModuleHead {
        name: m.name.clone(),
        stage: m.stage.short_name().to_string(),
        profile: m.profile.tag(),
        files: m
            .files
            .iter()
            .map(|f| (f.name.clone(), hex(f.content_hash)))
            .collect(),
        warnings: warnings.to_string(),
    };
    join_head(
        &serde_json::to_vec(&head).unwrap_or_default(),
        bytemuck::cast_slice(&m.spirv),
    )
}

/// The module (with an empty warning list, mapped by the caller) and its warning text.
fn decode_module(data: &[u8]) -> Option<(CompiledModule, String)> {
    let (head, words) = split_head(data)?;
    let head: ModuleHead = serde_json::from_slice(head).ok()?;
    if words.len() % 4 != 0 {
        return None;
    }
    let spirv: Vec<u32> = words
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let stage = Stage::ALL
        .iter()
        .copied()
        .find(|s| s.short_name() == head.stage)?;
    let profile = [Profile::Debug, Profile::Release, Profile::Translation]
        .into_iter()
        .find(|p| p.tag() == head.profile)?;
    let files = head
        .files
        .into_iter()
        .map(|(name, h)| {
            Some(SourceFile {
                path: Default::default(),
                content_hash: unhex(&h)?,
                name,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some((
        CompiledModule {
            name: head.name,
            stage,
            profile,
            spirv,
            files,
            absent_includes: Vec::new(),
            warnings: Vec::new(),
            keys: Default::default(),
        },
        head.warnings,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// An alternative naming `name`, whose recorded metadata is `path`'s as it is now (old enough to vouch).
    fn vouching(name: &str, path: &Path) -> Alternative {
        Alternative {
            files: vec![Dep {
                name: name.to_string(),
                hash: hex(1),
                meta: FileMeta::of(path).expect("metadata"),
                seen: SystemTime::now() + Duration::from_secs(3600),
            }],
            absent: Vec::new(),
            module: hex(2),
        }
    }

    #[test]
    fn a_manifest_naming_a_file_outside_the_root_is_not_trusted() {
        let dir = tempfile::tempdir().expect("temp dir");
        let root = dir.path().join("root");
        std::fs::create_dir(&root).expect("root");
        std::fs::write(root.join("inside.glsl"), "// in").expect("write");
        std::fs::write(dir.path().join("outside.glsl"), "// out").expect("write");
        let root = root.canonicalize().expect("root");
        let (hashes, reads) = (FileHashes::default(), AtomicU64::new(0));
        let trusted = |alt: &Alternative| check(alt, &root, &hashes, &reads).is_some();

        assert!(trusted(&vouching("inside.glsl", &root.join("inside.glsl"))));
        let outside = dir.path().join("outside.glsl");
        for name in [
            "../outside.glsl",
            "./../outside.glsl",
            &outside.to_string_lossy(),
        ] {
            assert!(!trusted(&vouching(name, &outside)), "{name}");
        }
        let mut absent = vouching("inside.glsl", &root.join("inside.glsl"));
        absent.absent.push("../missing.glsl".into());
        assert!(!trusted(&absent));
        assert_eq!(reads.load(Ordering::Relaxed), 0, "metadata alone decided");
    }
}
