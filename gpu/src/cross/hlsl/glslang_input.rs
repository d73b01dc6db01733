//! The HLSL as glslang's HLSL front end can take it: rewrites, meaning kept, of what DXC and FXC accept and glslang
//! does not, so that the check is of the translation and not of glslang's gaps.

use std::collections::BTreeMap;

/// The HLSL rewritten, without changing what it means, around four things glslang's HLSL front end cannot take
/// and DXC and FXC do (so the check is of the translation, not of glslang's gaps):
/// - a templated load of 64-bit values from a byte-address buffer (`buf.Load<double>(o)`, shader model 6.2) →
///   the 32-bit loads and `asdouble` of earlier shader models;
/// - a cast of `0` to an array type, `(T[N])0` → the initializer list `{ (T)0, … }`;
/// - a function call in the initializer of a `static` global (glslang reports recursion) → the assignment at the
///   start of the entry point, which runs before anything reads the global;
/// - an initializer list of a struct with an array member (glslang cannot match array elements) → one assignment
///   per member.
pub(crate) fn glslang_hlsl(text: &str, entry: &str) -> String {
    let structs = struct_members(text);
    let mut deferred = Vec::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let line = rewrite_zero_array(&rewrite_double_loads(line));
        if let Some((decl, init)) = static_call_initializer(&line) {
            out.push(format!("{decl};"));
            let name = decl.rsplit(' ').next().unwrap_or_default().to_string();
            deferred.push(format!("    {name} = {init};"));
            continue;
        }
        out.push(rewrite_struct_list(&line, &structs).unwrap_or(line));
    }
    // The entry point's body starts at the first `{` line after its signature.
    let signature = out
        .iter()
        .position(|l| !l.starts_with(' ') && l.contains(&format!(" {entry}(")));
    if let Some(sig) = signature
        && let Some(open) = out[sig..].iter().position(|l| l.trim() == "{")
    {
        let at = sig + open + 1;
        for (i, d) in deferred.into_iter().enumerate() {
            out.insert(at + i, d);
        }
    }
    let mut s = out.join("\n");
    s.push('\n');
    s
}

/// `static T name = call(…);` (not `static const`) → (`static T name`, `call(…)`).
fn static_call_initializer(line: &str) -> Option<(String, String)> {
    let rest = line.strip_prefix("static ")?;
    if rest.starts_with("const ") {
        return None;
    }
    let (decl, init) = rest.split_once(" = ")?;
    let init = init.strip_suffix(';')?;
    let callee: String = init
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if callee.is_empty() || !init[callee.len()..].starts_with('(') {
        return None;
    }
    Some((format!("static {decl}"), init.to_string()))
}

/// Member names of every `struct Name { … };` in the text.
fn struct_members(text: &str) -> BTreeMap<String, Vec<String>> {
    fn current_name(c: &Option<(String, Vec<String>)>) -> String {
        c.as_ref().map(|(n, _)| n.clone()).unwrap_or_default()
    }
    let mut out = BTreeMap::new();
    let mut array_structs: Vec<String> = Vec::new();
    let mut current: Option<(String, Vec<String>)> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix("struct ").and_then(|r| r.strip_suffix(" {")) {
            current = Some((name.to_string(), Vec::new()));
        } else if t == "};" {
            if let Some((name, members)) = current.take() {
                out.insert(name, members);
            }
        } else if current.is_some() {
            let Some((_, members)) = &mut current else {
                continue;
            };
            let decl = t
                .split(':')
                .next()
                .unwrap_or(t)
                .trim()
                .trim_end_matches(';');
            let name = decl.split('[').next().unwrap_or(decl);
            if let Some(n) = name.split_whitespace().last() {
                members.push(n.to_string());
            }
            if decl.contains('[') {
                array_structs.push(format!("{}[]", current_name(&current)));
            }
        }
    }
    for a in array_structs {
        out.insert(a, Vec::new());
    }
    out
}

/// `[const ]T v = { e1, e2 };` for a struct `T` with an array member → `T v; v.m1 = e1; v.m2 = e2;`.
fn rewrite_struct_list(line: &str, structs: &BTreeMap<String, Vec<String>>) -> Option<String> {
    let indent = &line[..line.len() - line.trim_start().len()];
    let t = line.trim().trim_start_matches("const ");
    let (decl, list) = t.split_once(" = { ")?;
    let list = list.strip_suffix(" };")?;
    let (ty, name) = decl.split_once(' ')?;
    let members = structs.get(ty)?;
    let mut elements = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in list.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                elements.push(list[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    elements.push(list[start..].trim());
    if elements.len() != members.len() || !text_has_array_member(ty, structs) {
        return None;
    }
    let mut s = format!("{indent}{ty} {name};");
    for (m, e) in members.iter().zip(elements) {
        s.push_str(&format!(" {name}.{m} = {e};"));
    }
    Some(s)
}

/// Whether the struct was declared with an array member (recorded by [`struct_members`] as a `[` in the source).
fn text_has_array_member(ty: &str, structs: &BTreeMap<String, Vec<String>>) -> bool {
    // Struct members are stored without their brackets; the marker is kept in a side entry.
    structs.contains_key(&format!("{ty}[]"))
}

/// `… = (T[N])0;` → `… = { (T)0, … };` and `return (T[N])0;` → `T _zero[N] = { … }; return _zero;`.
fn rewrite_zero_array(line: &str) -> String {
    let Some(start) = line.find('(') else {
        return line.to_string();
    };
    let cast = &line[start..];
    let Some(end) = cast.find("])0;") else {
        return line.to_string();
    };
    let inner = &cast[1..end];
    let Some((ty, n)) = inner.rsplit_once('[') else {
        return line.to_string();
    };
    let (Ok(n), true) = (
        n.parse::<usize>(),
        ty.chars().all(|c| c.is_alphanumeric() || c == '_'),
    ) else {
        return line.to_string();
    };
    let list = format!("{{ {} }}", vec![format!("({ty})0"); n].join(", "));
    let head = &line[..start];
    let indent = &line[..line.len() - line.trim_start().len()];
    let target = head.trim().trim_end_matches('=').trim();
    if target == "return" {
        format!("{indent}{ty} _zero[{n}] = {list}; return _zero;")
    } else if target.split_whitespace().count() == 1 {
        // An assignment: an initializer list is only allowed in a declaration.
        format!("{indent}{{ {ty} _zero[{n}] = {list}; {target} = _zero; }}")
    } else {
        format!("{head}{list};")
    }
}

/// `X.Load<doubleN>(offset)` → the same bytes read as 32-bit words and joined by `asdouble` (the low word first, as
/// in memory).
fn rewrite_double_loads(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(at) = rest.find(".Load<double") {
        let object_start = rest[..at]
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map_or(0, |i| i + 1);
        let object = &rest[object_start..at];
        let after = &rest[at + ".Load<double".len()..];
        let Some(close) = after.find(">(") else { break };
        let width = &after[..close];
        let args = &after[close + 2..];
        // The offset expression runs to the parenthesis that closes the call.
        let mut depth = 0;
        let Some(end) = args.char_indices().find_map(|(i, c)| match c {
            '(' => {
                depth += 1;
                None
            }
            ')' if depth == 0 => Some(i),
            ')' => {
                depth -= 1;
                None
            }
            _ => None,
        }) else {
            break;
        };
        let offset = &args[..end];
        let pair = |o: &str| format!("asdouble({object}.Load4({o}).xz, {object}.Load4({o}).yw)");
        let one = |o: &str| format!("asdouble({object}.Load2({o}).x, {object}.Load2({o}).y)");
        let second = format!("({offset})+16");
        let loaded = match width {
            "" => one(offset),
            "2" => pair(offset),
            "3" => format!("double3({}, {})", pair(offset), one(&second)),
            "4" => format!("double4({}, {})", pair(offset), pair(&second)),
            _ => break,
        };
        out.push_str(&rest[..object_start]);
        out.push_str(&loaded);
        rest = &args[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_loads_become_word_loads() {
        assert_eq!(
            rewrite_double_loads("    double _e13 = s.Load<double>(1u*8+int(0)*16+0+0);"),
            "    double _e13 = asdouble(s.Load2(1u*8+int(0)*16+0+0).x, s.Load2(1u*8+int(0)*16+0+0).y);"
        );
        assert_eq!(
            rewrite_double_loads("double3 v = b.Load<double3>(f(1)+2);"),
            "double3 v = double3(asdouble(b.Load4(f(1)+2).xz, b.Load4(f(1)+2).yw), \
             asdouble(b.Load2((f(1)+2)+16).x, b.Load2((f(1)+2)+16).y));"
        );
        assert_eq!(
            rewrite_double_loads("float x = asfloat(s.Load(4));"),
            "float x = asfloat(s.Load(4));"
        );
    }

    #[test]
    fn zero_array_casts_become_initializer_lists() {
        assert_eq!(
            rewrite_zero_array("    float2 indexable[3] = (float2[3])0;"),
            "    float2 indexable[3] = { (float2)0, (float2)0, (float2)0 };"
        );
        assert_eq!(
            rewrite_zero_array("    return (float[1])0;"),
            "    float _zero[1] = { (float)0 }; return _zero;"
        );
        assert_eq!(
            rewrite_zero_array("        local_bins = (uint[2])0;"),
            "        { uint _zero[2] = { (uint)0, (uint)0 }; local_bins = _zero; }"
        );
        assert_eq!(
            rewrite_zero_array("float x = (float)0;"),
            "float x = (float)0;"
        );
    }
}
