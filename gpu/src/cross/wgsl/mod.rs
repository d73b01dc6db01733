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

/// The WGSL text of the module, its entry point's name in that text, and the WebGPU limits it needs above the
/// defaults ([`webgpu_limits`]).
pub(super) fn write(p: &Portable) -> Result<(String, String, BTreeMap<String, u64>), String> {
    let placed = immediates::place_push_block(&p.module, immediates::WEBGPU_IMMEDIATE_BYTES);
    let (module, info) = match &placed {
        Some(module) => (module, &validate(module)?),
        None => (&p.module, &p.module_info),
    };
    let text =
        wgsl::write_string(module, info, wgsl::WriterFlags::empty()).map_err(|e| e.to_string())?;
    let entry = written_entry_point(&text).ok_or_else(|| {
        "naga's WGSL writer wrote no entry point function (a stage attribute, then `fn NAME(`)"
            .to_string()
    })?;
    Ok((text, entry, webgpu_limits::required(module, info)))
}

/// The name naga's writer gave the entry point: not always the module's. Its namer renames every identifier it
/// writes, entry points included: a name ending in a digit gets `_` (`cs_pass1` becomes `cs_pass1_`), one that
/// ends in `_` loses it, a WGSL keyword or a name already taken gets a suffix. wgpu finds the entry point by the
/// text's name. The writer puts each entry point's stage attributes on a line of their own, then `fn NAME(`.
fn written_entry_point(text: &str) -> Option<String> {
    // From the end: the writer puts entry points after every other function (only polyfills follow them), so
    // the whole text is not walked for every translation.
    text.rmatch_indices("\nfn ").find_map(|(at, _)| {
        let attributes = text[..at].rsplit('\n').next()?.trim_start();
        if !["@vertex", "@fragment", "@compute"]
            .iter()
            .any(|a| attributes.starts_with(a))
        {
            return None;
        }
        let name = &text[at + "\nfn ".len()..];
        Some(name[..name.find('(')?].trim().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::written_entry_point;

    #[test]
    fn the_entry_point_is_read_from_the_written_text() {
        let text = "fn helper1_() {\n}\n\n@compute @workgroup_size(8, 8, 1) \nfn cs_pass1_() {\n    return;\n}\n";
        assert_eq!(written_entry_point(text).as_deref(), Some("cs_pass1_"));
        let text =
            "@vertex \nfn main(@location(0) p: vec4<f32>) -> @builtin(position) vec4<f32> {\n}\n";
        assert_eq!(written_entry_point(text).as_deref(), Some("main"));
        assert_eq!(written_entry_point("fn f() {}\n"), None);
    }
}
