//! Push-constant blocks that WGSL's immediates cannot hold.
//!
//! WebGPU's `var<immediate>` takes no arrays (Tint: "arrays cannot be used in the `<immediate>` address space"; naga
//! and wgpu accept them, Chrome and every Dawn-based implementation refuse them). A block with an array member,
//! at any depth, is therefore read in WGSL from the place every WebGPU implementation takes and the wgpu backend
//! already binds on devices without immediates: a read-only storage buffer at
//! `@group(PUSH_CONSTANT_SPACE) @binding(0)` holding the block's std430 bytes (valid storage offsets as they are).
//! The host code does not change: the wgpu backend's push call writes that buffer and binds it
//! (`shader_info_gpu::wgpu::PushConstants::Buffer`). Vulkan, MSL, HLSL and GL keep their push
//! constants: arrays are fine there.

use shader_info::{BlockLayout, FieldArray, PUSH_CONSTANT_SPACE, PushConstantPlan};

/// Whether the WGSL of a stage with this block reads it from a storage buffer rather than immediates: it has an
/// array member at any depth (and was not already spilled to a declared buffer).
///
/// ```
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("planes")
///     .push_constant_array(Type::Vec4, "planes", 6)
///     .local_group_size(1)
///     .compute_source("x.comp"));
/// let plan = PipelinePlan::new(&reg.validated("planes").unwrap(), &reg);
/// assert!(shader_info_gpu::cross::immediates::wgsl_reads_from_buffer(plan.push_constants.as_ref().unwrap()));
/// ```
pub fn wgsl_reads_from_buffer(block: &PushConstantPlan) -> bool {
    block.spill.is_none() && has_array(&block.layout)
}

fn has_array(layout: &BlockLayout) -> bool {
    layout
        .members
        .iter()
        .any(|m| m.array != FieldArray::None || m.nested.as_deref().is_some_and(has_array))
}

/// The group and binding the WGSL reads such a block from.
pub const WGSL_BUFFER_PLACE: (u32, u32) = (PUSH_CONSTANT_SPACE, 0);

/// `module` with its immediate globals turned into the read-only storage buffer at [`WGSL_BUFFER_PLACE`].
pub(crate) fn to_storage_buffer(module: &naga::Module) -> naga::Module {
    let mut module = module.clone();
    for (_, g) in module.global_variables.iter_mut() {
        if g.space == naga::AddressSpace::Immediate {
            g.space = naga::AddressSpace::Storage {
                access: naga::StorageAccess::LOAD,
            };
            g.binding = Some(naga::ResourceBinding {
                group: WGSL_BUFFER_PLACE.0,
                binding: WGSL_BUFFER_PLACE.1,
            });
        }
    }
    module
}
