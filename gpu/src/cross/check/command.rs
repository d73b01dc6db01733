//! The checkers as commands (`glslangValidator`, `spirv-val`, `spirv-cross`): where the in-process library is not
//! built, or a second opinion needs a tool that only exists as a command.

use shader_info::Stage;
use std::path::Path;
use std::process::Command;

pub(crate) fn stage_arg(stage: Stage) -> &'static str {
    stage.short_name()
}

/// Runs a checker command; `Err` with its output when it fails or cannot start.
/// Scratch paths are left out of the output, so messages name `module.<ext>` alone.
pub(crate) fn run(cmd: &mut Command, tool: &str, install: &str) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {tool} ({install}): {e}"))?;
    let mut text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if let Some(dir) = cmd
        .get_args()
        .filter_map(|a| Path::new(a).parent())
        .find(|p| p.starts_with(std::env::temp_dir()) && p != &std::env::temp_dir())
    {
        text = text.replace(&format!("{}/", dir.display()), "");
    }
    if out.status.success() {
        Ok(text)
    } else {
        Err(format!("{tool} rejects it:\n{}", text.trim()))
    }
}
