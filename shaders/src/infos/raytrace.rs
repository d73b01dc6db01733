//! Ray tracing (`VK_KHR_ray_tracing_pipeline`): primary rays from the camera of [`ViewData`](super::structs::ViewData),
//! a sky miss shader and interchangeable closest-hit shaders. Launch with the output image's width × height × 1;
//! shader groups: raygen, miss 0, hit group 0.

use shader_info::{Frequency, ImageType, Qualifier, ShaderCreateInfo, TextureFormat, shader_info};

/// Shared by the ray-tracing infos (not compilable: no closest-hit stage). Set 0: binding 0 `view` (ViewData),
/// binding 1 `scene` (top-level acceleration structure), binding 2 `out_image` (rgba16f storage image, written with
/// linear radiance).
#[shader_info]
pub fn gpu_raytrace_scene() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_raytrace_scene")
        .acceleration_structure(1, "scene", Frequency::Pass)
        .image(
            2,
            TextureFormat::Rgba16f,
            Qualifier::Write,
            ImageType::Float2D,
            "out_image",
            Frequency::Pass,
        )
        .raygen_source("raytrace/primary.rgen.glsl")
        .miss_source("raytrace/sky.rmiss.glsl")
        .additional_info("gpu_view_uniforms")
}

/// Lit primary rays: sun + ambient like the forward pass. Adds set 0 binding 3 `rt_positions[]` (vec4 per vertex,
/// object space) and binding 4 `rt_indices[]` (uint, a triangle list): the scene is one geometry.
#[shader_info]
pub fn gpu_raytrace_lit() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_raytrace_lit")
        .storage_buf(
            3,
            Qualifier::Read,
            "vec4",
            "rt_positions[]",
            Frequency::Pass,
        )
        .storage_buf(4, Qualifier::Read, "uint", "rt_indices[]", Frequency::Pass)
        .closest_hit_source("raytrace/lambert.rchit.glsl")
        .additional_info("gpu_raytrace_scene")
        .do_static_compilation(true)
}

/// Debug primary rays: the barycentrics of each hit as a color; no geometry buffers.
#[shader_info]
pub fn gpu_raytrace_barycentric() -> ShaderCreateInfo {
    ShaderCreateInfo::new("gpu_raytrace_barycentric")
        .closest_hit_source("raytrace/barycentric.rchit.glsl")
        .additional_info("gpu_raytrace_scene")
        .do_static_compilation(true)
}
