//! Typed diagnostics: every problem with a declaration names the info, the item, where it was declared, and what
//! to do about it.

use crate::info::Origin;
use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    Warning,
    Error,
}

/// What kind of problem a diagnostic reports. Tests match on this rather than on message text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Code {
    DuplicateInfo,
    UnknownInfo,
    AdditionalInfoCycle,
    SingularConflict,
    BindingCollision,
    VertexInputOverlap,
    VertexInputOutOfRange,
    FragmentOutputCollision,
    InterpolationNotFlat,
    PushConstantTooLarge,
    IncompleteInfo,
    MixedPipelineKinds,
    ZeroGroupSize,
    DuplicateName,
    InvalidIdentifier,
    UnknownType,
    InvalidArray,
    InvalidImage,
    InvalidConstant,
    Layout,
    MissingSource,
    UnknownStage,
    Branch,
}

impl Code {
    /// The kebab-case name printed in `error[name]`.
    pub fn name(self) -> &'static str {
        match self {
            Code::DuplicateInfo => "duplicate-info",
            Code::UnknownInfo => "unknown-info",
            Code::AdditionalInfoCycle => "additional-info-cycle",
            Code::SingularConflict => "conflicting-items",
            Code::BindingCollision => "binding-collision",
            Code::VertexInputOverlap => "vertex-input-overlap",
            Code::VertexInputOutOfRange => "vertex-input-out-of-range",
            Code::FragmentOutputCollision => "fragment-output-collision",
            Code::InterpolationNotFlat => "interpolation-not-flat",
            Code::PushConstantTooLarge => "push-constants-too-large",
            Code::IncompleteInfo => "incomplete-info",
            Code::MixedPipelineKinds => "mixed-pipeline-kinds",
            Code::ZeroGroupSize => "zero-group-size",
            Code::DuplicateName => "duplicate-name",
            Code::InvalidIdentifier => "invalid-identifier",
            Code::UnknownType => "unknown-type",
            Code::InvalidArray => "invalid-array",
            Code::InvalidImage => "invalid-image",
            Code::InvalidConstant => "invalid-constant",
            Code::Layout => "layout",
            Code::MissingSource => "missing-source",
            Code::UnknownStage => "unknown-stage",
            Code::Branch => "branch",
        }
    }
}

/// Another place a diagnostic refers to (the other side of a collision, an earlier definition).
#[derive(Clone, Debug, PartialEq)]
pub struct Related {
    pub message: String,
    pub origin: Origin,
}

/// One problem with a declaration.
///
/// ```
/// use shader_info::{Code, Diagnostic};
/// let d = Diagnostic::error(Code::ZeroGroupSize, "my_compute", "local group size (0, 8, 1) has a zero")
///     .item("local_group_size")
///     .hint("every dimension must be at least 1");
/// assert!(d.to_string().contains("error[zero-group-size]"));
/// assert!(d.to_string().contains("my_compute"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    /// The info being checked (the one the user asked for).
    pub info: String,
    /// The item, e.g. "sampler `tex`".
    pub item: Option<String>,
    /// The info that declared the item, when it came through `additional_info`.
    pub declared_in: Option<String>,
    pub origin: Origin,
    pub message: String,
    pub hint: Option<String>,
    pub related: Vec<Related>,
}

impl Diagnostic {
    /// A new error.
    pub fn error(code: Code, info: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            info: info.into(),
            item: None,
            declared_in: None,
            origin: Origin::default(),
            message: message.into(),
            hint: None,
            related: Vec::new(),
        }
    }

    /// Names the item.
    pub fn item(mut self, item: impl Into<String>) -> Diagnostic {
        self.item = Some(item.into());
        self
    }

    /// Where the item was declared.
    pub fn at(mut self, declared_in: &str, origin: Origin) -> Diagnostic {
        self.origin = origin;
        if declared_in != self.info {
            self.declared_in = Some(declared_in.to_string());
        }
        self
    }

    /// What to do about it.
    pub fn hint(mut self, hint: impl Into<String>) -> Diagnostic {
        self.hint = Some(hint.into());
        self
    }

    /// Adds another place the problem involves.
    pub fn related(mut self, message: impl Into<String>, origin: Origin) -> Diagnostic {
        self.related.push(Related {
            message: message.into(),
            origin,
        });
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    /// Renders like rustc: a headline, the location arrow, then notes and the hint.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sev = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        writeln!(f, "{sev}[{}]: {}", self.code.name(), self.message)?;
        if !self.origin.is_unknown() {
            writeln!(f, "  --> {}", self.origin)?;
        }
        write!(f, "   = info: {}", self.info)?;
        if let Some(item) = &self.item {
            write!(f, ", item: {item}")?;
        }
        if let Some(d) = &self.declared_in {
            write!(f, " (declared in `{d}`)")?;
        }
        writeln!(f)?;
        for r in &self.related {
            if r.origin.is_unknown() {
                writeln!(f, "   = note: {}", r.message)?;
            } else {
                writeln!(f, "   = note: {} ({})", r.message, r.origin)?;
            }
        }
        if let Some(h) = &self.hint {
            writeln!(f, "   = help: {h}")?;
        }
        Ok(())
    }
}

/// Renders a list of diagnostics, one block each, with a count line.
pub fn render_all(diags: &[Diagnostic]) -> String {
    let mut s = String::new();
    for d in diags {
        s.push_str(&d.to_string());
        s.push('\n');
    }
    let errors = diags.iter().filter(|d| d.is_error()).count();
    s.push_str(&format!(
        "{errors} error(s), {} warning(s)\n",
        diags.len() - errors
    ));
    s
}
