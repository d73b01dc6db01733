//! The shader library: GLSL sources under `glsl/` and the infos that describe them.
//!
//! Link the crate (`use shaders as _;`) and every info below is in [`shader_info::Registry::global`]; generate a
//! stage with a [`shader_info::DirLoader`] rooted at [`glsl_root`].
//!
//! ```
//! use shader_info::{DirLoader, GenerateOptions, Registry, Stage, generate};
//! let registry = Registry::global();
//! let info = registry.validated("gpu_shader_2D_uniform_color").unwrap();
//! let loader = DirLoader::new(shaders::glsl_root());
//! let opts = GenerateOptions::new(&loader, registry);
//! let frag = generate(&info, Stage::Fragment, &opts).unwrap();
//! assert!(frag.source.contains("srgb_to_framebuffer_space(color)"));
//! ```
//!
//! # Compilable infos
//! | family | infos |
//! |---|---|
//! | 2D (UI, sRGB colors) | `gpu_shader_2D_uniform_color`, `gpu_shader_2D_flat_color`, `gpu_shader_2D_smooth_color`, `gpu_shader_2D_image`, `gpu_shader_2D_image_color`, `gpu_shader_2D_image_rect_color`, `gpu_shader_text`, `gpu_shader_2D_point_round`, `gpu_shader_2D_point_quad_round` |
//! | 3D (linear HDR scene) | `gpu_shader_3D_uniform_color`, `gpu_shader_3D_flat_color`, `gpu_shader_3D_smooth_color`, `gpu_shader_3D_polyline`, `gpu_shader_3D_depth_only`, `gpu_shader_forward_lit`, `gpu_shader_skybox`, `gpu_shader_3D_particles` |
//! | fullscreen | `gpu_shader_fullscreen_tonemap`, `gpu_shader_fullscreen_blit`, `gpu_shader_fullscreen_grade` (subpass input) |
//! | compute | `gpu_compute_pattern`, `gpu_compute_blur_horizontal`, `gpu_compute_blur_vertical`, `gpu_compute_prefix_sum`, `gpu_compute_histogram`, `gpu_compute_downsample`, `gpu_compute_particles`, `gpu_compute_cull` |
//! | ray tracing | `gpu_raytrace_lit`, `gpu_raytrace_barycentric` |
//!
//! # Building blocks (not compilable, reused through `additional_info`)
//! `gpu_mvp`, `gpu_modelmat`, `gpu_srgb_to_framebuffer_space`, `gpu_view_uniforms`, `gpu_fullscreen`,
//! `gpu_shader_2D_image_common`, `gpu_compute_blur`, `gpu_raytrace_scene`.
//!
//! # GLSL layout
//! - `glsl/common/`: helpers shared by every family (math, color spaces, tone curves, lighting, quads, view rays),
//!   pulled in with `#pragma require(common/…)` or `#include <common/…>`, each guarded against double inclusion.
//! - `glsl/2d/`, `glsl/3d/`, `glsl/fullscreen/`, `glsl/compute/`, `glsl/raytrace/`: stage sources, named
//!   `<what>.<stage>.glsl`.
//!
//! Each info's doc comment states its contract: bindings, push constants, and how to draw or dispatch it.

pub mod demo;
pub mod infos;
pub mod pipelines;
pub mod watch_command;

pub use infos::structs::{
    CullObject, DrawIndexedIndirectCommand, GlyphQuad, Particle, PolylinePoint, ViewData,
};

/// The directory holding the library's GLSL sources (the root for `DirLoader` and for `#include <…>`).
pub fn glsl_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("glsl")
}
