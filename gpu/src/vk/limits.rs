//! What a Vulkan device allows, in the core's terms ([`DeviceLimits`]): read by the shader library's checks and by
//! a layout made from a plan.

use super::device::VkContext;
use crate::library::{DeviceLimits, InterfaceLimits};
use shader_info::DescriptorCounts;

/// What `ctx`'s device allows, in the core's terms.
pub(crate) fn device_limits(ctx: &VkContext) -> DeviceLimits {
    let l = &ctx.properties().limits;
    // Without ray tracing no acceleration structure is bound (its module is refused for the missing feature).
    let rt = ctx.ray_tracing();
    let per_stage_accel = rt.map_or(u32::MAX, |r| r.max_per_stage_acceleration_structures);
    let set_accel = rt.map_or(u32::MAX, |r| r.max_set_acceleration_structures);
    DeviceLimits {
        max_work_group_size: l.max_compute_work_group_size,
        max_work_group_invocations: l.max_compute_work_group_invocations,
        max_shared_memory: l.max_compute_shared_memory_size,
        max_color_attachments: l.max_color_attachments,
        per_stage_descriptors: DescriptorCounts {
            samplers: l.max_per_stage_descriptor_samplers,
            sampled_images: l.max_per_stage_descriptor_sampled_images,
            storage_images: l.max_per_stage_descriptor_storage_images,
            uniform_buffers: l.max_per_stage_descriptor_uniform_buffers,
            storage_buffers: l.max_per_stage_descriptor_storage_buffers,
            input_attachments: l.max_per_stage_descriptor_input_attachments,
            acceleration_structures: per_stage_accel,
            resources: l.max_per_stage_resources,
        },
        layout_descriptors: DescriptorCounts {
            samplers: l.max_descriptor_set_samplers,
            sampled_images: l.max_descriptor_set_sampled_images,
            storage_images: l.max_descriptor_set_storage_images,
            uniform_buffers: l.max_descriptor_set_uniform_buffers,
            storage_buffers: l.max_descriptor_set_storage_buffers,
            input_attachments: l.max_descriptor_set_input_attachments,
            acceleration_structures: set_accel,
            resources: u32::MAX,
        },
        max_uniform_buffer_range: l.max_uniform_buffer_range.into(),
        max_storage_buffer_range: l.max_storage_buffer_range.into(),
        vertex_rules: shader_info::VertexRules::Vulkan,
        vertex_input: shader_info::VertexInputLimits {
            buffers: l.max_vertex_input_bindings,
            stride: l.max_vertex_input_binding_stride,
            attribute_offset: l.max_vertex_input_attribute_offset,
        },
        max_geometry_invocations: l.max_geometry_shader_invocations,
        max_geometry_total_output_components: l.max_geometry_total_output_components,
        max_tess_patch_output_components: l.max_tessellation_control_per_patch_output_components,
        max_tess_total_output_components: l.max_tessellation_control_total_output_components,
        interface_components: InterfaceLimits {
            vertex_out: l.max_vertex_output_components,
            tess_control_in: l.max_tessellation_control_per_vertex_input_components,
            tess_control_out: l.max_tessellation_control_per_vertex_output_components,
            tess_evaluation_in: l.max_tessellation_evaluation_input_components,
            tess_evaluation_out: l.max_tessellation_evaluation_output_components,
            geometry_in: l.max_geometry_input_components,
            geometry_out: l.max_geometry_output_components,
            fragment_in: l.max_fragment_input_components,
        },
    }
}
