//! The OpenGL (ES) check: glslang compiles the text for its GLSL version (in process or as `glslangValidator -l -q`)
//! and its reflection — every binding point, every active uniform-block and buffer member offset — is compared with
//! the map and the declaration.

use crate::cross::check::bindings::{describe, used_bindings};
use crate::cross::check::command::{run, stage_arg};
use crate::cross::check::layout::{declared_gl_offsets, declared_offsets};
use crate::cross::check::native;
use crate::cross::{Portable, Translation};
use shader_info::{BlockLayout, GlClass};
use std::process::Command;

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
    /// For a block, its data size: the end of its last member (a runtime array counted as one element).
    size: i64,
    index: i64,
    binding: i64,
    /// The member's own array stride, when it is an array.
    array_stride: Option<i64>,
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
        size: field("size ")?,
        index: field("index ")?,
        binding: field("binding ")?,
        array_stride: field("arrayStride "),
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

/// A reflected member name (`instance.view.lights[0].color`) as a member path of [`declared_gl_offsets`]
/// (`view.lights.color`): the block or instance name and the array brackets dropped. `None` for a member of a later
/// element (`lights[1].color`): its offset follows from the first element's and the stride.
fn gl_member_path(name: &str) -> Option<String> {
    let (_, path) = name.split_once('.')?;
    let mut out = String::with_capacity(path.len());
    let mut rest = path;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find(']')? + open;
        if !matches!(&rest[open + 1..close], "" | "0") {
            return None;
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Some(out)
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

pub(crate) fn check(p: &Portable, t: &Translation) -> Vec<String> {
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
            let active: Vec<&GlEntry> = members.iter().filter(|m| m.index == block.index).collect();
            out.extend(block_problems(&describe(tb), layout, block, &active));
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

/// What glslang's reflection of one block (`block`, its active members `active`) says against the declared
/// `layout`: the block's data size, every member's offset from the start of the block, array strides, and the
/// stride of the block's top-level array.
fn block_problems(
    what: &str,
    layout: &BlockLayout,
    block: &GlEntry,
    active: &[&GlEntry],
) -> Vec<String> {
    let mut out = Vec::new();
    let declared = declared_gl_offsets(layout);
    if block.size != i64::from(layout.end) {
        out.push(format!(
            "{}: the block's data size is {} for glslang but {} in the declaration",
            what, block.size, layout.end
        ));
    }
    for m in active {
        let Some(path) = gl_member_path(&m.name) else {
            continue;
        };
        let Some(&(want, stride)) = declared
            .get(&path)
            .or_else(|| renamed_by_naga(declared.iter(), &path))
        else {
            out.push(format!(
                "{}: glslang reflects a member `{path}` the declaration does not have",
                what
            ));
            continue;
        };
        if i64::from(want) != m.offset {
            out.push(format!(
                "{}: member `{path}` is at offset {} for glslang but at {want} in the declaration",
                what, m.offset
            ));
        }
        if let (Some(got), Some(want)) = (m.array_stride, stride)
            && got != i64::from(want)
        {
            out.push(format!(
                "{}: array `{path}` has stride {got} for glslang but {want} in the declaration",
                what
            ));
        }
        // The block's own array member (a top-level array): glslang reports its stride on every member
        // inside it.
        let head = path.split('.').next().unwrap_or_default();
        let head_declared = declared
            .get(head)
            .or_else(|| renamed_by_naga(declared.iter(), head));
        if let (Some(got), Some(&(_, Some(want)))) = (m.top_level_array_stride, head_declared)
            && got != i64::from(want)
        {
            out.push(format!(
                "{}: array `{head}` has stride {got} for glslang but {want} in the declaration",
                what
            ));
        }
    }
    out
}

/// The declared member `written` (a `.`-separated path as glslang reflects it) stands for, when naga's namer
/// renamed one of its names: it drops a final `_` (`flags_` is written `flags`), adds one to a name ending in a
/// digit or to a GLSL built-in function or reserved word (`min` is written `min_`), and puts `gen_` before its own
/// prefixes. Only a single declared path matching every segment so is taken: the check stays exact.
fn renamed_by_naga<'d, V>(
    declared: impl Iterator<Item = (&'d String, &'d V)>,
    written: &str,
) -> Option<&'d V> {
    let same = |d: &str, w: &str| {
        w == d
            || w.strip_suffix('_') == Some(d)
            || d.strip_suffix('_') == Some(w)
            || w.strip_prefix("gen_") == Some(d)
    };
    let matches = |d: &str| {
        d.split('.').count() == written.split('.').count()
            && d.split('.')
                .zip(written.split('.'))
                .all(|(d, w)| same(d, w))
    };
    let mut found = declared.filter(|(d, _)| matches(d)).map(|(_, v)| v);
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

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
            Some("lights.color")
        );
        assert_eq!(gl_member_path("b.lights[1].color"), None);
        assert_eq!(gl_member_path("b.bins[0]").as_deref(), Some("bins"));
        assert_eq!(gl_member_path("b.s[0].f[0].m[0]").as_deref(), Some("s.f.m"));
        assert_eq!(gl_member_path("b.s[0].f[2].m"), None);
        assert_eq!(naga_gl_name("_group_2_binding_13_vs"), Some((2, 13)));
    }

    /// glslang reports a nested member's offset from the start of the block, not of its struct: the random layout
    /// corpus found every nested member past offset 0 reported as a mismatch (and nested arrays unmatched).
    #[cfg(gpu_glslang_lib)]
    #[test]
    fn nested_members_are_compared_at_their_offset_in_the_block() {
        use shader_info::{Field, Rules, StructDef, StructMap, Type, layout_fields};
        let mut structs = StructMap::default();
        structs.insert(
            StructDef::new("Inner")
                .field(Field::new(Type::Vec3, "a"))
                .field(Field::new(Type::Float, "b").array(2)),
        );
        structs.insert(
            StructDef::new("Outer")
                .field(Field::new(Type::Vec4, "x"))
                .field(Field::structure("Inner", "inner").array(2)),
        );
        let layout = layout_fields(
            &[Field::structure("Outer", "o")],
            Rules::Std430,
            &structs,
            &mut vec![],
        )
        .unwrap();
        let text = "#version 430\nlayout(local_size_x = 1) in;\n\
            struct Inner { vec3 a; float b[2]; };\nstruct Outer { vec4 x; Inner inner[2]; };\n\
            layout(std430, binding = 0) buffer B { Outer o; } b;\n\
            layout(std430, binding = 1) buffer S { float sink[]; };\n\
            void main() { sink[0] = b.o.x.x + b.o.inner[0].a.x + b.o.inner[0].b[1] + b.o.inner[1].a.y; }\n";
        let r = GlReflection::parse(&native::gl(text, shader_info::Stage::Compute).unwrap());
        let block = r.buffer_blocks.iter().find(|b| b.name == "B").unwrap();
        let active: Vec<&GlEntry> = r
            .buffer_variables
            .iter()
            .filter(|m| m.index == block.index)
            .collect();
        assert!(active.len() >= 3, "{active:?}");
        assert_eq!(
            block_problems("B", &layout, block, &active),
            Vec::<String>::new()
        );
        // `o.inner[0].b` sits at 16 + 12 = 28; the check must see an engine that puts it elsewhere.
        let mut wrong = layout.clone();
        let inner = wrong.members[0].nested.as_mut().unwrap().members[1]
            .nested
            .as_mut()
            .unwrap();
        inner.members[1].offset += 4;
        let e = block_problems("B", &wrong, block, &active);
        assert!(
            e.iter()
                .any(|e| e.contains("member `o.inner.b` is at offset 28")),
            "{e:?}"
        );
        let mut wrong = layout.clone();
        wrong.end += 16;
        let e = block_problems("B", &wrong, block, &active);
        assert!(e.iter().any(|e| e.contains("data size")), "{e:?}");
    }
}
