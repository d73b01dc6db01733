//! GLSL's reserved names and the identifier rule built on them: one rule for `shader-info` (an info's items) and
//! `shader-info-macros` (a derive's struct fields, enum values and resources, refused at compile time on their own
//! span). A crate of its own because the macros cannot depend on `shader-info`, which depends on them.
//!
//! ```
//! assert!(shader_info_glsl_names::GLSL_KEYWORDS.contains(&"uniform"));
//! ```

/// GLSL keywords and reserved words that cannot be identifiers (type names are in [`GLSL_TYPE_NAMES`]).
pub const GLSL_KEYWORDS: &[&str] = &[
    "attribute",
    "const",
    "uniform",
    "varying",
    "buffer",
    "shared",
    "coherent",
    "volatile",
    "restrict",
    "readonly",
    "writeonly",
    "layout",
    "centroid",
    "flat",
    "smooth",
    "noperspective",
    "patch",
    "sample",
    "break",
    "continue",
    "do",
    "for",
    "while",
    "switch",
    "case",
    "default",
    "if",
    "else",
    "subroutine",
    "in",
    "out",
    "inout",
    "true",
    "false",
    "invariant",
    "precise",
    "discard",
    "return",
    "lowp",
    "mediump",
    "highp",
    "precision",
    "struct",
    "common",
    "partition",
    "active",
    "asm",
    "class",
    "union",
    "enum",
    "typedef",
    "template",
    "this",
    "resource",
    "goto",
    "inline",
    "noinline",
    "public",
    "static",
    "extern",
    "external",
    "interface",
    "long",
    "short",
    "half",
    "fixed",
    "unsigned",
    "superp",
    "input",
    "output",
    "hvec2",
    "hvec3",
    "hvec4",
    "fvec2",
    "fvec3",
    "fvec4",
    "filter",
    "sizeof",
    "cast",
    "namespace",
    "using",
    "sampler",
    "main",
    "row_major",
    "demote",
    "terminateInvocation",
    // Storage qualifiers and statements of the extensions the generator enables (ray tracing, barycentrics):
    // glslang takes them as keywords in every stage of such a module.
    "rayPayloadEXT",
    "rayPayloadInEXT",
    "hitAttributeEXT",
    "callableDataEXT",
    "callableDataInEXT",
    "shaderRecordEXT",
    "ignoreIntersectionEXT",
    "terminateRayEXT",
    "pervertexEXT",
    // Words glslang reads as keywords in the versions and extensions the generator writes (Vulkan GLSL 450/460:
    // the memory-model qualifiers from 420 on, tile-image and per-vertex words, the Vulkan attachment types) or
    // under extensions a declaration may turn on: as names they fail glslang with a syntax error.
    "tileImageEXT",
    "pervertexNV",
    "devicecoherent",
    "queuefamilycoherent",
    "workgroupcoherent",
    "subgroupcoherent",
    "shadercallcoherent",
    "nonprivate",
    "attachmentEXT",
    "iattachmentEXT",
    "uattachmentEXT",
    "nonuniformEXT",
    "perprimitiveEXT",
    "taskPayloadSharedEXT",
    "spirv_instruction",
    "spirv_execution_mode",
    "spirv_execution_mode_id",
    "spirv_decorate",
    "spirv_decorate_id",
    "spirv_decorate_string",
    "spirv_type",
    "spirv_storage_class",
    "spirv_by_reference",
    "spirv_literal",
];

/// GLSL's built-in type names: scalars, vectors, matrices, samplers, textures, images and the ray-tracing types.
pub const GLSL_TYPE_NAMES: &[&str] = &[
    "void",
    "bool",
    "int",
    "uint",
    "float",
    "double",
    "vec2",
    "vec3",
    "vec4",
    "bvec2",
    "bvec3",
    "bvec4",
    "ivec2",
    "ivec3",
    "ivec4",
    "uvec2",
    "uvec3",
    "uvec4",
    "dvec2",
    "dvec3",
    "dvec4",
    "mat2",
    "mat2x2",
    "mat2x3",
    "mat2x4",
    "mat3",
    "mat3x2",
    "mat3x3",
    "mat3x4",
    "mat4",
    "mat4x2",
    "mat4x3",
    "mat4x4",
    "dmat2",
    "dmat2x2",
    "dmat2x3",
    "dmat2x4",
    "dmat3",
    "dmat3x2",
    "dmat3x3",
    "dmat3x4",
    "dmat4",
    "dmat4x2",
    "dmat4x3",
    "dmat4x4",
    "sampler1D",
    "sampler2D",
    "sampler3D",
    "samplerCube",
    "sampler2DRect",
    "sampler1DArray",
    "sampler2DArray",
    "samplerCubeArray",
    "samplerBuffer",
    "sampler2DMS",
    "sampler2DMSArray",
    "texture1D",
    "texture2D",
    "texture3D",
    "textureCube",
    "texture2DRect",
    "texture1DArray",
    "texture2DArray",
    "textureCubeArray",
    "textureBuffer",
    "texture2DMS",
    "texture2DMSArray",
    "image1D",
    "image2D",
    "image3D",
    "imageCube",
    "image2DRect",
    "image1DArray",
    "image2DArray",
    "imageCubeArray",
    "imageBuffer",
    "image2DMS",
    "image2DMSArray",
    "subpassInput",
    "subpassInputMS",
    "isampler1D",
    "isampler2D",
    "isampler3D",
    "isamplerCube",
    "isampler2DRect",
    "isampler1DArray",
    "isampler2DArray",
    "isamplerCubeArray",
    "isamplerBuffer",
    "isampler2DMS",
    "isampler2DMSArray",
    "itexture1D",
    "itexture2D",
    "itexture3D",
    "itextureCube",
    "itexture2DRect",
    "itexture1DArray",
    "itexture2DArray",
    "itextureCubeArray",
    "itextureBuffer",
    "itexture2DMS",
    "itexture2DMSArray",
    "iimage1D",
    "iimage2D",
    "iimage3D",
    "iimageCube",
    "iimage2DRect",
    "iimage1DArray",
    "iimage2DArray",
    "iimageCubeArray",
    "iimageBuffer",
    "iimage2DMS",
    "iimage2DMSArray",
    "isubpassInput",
    "isubpassInputMS",
    "usampler1D",
    "usampler2D",
    "usampler3D",
    "usamplerCube",
    "usampler2DRect",
    "usampler1DArray",
    "usampler2DArray",
    "usamplerCubeArray",
    "usamplerBuffer",
    "usampler2DMS",
    "usampler2DMSArray",
    "utexture1D",
    "utexture2D",
    "utexture3D",
    "utextureCube",
    "utexture2DRect",
    "utexture1DArray",
    "utexture2DArray",
    "utextureCubeArray",
    "utextureBuffer",
    "utexture2DMS",
    "utexture2DMSArray",
    "uimage1D",
    "uimage2D",
    "uimage3D",
    "uimageCube",
    "uimage2DRect",
    "uimage1DArray",
    "uimage2DArray",
    "uimageCubeArray",
    "uimageBuffer",
    "uimage2DMS",
    "uimage2DMSArray",
    "usubpassInput",
    "usubpassInputMS",
    "sampler1DShadow",
    "sampler2DShadow",
    "samplerCubeShadow",
    "sampler2DRectShadow",
    "sampler3DRect",
    "sampler1DArrayShadow",
    "sampler2DArrayShadow",
    "samplerCubeArrayShadow",
    "samplerShadow",
    "samplerExternalOES",
    "accelerationStructureEXT",
    "rayQueryEXT",
    "atomic_uint",
];

/// GLSL's built-in functions (GLSL 4.60, chapter 8, and the ray-tracing extension's calls): a global variable of
/// one of these names hides the function from its declaration on ("can't use function syntax on variable" at
/// every call after it).
pub const GLSL_BUILTIN_FUNCTIONS: &[&str] = &[
    "radians",
    "degrees",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "tanh",
    "asinh",
    "acosh",
    "atanh",
    "pow",
    "exp",
    "log",
    "exp2",
    "log2",
    "sqrt",
    "inversesqrt",
    "abs",
    "sign",
    "floor",
    "trunc",
    "round",
    "roundEven",
    "ceil",
    "fract",
    "mod",
    "modf",
    "min",
    "max",
    "clamp",
    "mix",
    "step",
    "smoothstep",
    "isnan",
    "isinf",
    "floatBitsToInt",
    "floatBitsToUint",
    "intBitsToFloat",
    "uintBitsToFloat",
    "fma",
    "frexp",
    "ldexp",
    "packUnorm2x16",
    "packSnorm2x16",
    "packUnorm4x8",
    "packSnorm4x8",
    "unpackUnorm2x16",
    "unpackSnorm2x16",
    "unpackUnorm4x8",
    "unpackSnorm4x8",
    "packHalf2x16",
    "unpackHalf2x16",
    "packDouble2x32",
    "unpackDouble2x32",
    "length",
    "distance",
    "dot",
    "cross",
    "normalize",
    "faceforward",
    "reflect",
    "refract",
    "matrixCompMult",
    "outerProduct",
    "transpose",
    "determinant",
    "inverse",
    "lessThan",
    "lessThanEqual",
    "greaterThan",
    "greaterThanEqual",
    "equal",
    "notEqual",
    "any",
    "all",
    "not",
    "uaddCarry",
    "usubBorrow",
    "umulExtended",
    "imulExtended",
    "bitfieldExtract",
    "bitfieldInsert",
    "bitfieldReverse",
    "bitCount",
    "findLSB",
    "findMSB",
    "textureSize",
    "textureQueryLod",
    "textureQueryLevels",
    "textureSamples",
    "texture",
    "textureProj",
    "textureLod",
    "textureOffset",
    "texelFetch",
    "texelFetchOffset",
    "textureProjOffset",
    "textureLodOffset",
    "textureProjLod",
    "textureProjLodOffset",
    "textureGrad",
    "textureGradOffset",
    "textureProjGrad",
    "textureProjGradOffset",
    "textureGather",
    "textureGatherOffset",
    "textureGatherOffsets",
    "atomicAdd",
    "atomicMin",
    "atomicMax",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
    "atomicExchange",
    "atomicCompSwap",
    "imageSize",
    "imageSamples",
    "imageLoad",
    "imageStore",
    "imageAtomicAdd",
    "imageAtomicMin",
    "imageAtomicMax",
    "imageAtomicAnd",
    "imageAtomicOr",
    "imageAtomicXor",
    "imageAtomicExchange",
    "imageAtomicCompSwap",
    "EmitStreamVertex",
    "EndStreamPrimitive",
    "EmitVertex",
    "EndPrimitive",
    "dFdx",
    "dFdy",
    "dFdxFine",
    "dFdyFine",
    "dFdxCoarse",
    "dFdyCoarse",
    "fwidth",
    "fwidthFine",
    "fwidthCoarse",
    "interpolateAtCentroid",
    "interpolateAtSample",
    "interpolateAtOffset",
    "barrier",
    "memoryBarrier",
    "memoryBarrierAtomicCounter",
    "memoryBarrierBuffer",
    "memoryBarrierShared",
    "memoryBarrierImage",
    "groupMemoryBarrier",
    "subpassLoad",
    "anyInvocation",
    "allInvocations",
    "allInvocationsEqual",
    "traceRayEXT",
    "reportIntersectionEXT",
    "executeCallableEXT",
];

/// The identifiers GLSL reads inside `layout(…)` (GLSL 4.60, `GL_KHR_vulkan_glsl` and the extensions the generator
/// enables; image formats included). They are not keywords, so an item may take one as its name, but a macro or a
/// type of that name rewrites every generated `layout(location = …)` that writes it, and glslang refuses it.
pub const GLSL_LAYOUT_QUALIFIERS: &[&str] = &[
    "align",
    "binding",
    "buffer_reference",
    "buffer_reference_align",
    "ccw",
    "column_major",
    "component",
    "constant_id",
    "cw",
    "depth_any",
    "depth_greater",
    "depth_less",
    "depth_unchanged",
    "early_fragment_tests",
    "equal_spacing",
    "fractional_even_spacing",
    "fractional_odd_spacing",
    "index",
    "input_attachment_index",
    "invocations",
    "isolines",
    "line_strip",
    "lines",
    "lines_adjacency",
    "local_size_x",
    "local_size_x_id",
    "local_size_y",
    "local_size_y_id",
    "local_size_z",
    "local_size_z_id",
    "location",
    "max_primitives",
    "max_vertices",
    "offset",
    "origin_upper_left",
    "packed",
    "pixel_center_integer",
    "point_mode",
    "points",
    "post_depth_coverage",
    "push_constant",
    "quads",
    "row_major",
    "scalar",
    "set",
    "shaderRecordEXT",
    "shaderRecordNV",
    "shared",
    "std140",
    "std430",
    "stream",
    "triangle_strip",
    "triangles",
    "triangles_adjacency",
    "vertices",
    "xfb_buffer",
    "xfb_offset",
    "xfb_stride",
    // Image formats.
    "r11f_g11f_b10f",
    "r16",
    "r16_snorm",
    "r16f",
    "r16i",
    "r16ui",
    "r32f",
    "r32i",
    "r32ui",
    "r64i",
    "r64ui",
    "r8",
    "r8_snorm",
    "r8i",
    "r8ui",
    "rg16",
    "rg16_snorm",
    "rg16f",
    "rg16i",
    "rg16ui",
    "rg32f",
    "rg32i",
    "rg32ui",
    "rg8",
    "rg8_snorm",
    "rg8i",
    "rg8ui",
    "rgb10_a2",
    "rgb10_a2ui",
    "rgba16",
    "rgba16_snorm",
    "rgba16f",
    "rgba16i",
    "rgba16ui",
    "rgba32f",
    "rgba32i",
    "rgba32ui",
    "rgba8",
    "rgba8_snorm",
    "rgba8i",
    "rgba8ui",
];

/// Whether `name` is a layout qualifier ([`GLSL_LAYOUT_QUALIFIERS`]): a fine name for a variable, not for a macro or
/// a type.
///
/// ```
/// assert!(shader_info_glsl_names::is_layout_qualifier("location"));
/// assert!(shader_info_glsl_names::is_layout_qualifier("rgba8"));
/// assert!(!shader_info_glsl_names::is_layout_qualifier("LOCATION"));
/// ```
pub fn is_layout_qualifier(name: &str) -> bool {
    GLSL_LAYOUT_QUALIFIERS.contains(&name)
}

/// Whether `name` is one of GLSL's built-in functions ([`GLSL_BUILTIN_FUNCTIONS`]).
///
/// ```
/// assert!(shader_info_glsl_names::is_builtin_function("texelFetch"));
/// assert!(!shader_info_glsl_names::is_builtin_function("albedo"));
/// ```
pub fn is_builtin_function(name: &str) -> bool {
    BUILTIN_FUNCTIONS.contains(name)
}

/// [`GLSL_BUILTIN_FUNCTIONS`] as a set: looked up for every global name of every variant the static pass validates.
static BUILTIN_FUNCTIONS: std::sync::LazyLock<foldhash::HashSet<&'static str>> =
    std::sync::LazyLock::new(|| GLSL_BUILTIN_FUNCTIONS.iter().copied().collect());

/// Why `name` is not a usable GLSL identifier, if it is not: empty, not letters/digits/`_`, a `gl_` prefix or a
/// `__` (reserved by GLSL), a keyword or a built-in type name, or a name the preprocessor expands.
///
/// ```
/// use shader_info_glsl_names::identifier_problem;
/// assert!(identifier_problem("light0").is_none());
/// for reserved in ["sample", "gl_Light", "a__b", "sampler3DRect", "rayPayloadEXT", "VULKAN"] {
///     assert!(identifier_problem(reserved).is_some(), "{reserved}");
/// }
/// ```
pub fn identifier_problem(name: &str) -> Option<String> {
    let mut chars = name.chars();
    match chars.next() {
        None => return Some("the name is empty".into()),
        Some(c) if !(c.is_ascii_alphabetic() || c == '_') => {
            return Some(format!("`{name}` must start with a letter or `_`"));
        }
        _ => {}
    }
    if let Some(c) = name
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || *c == '_'))
    {
        return Some(format!(
            "`{name}` contains `{c}`; GLSL identifiers are letters, digits and `_`"
        ));
    }
    if name.starts_with("gl_") {
        return Some(format!(
            "`{name}` starts with `gl_`, which GLSL reserves for built-ins"
        ));
    }
    if name.starts_with("GL_") {
        return Some(format!(
            "`{name}` starts with `GL_`, which GLSL reserves for its own macros (defines and branches are macros)"
        ));
    }
    if name.contains("__") {
        return Some(format!("`{name}` contains `__`, which GLSL reserves"));
    }
    if RESERVED.contains(name) {
        return Some(format!("`{name}` is a GLSL keyword or type name"));
    }
    if name == "defined" {
        return Some(
            "`defined` is the preprocessor's operator: as a define it breaks every `#if defined(…)`".into(),
        );
    }
    if name == "VULKAN" {
        return Some(
            "`VULKAN` is defined by glslang (to 100) in every module compiled for Vulkan: the preprocessor would \
             expand this name into a number"
                .into(),
        );
    }
    if STANDARD_DEFINES.contains(&name) {
        return Some(format!(
            "`{name}` is one of the standard defines every generated stage starts with, which the preprocessor \
             would expand into this name (or a redefinition glslang refuses)"
        ));
    }
    if name.len() > MAX_NAME_LENGTH {
        return Some(format!(
            "the name is {} characters long, past the {MAX_NAME_LENGTH} glslang accepts (\"name too long\")",
            name.len()
        ));
    }
    None
}

/// [`GLSL_KEYWORDS`] and [`GLSL_TYPE_NAMES`] in one set: every name of every variant the static pass validates is
/// looked up here, and two list scans per name were a tenth of that validation (foldhash: SipHash's start-up cost
/// was most of a lookup of these short names).
static RESERVED: std::sync::LazyLock<foldhash::HashSet<&'static str>> =
    std::sync::LazyLock::new(|| {
        GLSL_KEYWORDS
            .iter()
            .chain(GLSL_TYPE_NAMES)
            .copied()
            .collect()
    });

/// glslang's longest token (`MaxTokenLength`): a longer name is "name too long".
pub const MAX_NAME_LENGTH: usize = 1024;

/// The defines the generator writes at the top of every stage (and the portable flavor's): a declared name equal
/// to one is expanded away or redefined.
pub const STANDARD_DEFINES: &[&str] = &[
    "GPU_SHADER",
    "GPU_VULKAN",
    "GPU_PORTABLE",
    "GPU_VERTEX_SHADER",
    "GPU_TESS_CONTROL_SHADER",
    "GPU_TESS_EVALUATION_SHADER",
    "GPU_GEOMETRY_SHADER",
    "GPU_FRAGMENT_SHADER",
    "GPU_COMPUTE_SHADER",
    "GPU_RAYGEN_SHADER",
    "GPU_MISS_SHADER",
    "GPU_CLOSEST_HIT_SHADER",
    "GPU_ANY_HIT_SHADER",
    "GPU_INTERSECTION_SHADER",
    "GPU_CALLABLE_SHADER",
];

/// Why a define's name (with its parameter list, for a function-like macro: `name(a, b)`) cannot be used.
///
/// ```
/// use shader_info_glsl_names::define_name_problem;
/// assert!(define_name_problem("USE_CLIP").is_none());
/// assert!(define_name_problem("to_display(a)").is_none());
/// assert!(define_name_problem("mix3(a, b, c)").is_none());
/// assert!(define_name_problem("none()").is_none());
/// assert!(define_name_problem("f(a) x").is_some());
/// assert!(define_name_problem("f(a,)").is_some());
/// assert!(define_name_problem("f(a").is_some());
/// assert!(define_name_problem("f (a)").is_some());
/// ```
pub fn define_name_problem(name: &str) -> Option<String> {
    let Some((macro_name, rest)) = name.split_once('(') else {
        return identifier_problem(name);
    };
    if let Some(p) = identifier_problem(macro_name) {
        return Some(p);
    }
    let Some(list) = rest.strip_suffix(')') else {
        return Some(format!(
            "`{name}` is a function-like macro whose parameter list does not end the name with `)`"
        ));
    };
    if list.trim().is_empty() {
        return None;
    }
    let mut seen = Vec::new();
    for param in list.split(',').map(str::trim) {
        if param.is_empty() {
            return Some(format!("`{name}` has an empty macro parameter"));
        }
        if let Some(p) = identifier_problem(param) {
            return Some(format!("macro parameter: {p}"));
        }
        if seen.contains(&param) {
            return Some(format!(
                "`{name}` names the macro parameter `{param}` twice"
            ));
        }
        seen.push(param);
    }
    None
}
