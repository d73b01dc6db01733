//! Parsing glslang/shaderc message text into [`Diagnostic`]s (rendered by `shader_info`, like every other
//! diagnostic of the flow).
//!
//! ```
//! use shader_info_gpu::compiler::diagnostics::parse_messages;
//! use shader_info::Severity;
//! let d = parse_messages("common/h.glsl:12: error: 'x' : undeclared identifier\n1 error generated.\n");
//! assert_eq!(d.len(), 1);
//! assert_eq!((d[0].file.as_deref(), d[0].line, d[0].severity), (Some("common/h.glsl"), Some(12), Severity::Error));
//! ```

use shader_info::{Code, Diagnostic, Severity};

/// A compiler message about `file` (empty: unknown yet) with no line.
pub(crate) fn compile_message(
    file: &str,
    severity: Severity,
    message: impl Into<String>,
) -> Diagnostic {
    let d = Diagnostic::new(severity, Code::Compile, "", message);
    if file.is_empty() {
        d
    } else {
        d.in_file(file, None)
    }
}

/// Parses glslang/shaderc message text into diagnostics.
///
/// Accepts `file:line: error: msg`, `file:line:col: error: msg`, `file: error: msg` and `error: msg`; lines that
/// carry no severity continue the previous message; shaderc's `N errors generated.` summaries are dropped.
pub fn parse_messages(text: &str) -> Vec<Diagnostic> {
    let mut out: Vec<Diagnostic> = Vec::new();
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
                None => out.push(compile_message("", Severity::Error, line.trim())),
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

fn parse_line(line: &str) -> Option<Diagnostic> {
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
            return Some(compile_message("", sev, rest[2..].trim()));
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
    let mut d = compile_message(file, severity, tidy(&line[msg_start..]));
    d.line = l;
    d.column = c;
    Some(d)
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
            (d[0].file.as_deref(), d[0].line, d[0].column),
            (Some("a.frag"), Some(3), None)
        );
        assert_eq!(
            (d[1].file.as_deref(), d[1].line, d[1].column, d[1].severity),
            (Some("C:\\dir\\b.frag"), Some(4), Some(7), Severity::Warning)
        );
        assert_eq!((d[2].file.as_deref(), d[2].line), (Some("c.frag"), None));
        assert_eq!(d[3].message, "whole program\ncontinued text");
        assert!(d.iter().all(|d| d.code == Code::Compile));
    }

    #[test]
    fn unparseable_text_still_makes_a_diagnostic() {
        let d = parse_messages("something odd happened");
        assert_eq!(d.len(), 1);
        assert!(d[0].is_error());
    }
}
