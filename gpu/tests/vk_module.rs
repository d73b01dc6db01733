//! Shader-module valid-usage checks (seed 002): bad code is rejected before the driver sees it.

use gpu::vk::testing::{assert_no_validation_messages, glslc, test_context};
use gpu::vk::{ModuleError, SPIRV_MAGIC, ShaderModule, VkError};
use shader_info::Stage;

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
    let err = gpu::vk::VkContext::new(&gpu::vk::ContextOptions {
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
