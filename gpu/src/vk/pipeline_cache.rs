//! The driver's pipeline cache, persisted per device: a warm start creates pipelines from what an earlier run
//! saved. A file is handed to the driver only after it proved itself: the container of [`crate::cache_file`]
//! (magic, format version, length and an xxh3 checksum, so truncation and bit flips are caught), then the driver's
//! own header (`VkPipelineCacheHeaderVersionOne`: header version, vendor, device and `pipelineCacheUUID` must be
//! this device's). Anything else is refused with the reason and the run goes on cold; files are written
//! atomically.
//!
//! ```no_run
//! use shader_info_gpu::vk::{pipeline_cache, VkContext};
//! let ctx = VkContext::new(&Default::default())?;
//! let file = pipeline_cache::path_in(&ctx, &pipeline_cache::default_dir());
//! match pipeline_cache::load(&ctx, &file) {
//!     pipeline_cache::Loaded::Refused(why) => eprintln!("pipeline cache not used: {why}"),
//!     _ => {}
//! }
//! // … create pipelines …
//! pipeline_cache::save(&ctx, &file)?;
//! # Ok::<(), shader_info_gpu::vk::VkError>(())
//! ```

use super::device::VkContext;
use super::error::{VkError, VkResult};
use ash::vk;
use std::path::{Path, PathBuf};

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

/// A cache directory for applications: `$XDG_CACHE_HOME/shader-info`, else `$HOME/.cache/shader-info`, else
/// `shader-info-<uid>` in the system's temporary directory (where [`load`] reads only this user's files).
pub fn default_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .map(|base| base.join("shader-info"))
        .unwrap_or_else(|| {
            let user = crate::cache_file::own_uid().map_or(String::new(), |u| format!("-{u}"));
            std::env::temp_dir().join(format!("shader-info{user}"))
        })
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
    let payload = crate::cache_file::unwrap(bytes)?;
    if let Some(why) = driver_header_problem(ctx, payload) {
        return Err(why);
    }
    Ok(payload.to_vec())
}

/// Loads `file` into the device's pipeline cache (merged into it), after checking it (see the module
/// documentation). A refusal is returned, never an error: the caller goes on cold and may report it once.
pub fn load(ctx: &VkContext, file: &Path) -> Loaded {
    // The data goes to the driver: a file another user could have written (a shared temporary folder) is not read.
    if let Some(why) = crate::cache_file::foreign_owner(file) {
        return Loaded::Refused(format!("{}: {why}", file.display()));
    }
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
    let bytes = crate::cache_file::wrap(&payload);
    crate::cache_file::write_atomic(file, &bytes)
        .map_err(|e| VkError::Other(format!("cannot write {}: {e}", file.display())))?;
    Ok(bytes.len())
}
