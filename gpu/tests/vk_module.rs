//! Shader-module valid-usage checks (seed 002): bad code is rejected before the driver sees it.

use shader_info::Stage;
use shader_info_gpu::vk::testing::{assert_no_validation_messages, glslc, test_context};
use shader_info_gpu::vk::{ModuleError, SPIRV_MAGIC, ShaderModule, VkError};

fn module_error(r: Result<ShaderModule, VkError>) -> ModuleError {
    match r {
        Err(VkError::Module(e)) => e,
        Err(e) => panic!("expected a module error, got {e}"),
        Ok(_) => panic!("bad code was accepted"),
    }
}

#[test]
fn bad_code_is_rejected_before_the_driver_and_good_code_is_accepted() {
    let Some(ctx) = test_context() else { return };
    eprintln!("device: {}", ctx.device_name());

    assert_eq!(
        module_error(ShaderModule::new(&ctx, &[])),
        ModuleError::Empty
    );
    assert_eq!(
        module_error(ShaderModule::from_bytes(&ctx, &[])),
        ModuleError::Empty
    );
    assert_eq!(
        module_error(ShaderModule::from_bytes(
            &ctx,
            &[0x03, 0x02, 0x23, 0x07, 0x00, 0x00]
        )),
        ModuleError::SizeNotMultipleOf4 { len: 6 }
    );
    assert_eq!(
        module_error(ShaderModule::new(
            &ctx,
            &[0xdead_beef, 0x0001_0500, 0, 1, 0]
        )),
        ModuleError::BadMagic { found: 0xdead_beef }
    );
    let swapped = module_error(ShaderModule::new(
        &ctx,
        &[SPIRV_MAGIC.swap_bytes(), 0, 0, 1, 0],
    ));
    assert!(swapped.to_string().contains("byte-swapped"), "{swapped}");
    assert_eq!(
        module_error(ShaderModule::new(&ctx, &[SPIRV_MAGIC, 0x0001_0500])),
        ModuleError::TooShort { words: 2 }
    );

    let spirv = glslc(
        "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
        Stage::Compute,
    )
    .unwrap();
    let bytes: Vec<u8> = spirv.iter().flat_map(|w| w.to_ne_bytes()).collect();
    let a = ShaderModule::new(&ctx, &spirv).unwrap();
    let b = ShaderModule::from_bytes(&ctx, &bytes).unwrap();
    assert_ne!(a.id(), b.id(), "every module gets its own id");
    assert_eq!(a.spirv_hash(), b.spirv_hash());
    drop((a, b));
    assert_no_validation_messages(&ctx);
}

#[test]
fn asking_for_a_missing_device_lists_the_available_ones() {
    let Some(ctx) = test_context() else { return };
    let err = shader_info_gpu::vk::VkContext::new(&shader_info_gpu::vk::ContextOptions {
        validation: false,
        device_name: Some("no such gpu 9000".into()),
        ..Default::default()
    })
    .unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("no such gpu 9000") && text.contains(ctx.device_name()),
        "{text}"
    );
    assert_no_validation_messages(&ctx);
}

/// Malformed SPIR-V (seeded mutations of a real module: flipped words, truncation, bad headers, zeroed and huge
/// word counts) is refused by the rule it breaks, never handed to the driver, and reflection never panics on it.
/// Code that passes the structural checks is created with the validation layer on, which must not crash.
#[test]
fn mutated_spirv_is_refused_by_rule_and_never_panics() {
    let Some(ctx) = test_context() else { return };
    let spirv = glslc(
        "#version 450\nlayout(local_size_x = 8) in;\nlayout(set = 0, binding = 0) buffer B { uint v[]; } b;\n\
         void main() { b.v[gl_GlobalInvocationID.x] *= 2u; }\n",
        Stage::Compute,
    )
    .unwrap();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut refused, mut structurally_valid) = (0, 0);
    for case in 0..2_000 {
        let mut words = spirv.clone();
        match case % 6 {
            0 => {
                let i = next() as usize % words.len();
                words[i] ^= 1 << (next() % 32);
            }
            1 => words.truncate(next() as usize % words.len()),
            2 => words[1 + next() as usize % 4] = next() as u32,
            3 => {
                // An instruction's word count zeroed or made huge.
                let i = 5 + next() as usize % (words.len() - 5);
                words[i] = (words[i] & 0xFFFF) | (((next() % 3) as u32 * 0x7FFF) << 16);
            }
            4 => words.extend((0..next() % 8).map(|_| next() as u32)),
            _ => {
                let i = next() as usize % words.len();
                words[i] = next() as u32;
            }
        }
        let reflected = std::panic::catch_unwind(|| shader_info_gpu::reflect::reflect(&words));
        assert!(reflected.is_ok(), "case {case}: reflection panicked");
        match shader_info_gpu::vk::check_spirv(&words) {
            Err(e) => {
                refused += 1;
                assert!(!e.to_string().is_empty());
                match ShaderModule::new(&ctx, &words) {
                    Err(VkError::Module(m)) => assert_eq!(m, e, "case {case}"),
                    other => panic!(
                        "case {case}: {e} but module creation gave {:?}",
                        other.map(|_| ())
                    ),
                }
            }
            Ok(()) => structurally_valid += 1,
        }
    }
    eprintln!(
        "{refused} of 2000 mutations refused by a structural rule, {structurally_valid} structurally valid"
    );
    // Operand flips often leave the layout intact; the header, count and truncation cases must all be caught.
    assert!(refused > 600, "{refused}");
    drop(ctx);
}
