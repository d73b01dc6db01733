//! The OpenGL (ES) check: glslang compiles the text for its GLSL version (in process or as `glslangValidator -l -q`)
//! and its reflection — every binding point, every active uniform-block and buffer member offset — is compared with
//! the map and the declaration.

use crate::cross::check::bindings::{describe, used_bindings};
use crate::cross::check::command::{run, stage_arg};
use crate::cross::check::layout::declared_offsets;
use crate::cross::check::native;
use crate::cross::{Portable, Translation};
use shader_info::GlClass;
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
            Some("lights[].color")
        );
        assert_eq!(gl_member_path("b.lights[1].color"), None);
        assert_eq!(gl_member_path("b.bins[0]").as_deref(), Some("bins"));
        assert_eq!(naga_gl_name("_group_2_binding_13_vs"), Some((2, 13)));
    }
}
