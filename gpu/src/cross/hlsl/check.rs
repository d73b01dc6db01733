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

/// Binding shifts given to glslang per HLSL register class, so a reflected binding names its class and register.
const HLSL_SHIFTS: [(char, &str, u32); 4] = [
    ('t', "--shift-texture-binding", 1000),
    ('s', "--shift-sampler-binding", 2000),
    ('b', "--shift-UBO-binding", 3000),
    ('u', "--shift-uav-binding", 4000),
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
