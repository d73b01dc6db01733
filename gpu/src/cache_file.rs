//! The file container of the persisted caches: a header of ours (magic, format version, payload length and an
//! xxh3 checksum of the payload) around the driver's or wgpu's own data, so that truncation, bit flips and files
//! of another format are refused before anything reads the payload, and an atomic write (a temporary file renamed
//! over the old one), so that a crash or a concurrent writer never leaves half a file.
//!
//! ```
//! let bytes = shader_info_gpu::cache_file::wrap(b"driver data");
//! assert_eq!(shader_info_gpu::cache_file::unwrap(&bytes), Ok(&b"driver data"[..]));
//! let mut damaged = bytes.clone();
//! damaged[40] ^= 1;
//! assert!(shader_info_gpu::cache_file::unwrap(&damaged).unwrap_err().contains("checksum"));
//! ```

use std::path::Path;
use xxhash_rust::xxh3::xxh3_64;

/// The first bytes of every file this module writes.
const MAGIC: &[u8; 8] = b"SIVKPC\0\0";
/// Bumped when the container changes; another version is refused, never parsed.
const FORMAT_VERSION: u32 = 1;
/// magic, format version, reserved, payload length, payload checksum.
const HEADER_LEN: usize = 8 + 4 + 4 + 8 + 8;

/// `payload` in the container.
pub fn wrap(payload: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&0u32.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&xxh3_64(payload).to_le_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// The payload of a container, or why it is refused.
pub fn unwrap(bytes: &[u8]) -> Result<&[u8], String> {
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return Err("it is not a shader-info cache file (no header)".into());
    }
    let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap_or_default());
    let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or_default());
    let version = u32_at(8);
    if version != FORMAT_VERSION {
        return Err(format!(
            "it has format version {version}, this build reads {FORMAT_VERSION}"
        ));
    }
    if u32_at(12) != 0 {
        return Err("its reserved header word is not 0: the file is corrupted".into());
    }
    let (len, sum) = (u64_at(16), u64_at(24));
    let payload = &bytes[HEADER_LEN..];
    if payload.len() as u64 != len {
        return Err(format!(
            "it is truncated or extended: {} payload bytes, the header says {len}",
            payload.len()
        ));
    }
    if xxh3_64(payload) != sum {
        return Err("its checksum does not match: the file is corrupted".into());
    }
    Ok(payload)
}

/// This process's user id, where the system tells it (`/proc/self` on Linux): files handed to a driver or a
/// runtime folder are used only when they are this user's own.
/// Why `file` is not read as a cache whose bytes go to a driver: it belongs to another user (a shared temporary
/// folder, where anyone can put a file by the expected name). `None` for this user's file, a missing one, or where
/// files have no owner.
pub(crate) fn foreign_owner(file: &Path) -> Option<String> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let (meta, uid) = (std::fs::metadata(file).ok()?, own_uid()?);
        (meta.uid() != uid).then(|| {
            format!(
                "it belongs to another user (uid {}): only this user's pipeline cache is handed to the driver",
                meta.uid()
            )
        })
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        None
    }
}

pub(crate) fn own_uid() -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        std::fs::metadata("/proc/self").ok().map(|m| m.uid())
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Writes `bytes` to `file` (creating its directory) through a temporary file in the same directory and a rename:
/// readers see the old file or the new one, never a mix. The temporary file's name is unique (`.tmp` and random
/// letters), so writers of the same file, in any number of threads and processes, never share one.
pub fn write_atomic(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    temp_beside(file, bytes)?
        .persist(file)
        .map(drop)
        .map_err(|e| e.error)
}

/// `bytes` in a new temporary file in `file`'s folder (made if missing), to be renamed into place.
fn temp_beside(file: &Path, bytes: &[u8]) -> std::io::Result<tempfile::NamedTempFile> {
    use std::io::Write;
    let dir = match file.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    std::fs::create_dir_all(dir)?;
    let mut tmp = tempfile::Builder::new().prefix(".tmp").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    Ok(tmp)
}

/// [`write_atomic`] where `file` does not exist yet: `Ok(false)`, and the file as it was, when it does (another
/// writer's copy is never replaced).
pub fn write_new(file: &Path, bytes: &[u8]) -> std::io::Result<bool> {
    match temp_beside(file, bytes)?.persist_noclobber(file) {
        Ok(_) => Ok(true),
        Err(e) if e.error.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(e.error),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_makes_missing_directories_and_replaces_the_file() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("a/b/entry");
        write_atomic(&file, b"one").unwrap();
        write_atomic(&file, b"two").unwrap();
        assert_eq!(std::fs::read(&file).unwrap(), b"two");
        // Nothing but the entry: no temporary file left beside it.
        assert_eq!(
            std::fs::read_dir(root.path().join("a/b")).unwrap().count(),
            1
        );
        // A directory that cannot be made is an error, not a panic.
        std::fs::write(root.path().join("plain"), b"").unwrap();
        assert!(write_atomic(&root.path().join("plain/entry"), b"x").is_err());
    }

    #[test]
    fn a_new_write_never_replaces_another_writers_file() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("a/entry");
        assert!(write_new(&file, b"first").unwrap());
        assert!(!write_new(&file, b"second").unwrap());
        assert_eq!(std::fs::read(&file).unwrap(), b"first");
        assert_eq!(std::fs::read_dir(root.path().join("a")).unwrap().count(), 1);
    }
}
