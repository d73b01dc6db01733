//! WGSL: the naga module written as is, specialization constants kept as `override`s (pipeline-time), push
//! constants as immediates where every WebGPU implementation's immediates hold the block ([`immediates`]); checked
//! by Tint and read back by naga's WGSL front end ([`check`]).

mod check;
pub mod immediates;

pub(super) use check::check;

use super::{Portable, validate};
use naga::back::wgsl;

/// The WGSL text of the module.
pub(super) fn write(p: &Portable) -> Result<String, String> {
    let text = if let Some(module) =
        immediates::place_push_block(&p.module, immediates::WEBGPU_IMMEDIATE_BYTES)
    {
        let info = validate(&module)?;
        wgsl::write_string(&module, &info, wgsl::WriterFlags::empty())
    } else {
        wgsl::write_string(&p.module, &p.module_info, wgsl::WriterFlags::empty())
    }
    .map_err(|e| e.to_string())?;
    Ok(text)
}
