//! Independent checks of translated modules: each output is read back by a tool that is not the naga back end that
//! wrote it, and what that tool sees — bindings, registers, indices, block member offsets — is compared with the
//! binding map and with the declaration's std140/std430 layouts.
//!
//! | target | checked by |
//! |---|---|
//! | WGSL | Tint, Dawn's WGSL compiler (npm `webgpu`, null backend, one process per pass; required where `SHADER_INFO_REQUIRE_TINT=1`), then naga's WGSL front end and validator: every `@group/@binding` against the map, every uniform/storage/immediate block member's offset, array stride and matrix stride (WGSL's own layout rules) against the declaration |
//! | HLSL | glslang's HLSL front end (as `glslangValidator -D`, HLSL packing rules), SPIRV-Tools' validator (`spirv-val`), then reflection: every register (class, number, space) against the map, every cbuffer member offset against the declaration |
//! | OpenGL / ES | glslang for that GLSL version (as `glslangValidator -l -q`, no `-V`): every binding point against the map, every active uniform-block and buffer member offset against the declaration |
//! | MSL | no Metal compiler runs on Linux: every `[[buffer/texture/sampler(i)]]` of the entry point against the map, and `spirv-cross --msl` on the same SPIR-V as a second opinion on which resources the stage binds |
//!
//! glslang and SPIRV-Tools run in process where `gpu/build.rs` built them in ([`native`]; the commands otherwise, or
//! with `SHADER_INFO_CHECK_WITH_COMMANDS=1`), Tint in one node process per pass ([`tint`]); spirv-cross stays a
//! command, once per distinct SPIR-V. Each distinct input is checked once per process: identical text, identical
//! verdict. None of them shares code with naga's back ends.
//!
//! Each target's check sits beside its translation (`cross::wgsl`, `cross::msl`, `cross::hlsl`, `cross::gl`); this
//! module dispatches to them and holds what they share: the layout comparison, the map's view of the used
//! bindings, and the tools (in process or as commands).

pub(crate) mod bindings;
pub(crate) mod command;
pub(crate) mod layout;
pub mod native;
pub mod tint;

pub use native::WITH_COMMANDS_ENV;
pub use tint::{REQUIRE_TINT_ENV, TINT_ENV};

use super::{Portable, Translation, gl, hlsl, msl, wgsl};
use shader_info::{Code, Diagnostic, Target};
use std::process::Command;

/// Checks one translation. `Ok` when the independent tool accepts it and everything it reports matches the map
/// and the declaration; otherwise every difference, naming the module, target and resource.
pub fn check(p: &Portable, t: &Translation) -> Result<(), Vec<Diagnostic>> {
    let problems = match t.target {
        Target::Wgsl => wgsl::check(p, &t.text, &t.entry_point),
        Target::Hlsl => hlsl::check(p, t),
        Target::Gl | Target::Gles => gl::check(p, t),
        Target::Msl => msl::check(p, &t.text),
    };
    if problems.is_empty() {
        return Ok(());
    }
    Err(problems
        .into_iter()
        .map(|m| {
            let mut d = Diagnostic::error(Code::Translation, &p.info, m)
                .stage(p.stage)
                .item(format!("target {}", t.target))
                .hint("the translation does not match the declaration: a bug in the translator or in this library; report it with the module named");
            if let Some(v) = &p.variant {
                d = d.variant(v.clone());
            }
            d
        })
        .collect())
}

/// The checkers this module runs, and whether each is installed.
pub fn tools() -> Vec<(&'static str, bool)> {
    let mut out: Vec<(&'static str, bool)> = ["glslangValidator", "spirv-val", "spirv-cross"]
        .into_iter()
        .map(|t| {
            let ok = Command::new(t)
                .arg("--version")
                .output()
                .is_ok_and(|o| !o.stdout.is_empty() || !o.stderr.is_empty());
            (t, ok)
        })
        .collect();
    out.push(("tint (npm webgpu)", tint::available()));
    out
}

/// Bumped whenever a check changes what it accepts (the translations' own changes bump `OUTPUT_REVISION`): a
/// verdict an older check gave is then never served from a cache. 2: HLSL cbuffer offsets are compared (they were
/// not: a key mismatch), register classes 8,192 bindings apart. 3: the WGSL check refuses a recorded entry point its
/// text lacks. 4: the MSL check matches each inline sampler's filter with one declared state.
const CHECK_REVISION: u32 = 4;

/// What the checkers of `opts` are, for cache keys (empty when nothing is checked): the checks' revision; a verdict
/// made without Tint is not kept for a pass that has it, nor for one that requires it (and fails without it), nor
/// for another version of it. Nothing is started (a warm build need not start node): where Tint is installed,
/// every WGSL check runs it or fails.
pub fn checkers_key(opts: &super::CrossOptions) -> String {
    if !opts.check {
        return String::new();
    }
    let tint = if !opts.targets.contains(&Target::Wgsl) {
        String::new()
    } else if tint::installed() {
        format!(" tint {}", tint::package_version().unwrap_or("unknown"))
    } else if tint::required() {
        " tint-required-but-missing".to_string()
    } else {
        String::new()
    };
    format!("check {CHECK_REVISION}: glslang spirv-val spirv-cross{tint}")
}
