//! The Blender prelude ([`crate::ShaderCreateInfo::blender_compat`]): the macros every stage of a port of Blender's
//! sources starts with, per stage, and what validation, resolution and the builtin scans read of them.

use crate::types::Stage;

/// What Blender's GLSL prelude gives every stage that sources ported from Blender meet
/// ([`crate::ShaderCreateInfo::blender_compat`]): the create-info symbol, the vector and matrix names of its shared
/// C++/GLSL dialect and the other type names of its GLSL backend, the macros its shared utility header defines for
/// GLSL (static assertions, `static`, `inline`, the `cosf` family), the derivative signs, the layer and viewport
/// names, and the create-info lint stubs; and what the GLSL compatibility header of Blender 4.5 and later adds for
/// sources written in its C++-compatible style (`constexpr` as `const`, the `packed_` vector types, the depth
/// sampler types, `textureGather0`…`3`, `imageFence`, and the Metal address-space words `constant`, `device`,
/// `thread`, `threadgroup` as nothing), with its matrix reshaping functions (`to_float3x3(m4)`: the upper-left
/// part; Blender's backend defines them, and its draw libraries call them).
///
/// A ported header may define these names again, as Blender's own `GPU_shader_shared_utils` header does: glslang
/// takes a second definition only when it is the same, so each is spelt as Blender spells it there (argument names
/// included).
pub const BLENDER_PRELUDE: &str = "\
#define USE_GPU_SHADER_CREATE_INFO
#define float1 float
#define float2 vec2
#define float3 vec3
#define float4 vec4
#define float2x2 mat2
#define float3x3 mat3
#define float4x4 mat4
#define float2x3 mat2x3
#define float2x4 mat2x4
#define float3x2 mat3x2
#define float3x4 mat3x4
#define float4x2 mat4x2
#define float4x3 mat4x3
#define int1 int
#define int2 ivec2
#define int3 ivec3
#define int4 ivec4
#define uint1 uint
#define uint2 uvec2
#define uint3 uvec3
#define uint4 uvec4
#define bool1 bool
#define bool2 bvec2
#define bool3 bvec3
#define bool4 bvec4
#define bool32_t bool
#define packed_float3 vec3
#define packed_int3 int3
#define packed_uint3 uvec3
#define packed_float2 float2
#define packed_int2 int2
#define packed_uint2 uint2
#define packed_float4 float4
#define packed_int4 int4
#define packed_uint4 uint4
#define int32_t int
#define uint32_t uint
#define char int
#define char2 int2
#define char3 int3
#define char4 int4
#define short int
#define short2 int2
#define short3 int3
#define short4 int4
#define uchar uint
#define uchar2 uint2
#define uchar3 uint3
#define uchar4 uint4
#define ushort uint
#define ushort2 uint2
#define ushort3 uint3
#define ushort4 uint4
#define half float
#define half2 float2
#define half3 float3
#define half4 float4
#define depth2D sampler2D
#define depth2DArray sampler2DArray
#define depth2DMS sampler2DMS
#define depth2DMSArray sampler2DMSArray
#define depthCube samplerCube
#define depthCubeArray samplerCubeArray
#define depth2DArrayShadow sampler2DArrayShadow
#define usampler2DArrayAtomic usampler2DArray
#define usampler2DAtomic usampler2D
#define usampler3DAtomic usampler3D
#define isampler2DArrayAtomic isampler2DArray
#define isampler2DAtomic isampler2D
#define isampler3DAtomic isampler3D
#define imageStoreFast imageStore
#define imageLoadFast imageLoad
#define imageFence(image)
#define sampler2DDepth sampler2D
#define sampler2DArrayDepth sampler2DArray
#define samplerCubeDepth samplerCube
#define samplerCubeArrayDepth samplerCubeArray
#define textureGather0(_tex, _co) textureGather(_tex, _co, 0)
#define textureGather1(_tex, _co) textureGather(_tex, _co, 1)
#define textureGather2(_tex, _co) textureGather(_tex, _co, 2)
#define textureGather3(_tex, _co) textureGather(_tex, _co, 3)
#define constexpr const
#define constant
#define device
#define thread
#define threadgroup
#define select(A, B, mask) mix(A, B, mask)
#define BLI_STATIC_ASSERT(cond, msg)
#define BLI_STATIC_ASSERT_ALIGN(type_, align_)
#define BLI_STATIC_ASSERT_SIZE(type_, size_)
#define ATTR_FALLTHROUGH
#define ENUM_OPERATORS(a)
#define UNUSED_VARS(a)
#define static
#define inline
#define cosf cos
#define sinf sin
#define tanf tan
#define acosf acos
#define asinf asin
#define atanf atan
#define floorf floor
#define ceilf ceil
#define sqrtf sqrt
#define expf exp
#define DFDX_SIGN 1.0
#define DFDY_SIGN 1.0
#define gpu_Layer gl_Layer
#define gpu_ViewportIndex gl_ViewportIndex
#define specialization_constant_get(create_info, _res) _res
#define shared_variable_get(create_info, _res) _res
#define push_constant_get(create_info, _res) _res
#define interface_get(create_info, _res) _res
#define attribute_get(create_info, _res) _res
#define buffer_get(create_info, _res) _res
#define sampler_get(create_info, _res) _res
#define image_get(create_info, _res) _res
#define VERTEX_SHADER_CREATE_INFO(info_)
#define FRAGMENT_SHADER_CREATE_INFO(info_)
#define GEOMETRY_SHADER_CREATE_INFO(info_)
#define COMPUTE_SHADER_CREATE_INFO(info_)
#define SHADER_LIBRARY_CREATE_INFO(info_)
mat2x2 to_float2x2(mat3x3 m) { return mat2x2(m); }
mat2x2 to_float2x2(mat4x4 m) { return mat2x2(m); }
mat3x3 to_float3x3(mat4x4 m) { return mat3x3(m); }
mat3x3 to_float3x3(mat2x2 m) { return mat3x3(m); }
mat3x3 to_float3x3(mat3x4 m) { return mat3x3(m); }
mat4x4 to_float4x4(mat2x2 m) { return mat4x4(m); }
mat4x4 to_float4x4(mat3x3 m) { return mat4x4(m); }
";

/// One macro of [`BLENDER_PRELUDE`]: validation refuses declared names it would rewrite.
pub(crate) struct PreludeMacro {
    pub name: &'static str,
    /// `name(params)`: expanded only where the name is followed by `(`.
    pub function_like: bool,
    /// What follows `#define `.
    pub definition: &'static str,
}

/// The macros of [`BLENDER_PRELUDE`] and of every stage's part, read from their text once (a name defined in two
/// stages' parts once, as the first defines it).
pub(crate) fn blender_prelude_macros() -> &'static [PreludeMacro] {
    static MACROS: std::sync::LazyLock<Vec<PreludeMacro>> = std::sync::LazyLock::new(|| {
        let mut seen = std::collections::HashSet::new();
        [
            BLENDER_PRELUDE,
            BLENDER_PRELUDE_VERTEX,
            BLENDER_PRELUDE_GEOMETRY,
            BLENDER_PRELUDE_FRAGMENT,
            BLENDER_PRELUDE_NOT_FRAGMENT,
        ]
        .into_iter()
        .flat_map(str::lines)
        .filter_map(|line| line.strip_prefix("#define "))
        .map(|definition| {
            let end = definition
                .find(|c: char| c == '(' || c.is_whitespace())
                .unwrap_or(definition.len());
            PreludeMacro {
                name: &definition[..end],
                function_like: definition[end..].starts_with('('),
                definition,
            }
        })
        .filter(|m| seen.insert(m.name))
        .collect()
    });
    &MACROS
}

/// The GLSL type a type name of Blender's dialect stands for under [`BLENDER_PRELUDE`] (`float4` is `vec4`,
/// `packed_uint3` is `uvec3`, `bool32_t` is `bool`); `None` for any other name.
///
/// ```
/// use shader_info::blender_type_alias;
/// assert_eq!(blender_type_alias("float4"), Some("vec4"));
/// assert_eq!(blender_type_alias("uint32_t"), Some("uint"));
/// assert_eq!(blender_type_alias("vec4"), None);
/// ```
pub fn blender_type_alias(name: &str) -> Option<&'static str> {
    let macros = blender_prelude_macros();
    let mut at = macros.iter().find(|m| m.name == name && !m.function_like)?;
    // Aliases of aliases (`half4` is `float4`), a few steps at most.
    for _ in 0..4 {
        let value = at.definition[at.name.len()..].trim();
        if crate::Type::from_glsl_name(value).is_some() {
            return Some(value);
        }
        at = macros
            .iter()
            .find(|m| m.name == value && !m.function_like)?;
    }
    None
}

/// The vertex stage's part of [`BLENDER_PRELUDE`]: OpenGL's vertex and instance numbers, and the names Blender's
/// Vulkan backend gives Vulkan's. Vulkan's `gl_InstanceIndex` counts from the draw's first instance, OpenGL's
/// `gl_InstanceID` from zero.
pub const BLENDER_PRELUDE_VERTEX: &str = "\
#define GPU_ARB_shader_draw_parameters
#define gpu_BaseInstance (gl_BaseInstanceARB)
#define gpu_InstanceIndex (gl_InstanceIndex)
#define gl_VertexID gl_VertexIndex
#define gl_InstanceID (gl_InstanceIndex - gl_BaseInstanceARB)
";

/// The geometry stage's part of [`BLENDER_PRELUDE`]: Blender's sources emit vertices through its own name.
pub const BLENDER_PRELUDE_GEOMETRY: &str = "#define gpu_EmitVertex EmitVertex\n";

/// The fragment stage's part of [`BLENDER_PRELUDE`]: the stage-agnostic functions of Blender's backend, and its
/// barycentric names (`GL_EXT_fragment_shader_barycentric`, written where the info declares
/// `BuiltinBits::BARYCENTRIC_COORD`).
pub const BLENDER_PRELUDE_FRAGMENT: &str = "\
#define gpu_discard_fragment() discard
#define gpu_dfdx(x) dFdx(x)
#define gpu_dfdy(x) dFdy(x)
#define gpu_fwidth(x) fwidth(x)
#define gpu_BaryCoord gl_BaryCoordEXT
#define gpu_BaryCoordNoPersp gl_BaryCoordNoPerspEXT
";

/// The other stages' forms of the stage-agnostic functions of [`BLENDER_PRELUDE_FRAGMENT`]: shared code calls them
/// from any stage, and outside a fragment stage they do nothing.
pub const BLENDER_PRELUDE_NOT_FRAGMENT: &str = "\
#define gpu_discard_fragment()
#define gpu_dfdx(x) x
#define gpu_dfdy(x) x
#define gpu_fwidth(x) x
";

/// `text` (a generated stage's, or part of it) with the lines of the Blender prelude it holds, as generated for
/// `stage`, left empty (every other line keeps its number): what scans for the code's own uses read (the
/// prelude's macros spell builtins, `gpu_Layer` being `gl_Layer`). Text without the prelude is returned as it is.
///
/// ```
/// use shader_info::{without_blender_prelude, Stage, BLENDER_PRELUDE, BLENDER_PRELUDE_NOT_FRAGMENT};
/// let text = format!("#version 450\n{BLENDER_PRELUDE}{BLENDER_PRELUDE_NOT_FRAGMENT}void main() {{}}\n");
/// let scanned = without_blender_prelude(&text, Stage::Compute);
/// assert!(!scanned.contains("gl_Layer") && scanned.ends_with("\nvoid main() {}\n"));
/// assert_eq!(scanned.lines().count(), text.lines().count());
/// ```
pub fn without_blender_prelude(text: &str, stage: Stage) -> String {
    let prelude = format!("{BLENDER_PRELUDE}{}", blender_prelude_of(stage));
    text.replacen(&prelude, &"\n".repeat(prelude.lines().count()), 1)
}

/// The stage's own part of the Blender prelude, after [`BLENDER_PRELUDE`].
pub(crate) fn blender_prelude_of(stage: Stage) -> String {
    let mut out = String::new();
    match stage {
        Stage::Vertex => out.push_str(BLENDER_PRELUDE_VERTEX),
        Stage::Geometry => out.push_str(BLENDER_PRELUDE_GEOMETRY),
        _ => {}
    }
    out.push_str(match stage {
        Stage::Fragment => BLENDER_PRELUDE_FRAGMENT,
        _ => BLENDER_PRELUDE_NOT_FRAGMENT,
    });
    out
}

/// The one file under a loader's root (`find_by_name`: [`crate::SourceLoader::find_by_name`]) that a Blender-style
/// request names (`#pragma BLENDER_REQUIRE(key)` or an
/// `#include` not found by path): the one whose path ends in `/key`, else the one of its file name. `Err` says why
/// none was taken: empty when no file has the name; the files, when several have (Blender finds files by name in
/// one flat list; a tree with two of one name needs the path from the root).
///
/// ```
/// use shader_info::{blender_file_by_name, DirLoader, SourceLoader};
/// let dir = std::env::temp_dir().join(format!("si-by-name-doc-{}", std::process::id()));
/// std::fs::create_dir_all(dir.join("a")).unwrap();
/// std::fs::create_dir_all(dir.join("b")).unwrap();
/// std::fs::write(dir.join("a/lib.glsl"), "").unwrap();
/// std::fs::write(dir.join("b/lib.glsl"), "").unwrap();
/// std::fs::write(dir.join("b/only.glsl"), "").unwrap();
/// let loader = DirLoader::new(&dir);
/// let find = |name: &str| loader.find_by_name(name);
/// assert_eq!(blender_file_by_name(find, "only.glsl").unwrap(), "b/only.glsl");
/// assert_eq!(blender_file_by_name(find, "a/lib.glsl").unwrap(), "a/lib.glsl");
/// assert!(blender_file_by_name(find, "lib.glsl").unwrap_err().contains("several files"));
/// assert_eq!(blender_file_by_name(find, "none.glsl").unwrap_err(), "");
/// std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn blender_file_by_name(
    find_by_name: impl Fn(&str) -> Vec<String>,
    key: &str,
) -> Result<String, String> {
    let name = key.rsplit('/').next().unwrap_or(key);
    let found = find_by_name(name);
    // `common/lib.glsl` from a folder that is not the root: the one file whose path ends so.
    let suffix = format!("/{key}");
    let ending: Vec<&String> = found
        .iter()
        .filter(|f| *f == key || f.ends_with(&suffix))
        .collect();
    match (ending.as_slice(), found.as_slice()) {
        ([one], _) => Ok((*one).clone()),
        (_, [one]) => Ok(one.clone()),
        (_, []) => Err(String::new()),
        (_, several) => Err(format!(
            " (several files have its name: `{}`; write the path from the shader root)",
            several.join("`, `")
        )),
    }
}

/// Whether an `#include` of `path` is empty under the Blender prelude, as Blender's backend makes it: a create-info
/// header (`…_info.hh`, `…_infos.hh`: the info is the declaration), and the headers that stand for the GLSL
/// compatibility layer in its C++ view of the sources (`gpu_shader_compat.hh`, `gpu_shader_compat_cxx.hh`,
/// `gpu_glsl_cpp_stubs.hh`: the prelude is that layer here).
///
/// ```
/// use shader_info::blender_empty_include;
/// assert!(blender_empty_include("infos/gpu_shader_text_infos.hh"));
/// assert!(blender_empty_include("gpu_shader_compat.hh"));
/// assert!(!blender_empty_include("gpu_shader_math_base_lib.glsl"));
/// ```
pub fn blender_empty_include(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.ends_with("_info.hh")
        || name.ends_with("_infos.hh")
        || matches!(
            name,
            "gpu_shader_compat.hh" | "gpu_shader_compat_cxx.hh" | "gpu_glsl_cpp_stubs.hh"
        )
}
