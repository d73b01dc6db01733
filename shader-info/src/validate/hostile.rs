//! Declarations that would pass the other checks and hurt later: text that could break out of its place in the
//! generated GLSL, numbers at the edges of their range, unusable info names.

use super::checker::Checker;
use super::compute::{check_shared_variables, check_work_group};
use super::stages::check_kind_items;
use crate::constant::ConstValue;
use crate::diagnostic::{Code, Diagnostic};
use crate::item::Item;
use crate::limits::{MAX_BINDING, MAX_DESCRIPTOR_ARRAY, MAX_SPILLED_PUSH_CONSTANT_BYTES};
use crate::resource::{ArraySize, ResourceKind};

/// Why a piece of text that the generator copies into GLSL could change more than the item it belongs to: a line
/// break (a new preprocessor line), a line continuation, a comment opener (everything after it), a NUL or another
/// control character.
///
/// ```
/// use shader_info::unsafe_text_problem;
/// assert!(unsafe_text_problem("vec3(1.0, 0.5, 0.0)").is_none());
/// assert!(unsafe_text_problem("1\n#error injected").is_some());
/// assert!(unsafe_text_problem("1 /* x").is_some());
/// ```
pub fn unsafe_text_problem(text: &str) -> Option<String> {
    if let Some(c) = text.chars().find(|c| c.is_control() && *c != '\t') {
        return Some(match c {
            '\n' | '\r' => {
                "contains a line break, which would start a new line of GLSL".to_string()
            }
            '\0' => "contains a NUL character".to_string(),
            c => format!("contains the control character U+{:04X}", c as u32),
        });
    }
    if let Some(c) = text
        .chars()
        .find(|c| matches!(c, '\u{2028}' | '\u{2029}' | '\u{85}'))
    {
        return Some(format!("contains the line separator U+{:04X}", c as u32));
    }
    if text.contains('\\') {
        return Some("contains `\\`, which continues a preprocessor line into the next".into());
    }
    if text.contains("/*") || text.contains("*/") || text.contains("//") {
        return Some(
            "contains a comment marker, which would swallow the generated code after it".into(),
        );
    }
    None
}

/// What a define's value may not hold beyond [`unsafe_text_problem`]'s rules: an unclosed `"` (it fails glslang at
/// the `#define`, in every stage, used or not; a closed string stays, for `debugPrintfEXT("…")`), and a `#` that is
/// not half of the `##` token paste (GLSL's preprocessor has no stringizing: newer glslang refuses it at the
/// definition).
fn define_value_problem(value: &str) -> Option<String> {
    if value.matches('"').count() % 2 == 1 {
        return Some("contains a `\"` that no other closes".into());
    }
    let bytes = value.as_bytes();
    let lone_hash = (0..bytes.len()).any(|i| {
        bytes[i] == b'#' && bytes.get(i + 1) != Some(&b'#') && (i == 0 || bytes[i - 1] != b'#')
    });
    lone_hash.then(|| {
        "contains a `#` that is not the `##` token paste (GLSL's preprocessor has no stringizing)".into()
    })
}

/// The longest info name: the pass writes `<info>.<stage>.spv` and more, and file systems take 255 bytes a name.
const MAX_INFO_NAME: usize = 200;

/// The longest source path: glslang reads at most 1,024 characters of the `#line` string naming it.
const MAX_FILE_NAME: usize = 1000;

/// Rules against declarations that would otherwise pass and hurt later: text that reaches the generated GLSL,
/// numbers at the edges of their range, items the info's kind cannot use, names and work-group sizes.
pub(super) fn check_hostile(c: &mut Checker) {
    let info = c.info;
    if let Some(p) = info_name_problem(&info.name) {
        c.diags.push(
            Diagnostic::error(Code::InvalidIdentifier, &info.name, format!("the info name {:?} {p}", info.name))
                .item("info name")
                .at(&info.name, info.origin)
                .hint("name infos with letters, digits and `_`, starting with a letter or `_` (e.g. `gpu_shader_text`)"),
        );
    }
    for it in &info.defines {
        if let Some(value) = &it.value.value
            && let Some(p) = unsafe_text_problem(value).or_else(|| define_value_problem(value))
        {
            c.err(
                Code::InvalidConstant,
                format!("define `{}`", it.value.name),
                it,
                format!("the value of define `{}` {p}", it.value.name),
                "a define value is one line of GLSL tokens without comments; put longer code in a source file",
            );
        }
    }
    let files = info
        .sources
        .iter()
        .map(|it| {
            (
                format!("{}_source", it.value.0.short_name()),
                &it.value.1,
                it.declared_in.as_str(),
                it.origin,
            )
        })
        .chain(info.typedef_sources.iter().map(|it| {
            (
                "typedef_source".to_string(),
                &it.value,
                it.declared_in.as_str(),
                it.origin,
            )
        }));
    let mut bad_files = Vec::new();
    for (what, file, declared_in, origin) in files {
        let problem = if file.is_empty() {
            Some("is empty".to_string())
        } else if let Some(c) = file.chars().find(|c| matches!(c, '"' | '\\')) {
            Some(format!(
                "contains `{c}`, which cannot appear in a `#line` file name"
            ))
        } else if file.len() > MAX_FILE_NAME {
            // glslang reads at most 1,024 characters of a string token: the `#line` naming it would not end.
            Some(format!(
                "is {} bytes long, past the {MAX_FILE_NAME} a `#line` file name may take",
                file.len()
            ))
        } else {
            unsafe_text_problem(file)
        };
        if let Some(p) = problem {
            bad_files.push(
                Diagnostic::error(
                    Code::MissingSource,
                    &info.name,
                    format!("the {what} file name {file:?} {p}"),
                )
                .item(what)
                .at(declared_in, origin)
                .hint("give a path relative to the shader root, with `/` between folders"),
            );
        }
    }
    c.diags.extend(bad_files);
    for it in &info.specialization_constants {
        if let ConstValue::Float(f) = it.value.default
            && !f.is_finite()
        {
            c.err(
                Code::InvalidConstant,
                format!("specialization_constant `{}`", it.value.name),
                it,
                format!(
                    "specialization constant `{}` defaults to {f}, which GLSL cannot write",
                    it.value.name
                ),
                "give a finite default",
            );
        }
    }
    for it in &info.resources {
        let r = &it.value;
        if r.binding > MAX_BINDING {
            let derived = if r.binding == r.slot {
                String::new()
            } else {
                format!(" (derived from its slot {} per kind)", r.slot)
            };
            c.err(
                Code::OutOfRange,
                format!("{} `{}`", r.kind.word(), r.name),
                it,
                format!(
                    "{} `{}` is at binding {}{derived}, past {MAX_BINDING}",
                    r.kind.word(),
                    r.name,
                    r.binding
                ),
                "use small binding numbers: a set's bindings are counted from 0 (and stay below 1000 to run on WebGPU)",
            );
        }
        // GLSL's array sizes are `int`s: glslang reads a larger literal as a negative size.
        if let Ok((_, ArraySize::Fixed(n))) = r.split_name()
            && n > i32::MAX as u32
        {
            c.err(
                Code::OutOfRange,
                format!("{} `{}`", r.kind.word(), r.name),
                it,
                format!(
                    "`{}` has {n} elements, past GLSL's largest array size ({})",
                    r.name,
                    i32::MAX
                ),
                "use a runtime-sized array (`name[]`) for large tables",
            );
            continue;
        }
        // A texture, image or acceleration-structure array is a descriptor array (a buffer's suffix sizes an array
        // inside the block).
        if let Ok((_, ArraySize::Fixed(n))) = r.split_name()
            && matches!(
                r.kind,
                ResourceKind::Sampler { .. }
                    | ResourceKind::Image { .. }
                    | ResourceKind::AccelerationStructure
            )
            && n > MAX_DESCRIPTOR_ARRAY
        {
            c.err(
                Code::OutOfRange,
                format!("{} `{}`", r.kind.word(), r.name),
                it,
                format!(
                    "`{}` has {n} descriptors, past {MAX_DESCRIPTOR_ARRAY}",
                    r.name
                ),
                "use a runtime-sized storage buffer for large tables",
            );
        }
    }
    for it in &info.push_constants {
        if let Some(n) = it.value.array_size
            && u64::from(n) * 4 > u64::from(MAX_SPILLED_PUSH_CONSTANT_BYTES)
        {
            c.err(
                Code::PushConstantTooLarge,
                format!("push_constant `{}`", it.value.name),
                it,
                format!(
                    "push constant `{}` has {n} elements, more than fit in the {MAX_SPILLED_PUSH_CONSTANT_BYTES} bytes a push-constant block may spill to",
                    it.value.name
                ),
                "move the array into a uniform_buf or storage_buf",
            );
        }
    }
    check_kind_items(c);
    check_work_group(c);
    check_shared_variables(c);
    let mut seen: Vec<&Item<String>> = Vec::new();
    for b in &info.branches {
        if let Some(first) = seen.iter().find(|f| f.value == b.value) {
            let (declared_in, origin) = (first.declared_in.clone(), first.origin);
            c.diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    &info.name,
                    format!("branch `{}` is declared twice", b.value),
                )
                .item(format!("branch `{}`", b.value))
                .at(&b.declared_in, b.origin)
                .related(
                    format!("branch `{}` declared in `{declared_in}`", b.value),
                    origin,
                )
                .hint("each branch is one bit of the permutation: declare it once"),
            );
        } else {
            seen.push(b);
        }
    }
}

/// Why an info name is unusable: it names files, diagnostics and variant keys (`name#v3`).
pub(super) fn info_name_problem(name: &str) -> Option<&'static str> {
    let mut chars = name.chars();
    match chars.next() {
        None => Some("is empty"),
        // It names files (`<info>.<stage>.spv`, at most 255 bytes on common file systems) and `#line` file names.
        _ if name.len() > MAX_INFO_NAME => {
            Some("is longer than 200 bytes, too long for the files named after it")
        }
        Some(c) if !(c.is_ascii_alphabetic() || c == '_') => {
            Some("must start with a letter or `_`")
        }
        _ if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
            Some("may only hold letters, digits and `_`")
        }
        _ => None,
    }
}
