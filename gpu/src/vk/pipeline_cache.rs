//! The driver's pipeline cache, persisted per device: a warm start creates pipelines from what an earlier run
//! saved. A file is handed to the driver only after it proved itself: our own header (magic, format version,
//! length and an xxh3 checksum of the payload, so truncation and bit flips are caught), then the driver's own
//! header (`VkPipelineCacheHeaderVersionOne`: header version, vendor, device and `pipelineCacheUUID` must be this
//! device's). Anything else is refused with the reason and the run goes on cold; files are written atomically
//! (a temporary file renamed over the old one), so a crash or a concurrent writer never leaves half a file.
//!
//! ```no_run
//! use gpu::vk::{pipeline_cache, VkContext};
//! let ctx = VkContext::new(&Default::default())?;
//! let file = pipeline_cache::path_in(&ctx, &pipeline_cache::default_dir());
//! match pipeline_cache::load(&ctx, &file) {
//!     pipeline_cache::Loaded::Refused(why) => eprintln!("pipeline cache not used: {why}"),
//!     _ => {}
//! }
//! // … create pipelines …
//! pipeline_cache::save(&ctx, &file)?;
//! # Ok::<(), gpu::vk::VkError>(())
//! ```

use super::device::VkContext;
use super::error::{VkError, VkResult};
use ash::vk;
use std::path::{Path, PathBuf};
use xxhash_rust::xxh3::xxh3_64;

/// The first bytes of every file this module writes.
const MAGIC: &[u8; 8] = b"SIVKPC\0\0";
/// Bumped when the file layout changes; another version is refused, never parsed.
const FORMAT_VERSION: u32 = 1;
/// magic, format version, reserved, payload length, payload checksum.
const HEADER_LEN: usize = 8 + 4 + 4 + 8 + 8;
/// `VkPipelineCacheHeaderVersionOne`: length, version, vendor, device, UUID.
const DRIVER_HEADER_LEN: usize = 4 + 4 + 4 + 4 + vk::UUID_SIZE;

/// What [`load`] did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Loaded {
    /// The file's pipelines are in the device's cache.
    Warm { bytes: usize },
    /// No file yet: a cold start, nothing to report.
    Missing,
    /// The file exists but was not handed to the driver; the reason says why (corrupt, truncated, another
    /// format, another device or driver).
    Refused(String),
}

/// A cache directory for applications: `$XDG_CACHE_HOME/shader-info`, else `$HOME/.cache/shader-info`, else the
/// system's temporary directory.
pub fn default_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("shader-info")
}

/// The file of `ctx`'s device in `dir`: one per vendor, device and driver cache UUID, so two GPUs (or two
/// drivers) never read each other's data.
pub fn path_in(ctx: &VkContext, dir: &Path) -> PathBuf {
    let p = ctx.properties();
    let uuid: String = p
        .pipeline_cache_uuid
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    dir.join(format!(
        "vk-pipelines-{:04x}-{:04x}-{uuid}.bin",
        p.vendor_id, p.device_id
    ))
}

/// Why `payload` (the driver's data) is not for this device, if it is not.
fn driver_header_problem(ctx: &VkContext, payload: &[u8]) -> Option<String> {
    if payload.len() < DRIVER_HEADER_LEN {
        return Some(format!(
            "the driver data is {} bytes, shorter than its header",
            payload.len()
        ));
    }
    let word =
        |i: usize| u32::from_le_bytes([payload[i], payload[i + 1], payload[i + 2], payload[i + 3]]);
    let (len, version, vendor, device) = (word(0), word(4), word(8), word(12));
    let uuid = &payload[16..16 + vk::UUID_SIZE];
    let p = ctx.properties();
    if (len as usize) < DRIVER_HEADER_LEN || len as usize > payload.len() {
        return Some(format!("the driver header claims {len} bytes"));
    }
    if version != vk::PipelineCacheHeaderVersion::ONE.as_raw() as u32 {
        return Some(format!("the driver header has version {version}, not 1"));
    }
    if (vendor, device) != (p.vendor_id, p.device_id) {
        return Some(format!(
            "it was written for device {vendor:04x}:{device:04x}, this is {:04x}:{:04x} ({})",
            p.vendor_id,
            p.device_id,
            ctx.device_name()
        ));
    }
    if uuid != p.pipeline_cache_uuid {
        return Some("it was written by another driver version (pipelineCacheUUID differs)".into());
    }
    None
}

/// The payload of a file's bytes, or why they are refused.
fn unwrap_file(ctx: &VkContext, bytes: &[u8]) -> Result<Vec<u8>, String> {
    if bytes.len() < HEADER_LEN || &bytes[..8] != MAGIC {
        return Err("it is not a shader-info pipeline cache (no header)".into());
    }
    let version = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default());
    if version != FORMAT_VERSION {
        return Err(format!(
            "it has format version {version}, this build reads {FORMAT_VERSION}"
        ));
    }
    if bytes[12..16] != [0; 4] {
        return Err("its reserved header word is not 0: the file is corrupted".into());
    }
    let len = u64::from_le_bytes(bytes[16..24].try_into().unwrap_or_default());
    let sum = u64::from_le_bytes(bytes[24..32].try_into().unwrap_or_default());
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
    if let Some(why) = driver_header_problem(ctx, payload) {
        return Err(why);
    }
    Ok(payload.to_vec())
}

/// Loads `file` into the device's pipeline cache (merged into it), after checking it (see the module
/// documentation). A refusal is returned, never an error: the caller goes on cold and may report it once.
pub fn load(ctx: &VkContext, file: &Path) -> Loaded {
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Loaded::Missing,
        Err(e) => return Loaded::Refused(format!("{}: {e}", file.display())),
    };
    let payload = match unwrap_file(ctx, &bytes) {
        Ok(p) => p,
        Err(why) => return Loaded::Refused(format!("{}: {why}", file.display())),
    };
    let info = vk::PipelineCacheCreateInfo::default().initial_data(&payload);
    let d = ctx.device();
    // SAFETY: the initial data was checked against this device's header above, the create info borrows `payload`
    // for the call only, and the temporary cache is destroyed after its contents were merged.
    let merged = unsafe {
        let temp = match d.create_pipeline_cache(&info, None) {
            Ok(t) => t,
            Err(e) => {
                return Loaded::Refused(format!("{}: the driver refused it ({e})", file.display()));
            }
        };
        let r = d.merge_pipeline_caches(ctx.pipeline_cache(), &[temp]);
        d.destroy_pipeline_cache(temp, None);
        r
    };
    match merged {
        Ok(()) => Loaded::Warm {
            bytes: payload.len(),
        },
        Err(e) => Loaded::Refused(format!("{}: merging it failed ({e})", file.display())),
    }
}

/// Writes the device's pipeline cache to `file` (creating its directory), atomically; returns the bytes
/// written.
pub fn save(ctx: &VkContext, file: &Path) -> VkResult<usize> {
    // SAFETY: the cache belongs to this device; the call only reads it.
    let payload = unsafe { ctx.device().get_pipeline_cache_data(ctx.pipeline_cache()) }
        .map_err(VkError::call("vkGetPipelineCacheData"))?;
    let mut bytes = Vec::with_capacity(HEADER_LEN + payload.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes.extend_from_slice(&0u32.to_le_bytes());
    bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&xxh3_64(&payload).to_le_bytes());
    bytes.extend_from_slice(&payload);
    let fail = |e: std::io::Error| VkError::Other(format!("cannot write {}: {e}", file.display()));
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    // A unique temporary name in the same directory, then a rename: readers see the old file or the new one.
    let tmp = file.with_extension(format!("tmp{}-{:x}", std::process::id(), xxh3_64(&payload)));
    std::fs::write(&tmp, &bytes).map_err(fail)?;
    std::fs::rename(&tmp, file).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        fail(e)
    })?;
    Ok(bytes.len())
}
