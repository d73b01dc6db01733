//! Independent checks of translated modules: each output is read back by a tool that is not the naga back end that
//! wrote it, and what that tool sees — bindings, registers, indices, block member offsets — is compared with the
//! binding map and with the declaration's std140/std430 layouts.
//!
//! | target | checked by |
//! |---|---|
//! | WGSL | Tint, Dawn's WGSL compiler (npm `webgpu`, null backend, one process per pass; required where `SHADER_INFO_REQUIRE_TINT=1`), then naga's WGSL front end and validator: every `@group/@binding` against the map, every uniform/storage/immediate block member's offset, array stride and matrix stride (WGSL's own layout rules) against the declaration |
//! | HLSL | glslang's HLSL front end (as `glslangValidator -D`, HLSL packing rules), SPIRV-Tools' validator (`spirv-val`), then reflection: every register (class, number, space) against the map, every cbuffer member offset against the declaration |
//! | OpenGL / ES | glslang for that GLSL version (as `glslangValidator -l -q`, no `-V`): every binding point against the map, every active uniform-block and buffer member offset against the declaration |
//! | MSL | no Metal compiler runs on Linux: every `[[buffer/texture/sampler(i)]]` of the entry point against the map, and `spirv-cross --msl` on the same SPIR-V as a second opinion on which resources the stage binds |
//!
//! glslang and SPIRV-Tools run in process where `gpu/build.rs` built them in ([`native`]; the commands otherwise, or
//! with `SHADER_INFO_CHECK_WITH_COMMANDS=1`), Tint in one node process per pass ([`tint`]); spirv-cross stays a
//! command, once per distinct SPIR-V. Each distinct input is checked once per process: identical text, identical
//! verdict. None of them shares code with naga's back ends.

pub mod native;
pub mod tint;

pub use native::WITH_COMMANDS_ENV;
pub use tint::{REQUIRE_TINT_ENV, TINT_ENV};

use super::{Portable, Translation};
use crate::reflect::{ReflectedMember, reflect};
use naga::proc::Layouter;
use shader_info::{
    BlockLayout, Code, DescriptorKind, Diagnostic, FieldArray, GlClass, HlslRegister, MemberLayout,
    MslClass, Stage, Target, TargetBinding,
};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

/// Checks one translation. `Ok` when the independent tool accepts it and everything it reports matches the map
/// and the declaration; otherwise every difference, naming the module, target and resource.
pub fn check(p: &Portable, t: &Translation) -> Result<(), Vec<Diagnostic>> {
    let problems = match t.target {
        Target::Wgsl => check_wgsl(p, &t.text),
        Target::Hlsl => check_hlsl(p, t),
        Target::Gl | Target::Gles => check_gl(p, t),
        Target::Msl => check_msl(p, &t.text),
    };
    if problems.is_empty() {
        return Ok(());
    }
    Err(problems
        .into_iter()
        .map(|m| {
            let mut d = Diagnostic::error(Code::Translation, &p.info, m)
                .stage(p.stage)
                .item(format!("target {}", t.target))
                .hint("the translation does not match the declaration: a bug in the translator or in this library; report it with the module named");
            if let Some(v) = &p.variant {
                d = d.variant(v.clone());
            }
            d
        })
        .collect())
}

/// The bindings the module uses (after the translator dropped what its entry point does not use).
fn used_bindings(p: &Portable) -> Vec<&TargetBinding> {
    p.module()
        .global_variables
        .iter()
        .filter_map(|(_, g)| g.binding.as_ref())
        .filter_map(|rb| p.plan.targets.at(rb.group, rb.binding))
        .collect()
}

fn describe(b: &TargetBinding) -> String {
    format!(
        "`{}`{} (set {}, binding {})",
        b.name,
        super::part_name(b.part),
        b.set,
        b.binding
    )
}

// -------------------------------------------------------------------------------------------------------------
// Layout comparison

/// A member offset (or stride) one side reports, by member path (`view.camera_position`, `lights[].color`).
type Offsets = BTreeMap<String, (u32, Option<u32>, Option<u32>)>;

/// The declaration's offsets, array strides and matrix strides of every member of `layout`, by path.
fn declared_offsets(layout: &BlockLayout) -> Offsets {
    fn walk(members: &[MemberLayout], base: u32, prefix: &str, out: &mut Offsets) {
        for m in members {
            let path = if prefix.is_empty() {
                m.name.clone()
            } else {
                format!("{prefix}.{}", m.name)
            };
            out.insert(
                path.clone(),
                (base + m.offset, m.array_stride, m.matrix_stride),
            );
            if let Some(n) = &m.nested {
                let p = if m.array == FieldArray::None {
                    path
                } else {
                    format!("{path}[]")
                };
                walk(&n.members, 0, &p, out);
            }
        }
    }
    let mut out = Offsets::new();
    walk(&layout.members, 0, "", &mut out);
    out
}

/// The offsets of a naga struct type (laid out by naga from the target language's own rules), by path; names come
/// from the declaration, matched by position (translators may rename members).
fn naga_offsets(
    module: &naga::Module,
    layouter: &Layouter,
    ty: naga::Handle<naga::Type>,
    declared: &[MemberLayout],
    prefix: &str,
    out: &mut Offsets,
) {
    use naga::TypeInner;
    let TypeInner::Struct { members, .. } = &module.types[ty].inner else {
        return;
    };
    for (m, d) in members.iter().zip(declared) {
        let path = if prefix.is_empty() {
            d.name.clone()
        } else {
            format!("{prefix}.{}", d.name)
        };
        let (array_stride, element) = match module.types[m.ty].inner {
            TypeInner::Array { base, stride, .. } => (Some(stride), base),
            _ => (None, m.ty),
        };
        let matrix_stride = match module.types[element].inner {
            TypeInner::Matrix { rows, scalar, .. } => {
                let align = match rows {
                    naga::VectorSize::Bi => 2,
                    _ => 4,
                };
                Some(align * u32::from(scalar.width))
            }
            _ => None,
        };
        out.insert(path.clone(), (m.offset, array_stride, matrix_stride));
        if let Some(nested) = &d.nested {
            let p = if d.array == FieldArray::None {
                path
            } else {
                format!("{path}[]")
            };
            naga_offsets(module, layouter, element, &nested.members, &p, out);
        }
    }
    let _ = layouter;
}

/// The differences between two sets of offsets, for the messages of `what`.
fn compare_offsets(what: &str, declared: &Offsets, actual: &Offsets, out: &mut Vec<String>) {
    for (path, (offset, array_stride, matrix_stride)) in declared {
        let Some((a_offset, a_array, a_matrix)) = actual.get(path) else {
            continue;
        };
        if offset != a_offset {
            out.push(format!(
                "{what}: member `{path}` is at offset {a_offset} in the translation but at {offset} in the declaration"
            ));
        }
        if array_stride.is_some() && a_array.is_some() && array_stride != a_array {
            out.push(format!(
                "{what}: member `{path}` has array stride {} in the translation but {} in the declaration",
                a_array.unwrap_or(0),
                array_stride.unwrap_or(0)
            ));
        }
        if matrix_stride.is_some() && a_matrix.is_some() && matrix_stride != a_matrix {
            out.push(format!(
                "{what}: matrix `{path}` has column stride {} in the translation but {} in the declaration",
                a_matrix.unwrap_or(0),
                matrix_stride.unwrap_or(0)
            ));
        }
    }
}

/// The offsets reflected from SPIR-V members (named by the declaration, matched by position).
fn reflected_offsets(
    members: &[ReflectedMember],
    declared: &[MemberLayout],
    prefix: &str,
    out: &mut Offsets,
) {
    for (m, d) in members.iter().zip(declared) {
        let path = if prefix.is_empty() {
            d.name.clone()
        } else {
            format!("{prefix}.{}", d.name)
        };
        out.insert(path.clone(), (m.offset, m.array_stride, m.matrix_stride));
        if let Some(nested) = &d.nested {
            let p = if d.array == FieldArray::None {
                path
            } else {
                format!("{path}[]")
            };
            reflected_offsets(&m.members, &nested.members, &p, out);
        }
    }
}

// -------------------------------------------------------------------------------------------------------------
// WGSL

fn check_wgsl(p: &Portable, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    match tint::check(text) {
        Ok(None) => {}
        Ok(Some(errors)) => out.push(format!("Tint (Dawn's WGSL compiler) rejects it:\n{errors}")),
        Err(e) => out.push(e),
    }
    let module = match naga::front::wgsl::parse_str(text) {
        Ok(m) => m,
        Err(e) => {
            out.push(format!(
                "naga's WGSL front end rejects it: {}",
                e.emit_to_string(text)
            ));
            return out;
        }
    };
    if let Err(e) = super::validate(&module) {
        out.push(format!("naga's validator rejects the parsed WGSL: {e}"));
        return out;
    }
    let mut layouter = Layouter::default();
    if let Err(e) = layouter.update(module.to_ctx()) {
        out.push(format!("the WGSL types have no layout: {e}"));
        return out;
    }
    let mut seen = Vec::new();
    for (_, g) in module.global_variables.iter() {
        let name = g.name.clone().unwrap_or_default();
        match (&g.binding, g.space) {
            (Some(rb), naga::AddressSpace::Storage { access })
                if (rb.group, rb.binding) == super::immediates::WGSL_BUFFER_PLACE
                    && p.plan.targets.at(rb.group, rb.binding).is_none() =>
            {
                // A push-constant block WGSL's immediates cannot hold, read from a storage buffer instead.
                match &p.plan.push_constants {
                    Some(block) if super::immediates::wgsl_reads_from_buffer(block) => {
                        if access != naga::StorageAccess::LOAD {
                            out.push(format!(
                                "the push-constant buffer `{name}` is writable ({access:?}); it must be read-only"
                            ));
                        }
                        let mut actual = Offsets::new();
                        naga_offsets(
                            &module,
                            &layouter,
                            g.ty,
                            &block.layout.members,
                            "",
                            &mut actual,
                        );
                        compare_offsets(
                            "the push-constant buffer",
                            &declared_offsets(&block.layout),
                            &actual,
                            &mut out,
                        );
                    }
                    _ => out.push(format!(
                        "`{name}` is at @group({}) @binding({}), where the map has no binding and no push-constant \
                         block with an array member is read",
                        rb.group, rb.binding
                    )),
                }
            }
            (Some(rb), space) => {
                let Some(b) = p.plan.targets.at(rb.group, rb.binding) else {
                    out.push(format!(
                        "`{name}` is at @group({}) @binding({}), where the map has no binding",
                        rb.group, rb.binding
                    ));
                    continue;
                };
                seen.push((b.set, b.binding));
                let kind_ok = matches!(
                    (b.kind, space, &module.types[g.ty].inner),
                    (
                        DescriptorKind::UniformBuffer,
                        naga::AddressSpace::Uniform,
                        _
                    ) | (
                        DescriptorKind::StorageBuffer,
                        naga::AddressSpace::Storage { .. },
                        _
                    ) | (
                        DescriptorKind::Sampler,
                        naga::AddressSpace::Handle,
                        naga::TypeInner::Sampler { .. }
                    ) | (
                        DescriptorKind::SampledImage | DescriptorKind::StorageImage,
                        naga::AddressSpace::Handle,
                        naga::TypeInner::Image { .. },
                    )
                );
                if !kind_ok {
                    out.push(format!(
                        "`{name}` at @group({}) @binding({}) is not a {:?} as the map says for {}",
                        rb.group,
                        rb.binding,
                        b.kind,
                        describe(b)
                    ));
                }
                if let Some(layout) = p.block_layout(b.set, b.binding) {
                    let mut actual = Offsets::new();
                    naga_offsets(&module, &layouter, g.ty, &layout.members, "", &mut actual);
                    compare_offsets(&describe(b), &declared_offsets(layout), &actual, &mut out);
                }
            }
            (None, naga::AddressSpace::Immediate) => {
                if let Some(block) = p
                    .plan
                    .push_constants
                    .as_ref()
                    .filter(|b| super::immediates::wgsl_reads_from_buffer(b))
                {
                    let _ = block;
                    out.push(
                        "the push-constant block has an array member but the WGSL keeps it in immediates, \
                         which WebGPU forbids"
                            .into(),
                    );
                } else if let Some(block) = &p.plan.push_constants {
                    let mut actual = Offsets::new();
                    naga_offsets(
                        &module,
                        &layouter,
                        g.ty,
                        &block.layout.members,
                        "",
                        &mut actual,
                    );
                    compare_offsets(
                        "the push-constant block",
                        &declared_offsets(&block.layout),
                        &actual,
                        &mut out,
                    );
                } else {
                    out.push(
                        "the WGSL has an immediate block but the declaration has no push constants"
                            .into(),
                    );
                }
            }
            _ => {}
        }
    }
    for b in used_bindings(p) {
        if !seen.contains(&(b.set, b.binding)) {
            out.push(format!("{} is missing from the WGSL", describe(b)));
        }
    }
    // Specialization constants stay overrides at the declared ids. Matched by id, not by name: naga's namer
    // rewrites names that end in a digit or an underscore, or hold `__` (found by the declaration fuzzer).
    for c in p.used_spec_constants() {
        if !module
            .overrides
            .iter()
            .any(|(_, o)| o.id == Some(c.id as u16))
        {
            out.push(format!(
                "specialization constant `{}` is not an `override` @id({}) in the WGSL",
                c.name, c.id
            ));
        }
    }
    out
}

// -------------------------------------------------------------------------------------------------------------
// HLSL

/// Binding shifts given to glslang per HLSL register class, so a reflected binding names its class and register.
const HLSL_SHIFTS: [(char, &str, u32); 4] = [
    ('t', "--shift-texture-binding", 1000),
    ('s', "--shift-sampler-binding", 2000),
    ('b', "--shift-UBO-binding", 3000),
    ('u', "--shift-uav-binding", 4000),
];

fn stage_arg(stage: Stage) -> &'static str {
    stage.short_name()
}

/// Runs a checker command; `Err` with its output when it fails or cannot start.
/// Scratch paths are left out of the output, so messages name `module.<ext>` alone.
fn run(cmd: &mut Command, tool: &str, install: &str) -> Result<String, String> {
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {tool} ({install}): {e}"))?;
    let mut text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if let Some(dir) = cmd
        .get_args()
        .filter_map(|a| Path::new(a).parent())
        .find(|p| p.starts_with(std::env::temp_dir()) && p != &std::env::temp_dir())
    {
        text = text.replace(&format!("{}/", dir.display()), "");
    }
    if out.status.success() {
        Ok(text)
    } else {
        Err(format!("{tool} rejects it:\n{}", text.trim()))
    }
}

/// The HLSL rewritten, without changing what it means, around three things glslang's HLSL front end cannot take
/// and DXC and FXC do (so the check is of the translation, not of glslang's gaps):
/// - a cast of `0` to an array type, `(T[N])0` → the initializer list `{ (T)0, … }`;
/// - a function call in the initializer of a `static` global (glslang reports recursion) → the assignment at the
///   start of the entry point, which runs before anything reads the global;
/// - an initializer list of a struct with an array member (glslang cannot match array elements) → one assignment
///   per member.
fn glslang_hlsl(text: &str, entry: &str) -> String {
    let structs = struct_members(text);
    let mut deferred = Vec::new();
    let mut out = Vec::new();
    for line in text.lines() {
        let line = rewrite_zero_array(line);
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

fn check_hlsl(p: &Portable, t: &Translation) -> Vec<String> {
    let source = glslang_hlsl(&t.text, &t.entry_point);
    static MEMO: native::Memo<Result<Vec<u32>, String>> = std::sync::OnceLock::new();
    let key = crate::disk_cache::key_of(&[
        b"hlsl",
        stage_arg(p.stage).as_bytes(),
        t.entry_point.as_bytes(),
        source.as_bytes(),
    ]);
    let compiled = native::memoized(&MEMO, key, || {
        if !native::available() {
            return hlsl_with_commands(p, t, &source);
        }
        match native::hlsl(
            &source,
            p.stage,
            &t.entry_point,
            HLSL_SHIFTS.map(|(_, _, shift)| shift),
        ) {
            native::HlslOutcome::Valid(words) => Ok(words),
            native::HlslOutcome::Rejected(log) => {
                Err(format!("glslang rejects it:\n{}", log.trim()))
            }
            native::HlslOutcome::Invalid(log) => Err(format!(
                "the SPIR-V glslang made of the HLSL is invalid: spirv-val rejects it:\n{}",
                log.trim()
            )),
        }
    });
    let spirv = match compiled {
        Ok(words) => words,
        Err(e) => return vec![e],
    };
    let words = match reflect(&spirv) {
        Ok(r) => r,
        Err(e) => return vec![format!("cannot reflect glslang's SPIR-V of the HLSL: {e}")],
    };
    let mut out = Vec::new();
    for d in &words.descriptors {
        let Some((class, _, shift)) = HLSL_SHIFTS
            .iter()
            .find(|(_, _, s)| d.binding >= *s && d.binding < s + 1000)
        else {
            out.push(format!(
                "a resource at set {} binding {} is outside every register class (glslang binding shifts)",
                d.set, d.binding
            ));
            continue;
        };
        let register = d.binding - shift;
        let what = format!("register({class}{register}, space{})", d.set);
        if let Some(pc) = p.plan.targets.push_constants.filter(|pc| {
            pc.hlsl.class == *class && pc.hlsl.register == register && pc.hlsl.space == d.set
        }) {
            let _ = pc;
            if let Some(block) = &p.plan.push_constants {
                let mut actual = Offsets::new();
                // The cbuffer wraps the block struct: its members are the block's.
                let members = d
                    .members
                    .first()
                    .map_or(&d.members[..0], |m| &m.members[..]);
                reflected_offsets(members, &block.layout.members, "", &mut actual);
                compare_offsets(
                    "the push-constant cbuffer",
                    &declared_offsets(&block.layout),
                    &actual,
                    &mut out,
                );
            }
            continue;
        }
        let Some(b) = p.plan.targets.bindings.iter().find(|b| {
            b.hlsl.class == *class && b.hlsl.register == register && b.hlsl.space == d.set
        }) else {
            out.push(format!(
                "{what} holds a resource the map does not put there"
            ));
            continue;
        };
        if let Some(layout) = p.block_layout(b.set, b.binding)
            && *class == 'b'
        {
            let mut actual = Offsets::new();
            let members = d
                .members
                .first()
                .map_or(&d.members[..0], |m| &m.members[..]);
            reflected_offsets(members, &layout.members, "", &mut actual);
            // The cbuffer holds the block struct, whose one member is the declared buffer member.
            let declared: Offsets = declared_offsets(layout)
                .into_iter()
                .filter_map(|(k, v)| k.split_once('.').map(|(_, rest)| (rest.to_string(), v)))
                .collect();
            compare_offsets(&describe(b), &declared, &actual, &mut out);
        }
    }
    // glslang drops what only dead code reads (a folded branch), so completeness is checked on the text: every
    // resource the module uses is declared at its register, and every register declared is the map's.
    let declared = hlsl_registers(&t.text);
    for b in used_bindings(p) {
        if !declared.contains(&b.hlsl) {
            out.push(format!(
                "{} is not declared at register({}{}, space{}) in the HLSL",
                describe(b),
                b.hlsl.class,
                b.hlsl.register,
                b.hlsl.space
            ));
        }
    }
    let push = p.plan.targets.push_constants.map(|pc| pc.hlsl);
    for r in &declared {
        if Some(*r) != push && !p.plan.targets.bindings.iter().any(|b| b.hlsl == *r) {
            out.push(format!(
                "the HLSL declares register({}{}, space{}), where the map has no resource",
                r.class, r.register, r.space
            ));
        }
    }
    out
}

/// The HLSL check's compile and validation by the `glslangValidator` and `spirv-val` commands.
fn hlsl_with_commands(p: &Portable, t: &Translation, source: &str) -> Result<Vec<u32>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a scratch directory: {e}"))?;
    let src = dir.path().join("module.hlsl");
    let spv = dir.path().join("module.spv");
    std::fs::write(&src, source).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let mut cmd = Command::new("glslangValidator");
    cmd.args([
        "-D",
        "-V",
        "--target-env",
        "vulkan1.1",
        "--hlsl-iomap",
        "--hlsl-offsets",
    ])
    .args(["-S", stage_arg(p.stage), "-e", &t.entry_point]);
    for (_, flag, shift) in HLSL_SHIFTS {
        cmd.arg(flag).arg(shift.to_string());
    }
    cmd.arg("-o").arg(&spv).arg(&src);
    run(
        &mut cmd,
        "glslangValidator",
        "apt-get install glslang-tools",
    )?;
    let mut val = Command::new("spirv-val");
    val.args(["--target-env", "vulkan1.1"]).arg(&spv);
    run(&mut val, "spirv-val", "apt-get install spirv-tools")
        .map_err(|e| format!("the SPIR-V glslang made of the HLSL is invalid: {e}"))?;
    std::fs::read(&spv)
        .map_err(|e| e.to_string())
        .and_then(|b| crate::vk::spirv_from_bytes(&b).map_err(|e| e.to_string()))
        .map_err(|e| format!("cannot read glslang's SPIR-V of the HLSL: {e}"))
}

/// Every `register(<class><n>[, space<m>])` the HLSL declares.
fn hlsl_registers(text: &str) -> Vec<HlslRegister> {
    let mut out = Vec::new();
    for (i, _) in text.match_indices("register(") {
        let rest = &text[i + "register(".len()..];
        let Some(args) = rest.split(')').next() else {
            continue;
        };
        let mut parts = args.split(',').map(str::trim);
        let Some(slot) = parts.next() else {
            continue;
        };
        let mut chars = slot.chars();
        let (Some(class), Ok(register)) = (chars.next(), chars.as_str().parse()) else {
            continue;
        };
        let space = parts
            .next()
            .and_then(|s| s.strip_prefix("space"))
            .and_then(|s| s.parse().ok())
            .unwrap_or(0);
        out.push(HlslRegister {
            class,
            register,
            space,
        });
    }
    out
}

// -------------------------------------------------------------------------------------------------------------
// OpenGL GLSL

/// The GLSL with what glslang 12 lacks and the ES specification has written around: `GL_EXT_clip_cull_distance`
/// (an ES 3.x extension glslang does not know) is dropped and the clip and cull arrays naga redeclares are renamed
/// to plain outputs of the same type, so everything else in the module is still compiled and reflected.
fn glslang_gles(text: &str) -> String {
    const EXT: &str = "#extension GL_EXT_clip_cull_distance : require";
    if !text.contains(EXT) {
        return text.to_string();
    }
    text.replace(&format!("{EXT}\n"), "")
        .replace("gl_ClipDistance", "gpu_check_clip_distance")
        .replace("gl_CullDistance", "gpu_check_cull_distance")
}

/// `_group_<set>_binding_<binding>_<stage>` (naga's names of bound globals) → `(set, binding)`.
fn naga_gl_name(name: &str) -> Option<(u32, u32)> {
    let rest = name.strip_prefix("_group_")?;
    let (set, rest) = rest.split_once("_binding_")?;
    let (binding, _) = rest.split_once('_')?;
    Some((set.parse().ok()?, binding.parse().ok()?))
}

/// One entry of glslang's `-q` reflection: `name: offset N, type T, size S, index I, binding B, …`.
#[derive(Debug, PartialEq)]
struct GlEntry {
    name: String,
    offset: i64,
    ty: u32,
    index: i64,
    binding: i64,
    /// The stride of the block's top-level array this member is in (glslang names its elements without `[0]`).
    top_level_array_stride: Option<i64>,
}

fn reflection_line(line: &str) -> Option<GlEntry> {
    let (name, rest) = line.split_once(": offset ")?;
    let field = |key: &str| -> Option<i64> {
        let v = rest.split(", ").find_map(|f| f.strip_prefix(key))?;
        v.trim().parse().ok()
    };
    Some(GlEntry {
        name: name.to_string(),
        offset: rest.split(',').next()?.trim().parse().ok()?,
        ty: rest
            .split(", ")
            .find_map(|f| f.strip_prefix("type "))
            .and_then(|t| u32::from_str_radix(t.trim(), 16).ok())?,
        index: field("index ")?,
        binding: field("binding ")?,
        top_level_array_stride: field("topLevelArrayStride "),
    })
}

/// glslang's reflection (`-q --reflect-separate-buffers`) by section.
#[derive(Default)]
struct GlReflection {
    uniforms: Vec<GlEntry>,
    uniform_blocks: Vec<GlEntry>,
    buffer_variables: Vec<GlEntry>,
    buffer_blocks: Vec<GlEntry>,
}

impl GlReflection {
    fn parse(text: &str) -> GlReflection {
        let mut r = GlReflection::default();
        let mut section: Option<&mut Vec<GlEntry>> = None;
        for line in text.lines() {
            if line.ends_with("reflection:") {
                section = match line.trim() {
                    "Uniform reflection:" => Some(&mut r.uniforms),
                    "Uniform block reflection:" => Some(&mut r.uniform_blocks),
                    "Buffer variable reflection:" => Some(&mut r.buffer_variables),
                    "Buffer block reflection:" => Some(&mut r.buffer_blocks),
                    _ => None,
                };
                continue;
            }
            if let (Some(s), Some(e)) = (section.as_deref_mut(), reflection_line(line)) {
                s.push(e);
            }
        }
        r
    }
}

/// A reflected member name (`instance.view.lights[0].color`) as a declared member path (`view.lights[].color`):
/// the block or instance name dropped, the first array element standing for the array.
fn gl_member_path(name: &str) -> Option<String> {
    let (_, path) = name.split_once('.')?;
    let path = path.replace("[0]", "[]");
    if path.contains('[') && !path.contains("[]") {
        return None; // a later element: its offset follows from the first and the stride
    }
    Some(path.strip_suffix("[]").unwrap_or(&path).to_string())
}

/// Whether a GL type enum is an image (`image*`, `iimage*`, `uimage*`) rather than a sampler.
fn is_gl_image_type(ty: u32) -> bool {
    (0x904C..=0x906C).contains(&ty)
}

/// glslang's GL reflection of `source` by the `glslangValidator` command.
fn gl_with_commands(p: &Portable, source: &str) -> Result<String, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("cannot make a scratch directory: {e}"))?;
    let src = dir.path().join(format!("module.{}", stage_arg(p.stage)));
    std::fs::write(&src, source).map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let mut cmd = Command::new("glslangValidator");
    cmd.args(["-l", "-q", "--reflect-separate-buffers"])
        .arg(&src);
    run(
        &mut cmd,
        "glslangValidator",
        "apt-get install glslang-tools",
    )
}

fn check_gl(p: &Portable, t: &Translation) -> Vec<String> {
    let source = glslang_gles(&t.text);
    static MEMO: native::Memo<Result<String, String>> = std::sync::OnceLock::new();
    let key = crate::disk_cache::key_of(&[b"gl", stage_arg(p.stage).as_bytes(), source.as_bytes()]);
    let reflected = native::memoized(&MEMO, key, || {
        if native::available() {
            native::gl(&source, p.stage)
                .map_err(|log| format!("glslang rejects it:\n{}", log.trim()))
        } else {
            gl_with_commands(p, &source)
        }
    });
    let reflection = match reflected {
        Ok(t) => GlReflection::parse(&t),
        Err(e) => return vec![e],
    };
    let map = &p.plan.targets;
    let mut out = Vec::new();
    let mut seen = Vec::new();
    let push_prefix = format!("{}.", shader_info::GL_PUSH_CONSTANT_UNIFORM);
    for u in reflection.uniforms.iter().filter(|u| u.index < 0) {
        if let Some(member) = u.name.strip_prefix(&push_prefix) {
            let declared = p
                .plan
                .push_constants
                .as_ref()
                .map(|b| declared_offsets(&b.layout));
            let member = member
                .replace("[0]", "")
                .split('[')
                .next()
                .unwrap_or_default()
                .to_string();
            if !declared.is_some_and(|d| d.contains_key(&member)) {
                out.push(format!(
                    "push-constant uniform `{}` is not a member of the declared block",
                    u.name
                ));
            }
            continue;
        }
        if t.host_uniforms.iter().any(|h| *h == u.name) {
            continue;
        }
        // Textures and images: the binding is the texture or image unit.
        let Some((set, b)) = naga_gl_name(&u.name) else {
            out.push(format!(
                "uniform `{}` is neither a bound resource nor a push-constant member",
                u.name
            ));
            continue;
        };
        let Some(tb) = map.at(set, b) else {
            out.push(format!(
                "`{}` names set {set} binding {b}, where the map has no binding",
                u.name
            ));
            continue;
        };
        seen.push((set, b));
        let class = if is_gl_image_type(u.ty) {
            GlClass::ImageUnit
        } else {
            GlClass::TextureUnit
        };
        if tb.gl
            != Some(shader_info::GlSlot {
                class,
                binding: u.binding as u32,
            })
            || u.binding < 0
        {
            out.push(format!(
                "{} is at {} {} for glslang but the map says {:?}",
                describe(tb),
                super::gl_class_name(class),
                u.binding,
                tb.gl
            ));
        }
    }
    for (class, blocks, members) in [
        (
            GlClass::UniformBlock,
            &reflection.uniform_blocks,
            &reflection.uniforms,
        ),
        (
            GlClass::StorageBlock,
            &reflection.buffer_blocks,
            &reflection.buffer_variables,
        ),
    ] {
        for block in blocks {
            let slot = shader_info::GlSlot {
                class,
                binding: block.binding.max(0) as u32,
            };
            let Some(tb) = map
                .bindings
                .iter()
                .find(|b| b.gl == Some(slot))
                .filter(|_| block.binding >= 0)
            else {
                out.push(format!(
                    "{} `{}` is at binding {}, where the map has none",
                    super::gl_class_name(class),
                    block.name,
                    block.binding
                ));
                continue;
            };
            seen.push((tb.set, tb.binding));
            let Some(layout) = p.block_layout(tb.set, tb.binding) else {
                continue;
            };
            let declared = declared_offsets(layout);
            for m in members.iter().filter(|m| m.index == block.index) {
                let Some(path) = gl_member_path(&m.name) else {
                    continue;
                };
                // A member of a top-level array of structs reflects without the array's brackets.
                let (path, top) = match path.split_once('.') {
                    Some((head, rest))
                        if !declared.contains_key(&path) && m.top_level_array_stride.is_some() =>
                    {
                        (format!("{head}[].{rest}"), Some(head.to_string()))
                    }
                    _ => (path, None),
                };
                if let (Some(head), Some(stride)) = (&top, m.top_level_array_stride)
                    && let Some((_, Some(want), _)) = declared.get(head)
                    && i64::from(*want) != stride
                {
                    out.push(format!(
                        "{}: array `{head}` has stride {stride} for glslang but {want} in the declaration",
                        describe(tb)
                    ));
                }
                match declared.get(&path) {
                    Some((want, ..)) if i64::from(*want) == m.offset => {}
                    Some((want, ..)) => out.push(format!(
                        "{}: member `{path}` is at offset {} for glslang but at {want} in the declaration",
                        describe(tb),
                        m.offset
                    )),
                    None => out.push(format!(
                        "{}: glslang reflects a member `{path}` the declaration does not have",
                        describe(tb)
                    )),
                }
            }
        }
    }
    for b in used_bindings(p).into_iter().filter(|b| b.gl.is_some()) {
        if !seen.contains(&(b.set, b.binding)) {
            out.push(format!(
                "{} is missing from glslang's reflection",
                describe(b)
            ));
        }
    }
    out
}

// -------------------------------------------------------------------------------------------------------------
// MSL

/// The `[[buffer(i)]]`, `[[texture(i)]]` and `[[sampler(i)]]` attributes of MSL text.
fn msl_slots(text: &str) -> Vec<(MslClass, u32)> {
    let mut out = Vec::new();
    for (class, key) in [
        (MslClass::Buffer, "[[buffer("),
        (MslClass::Texture, "[[texture("),
        (MslClass::Sampler, "[[sampler("),
    ] {
        for (i, _) in text.match_indices(key) {
            let rest = &text[i + key.len()..];
            if let Some(n) = rest.split(')').next().and_then(|n| n.trim().parse().ok()) {
                out.push((class, n));
            }
        }
    }
    out.sort_by_key(|(c, i)| (*c as u8, *i));
    out
}

fn check_msl(p: &Portable, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let map = &p.plan.targets;
    let used = used_bindings(p);
    let mut expected: Vec<(MslClass, u32)> = used
        .iter()
        .filter(|b| b.msl.class != MslClass::InlineSampler)
        .map(|b| (b.msl.class, b.msl.index))
        .collect();
    // A sampler with a declared state is a `constexpr sampler` in the function with that state, not an argument.
    let inline: Vec<&TargetBinding> = used
        .iter()
        .filter(|b| b.msl.class == MslClass::InlineSampler)
        .copied()
        .collect();
    let written = text.matches("constexpr metal::sampler ").count();
    if written != inline.len() {
        out.push(format!(
            "the MSL has {written} inline sampler(s), the map {} used by this stage",
            inline.len()
        ));
    }
    for b in &inline {
        if let Some(state) = b.sampler_state {
            let filter = match state.filter {
                shader_info::TexelFilter::Nearest => "min_filter::nearest",
                shader_info::TexelFilter::Linear => "min_filter::linear",
            };
            if !text.contains(filter) {
                out.push(format!(
                    "the inline sampler of `{}` lacks its declared `{filter}`",
                    b.name
                ));
            }
        }
    }
    let uses_immediates = p
        .module()
        .global_variables
        .iter()
        .any(|(_, g)| g.space == naga::AddressSpace::Immediate);
    if uses_immediates && let Some(pc) = map.push_constants {
        expected.push((MslClass::Buffer, pc.msl_buffer));
    }
    let mut actual = msl_slots(text);
    // The runtime-array sizes buffer is the map's too when the stage uses one.
    if let Some(sizes) = map.msl_sizes_buffer
        && actual.contains(&(MslClass::Buffer, sizes))
    {
        expected.push((MslClass::Buffer, sizes));
    }
    expected.sort_by_key(|(c, i)| (*c as u8, *i));
    actual.dedup();
    if actual != expected {
        out.push(format!(
            "the entry point binds {actual:?} but the map says {expected:?}"
        ));
    }
    // Specialization constants are function constants at the declared ids.
    let ids = msl_function_constant_ids(text);
    let want: Vec<u32> = p.used_spec_constants().iter().map(|c| c.id).collect();
    if ids != want {
        out.push(format!("the MSL has function constants {ids:?}, the module uses specialization constants {want:?}"));
    }
    // Second opinion: SPIRV-Cross translates the same SPIR-V; it must bind as many of each class.
    match spirv_cross_msl(&p.spirv) {
        Ok(theirs) => {
            let count =
                |v: &[(MslClass, u32)], c: MslClass| v.iter().filter(|(k, _)| *k == c).count();
            // Both may add a buffer of runtime-array sizes; compare textures and samplers exactly and buffers
            // without it.
            let ours_buffers = count(&expected, MslClass::Buffer)
                - usize::from(
                    map.msl_sizes_buffer
                        .is_some_and(|s| expected.contains(&(MslClass::Buffer, s))),
                );
            let theirs_buffers = count(&theirs, MslClass::Buffer);
            // What the host binds for this stage (the map): naga may leave out the sampler half of a texture the
            // stage only fetches from, SPIRV-Cross keeps it; each must take no sampler the host does not bind.
            let used: Vec<(u32, u32)> = used.iter().map(|b| (b.set, b.binding)).collect();
            let host_samplers = map
                .host_bound(&used)
                .iter()
                .filter(|b| matches!(b.msl.class, MslClass::Sampler | MslClass::InlineSampler))
                .count();
            // SPIRV-Cross, given no state, makes every sampler an argument.
            let naga_samplers = count(&expected, MslClass::Sampler) + inline.len();
            let theirs_samplers = count(&theirs, MslClass::Sampler);
            if theirs_samplers < naga_samplers || theirs_samplers > host_samplers {
                out.push(format!(
                    "SPIRV-Cross binds {theirs_samplers} Sampler argument(s) for the same SPIR-V, naga \
                     {naga_samplers}, and the host binds {host_samplers} for the textures this stage uses"
                ));
            }
            let (ours, theirs) = (
                count(&expected, MslClass::Texture),
                count(&theirs, MslClass::Texture),
            );
            if ours != theirs {
                out.push(format!(
                    "SPIRV-Cross binds {theirs} Texture argument(s) for the same SPIR-V, naga {ours}"
                ));
            }
            if theirs_buffers < ours_buffers || theirs_buffers > ours_buffers + 1 {
                out.push(format!(
                    "SPIRV-Cross binds {theirs_buffers} buffer argument(s) for the same SPIR-V, naga {ours_buffers}"
                ));
            }
        }
        Err(e) => out.push(format!(
            "SPIRV-Cross cannot translate the same SPIR-V to MSL: {e}"
        )),
    }
    out
}

/// The ids of `[[function_constant(id)]]` declarations, sorted.
fn msl_function_constant_ids(text: &str) -> Vec<u32> {
    let key = "[[function_constant(";
    let mut ids: Vec<u32> = text
        .match_indices(key)
        .filter_map(|(i, _)| text[i + key.len()..].split(')').next()?.trim().parse().ok())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    ids
}

/// SPIRV-Cross's MSL of `spirv`: the argument attributes it binds.
fn spirv_cross_msl(spirv: &[u32]) -> Result<Vec<(MslClass, u32)>, String> {
    type Memo =
        std::sync::Mutex<std::collections::HashMap<u128, Result<Vec<(MslClass, u32)>, String>>>;
    static MEMO: std::sync::OnceLock<Memo> = std::sync::OnceLock::new();
    let memo = MEMO.get_or_init(Default::default);
    let key = crate::disk_cache::key_of(&[b"spirv-cross msl", bytemuck::cast_slice(spirv)]);
    if let Some(v) = memo.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return v.clone();
    }
    let v = spirv_cross_msl_command(spirv);
    memo.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, v.clone());
    v
}

fn spirv_cross_msl_command(spirv: &[u32]) -> Result<Vec<(MslClass, u32)>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path = dir.path().join("module.spv");
    std::fs::write(&path, bytemuck::cast_slice::<u32, u8>(spirv)).map_err(|e| e.to_string())?;
    let text = run(
        Command::new("spirv-cross")
            .arg(&path)
            .args(["--msl", "--msl-version", "20100"]),
        "spirv-cross",
        "apt-get install spirv-cross",
    )?;
    Ok(msl_slots(&text))
}

/// The checkers this module runs, and whether each is installed.
pub fn tools() -> Vec<(&'static str, bool)> {
    let mut out: Vec<(&'static str, bool)> = ["glslangValidator", "spirv-val", "spirv-cross"]
        .into_iter()
        .map(|t| {
            let ok = Command::new(t)
                .arg("--version")
                .output()
                .is_ok_and(|o| !o.stdout.is_empty() || !o.stderr.is_empty());
            (t, ok)
        })
        .collect();
    out.push(("tint (npm webgpu)", tint::available()));
    out
}

/// What the checkers are, for cache keys: a verdict made without Tint is not kept for a pass that has it. Nothing
/// is started (a warm build need not start node): where Tint is installed, every WGSL check runs it or fails.
pub fn checkers_key(targets: &[Target]) -> &'static str {
    if targets.contains(&Target::Wgsl) && tint::installed() {
        "glslang spirv-val spirv-cross tint"
    } else {
        "glslang spirv-val spirv-cross"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn reflection_lines_parse() {
        let l = "_group_0_binding_0_fs.view.sun_color: offset 160, type 8b52, size 1, index 0, binding -1, stages 16";
        let e = reflection_line(l).unwrap();
        assert_eq!(
            (e.name.as_str(), e.offset, e.ty, e.index, e.binding),
            ("_group_0_binding_0_fs.view.sun_color", 160, 0x8b52, 0, -1)
        );
        assert_eq!(gl_member_path(&e.name).as_deref(), Some("view.sun_color"));
        assert_eq!(
            gl_member_path("b.lights[0].color").as_deref(),
            Some("lights[].color")
        );
        assert_eq!(gl_member_path("b.lights[1].color"), None);
        assert_eq!(gl_member_path("b.bins[0]").as_deref(), Some("bins"));
        assert_eq!(
            hlsl_registers(
                "Texture2D<float4> t : register(t0, space1);\ncbuffer c : register(b2) { X c; }\n"
            ),
            [
                HlslRegister {
                    class: 't',
                    register: 0,
                    space: 1
                },
                HlslRegister {
                    class: 'b',
                    register: 2,
                    space: 0
                }
            ]
        );
        assert_eq!(naga_gl_name("_group_2_binding_13_vs"), Some((2, 13)));
        assert_eq!(
            msl_slots(
                "texture2d<float> t [[texture(1)]], sampler s [[sampler(0)]], constant X& x [[buffer(2)]]"
            ),
            [
                (MslClass::Buffer, 2),
                (MslClass::Texture, 1),
                (MslClass::Sampler, 0)
            ]
        );
    }
}
