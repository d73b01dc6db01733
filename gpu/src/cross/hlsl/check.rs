//! The HLSL check: glslang's HLSL front end compiles the text (in process or as `glslangValidator -D`), SPIRV-Tools
//! validates the result, and its reflection — every register's class, number and space, every cbuffer member
//! offset — is compared with the map and the declaration.

use super::glslang_input::glslang_hlsl;
use crate::cross::check::bindings::{describe, used_bindings};
use crate::cross::check::command::{run, stage_arg};
use crate::cross::check::layout::{Offsets, compare_offsets, declared_offsets, reflected_offsets};
use crate::cross::check::native;
use crate::cross::{Portable, Translation};
use crate::reflect::reflect;
use shader_info::HlslRegister;
use std::process::Command;

/// How far apart the register classes' bindings are put: past every register a declaration can give (bindings
/// up to [`shader_info::MAX_BINDING`]; with 1000, a `b1000` read as `u0`), and within glslang's bindings (below
/// 0xFFFF: four classes of 8,192).
const CLASS_SPACING: u32 = 1 << 13;
const _: () = assert!(shader_info::MAX_BINDING < CLASS_SPACING && 5 * CLASS_SPACING <= 0xFFFF);

/// Binding shifts given to glslang per HLSL register class, so a reflected binding names its class and register.
const HLSL_SHIFTS: [(char, &str, u32); 4] = [
    ('t', "--shift-texture-binding", CLASS_SPACING),
    ('s', "--shift-sampler-binding", 2 * CLASS_SPACING),
    ('b', "--shift-UBO-binding", 3 * CLASS_SPACING),
    ('u', "--shift-uav-binding", 4 * CLASS_SPACING),
];

pub(crate) fn check(p: &Portable, t: &Translation) -> Vec<String> {
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
            .find(|(_, _, s)| d.binding >= *s && d.binding < s + CLASS_SPACING)
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
            // The cbuffer holds the block struct, whose members are the block's (the declared buffer member):
            // both sides are keyed from there (`view`, `view.camera_position`). Keys stripped of their first
            // part on one side only matched nothing, and no offset was compared.
            reflected_offsets(members, &layout.members, "", &mut actual);
            compare_offsets(&describe(b), &d3d_settled(layout), &actual, &mut out);
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

/// The declared offsets glslang's `--hlsl-offsets` and Direct3D's packing agree on, keyed as
/// [`reflected_offsets`] keys them: every member up to and including the first whose last register can hold the
/// next member (a matrix or array whose rows or elements are not whole 16-byte registers, a struct whose size is
/// not). Direct3D packs the next member into that tail, and naga writes the padding that needs; glslang's model
/// does not, so past such a member the two disagree about a correct translation. (Where they agree, every offset
/// is compared; before this, none was.)
fn d3d_settled(layout: &shader_info::BlockLayout) -> Offsets {
    use shader_info::{FieldArray, FieldType};
    /// Whether a value of `m`'s type ends on a register boundary (its last register full).
    fn closed(m: &shader_info::MemberLayout) -> bool {
        let element_closed = match &m.ty {
            FieldType::Value(t) => {
                let (_, rows) = t.shape();
                // A vector's tail is packed alike by both; a matrix's rows (std140 columns) must be whole.
                if t.is_matrix() {
                    rows == 4
                } else {
                    m.array == FieldArray::None || rows == 4
                }
            }
            FieldType::Struct(_) => m
                .nested
                .as_ref()
                .is_some_and(|n| n.end.is_multiple_of(16) && n.members.iter().all(closed)),
        };
        element_closed
            && (m.array == FieldArray::None || m.array_stride.is_some_and(|s| s.is_multiple_of(16)))
    }
    fn walk(members: &[shader_info::MemberLayout], prefix: &str, out: &mut Offsets) -> bool {
        for m in members {
            let path = if prefix.is_empty() {
                m.name.clone()
            } else {
                format!("{prefix}.{}", m.name)
            };
            let whole = closed(m);
            out.insert(
                path.clone(),
                (m.offset, m.array_stride.filter(|_| whole), m.matrix_stride),
            );
            if let Some(n) = &m.nested
                && whole
            {
                let p = if m.array == FieldArray::None {
                    path
                } else {
                    format!("{path}[]")
                };
                walk(&n.members, &p, out);
            }
            if !whole {
                return false;
            }
        }
        true
    }
    let mut out = Offsets::new();
    walk(&layout.members, "", &mut out);
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_parse() {
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
    }
}
