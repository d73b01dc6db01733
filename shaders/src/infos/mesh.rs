//! `gpu_shader_mesh`: the library's ubershader. Thirteen static branches give 8192 permutations; the specialize
//! function applies the folding rules a renderer actually has (a depth-only pass has no shading features, skinned
//! meshes do not sway, foliage is alpha-tested and two-sided, …) so only the unique variants are compiled.
//!
//! Three branches carry render state of their own: `DEPTH_ONLY` (no color writes, slope-scaled depth bias),
//! `DOUBLE_SIDED` (no culling) and `TRANSPARENT` (alpha blending, depth tested but not written). `TRANSPARENT` is
//! state only: the shading code already writes the surface's alpha, so the bit is folded away once its state is
//! set and a transparent variant shares its SPIR-V modules with the opaque one.
//!
//! Inputs (every variant declares all of them; folded branches leave them unused): vertex buffer `pos` (vec3) 0,
//! `nor` (vec3) 1, `tangent` (vec4, w = handedness) 2, `uv` (vec2) 3, `color` (vec4) 4, `joints` (uvec4) 5,
//! `weights` (vec4) 6. Set 0: `view` (ViewData) 0, `shadow_map` (sampler2DShadow) 1, `shadow_matrix` (mat4,
//! world to shadow clip space) 2. Set 1: `albedo_tex` 0,
//! `normal_tex` 1, `emissive_tex` 2. Set 2: `joint_matrices[]` 0, `instance_matrices[]` 1 (mat4, std430).

use shader_info::{
    Blend, BuiltinBits, ColorWrites, CompareOp, CullMode, DepthBias, DepthState, Frequency,
    ImageType, Qualifier, ShaderCreateInfo, Stage, StageInterfaceInfo, StateItem, Type,
    VariantBuilder, shader_info,
};

/// The branch names, bit `i` of a permutation index being `MESH_BRANCHES[i]`.
pub const MESH_BRANCHES: [&str; 13] = [
    "DEPTH_ONLY",
    "SKINNING",
    "INSTANCING",
    "FOLIAGE",
    "VERTEX_COLOR",
    "NORMAL_MAP",
    "ALPHA_TEST",
    "EMISSIVE",
    "FOG",
    "SHADOW_RECEIVE",
    "CLIP_PLANE",
    "DOUBLE_SIDED",
    "TRANSPARENT",
];

/// Folding rules of the mesh ubershader.
pub fn specialize_mesh(v: &mut VariantBuilder) {
    // The renderer never draws skinned meshes instanced: it batches skinned characters differently.
    if v.get("SKINNING") && v.get("INSTANCING") {
        v.never_used();
    }
    // Skinned meshes do not sway in the wind.
    if v.get("SKINNING") {
        v.set("FOLIAGE", false);
    }
    // Foliage cards are cut-out (not blended) and seen from both sides.
    if v.get("FOLIAGE") {
        v.set("ALPHA_TEST", true);
        v.set("DOUBLE_SIDED", true);
        v.set("TRANSPARENT", false);
    }
    // Two-sided surfaces are not culled (the info culls back faces).
    if v.get("DOUBLE_SIDED") {
        v.state(StateItem::Cull(CullMode::None));
    }
    // Emissive surfaces ignore fog in this renderer's look (they glow through it), and receive no shadows.
    if v.get("EMISSIVE") {
        v.set("FOG", false);
        v.set("SHADOW_RECEIVE", false);
    }
    // Tangents only matter with a normal map; vertex colors are baked into the albedo of normal-mapped assets.
    if v.get("NORMAL_MAP") {
        v.set("VERTEX_COLOR", false);
    }
    // A depth-only pass (shadow map, prepass) has no shading: only what changes coverage or position stays.
    if v.get("DEPTH_ONLY") {
        for shading in [
            "VERTEX_COLOR",
            "NORMAL_MAP",
            "EMISSIVE",
            "FOG",
            "SHADOW_RECEIVE",
            "DOUBLE_SIDED",
            "TRANSPARENT",
        ] {
            v.set(shading, false);
        }
        v.source(Stage::Fragment, "3d/mesh_depth.frag.glsl");
        // Depth only: the color attachment is left as it is, and depth is biased by the surface's slope, as a
        // shadow map needs against self-shadowing acne (a prepass is drawn with this technique too: the bias only
        // pushes depth away, so the lit pass's LessOrEqual test still passes).
        v.state(StateItem::ColorWrites(0, ColorWrites::NONE));
        v.state(StateItem::DepthBias(Some(DepthBias {
            // A whole number of depth units: WebGPU takes no fraction.
            constant: 1.0,
            slope: 1.75,
            clamp: 0.0,
        })));
    }
    // A transparent surface is drawn after the opaque ones, blended over them by its alpha; it tests depth against
    // them but does not write it, so transparent surfaces behind it stay visible. Its code is the opaque variant's,
    // so the bit is folded away once the state is set: the two share their modules.
    if v.get("TRANSPARENT") {
        v.state(StateItem::Blend(Blend::Alpha));
        v.state(StateItem::Depth(Some(DepthState::test(
            CompareOp::LessOrEqual,
        ))));
        v.set("TRANSPARENT", false);
    }
}

fn mesh_iface() -> StageInterfaceInfo {
    StageInterfaceInfo::new("mesh_iface", "mesh")
        .smooth(Type::Vec3, "world_position")
        .smooth(Type::Vec3, "world_normal")
        .smooth(Type::Vec4, "world_tangent")
        .smooth(Type::Vec2, "uv")
        .smooth(Type::Vec4, "color")
}

/// The mesh ubershader (see the module docs for its inputs).
#[shader_info]
pub fn gpu_shader_mesh() -> ShaderCreateInfo {
    let mut info = ShaderCreateInfo::new("gpu_shader_mesh")
        .vertex_in(0, Type::Vec3, "pos")
        .vertex_in(1, Type::Vec3, "nor")
        .vertex_in(2, Type::Vec4, "tangent")
        .vertex_in(3, Type::Vec2, "uv")
        .vertex_in(4, Type::Vec4, "color")
        .vertex_in(5, Type::UVec4, "joints")
        .vertex_in(6, Type::Vec4, "weights")
        .vertex_out(&mesh_iface())
        .fragment_out(0, Type::Vec4, "frag_color")
        .sampler(1, ImageType::Shadow2D, "shadow_map", Frequency::Pass)
        .uniform_buf(2, "mat4", "shadow_matrix", Frequency::Pass)
        .sampler(0, ImageType::Float2D, "albedo_tex", Frequency::Batch)
        .sampler(1, ImageType::Float2D, "normal_tex", Frequency::Batch)
        .sampler(2, ImageType::Float2D, "emissive_tex", Frequency::Batch)
        .storage_buf(
            0,
            Qualifier::Read,
            "mat4",
            "joint_matrices[]",
            Frequency::Geometry,
        )
        .storage_buf(
            1,
            Qualifier::Read,
            "mat4",
            "instance_matrices[]",
            Frequency::Geometry,
        )
        .push_constant(Type::Vec4, "base_color")
        .push_constant(Type::Vec4, "clip_plane")
        .push_constant(Type::Float, "alpha_cutoff")
        .push_constant(Type::Float, "emissive_strength")
        .push_constant(Type::Float, "fog_density")
        .push_constant(Type::Float, "wind_time")
        .builtins(
            BuiltinBits::INSTANCE_ID | BuiltinBits::FRONT_FACING | BuiltinBits::CLIP_DISTANCES,
        )
        .vertex_source("3d/mesh.vert.glsl")
        .fragment_source("3d/mesh.frag.glsl")
        .additional_info("gpu_view_uniforms")
        .additional_info("gpu_modelmat")
        .depth(DepthState::test_write(CompareOp::LessOrEqual))
        .cull(CullMode::Back)
        .specialize(specialize_mesh)
        .do_static_compilation(true);
    for b in MESH_BRANCHES {
        info = info.branch(b);
    }
    info
}
