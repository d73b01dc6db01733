//! WGSL: the naga module written as is, specialization constants kept as `override`s (pipeline-time), push
//! constants as immediates where every WebGPU implementation's immediates hold the block ([`immediates`]); checked
//! by Tint and read back by naga's WGSL front end ([`check`]).

mod check;
pub mod immediates;
pub mod webgpu_limits;

pub(super) use check::check;

use super::{Portable, validate};
use naga::back::wgsl;
use std::collections::BTreeMap;

/// The WGSL text of the module, and the WebGPU limits it needs above the defaults ([`webgpu_limits`]).
pub(super) fn write(p: &Portable) -> Result<(String, BTreeMap<String, u64>), String> {
    let placed = immediates::place_push_block(&p.module, immediates::WEBGPU_IMMEDIATE_BYTES);
    let (module, info) = match &placed {
        Some(module) => (module, &validate(module)?),
        None => (&p.module, &p.module_info),
    };
    let text =
        wgsl::write_string(module, info, wgsl::WriterFlags::empty()).map_err(|e| e.to_string())?;
    Ok((text, webgpu_limits::required(module, info)))
}
