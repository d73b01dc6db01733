//! Helpers for tests that need a device: create one with validation on, skip cleanly where Vulkan is missing
//! (unless `SHADER_INFO_REQUIRE_VULKAN=1`, which CI sets), and assert that validation stayed silent.

use super::{ContextOptions, VkContext, VkError};

/// The environment variable that turns a missing Vulkan driver from a skip into a failure.
pub const REQUIRE_VULKAN_ENV: &str = "SHADER_INFO_REQUIRE_VULKAN";

/// A context with validation on, or `None` (after printing why) when this machine has no Vulkan.
///
/// # Panics
/// When Vulkan is missing and `SHADER_INFO_REQUIRE_VULKAN=1`, or on any other context error.
///
/// ```no_run
/// let Some(ctx) = gpu::vk::testing::test_context() else { return };
/// // … use ctx …
/// gpu::vk::testing::assert_no_validation_messages(&ctx);
/// ```
pub fn test_context() -> Option<VkContext> {
    let opts = ContextOptions {
        validation: true,
        ..ContextOptions::default()
    };
    match VkContext::new(&opts) {
        Ok(ctx) => Some(ctx),
        Err(e @ (VkError::NoVulkan { .. } | VkError::NoValidationLayer)) => {
            if std::env::var(REQUIRE_VULKAN_ENV).as_deref() == Ok("1") {
                panic!("{REQUIRE_VULKAN_ENV}=1 but: {e}");
            }
            eprintln!("skipping Vulkan test: {e}");
            None
        }
        Err(e) => panic!("cannot create a Vulkan context: {e}"),
    }
}

/// Panics with every message when the validation layer reported a warning or an error.
pub fn assert_no_validation_messages(ctx: &VkContext) {
    let n = ctx.validation_count();
    if n != 0 {
        let msgs: Vec<String> = ctx
            .validation_messages()
            .iter()
            .map(|m| m.to_string())
            .collect();
        panic!("{n} validation warning(s)/error(s):\n{}", msgs.join("\n"));
    }
}

/// Compiles GLSL with the `glslc` command (Vulkan 1.3, SPIR-V 1.5): a compiler independent of the crate's own,
/// for tests of the lower layers (modules, layouts, pipelines) that should not depend on it.
///
/// ```no_run
/// let spirv = gpu::vk::testing::glslc("#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
///                                     shader_info::Stage::Compute).unwrap();
/// assert_eq!(spirv[0], gpu::vk::SPIRV_MAGIC);
/// ```
pub fn glslc(source: &str, stage: shader_info::Stage) -> Result<Vec<u32>, String> {
    super::library::run_glslc(source, stage, None)
}
