//! What is done to naga's OpenGL (ES) GLSL after it is written, each for a reason of this library's:
//!
//! - **Struct members keep their declared names.** naga's namer appends `_` to every name that ends in a digit
//!   (so that its own collision suffixes, `name_1`, can never meet a user name), struct members included: a
//!   push-constant member declared `color1` came out as `gpu_push_constants.color1_`. On OpenGL the host sets
//!   push constants and finds uniform-block members *by name* ([`shader_info::GL_PUSH_CONSTANT_UNIFORM`]), so the
//!   name it sees must be the declared one. Each member naga renamed that way gets its name back, in the struct
//!   definition and in every member access (`.color1_` → `.color1`).
//!
//! Why that is safe: naga names the members of each struct in a namespace of their own, and a member name it
//! writes never ends in a digit unless it is one of its suffixed collision names (`base_N`), which contain `_`
//! before the digits; `color1` (no separator before the digits) therefore never names another member of the same
//! struct, and `.<ident>` after a dot is always a member access (swizzles are letters).

use std::collections::HashMap;

/// The GL text with the draw's base instance read from `naga_vs_first_instance`, the uniform the host already sets
/// to the draw's first instance for naga's `gl_InstanceIndex` (`uint(gl_InstanceID) + naga_vs_first_instance`).
/// naga writes the base instance as `gl_BaseInstance`, which OpenGL 4.3 and OpenGL ES do not have; the Blender
/// prelude's `gl_InstanceID` (`gl_InstanceIndex - gl_BaseInstance`) then comes out as OpenGL's own `gl_InstanceID`.
pub(crate) fn base_instance_from_host(text: &str) -> String {
    const NAGA: &str = "gl_BaseInstance";
    const HOST: &str = "naga_vs_first_instance";
    let uses = text.match_indices(NAGA).any(|(i, _)| {
        !text[i + NAGA.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
    });
    if !uses {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 64);
    let mut rest = text;
    while let Some(i) = rest.find(NAGA) {
        let after = &rest[i + NAGA.len()..];
        out.push_str(&rest[..i]);
        if after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            out.push_str(NAGA);
        } else {
            out.push_str(HOST);
        }
        rest = after;
    }
    out.push_str(rest);
    let declaration = format!("uniform uint {HOST};");
    if out.contains(&declaration) {
        return out;
    }
    // After the version, extension and precision lines.
    let mut lines: Vec<&str> = out.lines().collect();
    let at = lines
        .iter()
        .rposition(|l| {
            l.starts_with("#version") || l.starts_with("#extension") || l.starts_with("precision ")
        })
        .map_or(0, |i| i + 1);
    lines.insert(at, &declaration);
    let mut joined = lines.join("\n");
    joined.push('\n');
    joined
}

/// Whether `name` is one naga renamed because it ends in a digit: `<ident ending in a digit>_`, and not one of
/// naga's own collision names (`<base>_<digits>`, which end in a digit and get no `_`).
fn digit_renamed(name: &str) -> Option<&str> {
    let base = name.strip_suffix('_')?;
    if base.is_empty() || !base.ends_with(|c: char| c.is_ascii_digit()) || base.ends_with('_') {
        return None;
    }
    let first = base.chars().next()?;
    (first.is_ascii_alphabetic() || first == '_').then_some(base)
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The name a struct-body line declares (`type name;`, `type name[N];`), with its byte offset in the line.
fn member_name(line: &str) -> Option<(usize, &str)> {
    let decl = line.trim().strip_suffix(';')?;
    let head = decl.split('[').next().unwrap_or(decl).trim_end();
    let name = head.rsplit(' ').next().filter(|n| !n.is_empty())?;
    // `head` is a slice of `line`, and the name ends it.
    let at = head.as_ptr() as usize - line.as_ptr() as usize + head.len() - name.len();
    Some((at, name))
}

/// `text` with the members of the struct definitions whose opening line `opens` picks renamed by `rename` (`None`:
/// kept as written), and each renaming made, written name to new name.
fn rename_members(
    text: &str,
    opens: impl Fn(&str) -> bool,
    mut rename: impl FnMut(&str) -> Option<String>,
) -> (String, HashMap<String, String>) {
    let mut renamed = HashMap::new();
    let mut out = String::with_capacity(text.len());
    let mut in_struct = false;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if opens(t) {
            in_struct = true;
        } else if in_struct && t.starts_with('}') {
            in_struct = false;
        } else if in_struct
            && let Some((at, name)) = member_name(line)
            && let Some(to) = rename(name)
        {
            out.push_str(&line[..at]);
            out.push_str(&to);
            out.push_str(&line[at + name.len()..]);
            renamed.insert(name.to_string(), to);
            continue;
        }
        out.push_str(line);
    }
    (out, renamed)
}

/// `text` with every identifier after `prefix` that `renamed` holds renamed (a whole identifier: followed by a
/// non-identifier character; and, for a prefix that starts with one, not preceded by one).
fn rename_after(text: &str, prefix: &str, renamed: &HashMap<String, String>) -> String {
    let whole = prefix.starts_with(is_ident_char);
    let mut result = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(prefix) {
        let starts = !whole || !rest[..i].ends_with(is_ident_char);
        result.push_str(&rest[..i + prefix.len()]);
        rest = &rest[i + prefix.len()..];
        let end = rest.find(|c: char| !is_ident_char(c)).unwrap_or(rest.len());
        if starts && let Some(to) = renamed.get(&rest[..end]) {
            result.push_str(to);
            rest = &rest[end..];
        }
    }
    result.push_str(rest);
    result
}

/// The GL text with every struct member naga renamed for ending in a digit named as declared, in its struct's
/// definition and at every member access (`.color1_` → `.color1`).
pub(crate) fn declared_member_names(text: &str) -> String {
    let (out, renamed) = rename_members(
        text,
        |t| t.starts_with("struct ") && t.ends_with('{'),
        |name| digit_renamed(name).map(str::to_string),
    );
    if renamed.is_empty() {
        return out;
    }
    rename_after(&out, ".", &renamed)
}

/// The GL text with the push-constant block's members named as `declared` (in declared order), whatever naga's
/// namer made of them: besides the `_` after a final digit ([`declared_member_names`]), it drops a final `_`
/// (`flags_` is written `flags`), adds one to GLSL's built-in function names and reserved words (`distance` is
/// written `distance_`), and puts `gen_` before its own prefixes. The host sets each member by the declared name
/// (`gpu_push_constants.flags_`): a renamed one is a location of -1, and its `glUniform*` silently sets nothing.
///
/// The block is flat and its members come in declared order, so the n-th member written is the n-th declared;
/// every read is `gpu_push_constants.<member>`. A block whose member count differs is left as written (the check
/// then names each member it cannot find).
pub(crate) fn declared_push_member_names(text: &str, declared: &[&str]) -> String {
    let instance = shader_info::GL_PUSH_CONSTANT_UNIFORM;
    // `uniform <Struct> gpu_push_constants;`
    let Some(ty) = text.lines().find_map(|l| {
        let decl = l
            .trim()
            .strip_suffix(';')?
            .strip_suffix(instance)?
            .trim_end();
        decl.rsplit(' ').next().filter(|t| !t.is_empty())
    }) else {
        return text.to_string();
    };
    let opening = format!("struct {ty} {{");
    let written: Vec<&str> = text
        .lines()
        .skip_while(|l| l.trim() != opening)
        .skip(1)
        .take_while(|l| !l.trim().starts_with('}'))
        .filter_map(|l| Some(member_name(l)?.1))
        .collect();
    if written.len() != declared.len() || written == declared {
        return text.to_string();
    }
    let mut next = declared.iter();
    let (out, renamed) = rename_members(
        text,
        |t| t == opening,
        |name| next.next().filter(|d| **d != name).map(|d| d.to_string()),
    );
    rename_after(&out, &format!("{instance}."), &renamed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_ending_in_a_digit_get_their_declared_names_back() {
        let text = "struct PushConstants {\n    vec4 color1_;\n    vec4 color2_;\n    float size_;\n    \
                    int size2_[2];\n    float member_1;\n};\nuniform PushConstants gpu_push_constants;\n\
                    void main() {\n    vec4 _e3 = gpu_push_constants.color1_;\n    float x = \
                    float(gpu_push_constants.size2_[1]) + gpu_push_constants.size_;\n    vec4 color1_ = _e3.xyzw;\n}\n";
        let got = declared_member_names(text);
        assert!(
            got.contains("    vec4 color1;\n    vec4 color2;\n"),
            "{got}"
        );
        assert!(got.contains("    int size2[2];\n"), "{got}");
        assert!(got.contains("    float size_;\n    "), "{got}");
        assert!(got.contains("    float member_1;\n"), "{got}");
        assert!(got.contains("= gpu_push_constants.color1;"), "{got}");
        assert!(got.contains("float(gpu_push_constants.size2[1])"), "{got}");
        // A local of the same spelling is not a member access.
        assert!(got.contains("vec4 color1_ = _e3.xyzw;"), "{got}");
    }

    #[test]
    fn the_base_instance_is_the_hosts_first_instance() {
        let text = "#version 310 es\nprecision highp float;\nuniform uint naga_vs_first_instance;\nvoid main() {\n    \
                    int i = int((uint(gl_InstanceID) + naga_vs_first_instance) - uint(gl_BaseInstance));\n}\n";
        let got = base_instance_from_host(text);
        assert!(got.contains("- uint(naga_vs_first_instance));"), "{got}");
        assert_eq!(
            got.matches("uniform uint naga_vs_first_instance;").count(),
            1,
            "{got}"
        );
        let alone = base_instance_from_host(
            "#version 430 core\nvoid main() {\n    uint b = uint(gl_BaseInstance);\n}\n",
        );
        assert!(
            alone.contains("#version 430 core\nuniform uint naga_vs_first_instance;\n"),
            "{alone}"
        );
        assert!(!alone.contains("gl_BaseInstance"), "{alone}");
    }

    #[test]
    fn push_constant_members_get_their_declared_names_whatever_naga_made_of_them() {
        let text = "struct PushConstants {\n    vec4 flags;\n    float distance_;\n    float gen__group;\n    \
                    int n[2];\n};\nuniform PushConstants gpu_push_constants;\nvoid main() {\n    \
                    float d = gpu_push_constants.distance_ + float(gpu_push_constants.n[1]);\n    \
                    vec4 f = gpu_push_constants.flags;\n    float distance_ = d;\n}\n";
        let got = declared_push_member_names(text, &["flags_", "distance", "_group", "n"]);
        assert!(
            got.contains(
                "    vec4 flags_;\n    float distance;\n    float _group;\n    int n[2];\n"
            ),
            "{got}"
        );
        assert!(
            got.contains("float d = gpu_push_constants.distance + float(gpu_push_constants.n[1]);"),
            "{got}"
        );
        assert!(got.contains("vec4 f = gpu_push_constants.flags_;"), "{got}");
        // A local of the written spelling is no member.
        assert!(got.contains("float distance_ = d;"), "{got}");
        // Nothing to do, or a block that is not the declared one: as written.
        assert_eq!(
            declared_push_member_names(text, &["flags", "distance_", "gen__group", "n"]),
            text
        );
        assert_eq!(declared_push_member_names(text, &["flags_"]), text);
    }

    #[test]
    fn text_without_such_members_is_unchanged() {
        let text = "struct S {\n    vec4 a;\n    float b_1;\n};\nvoid main() { float x = 1.5; }\n";
        assert_eq!(declared_member_names(text), text);
    }
}
