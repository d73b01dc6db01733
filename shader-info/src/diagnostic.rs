//! Diagnostics: the one type every step of the flow reports problems with, from declaration checks through
//! compiling, reflection and translation. Each names the info, the item, where it was declared (the Rust file and
//! line) and, for problems in shader code, the shader file, line and the text of that line; and says what to do.
//!
//! Rendering goes through `annotate-snippets` (the library rustc's own diagnostics use), so every message looks
//! like a compiler's; `--json` output serializes the same structure.

use crate::origin::Origin;
use crate::types::Stage;
use serde::Serialize;
use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl Severity {
    /// `note`, `warning` or `error`.
    pub fn word(self) -> &'static str {
        match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
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
    /// A shared struct's Rust twin does not match its GLSL layout.
    RustTwin,
    /// The shader compiler (glslang) rejected the generated source, or an include could not be resolved.
    Compile,
    /// The compiled SPIR-V could not be reflected.
    Reflection,
    /// The compiled SPIR-V differs from its declaration (set, binding, offset, stride, type, …).
    ReflectionMismatch,
    /// A cross-language translation failed.
    Translation,
    /// Something the device or a target language cannot express.
    Unsupported,
    /// A device call failed (pipeline creation, memory, …).
    Device,
    /// A file could not be read or written.
    Io,
    /// A bug in this library (a caught panic); the message names the module.
    Internal,
    /// Render state that contradicts the declaration or the pipeline (blending an integer output, a topology
    /// the stages cannot take, a depth test without a depth attachment, …).
    RenderState,
    /// A number past what the declaration's target can hold (a binding, an array count, a location).
    OutOfRange,
    /// A compute work-group size past what Vulkan guarantees (a warning) or the device allows (an error), or one
    /// whose invocation count overflows.
    WorkGroupSize,
    /// Text copied into the generated code that would change it beyond the item (a define value with a line
    /// break, a file name with a quote, …).
    UnsafeText,
    /// What the host hands over does not match the declaration: push-constant bytes of the wrong length, a push or
    /// vertex struct that drifted from the block or inputs, a resource left out, unknown or of the wrong kind.
    HostMismatch,
    /// A pipeline created on first use after warm-up, in a library that was told every pipeline is warmed up
    /// (strict mode): the frame would have waited for it.
    LatePipeline,
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
            Code::RustTwin => "rust-twin",
            Code::Compile => "compile",
            Code::Reflection => "reflection",
            Code::ReflectionMismatch => "reflection-mismatch",
            Code::Translation => "translation",
            Code::Unsupported => "unsupported",
            Code::Device => "device",
            Code::Io => "io",
            Code::Internal => "internal-error",
            Code::RenderState => "render-state",
            Code::OutOfRange => "out-of-range",
            Code::WorkGroupSize => "work-group-size",
            Code::UnsafeText => "unsafe-text",
            Code::HostMismatch => "host-mismatch",
            Code::LatePipeline => "late-pipeline",
        }
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// Another place a diagnostic refers to (the other side of a collision, an earlier definition).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Related {
    pub message: String,
    pub origin: Origin,
}

/// One problem, located as precisely as what reported it allows.
///
/// ```
/// use shader_info::{Code, Diagnostic};
/// let d = Diagnostic::error(Code::ZeroGroupSize, "my_compute", "local group size (0, 8, 1) has a zero")
///     .item("local_group_size")
///     .hint("every dimension must be at least 1");
/// assert!(d.to_string().contains("error[zero-group-size]"));
/// assert!(d.to_string().contains("my_compute"));
///
/// let c = Diagnostic::error(Code::Compile, "my_shader", "'y' : undeclared identifier")
///     .in_file("lit.frag.glsl", Some(12))
///     .with_source_line("    x = y + 1;");
/// assert!(c.to_string().contains("12 |     x = y + 1;"));
/// ```
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnostic {
    pub severity: Severity,
    pub code: Code,
    /// The info being checked or built (the one the user asked for); empty for a file compiled on its own.
    pub info: String,
    /// The stage, for problems found in one stage's code.
    #[serde(serialize_with = "stage_name")]
    pub stage: Option<Stage>,
    /// The unique variant, for infos with static branches (`v3 {SKINNING, FOG}`).
    pub variant: Option<String>,
    /// The item, e.g. "sampler `tex`".
    pub item: Option<String>,
    /// The info that declared the item, when it came through `additional_info`.
    pub declared_in: Option<String>,
    /// Where the declaration was written in Rust.
    pub origin: Origin,
    /// The shader file the problem is in (root-relative, or a generated stage's name).
    pub file: Option<String>,
    /// 1-based line in `file`.
    pub line: Option<u32>,
    /// 1-based column in `file`, when the reporter said.
    pub column: Option<u32>,
    /// The text of the reported line, captured when the diagnostic was made (so rendering does no I/O).
    pub source_line: Option<String>,
    pub message: String,
    pub hint: Option<String>,
    pub related: Vec<Related>,
}

fn stage_name<S: serde::Serializer>(stage: &Option<Stage>, s: S) -> Result<S::Ok, S::Error> {
    match stage {
        Some(st) => s.serialize_str(st.short_name()),
        None => s.serialize_none(),
    }
}

impl Diagnostic {
    /// A new diagnostic of any severity.
    pub fn new(
        severity: Severity,
        code: Code,
        info: impl Into<String>,
        message: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic {
            severity,
            code,
            info: info.into(),
            stage: None,
            variant: None,
            item: None,
            declared_in: None,
            origin: Origin::default(),
            file: None,
            line: None,
            column: None,
            source_line: None,
            message: message.into(),
            hint: None,
            related: Vec::new(),
        }
    }

    /// A new error.
    pub fn error(code: Code, info: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Error, code, info, message)
    }

    /// A new warning.
    pub fn warning(code: Code, info: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(Severity::Warning, code, info, message)
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

    /// The stage the problem is in.
    pub fn stage(mut self, stage: Stage) -> Diagnostic {
        self.stage = Some(stage);
        self
    }

    /// The variant the problem is in (keeps one already set).
    pub fn variant(mut self, variant: impl Into<String>) -> Diagnostic {
        self.variant.get_or_insert_with(|| variant.into());
        self
    }

    /// The shader file (and line) the problem is in.
    pub fn in_file(mut self, file: impl Into<String>, line: Option<u32>) -> Diagnostic {
        self.file = Some(file.into());
        self.line = line;
        self
    }

    /// The text of the reported line.
    pub fn with_source_line(mut self, text: impl Into<String>) -> Diagnostic {
        self.source_line = Some(text.into());
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

    /// Names the info (and stage) when the reporter did not know them: a compiler error of a generated stage.
    pub fn for_info(mut self, info: &str, stage: Option<Stage>) -> Diagnostic {
        if self.info.is_empty() {
            self.info = info.to_string();
        }
        if self.stage.is_none() {
            self.stage = stage;
        }
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Where the caret goes in `text` (a byte range): the column when known, else the first quoted token of the
    /// message found in the line (glslang writes `'token' : description`), else the whole trimmed line.
    fn caret(&self, text: &str) -> std::ops::Range<usize> {
        let boundary = |mut i: usize| {
            i = i.min(text.len());
            while !text.is_char_boundary(i) {
                i -= 1;
            }
            i
        };
        if let Some(c) = self.column {
            // The column may count bytes of the unexpanded line: clamp it onto a character boundary.
            let start = boundary((c as usize).saturating_sub(1));
            let end = text[start..]
                .chars()
                .next()
                .map_or(start, |ch| start + ch.len_utf8());
            return start..end;
        }
        if let Some(tok) = quoted_token(&self.message)
            && !tok.trim().is_empty()
            && let Some(pos) = text.find(tok)
        {
            return pos..pos + tok.len();
        }
        let start = text.len() - text.trim_start().len();
        start..text.trim_end().len().max(start)
    }

    /// The `info: …, item: …` note, when there is anything to say.
    fn context_note(&self) -> Option<String> {
        let mut parts: Vec<String> = Vec::new();
        if !self.info.is_empty() {
            parts.push(format!("info: {}", self.info));
        }
        if let Some(v) = &self.variant {
            parts.push(format!("variant {v}"));
        }
        if let Some(s) = self.stage {
            parts.push(format!("stage {s}"));
        }
        let mut text = parts.join(", ");
        if let Some(item) = &self.item {
            if !text.is_empty() {
                text.push_str(", ");
            }
            text.push_str(&format!("item: {item}"));
        }
        if let Some(d) = &self.declared_in {
            text.push_str(&format!(" (declared in `{d}`)"));
        }
        (!text.is_empty()).then_some(text)
    }
}

/// The first `'…'` token of a glslang message.
fn quoted_token(message: &str) -> Option<&str> {
    let start = message.find('\'')? + 1;
    let len = message[start..].find('\'')?;
    Some(&message[start..start + len])
}

impl fmt::Display for Diagnostic {
    /// Renders like rustc: the headline, the location (with the source line and a caret for shader code, the
    /// Rust declaration site otherwise), then the context, related places and the hint as notes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use annotate_snippets::{AnnotationKind, Group, Level, Origin as At, Renderer, Snippet};
        let level = match self.severity {
            Severity::Error => Level::ERROR,
            Severity::Warning => Level::WARNING,
            Severity::Note => Level::NOTE,
        };
        let mut group = Group::with_title(
            level
                .primary_title(self.message.as_str())
                .id(self.code.name()),
        );
        let tabs_expanded = self.source_line.as_ref().map(|t| t.replace('\t', "    "));
        match (&self.file, self.line, &tabs_expanded) {
            (Some(file), Some(line), Some(text)) => {
                group = group.element(
                    Snippet::source(text.as_str())
                        .line_start(line as usize)
                        .path(file.as_str())
                        .annotation(AnnotationKind::Primary.span(self.caret(text))),
                );
            }
            (Some(file), line, _) => {
                let mut at = At::path(file.as_str());
                if let Some(l) = line {
                    at = at.line(l as usize);
                }
                group = group.element(at);
            }
            (None, ..) if !self.origin.is_unknown() => {
                group = group.element(At::path(self.origin.file).line(self.origin.line as usize));
            }
            _ => {}
        }
        let mut notes: Vec<String> = Vec::new();
        if let Some(c) = self.context_note() {
            notes.push(c);
        }
        if self.file.is_some() && !self.origin.is_unknown() {
            notes.push(format!("declared at {}", self.origin));
        }
        for r in &self.related {
            notes.push(if r.origin.is_unknown() {
                r.message.clone()
            } else {
                format!("{} ({})", r.message, r.origin)
            });
        }
        for n in &notes {
            group = group.element(Level::NOTE.message(n.as_str()));
        }
        if let Some(h) = &self.hint {
            group = group.element(Level::HELP.message(h.as_str()));
        }
        writeln!(f, "{}", Renderer::plain().render(&[group]))
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

/// Renders diagnostics one after the other, without a count line.
pub fn render(diags: &[Diagnostic]) -> String {
    diags.iter().map(|d| format!("{d}\n")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_inside_a_multibyte_character_does_not_panic() {
        let mut d = Diagnostic::error(Code::Compile, "", "bad")
            .in_file("a.glsl", Some(1))
            .with_source_line("\té→x");
        d.column = Some(3);
        let text = d.to_string();
        assert!(text.contains('^'), "{text}");
        d.column = Some(500);
        assert!(d.to_string().contains("1 |"));
    }

    #[test]
    fn renders_like_rustc() {
        let d = Diagnostic::error(Code::Compile, "", "'y' : undeclared identifier")
            .in_file("a.frag", Some(12))
            .with_source_line("    x = y + 1;");
        let s = d.to_string();
        assert!(
            s.starts_with("error[compile]: 'y' : undeclared identifier\n"),
            "{s}"
        );
        assert!(s.contains("--> a.frag:12"), "{s}");
        assert!(s.contains("12 |     x = y + 1;\n   |         ^\n"), "{s}");
    }

    #[test]
    fn declarations_point_at_the_rust_origin() {
        let d = Diagnostic::error(Code::BindingCollision, "x", "two at one binding")
            .item("sampler `a`")
            .at(
                "base",
                Origin {
                    file: "src/infos.rs",
                    line: 42,
                },
            )
            .hint("move one");
        let s = d.to_string();
        assert!(s.contains("--> src/infos.rs:42"), "{s}");
        assert!(
            s.contains("= note: info: x, item: sampler `a` (declared in `base`)"),
            "{s}"
        );
        assert!(s.contains("= help: move one"), "{s}");
    }

    #[test]
    fn serializes_codes_and_stages_by_name() {
        let d = Diagnostic::error(Code::Compile, "x", "m").stage(Stage::Fragment);
        let v = serde_json::to_value(&d).unwrap();
        assert_eq!(v["code"], "compile");
        assert_eq!(v["stage"], "frag");
        assert_eq!(v["severity"], "error");
    }
}
