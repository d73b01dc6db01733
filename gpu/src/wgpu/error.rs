//! The wgpu backend's error type.

use shader_info::{Code, Diagnostic, render};

/// What the wgpu backend reports.
#[derive(Debug, thiserror::Error)]
pub enum WgpuError {
    /// No adapter, or the device could not be created.
    #[error("wgpu: {0}")]
    Device(String),
    /// A declaration, its generated code, its translation or a pipeline has problems: every diagnostic, each
    /// naming the info (and the item, file and line where there is one).
    #[error("{}", render(.0).trim_end())]
    Diagnostics(Vec<Diagnostic>),
}

impl WgpuError {
    /// The diagnostics, for [`WgpuError::Diagnostics`].
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            WgpuError::Diagnostics(d) => d,
            WgpuError::Device(_) => &[],
        }
    }

    /// The error as diagnostics naming `key`.
    pub fn into_diagnostics(self, key: &str) -> Vec<Diagnostic> {
        match self {
            WgpuError::Diagnostics(d) => d,
            other => vec![Diagnostic::error(Code::Device, key, other.to_string())],
        }
    }
}

/// Result of the wgpu backend.
pub type WgpuResult<T> = Result<T, WgpuError>;
