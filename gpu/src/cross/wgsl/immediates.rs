//! Push-constant blocks that WGSL's immediates cannot hold.
//!
//! WebGPU's `var<immediate>` takes no arrays (Tint: "arrays cannot be used in the `<immediate>` address space"; naga
//! and wgpu accept them, Chrome and every Dawn-based implementation refuse them), and a WebGPU implementation need
//! not take more than [`WEBGPU_IMMEDIATE_BYTES`] bytes of them (a pipeline layout with more fails to create there).
//! Such a block, with an array member at any depth or larger than that, is therefore read in the WGSL translation
//! from the place every WebGPU implementation takes and the wgpu backend already binds on devices without
//! immediates: a read-only storage buffer at `@group(PUSH_CONSTANT_SPACE) @binding(0)` holding the block's std430
//! bytes (valid storage offsets as they are). The host code does not change: the wgpu backend's push call writes
//! that buffer and binds it (`shader_info_gpu::wgpu::PushConstants::Buffer`), and on a device whose immediates
//! hold the block (native Vulkan takes 128 bytes or more) it moves the block back into immediates. Vulkan, MSL,
//! HLSL and GL keep their push constants: arrays are fine there.

use shader_info::{
    BlockLayout, FieldArray, MAX_PUSH_CONSTANT_BYTES, PUSH_CONSTANT_SPACE, PushConstantPlan,
};

/// The immediate bytes every WebGPU implementation takes: the specification's guaranteed `maxImmediateSize`
/// (Direct3D 12's root signature bounds it; Dawn exposes no more on any backend).
pub const WEBGPU_IMMEDIATE_BYTES: u32 = 64;

/// Whether the WGSL translation of a stage with this block (the text the static pass writes and checks) reads it
/// from a storage buffer rather than immediates: it has an array member at any depth, or its WGSL size is over
/// [`WEBGPU_IMMEDIATE_BYTES`] (and it was not already spilled to a declared buffer).
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
    block.spill.is_none()
        && (has_array(&block.layout) || block.twin_size() > WEBGPU_IMMEDIATE_BYTES)
}

/// Whether the block can be immediates on a device that takes `max` bytes of them: no array member, and its WGSL
/// size (what the pipeline layout reserves) fits. Where it holds, the wgpu backend reads the block from
/// immediates whatever the WGSL text says.
///
/// ```
/// use shader_info::*;
/// use shader_info_gpu::cross::immediates::{immediates_fit, wgsl_reads_from_buffer};
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("five")
///     .push_constant(Type::Mat4, "model")
///     .push_constant(Type::Vec4, "tint")
///     .local_group_size(1)
///     .compute_source("x.comp"));
/// let plan = PipelinePlan::new(&reg.validated("five").unwrap(), &reg);
/// let block = plan.push_constants.as_ref().unwrap();
/// assert!(wgsl_reads_from_buffer(block)); // 80 bytes: not every WebGPU implementation takes them
/// assert!(immediates_fit(block, 128) && !immediates_fit(block, 64));
/// ```
pub fn immediates_fit(block: &PushConstantPlan, max: u32) -> bool {
    block.spill.is_none() && !has_array(&block.layout) && block.twin_size() <= max
}

/// Whether the block has an array member at any depth.
pub(crate) fn has_array(layout: &BlockLayout) -> bool {
    layout
        .members
        .iter()
        .any(|m| m.array != FieldArray::None || m.nested.as_deref().is_some_and(has_array))
}

/// The group and binding the WGSL reads such a block from.
pub const WGSL_BUFFER_PLACE: (u32, u32) = (PUSH_CONSTANT_SPACE, 0);

/// `module` with its push-constant block where a device that takes `max` bytes of immediates reads it
/// (immediates when its type has no array and fits in `max`, else the read-only storage buffer at
/// [`WGSL_BUFFER_PLACE`]); `None` where it is there already. The block is the module's `var<immediate>` or its
/// storage buffer at that place. A block over [`MAX_PUSH_CONSTANT_BYTES`] at that place is a spilled one
/// ([`shader_info::PushConstantSpill`]: a declared buffer on every target, never immediates), and stays.
pub(crate) fn place_push_block(module: &naga::Module, max: u32) -> Option<naga::Module> {
    let mut layouter = naga::proc::Layouter::default();
    // Types without a layout: naga's validation says why, after.
    let laid_out = layouter.update(module.to_ctx()).is_ok();
    let moves: Vec<_> = module
        .global_variables
        .iter()
        .filter_map(|(h, g)| {
            let is_buffer = matches!(g.space, naga::AddressSpace::Storage { .. })
                && g.binding.as_ref().map(|b| (b.group, b.binding)) == Some(WGSL_BUFFER_PLACE);
            if g.space != naga::AddressSpace::Immediate && !is_buffer {
                return None;
            }
            let size = laid_out.then(|| layouter[g.ty].size);
            if is_buffer && size.is_none_or(|s| s > MAX_PUSH_CONSTANT_BYTES) {
                return None;
            }
            let fits = size.is_some_and(|s| s <= max) && !type_has_array(&module.types, g.ty);
            (fits == is_buffer).then_some((h, fits))
        })
        .collect();
    if moves.is_empty() {
        return None;
    }
    let mut module = module.clone();
    for (h, to_immediates) in moves {
        let g = &mut module.global_variables[h];
        if to_immediates {
            g.space = naga::AddressSpace::Immediate;
            g.binding = None;
        } else {
            g.space = naga::AddressSpace::Storage {
                access: naga::StorageAccess::LOAD,
            };
            g.binding = Some(naga::ResourceBinding {
                group: WGSL_BUFFER_PLACE.0,
                binding: WGSL_BUFFER_PLACE.1,
            });
        }
    }
    Some(module)
}

fn type_has_array(types: &naga::UniqueArena<naga::Type>, ty: naga::Handle<naga::Type>) -> bool {
    match &types[ty].inner {
        naga::TypeInner::Array { .. } | naga::TypeInner::BindingArray { .. } => true,
        naga::TypeInner::Struct { members, .. } => {
            members.iter().any(|m| type_has_array(types, m.ty))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(block: &str, place: &str) -> naga::Module {
        naga::front::wgsl::parse_str(&format!(
            "struct B {{ {block} }}\n{place} b: B;\n@compute @workgroup_size(1) fn main() {{ _ = b; }}\n"
        ))
        .unwrap()
    }

    fn space(m: &naga::Module) -> naga::AddressSpace {
        m.global_variables.iter().next().unwrap().1.space
    }

    #[test]
    fn a_block_moves_to_where_the_device_reads_it_and_a_spilled_one_stays() {
        let buffer = "@group(3) @binding(0) var<storage>";
        // 96 bytes: the buffer path's block, immediates where a device takes 96 bytes.
        let wide = module("m: mat4x4<f32>, t: vec4<f32>, n: u32,", buffer);
        assert!(place_push_block(&wide, 64).is_none());
        let moved = place_push_block(&wide, 128).unwrap();
        assert_eq!(space(&moved), naga::AddressSpace::Immediate);
        assert!(
            moved
                .global_variables
                .iter()
                .next()
                .unwrap()
                .1
                .binding
                .is_none()
        );
        // And back, where it does not fit.
        let back = place_push_block(&moved, 64).unwrap();
        assert_eq!(
            back.global_variables.iter().next().unwrap().1.binding,
            Some(naga::ResourceBinding {
                group: 3,
                binding: 0
            })
        );
        // 208 bytes at the same place is a spilled block, a declared buffer: it stays, whatever the device takes.
        let spilled = module(
            "a: mat4x4<f32>, b: mat4x4<f32>, c: mat4x4<f32>, n: u32,",
            buffer,
        );
        assert!(place_push_block(&spilled, 4096).is_none());
        // An array never goes to immediates.
        let planes = module("p: array<vec4<f32>, 2>,", buffer);
        assert!(place_push_block(&planes, 4096).is_none());
        let immediate = module("p: array<vec4<f32>, 2>,", "var<immediate>");
        assert!(matches!(
            space(&place_push_block(&immediate, 4096).unwrap()),
            naga::AddressSpace::Storage { .. }
        ));
    }
}
