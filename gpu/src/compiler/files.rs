//! What the cache knows about a file a compilation read: its name, path, content hash and the metadata that
//! changes when it is written. Shared by the include resolver (which records files) and the cache (which checks
//! them), so neither depends on the other.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// 128-bit content hash of a file's text: a leading UTF-8 byte-order mark is not part of it (the text compiled
/// is read without it, and a file's bytes must hash as its text does, or the cache would see it changed on every
/// check).
pub(crate) fn content_hash(bytes: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes))
}

/// A modification time closer than this to the moment it was checked is not trusted: a file system with coarse
/// timestamps could hide a second write in the same tick (git's "racily clean" problem). Such files are compared
/// by content until their timestamp is old enough.
const RACY_WINDOW: Duration = Duration::from_secs(2);

/// Metadata that changes when a file is written or replaced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct FileMeta {
    len: u64,
    mtime: Option<SystemTime>,
    /// (device, inode) on Unix: catches a file replaced by rename with an equal size and time stamp.
    id: (u64, u64),
}

impl FileMeta {
    pub(crate) fn of(path: &Path) -> std::io::Result<FileMeta> {
        let m = std::fs::metadata(path)?;
        #[cfg(unix)]
        let id = {
            use std::os::unix::fs::MetadataExt;
            (m.dev(), m.ino())
        };
        #[cfg(not(unix))]
        let id = (0, 0);
        Ok(FileMeta {
            len: m.len(),
            mtime: m.modified().ok(),
            id,
        })
    }

    /// True when the time stamp cannot vouch for the content (too recent when checked, or unknown).
    pub(crate) fn racy(&self, checked_at: SystemTime) -> bool {
        match self.mtime {
            Some(t) => t + RACY_WINDOW > checked_at,
            None => true,
        }
    }
}

/// A file resolved during a compilation.
#[derive(Clone, Debug)]
pub(crate) struct FileRecord {
    /// Root-relative name.
    pub name: String,
    /// Root joined with the name (the path resolution would take again).
    pub path: PathBuf,
    pub hash: u128,
    pub meta: FileMeta,
}
