//! The error of a failed compilation: every diagnostic, located as precisely as the compiler allows.

use super::diagnostics::compile_message;
use shader_info::{Diagnostic, Severity, render};
use std::fmt;

/// A compilation that failed: never empty; every entry is located as precisely as the compiler allows.
///
/// ```
/// use shader_info_gpu::compiler::CompileError;
/// let e = CompileError::single("a.frag", "boom");
/// assert_eq!(e.diagnostics.len(), 1);
/// assert!(e.to_string().contains("error[compile]: boom"));
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct CompileError {
    /// What was being compiled.
    pub name: String,
    pub diagnostics: Vec<Diagnostic>,
}

impl CompileError {
    /// An error with one unlocated diagnostic.
    pub fn single(name: impl Into<String>, message: impl Into<String>) -> CompileError {
        let name = name.into();
        CompileError {
            diagnostics: vec![compile_message(&name, Severity::Error, message)],
            name,
        }
    }

    /// The error diagnostics only.
    pub fn errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics.iter().filter(|d| d.is_error())
    }
}

impl fmt::Display for CompileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&render(&self.diagnostics))?;
        let n = self.errors().count();
        write!(
            f,
            "error: could not compile `{}` ({n} error{})",
            self.name,
            if n == 1 { "" } else { "s" }
        )
    }
}
