//! Where a declaration was written in Rust source: the one fact every diagnostic about a declaration points at.

use std::fmt;

/// Where a declaration was written in Rust source. Used in diagnostics only.
///
/// Two origins always compare equal: the declaration site is metadata, not part of a declaration's value, so an
/// info declared through the derive macro equals the same info written with the builder.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Origin {
    pub file: &'static str,
    pub line: u32,
}

impl Origin {
    /// The caller's location (the builder call in user code).
    #[track_caller]
    pub fn caller() -> Origin {
        let l = std::panic::Location::caller();
        Origin {
            file: l.file(),
            line: l.line(),
        }
    }

    /// True when no location is known.
    pub fn is_unknown(&self) -> bool {
        self.file.is_empty()
    }
}

impl PartialEq for Origin {
    fn eq(&self, _: &Origin) -> bool {
        true
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_unknown() {
            f.write_str("<unknown>")
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}
