//! Structured compiler diagnostics: parsing glslang's message text, mapping it back to the user's files and
//! declarations, and rendering it the way rustc does.
//!
//! ```
//! use gpu::compiler::diagnostics::{parse_messages, Severity};
//! let d = parse_messages("common/h.glsl:12: error: 'x' : undeclared identifier\n1 error generated.\n");
//! assert_eq!(d.len(), 1);
//! assert_eq!((d[0].file.as_str(), d[0].line, d[0].severity), ("common/h.glsl", Some(12), Severity::Error));
//! ```

use shader_info::Origin;
use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    /// The word rustc prints (`error`, `warning`, `note`).
    pub fn word(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One message of the compiler (or of the include resolver, or of the cache), located in the user's world.
///
/// ```
/// use gpu::compiler::diagnostics::{CompileDiagnostic, Severity};
/// let d = CompileDiagnostic::error("a.frag", "something is wrong").at_line(3);
/// assert!(d.to_string().starts_with("error: something is wrong\n --> a.frag:3"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct CompileDiagnostic {
    /// The file the message is about: a path relative to the include root, or a generated stage's virtual name.
    pub file: String,
    /// 1-based line, when the compiler said.
    pub line: Option<u32>,
    /// 1-based column, when the compiler said (glslang mostly does not).
    pub column: Option<u32>,
    pub severity: Severity,
    pub message: String,
    /// For a line of generated text: (info that declared it, the declaration, its Rust origin).
    pub declaration: Option<(String, String, Origin)>,
    /// The text of the reported line, captured when the diagnostic was made (so rendering does no I/O).
    pub source_line: Option<String>,
}

impl CompileDiagnostic {
    /// An error about `file` with no line.
    pub fn error(file: impl Into<String>, message: impl Into<String>) -> CompileDiagnostic {
        CompileDiagnostic {
            file: file.into(),
            line: None,
            column: None,
            severity: Severity::Error,
            message: message.into(),
            declaration: None,
            source_line: None,
        }
    }

    /// The same diagnostic at `line`.
    pub fn at_line(mut self, line: u32) -> CompileDiagnostic {
        self.line = Some(line);
        self
    }

    /// True for errors.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Where the caret goes and how wide it is: the column when known, else the first quoted token of the
    /// message found in the line (glslang writes `'token' : description`), else the whole trimmed line.
    fn caret(&self, text: &str) -> (usize, usize) {
        if let Some(c) = self.column {
            return ((c as usize).saturating_sub(1).min(text.len()), 1);
        }
        if let Some(tok) = quoted_token(&self.message)
            && !tok.trim().is_empty()
            && let Some(pos) = text.find(tok)
        {
            return (pos, tok.chars().count().max(1));
        }
        let start = text.len() - text.trim_start().len();
        (start, text.trim().chars().count().max(1))
    }
}

/// The first `'…'` token of a glslang message.
fn quoted_token(message: &str) -> Option<&str> {
    let start = message.find('\'')? + 1;
    let len = message[start..].find('\'')?;
    Some(&message[start..start + len])
}

impl fmt::Display for CompileDiagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}: {}", self.severity.word(), self.message)?;
        let loc = match (self.line, self.column) {
            (Some(l), Some(c)) => format!("{}:{l}:{c}", self.file),
            (Some(l), None) => format!("{}:{l}", self.file),
            _ => self.file.clone(),
        };
        let number = self.line.map(|l| l.to_string()).unwrap_or_default();
        let pad = " ".repeat(number.len().max(1));
        writeln!(f, "{pad}--> {loc}")?;
        if let (Some(text), Some(_)) = (&self.source_line, self.line) {
            let text = text.replace('\t', "    ");
            let (col, width) = self.caret(&text);
            // Carets count characters, not bytes, so a non-ASCII prefix does not shift them.
            // The column may come from the compiler (bytes of the unexpanded line), so it need not fall on a
            // character boundary here: count the characters before it without slicing.
            let col = text.char_indices().take_while(|(i, _)| *i < col).count();
            writeln!(f, "{pad} |")?;
            writeln!(f, "{number} | {text}")?;
            writeln!(f, "{pad} | {}{}", " ".repeat(col), "^".repeat(width))?;
        }
        if let Some((info, item, origin)) = &self.declaration {
            writeln!(
                f,
                "{pad} = note: generated from {item} declared in info `{info}` at {origin}"
            )?;
        }
        Ok(())
    }
}

/// Renders diagnostics one after the other, rustc style.
pub fn render(diagnostics: &[CompileDiagnostic]) -> String {
    let mut s = String::new();
    for d in diagnostics {
        s.push_str(&d.to_string());
        s.push('\n');
    }
    s
}

/// Parses glslang/shaderc message text into diagnostics.
///
/// Accepts `file:line: error: msg`, `file:line:col: error: msg`, `file: error: msg` and `error: msg`; lines that
/// carry no severity continue the previous message; shaderc's `N errors generated.` summaries are dropped.
pub fn parse_messages(text: &str) -> Vec<CompileDiagnostic> {
    let mut out: Vec<CompileDiagnostic> = Vec::new();
    for raw in text.lines() {
        let line = raw.trim_end();
        if line.trim().is_empty() || is_summary(line) {
            continue;
        }
        match parse_line(line) {
            Some(d) => out.push(d),
            None => match out.last_mut() {
                Some(prev) => {
                    prev.message.push('\n');
                    prev.message.push_str(line.trim());
                }
                None => out.push(CompileDiagnostic::error("", line.trim())),
            },
        }
    }
    out
}

fn is_summary(line: &str) -> bool {
    let l = line.trim();
    (l.ends_with("generated.") || l.ends_with("generated"))
        && l.split_whitespace()
            .next()
            .is_some_and(|n| n.parse::<u32>().is_ok())
}

fn parse_line(line: &str) -> Option<CompileDiagnostic> {
    const KINDS: [(&str, Severity); 4] = [
        ("error", Severity::Error),
        ("warning", Severity::Warning),
        ("note", Severity::Note),
        ("ERROR", Severity::Error),
    ];
    // The earliest "<sep>kind: " decides; a message may itself contain "error: ".
    let mut best: Option<(usize, usize, Severity)> = None;
    for (word, sev) in KINDS {
        if let Some(rest) = line.strip_prefix(word)
            && rest.starts_with(": ")
        {
            return Some(CompileDiagnostic {
                severity: sev,
                ..CompileDiagnostic::error("", rest[2..].trim())
            });
        }
        let pat = format!(": {word}: ");
        if let Some(pos) = line.find(&pat)
            && best.is_none_or(|(p, _, _)| pos < p)
        {
            best = Some((pos, pos + pat.len(), sev));
        }
    }
    let (loc_end, msg_start, severity) = best?;
    let (file, l, c) = split_location(&line[..loc_end]);
    Some(CompileDiagnostic {
        file: file.to_string(),
        line: l,
        column: c,
        severity,
        message: tidy(&line[msg_start..]),
        declaration: None,
        source_line: None,
    })
}

/// glslang prefixes messages with the offending token, `'' : ` when there is none, and doubles some spaces:
/// drop the empty token so the message starts with what went wrong.
fn tidy(message: &str) -> String {
    let m = message.trim();
    let m = m.strip_prefix("'' :").map_or(m, str::trim_start);
    m.split("  ")
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `file:line:col`, `file:line` or `file`; numbers are taken from the right so a file name may hold colons.
fn split_location(loc: &str) -> (&str, Option<u32>, Option<u32>) {
    let num = |s: &str| s.parse::<u32>().ok();
    if let Some((a, last)) = loc.rsplit_once(':')
        && let Some(n) = num(last)
    {
        if let Some((file, mid)) = a.rsplit_once(':')
            && let Some(m) = num(mid)
        {
            return (file, Some(m), Some(n));
        }
        return (a, Some(n), None);
    }
    (loc, None, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_column_inside_a_multibyte_character_does_not_panic() {
        let mut d = CompileDiagnostic::error("a.glsl", "bad").at_line(1);
        d.column = Some(3);
        d.source_line = Some("\té→x".to_string());
        let text = d.to_string();
        assert!(text.contains('^'), "{text}");
        d.column = Some(500);
        assert!(d.to_string().contains('^'));
    }

    #[test]
    fn empty_tokens_are_dropped_from_messages() {
        let d = parse_messages("a.frag:4: error: '' :  syntax error, unexpected VOID\n");
        assert_eq!(d[0].message, "syntax error, unexpected VOID");
        let d = parse_messages("a.frag:4: error: 'x' : undeclared identifier\n");
        assert_eq!(d[0].message, "'x' : undeclared identifier");
    }

    #[test]
    fn parses_all_shapes() {
        let d = parse_messages(
            "a.frag:3: error: 'x' : undeclared identifier\n\
             C:\\dir\\b.frag:4:7: warning: something\n\
             c.frag: error: Linking fragment stage: Missing entry point\n\
             error: whole program\n\
             continued text\n\
             2 errors generated.\n",
        );
        assert_eq!(d.len(), 4);
        assert_eq!(
            (d[0].file.as_str(), d[0].line, d[0].column),
            ("a.frag", Some(3), None)
        );
        assert_eq!(
            (d[1].file.as_str(), d[1].line, d[1].column, d[1].severity),
            ("C:\\dir\\b.frag", Some(4), Some(7), Severity::Warning)
        );
        assert_eq!((d[2].file.as_str(), d[2].line), ("c.frag", None));
        assert_eq!(d[3].message, "whole program\ncontinued text");
    }

    #[test]
    fn unparseable_text_still_makes_a_diagnostic() {
        let d = parse_messages("something odd happened");
        assert_eq!(d.len(), 1);
        assert!(d[0].is_error());
    }

    #[test]
    fn renders_like_rustc() {
        let mut d = CompileDiagnostic::error("a.frag", "'y' : undeclared identifier").at_line(12);
        d.source_line = Some("    x = y + 1;".into());
        let s = d.to_string();
        assert_eq!(
            s,
            "error: 'y' : undeclared identifier\n  --> a.frag:12\n   |\n12 |     x = y + 1;\n   |         ^\n"
        );
    }
}
