//! The vocabulary of a Vulkan GLSL 4.50 shader interface: value types, image types, formats, qualifiers,
//! frequencies, interpolation modes and stages.

use std::fmt;

/// A GLSL value type: every scalar, vector and float matrix type, square and non-square, plus `bool`.
///
/// ```
/// use shader_info::Type;
/// assert_eq!(Type::Mat3.glsl_name(), "mat3");
/// assert_eq!(Type::Mat3.locations(), 3);
/// assert!(Type::UVec2.is_integer());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Type {
    Float,
    Vec2,
    Vec3,
    Vec4,
    Int,
    IVec2,
    IVec3,
    IVec4,
    Uint,
    UVec2,
    UVec3,
    UVec4,
    Bool,
    BVec2,
    BVec3,
    BVec4,
    Double,
    DVec2,
    DVec3,
    DVec4,
    Mat2,
    Mat3,
    Mat4,
    Mat2x3,
    Mat2x4,
    Mat3x2,
    Mat3x4,
    Mat4x2,
    Mat4x3,
}

/// The scalar kind a [`Type`] is built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scalar {
    Float,
    Int,
    Uint,
    Bool,
    Double,
}

impl Scalar {
    /// Size in bytes inside a buffer (GLSL `bool` is 32 bits in std140/std430).
    pub const fn size(self) -> u32 {
        match self {
            Scalar::Double => 8,
            Scalar::Float | Scalar::Int | Scalar::Uint | Scalar::Bool => 4,
        }
    }
}

impl Type {
    /// Every type, in declaration order; handy for exhaustive tests.
    pub const ALL: [Type; 29] = [
        Type::Float,
        Type::Vec2,
        Type::Vec3,
        Type::Vec4,
        Type::Int,
        Type::IVec2,
        Type::IVec3,
        Type::IVec4,
        Type::Uint,
        Type::UVec2,
        Type::UVec3,
        Type::UVec4,
        Type::Bool,
        Type::BVec2,
        Type::BVec3,
        Type::BVec4,
        Type::Double,
        Type::DVec2,
        Type::DVec3,
        Type::DVec4,
        Type::Mat2,
        Type::Mat3,
        Type::Mat4,
        Type::Mat2x3,
        Type::Mat2x4,
        Type::Mat3x2,
        Type::Mat3x4,
        Type::Mat4x2,
        Type::Mat4x3,
    ];

    /// The GLSL spelling.
    pub const fn glsl_name(self) -> &'static str {
        match self {
            Type::Float => "float",
            Type::Vec2 => "vec2",
            Type::Vec3 => "vec3",
            Type::Vec4 => "vec4",
            Type::Int => "int",
            Type::IVec2 => "ivec2",
            Type::IVec3 => "ivec3",
            Type::IVec4 => "ivec4",
            Type::Uint => "uint",
            Type::UVec2 => "uvec2",
            Type::UVec3 => "uvec3",
            Type::UVec4 => "uvec4",
            Type::Bool => "bool",
            Type::BVec2 => "bvec2",
            Type::BVec3 => "bvec3",
            Type::BVec4 => "bvec4",
            Type::Double => "double",
            Type::DVec2 => "dvec2",
            Type::DVec3 => "dvec3",
            Type::DVec4 => "dvec4",
            Type::Mat2 => "mat2",
            Type::Mat3 => "mat3",
            Type::Mat4 => "mat4",
            Type::Mat2x3 => "mat2x3",
            Type::Mat2x4 => "mat2x4",
            Type::Mat3x2 => "mat3x2",
            Type::Mat3x4 => "mat3x4",
            Type::Mat4x2 => "mat4x2",
            Type::Mat4x3 => "mat4x3",
        }
    }

    /// Parses a GLSL type name (`"vec4"`, `"mat3x2"`, …).
    pub fn from_glsl_name(name: &str) -> Option<Type> {
        Type::ALL.iter().copied().find(|t| t.glsl_name() == name)
    }

    /// The scalar every component is made of.
    pub const fn scalar(self) -> Scalar {
        use Type::*;
        match self {
            Float | Vec2 | Vec3 | Vec4 => Scalar::Float,
            Int | IVec2 | IVec3 | IVec4 => Scalar::Int,
            Uint | UVec2 | UVec3 | UVec4 => Scalar::Uint,
            Bool | BVec2 | BVec3 | BVec4 => Scalar::Bool,
            Double | DVec2 | DVec3 | DVec4 => Scalar::Double,
            Mat2 | Mat3 | Mat4 | Mat2x3 | Mat2x4 | Mat3x2 | Mat3x4 | Mat4x2 | Mat4x3 => {
                Scalar::Float
            }
        }
    }

    /// `(columns, rows)`: `(1, n)` for a scalar or vector of `n` components.
    pub const fn shape(self) -> (u32, u32) {
        use Type::*;
        match self {
            Float | Int | Uint | Bool | Double => (1, 1),
            Vec2 | IVec2 | UVec2 | BVec2 | DVec2 => (1, 2),
            Vec3 | IVec3 | UVec3 | BVec3 | DVec3 => (1, 3),
            Vec4 | IVec4 | UVec4 | BVec4 | DVec4 => (1, 4),
            Mat2 => (2, 2),
            Mat3 => (3, 3),
            Mat4 => (4, 4),
            Mat2x3 => (2, 3),
            Mat2x4 => (2, 4),
            Mat3x2 => (3, 2),
            Mat3x4 => (3, 4),
            Mat4x2 => (4, 2),
            Mat4x3 => (4, 3),
        }
    }

    /// True for matrices (GLSL `matCxR`).
    pub const fn is_matrix(self) -> bool {
        self.shape().0 > 1
    }

    /// True for `int`/`uint`/`bool` based types, which Vulkan requires to be `flat` when interpolated.
    pub const fn is_integer(self) -> bool {
        matches!(self.scalar(), Scalar::Int | Scalar::Uint | Scalar::Bool)
    }

    /// True for `double` based types, which also must be `flat` between stages.
    pub const fn is_double(self) -> bool {
        matches!(self.scalar(), Scalar::Double)
    }

    /// Vertex-input / interface locations consumed: one per matrix column, two for `dvec3`/`dvec4`.
    pub const fn locations(self) -> u32 {
        let (cols, rows) = self.shape();
        if self.is_double() && rows > 2 {
            2 * cols
        } else {
            cols
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.glsl_name())
    }
}

/// The dimensionality and component kind of a sampled or storage image.
///
/// The `Shadow*`/`Depth*` variants are depth-comparison samplers (`sampler2DShadow`); they are only valid with
/// [`crate::ShaderCreateInfo::sampler`].
///
/// ```
/// use shader_info::ImageType;
/// assert_eq!(ImageType::Float2D.sampler_glsl(), Some("sampler2D"));
/// assert_eq!(ImageType::Uint2DArray.image_glsl(), Some("uimage2DArray"));
/// assert_eq!(ImageType::Shadow2D.image_glsl(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ImageType {
    Float1D,
    Float1DArray,
    Float2D,
    Float2DArray,
    Float3D,
    FloatCube,
    FloatCubeArray,
    FloatBuffer,
    Float2DMultisample,
    Int1D,
    Int1DArray,
    Int2D,
    Int2DArray,
    Int3D,
    IntCube,
    IntCubeArray,
    IntBuffer,
    Int2DMultisample,
    Uint1D,
    Uint1DArray,
    Uint2D,
    Uint2DArray,
    Uint3D,
    UintCube,
    UintCubeArray,
    UintBuffer,
    Uint2DMultisample,
    Shadow2D,
    Shadow2DArray,
    ShadowCube,
    ShadowCubeArray,
    /// A depth texture sampled as a plain float texture (no comparison).
    Depth2D,
    Depth2DArray,
    DepthCube,
    DepthCubeArray,
    /// Integer images made for atomics (`imageAtomic*`): a storage image of format `R32ui`/`R32i`, or a sampled
    /// view of one. They need [`BuiltinBits::TEXTURE_ATOMIC`].
    AtomicUint2D,
    AtomicUint2DArray,
    AtomicUint3D,
    AtomicInt2D,
    AtomicInt2DArray,
    AtomicInt3D,
}

impl ImageType {
    fn parts(self) -> (&'static str, &'static str, bool) {
        use ImageType::*;
        // (prefix, dimension suffix, is_shadow)
        match self {
            Float1D => ("", "1D", false),
            Float1DArray => ("", "1DArray", false),
            Float2D => ("", "2D", false),
            Float2DArray => ("", "2DArray", false),
            Float3D => ("", "3D", false),
            FloatCube => ("", "Cube", false),
            FloatCubeArray => ("", "CubeArray", false),
            FloatBuffer => ("", "Buffer", false),
            Float2DMultisample => ("", "2DMS", false),
            Int1D => ("i", "1D", false),
            Int1DArray => ("i", "1DArray", false),
            Int2D => ("i", "2D", false),
            Int2DArray => ("i", "2DArray", false),
            Int3D => ("i", "3D", false),
            IntCube => ("i", "Cube", false),
            IntCubeArray => ("i", "CubeArray", false),
            IntBuffer => ("i", "Buffer", false),
            Int2DMultisample => ("i", "2DMS", false),
            Uint1D => ("u", "1D", false),
            Uint1DArray => ("u", "1DArray", false),
            Uint2D => ("u", "2D", false),
            Uint2DArray => ("u", "2DArray", false),
            Uint3D => ("u", "3D", false),
            UintCube => ("u", "Cube", false),
            UintCubeArray => ("u", "CubeArray", false),
            UintBuffer => ("u", "Buffer", false),
            Uint2DMultisample => ("u", "2DMS", false),
            Shadow2D => ("", "2D", true),
            Shadow2DArray => ("", "2DArray", true),
            ShadowCube => ("", "Cube", true),
            ShadowCubeArray => ("", "CubeArray", true),
            Depth2D => ("", "2D", false),
            Depth2DArray => ("", "2DArray", false),
            DepthCube => ("", "Cube", false),
            DepthCubeArray => ("", "CubeArray", false),
            AtomicUint2D => ("u", "2D", false),
            AtomicUint2DArray => ("u", "2DArray", false),
            AtomicUint3D => ("u", "3D", false),
            AtomicInt2D => ("i", "2D", false),
            AtomicInt2DArray => ("i", "2DArray", false),
            AtomicInt3D => ("i", "3D", false),
        }
    }

    /// For an arrayed image, the GLSL type of its integer coordinate without the layer (`int`, `ivec2` or `ivec3`):
    /// what naga's SPIR-V reader looks up, and does not declare itself, to read a `texelFetch` or `imageLoad` of it.
    pub(crate) fn layerless_int_coordinate(self) -> Option<&'static str> {
        match self.parts().1 {
            "1DArray" => Some("int"),
            "2DArray" => Some("ivec2"),
            "CubeArray" => Some("ivec3"),
            _ => None,
        }
    }

    /// The GLSL prefix of its texel kind: `""` (float), `"i"` or `"u"`.
    pub fn glsl_prefix(self) -> &'static str {
        self.parts().0
    }

    /// True for the atomic image types ([`ImageType::AtomicUint2D`], …).
    pub fn is_atomic(self) -> bool {
        use ImageType::*;
        matches!(
            self,
            AtomicUint2D
                | AtomicUint2DArray
                | AtomicUint3D
                | AtomicInt2D
                | AtomicInt2DArray
                | AtomicInt3D
        )
    }

    /// The plain integer type an atomic type is declared as (`AtomicUint2D` → `Uint2D`); other types unchanged.
    pub fn without_atomic(self) -> ImageType {
        use ImageType::*;
        match self {
            AtomicUint2D => Uint2D,
            AtomicUint2DArray => Uint2DArray,
            AtomicUint3D => Uint3D,
            AtomicInt2D => Int2D,
            AtomicInt2DArray => Int2DArray,
            AtomicInt3D => Int3D,
            other => other,
        }
    }

    /// The combined image-sampler type (`sampler2D`, `usampler3D`, `sampler2DShadow`, …).
    pub fn sampler_glsl(self) -> Option<&'static str> {
        Some(match self {
            ImageType::Float1D => "sampler1D",
            ImageType::Float1DArray => "sampler1DArray",
            ImageType::Float2D | ImageType::Depth2D => "sampler2D",
            ImageType::Float2DArray | ImageType::Depth2DArray => "sampler2DArray",
            ImageType::Float3D => "sampler3D",
            ImageType::FloatCube | ImageType::DepthCube => "samplerCube",
            ImageType::FloatCubeArray | ImageType::DepthCubeArray => "samplerCubeArray",
            ImageType::FloatBuffer => "samplerBuffer",
            ImageType::Float2DMultisample => "sampler2DMS",
            ImageType::Int1D => "isampler1D",
            ImageType::Int1DArray => "isampler1DArray",
            ImageType::Int2D | ImageType::AtomicInt2D => "isampler2D",
            ImageType::Int2DArray | ImageType::AtomicInt2DArray => "isampler2DArray",
            ImageType::Int3D | ImageType::AtomicInt3D => "isampler3D",
            ImageType::IntCube => "isamplerCube",
            ImageType::IntCubeArray => "isamplerCubeArray",
            ImageType::IntBuffer => "isamplerBuffer",
            ImageType::Int2DMultisample => "isampler2DMS",
            ImageType::Uint1D => "usampler1D",
            ImageType::Uint1DArray => "usampler1DArray",
            ImageType::Uint2D | ImageType::AtomicUint2D => "usampler2D",
            ImageType::Uint2DArray | ImageType::AtomicUint2DArray => "usampler2DArray",
            ImageType::Uint3D | ImageType::AtomicUint3D => "usampler3D",
            ImageType::UintCube => "usamplerCube",
            ImageType::UintCubeArray => "usamplerCubeArray",
            ImageType::UintBuffer => "usamplerBuffer",
            ImageType::Uint2DMultisample => "usampler2DMS",
            ImageType::Shadow2D => "sampler2DShadow",
            ImageType::Shadow2DArray => "sampler2DArrayShadow",
            ImageType::ShadowCube => "samplerCubeShadow",
            ImageType::ShadowCubeArray => "samplerCubeArrayShadow",
        })
    }

    /// The storage-image type (`image2D`, `uimageBuffer`, …); `None` for shadow/depth types.
    pub fn image_glsl(self) -> Option<&'static str> {
        if self.is_depth() {
            return None;
        }
        Some(match self.without_atomic() {
            ImageType::Float1D => "image1D",
            ImageType::Float1DArray => "image1DArray",
            ImageType::Float2D => "image2D",
            ImageType::Float2DArray => "image2DArray",
            ImageType::Float3D => "image3D",
            ImageType::FloatCube => "imageCube",
            ImageType::FloatCubeArray => "imageCubeArray",
            ImageType::FloatBuffer => "imageBuffer",
            ImageType::Float2DMultisample => "image2DMS",
            ImageType::Int1D => "iimage1D",
            ImageType::Int1DArray => "iimage1DArray",
            ImageType::Int2D => "iimage2D",
            ImageType::Int2DArray => "iimage2DArray",
            ImageType::Int3D => "iimage3D",
            ImageType::IntCube => "iimageCube",
            ImageType::IntCubeArray => "iimageCubeArray",
            ImageType::IntBuffer => "iimageBuffer",
            ImageType::Int2DMultisample => "iimage2DMS",
            ImageType::Uint1D => "uimage1D",
            ImageType::Uint1DArray => "uimage1DArray",
            ImageType::Uint2D => "uimage2D",
            ImageType::Uint2DArray => "uimage2DArray",
            ImageType::Uint3D => "uimage3D",
            ImageType::UintCube => "uimageCube",
            ImageType::UintCubeArray => "uimageCubeArray",
            ImageType::UintBuffer => "uimageBuffer",
            ImageType::Uint2DMultisample => "uimage2DMS",
            _ => return None,
        })
    }

    /// The separate texture type of the image (`texture2D`, `utexture3D`, …), for the portable form of a sampler.
    ///
    /// ```
    /// use shader_info::ImageType;
    /// assert_eq!(ImageType::Uint2DArray.texture_glsl(), "utexture2DArray");
    /// assert_eq!(ImageType::Shadow2D.texture_glsl(), "texture2D");
    /// ```
    pub fn texture_glsl(self) -> String {
        let (prefix, dim, _) = self.parts();
        format!("{prefix}texture{dim}")
    }

    /// True for the depth-comparison (shadow) variants, which need a comparison sampler.
    pub fn is_shadow(self) -> bool {
        self.parts().2
    }

    /// True for the shadow and depth variants.
    pub fn is_depth(self) -> bool {
        use ImageType::*;
        self.parts().2 || matches!(self, Depth2D | Depth2DArray | DepthCube | DepthCubeArray)
    }

    /// True for texel buffers (`samplerBuffer`, `imageBuffer`): they use texel-buffer descriptors.
    pub fn is_buffer(self) -> bool {
        self.parts().1 == "Buffer"
    }

    /// `'f'`, `'i'` or `'u'`: the component kind, which a storage format must match.
    pub fn component_kind(self) -> char {
        match self.parts().0 {
            "i" => 'i',
            "u" => 'u',
            _ => 'f',
        }
    }
}

/// Storage-image formats (`layout(rgba8) image2D …`).
///
/// ```
/// use shader_info::TextureFormat;
/// assert_eq!(TextureFormat::R11fG11fB10f.glsl_name(), "r11f_g11f_b10f");
/// assert_eq!(TextureFormat::R32ui.component_kind(), 'u');
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TextureFormat {
    Rgba8,
    Rgba8Snorm,
    Rgba8ui,
    Rgba8i,
    Rgba16f,
    Rgba16,
    Rgba16ui,
    Rgba16i,
    Rgba32f,
    Rgba32ui,
    Rgba32i,
    Rg8,
    Rg16f,
    Rg32f,
    Rg32ui,
    R8,
    R16f,
    R32f,
    R32ui,
    R32i,
    R11fG11fB10f,
    Rgb10A2,
    Rg16,
    R16,
    Rgba16Snorm,
    Rg16Snorm,
    Rg8Snorm,
    R16Snorm,
    R8Snorm,
    Rg32i,
    Rg16i,
    Rg8i,
    R16i,
    R8i,
    Rgb10A2ui,
    Rg16ui,
    Rg8ui,
    R16ui,
    R8ui,
}

impl TextureFormat {
    /// Every format: the image formats of Vulkan GLSL (64-bit ones aside).
    pub const ALL: [TextureFormat; 39] = {
        use TextureFormat::*;
        [
            Rgba8,
            Rgba8Snorm,
            Rgba8ui,
            Rgba8i,
            Rgba16f,
            Rgba16,
            Rgba16ui,
            Rgba16i,
            Rgba32f,
            Rgba32ui,
            Rgba32i,
            Rg8,
            Rg16f,
            Rg32f,
            Rg32ui,
            R8,
            R16f,
            R32f,
            R32ui,
            R32i,
            R11fG11fB10f,
            Rgb10A2,
            Rg16,
            R16,
            Rgba16Snorm,
            Rg16Snorm,
            Rg8Snorm,
            R16Snorm,
            R8Snorm,
            Rg32i,
            Rg16i,
            Rg8i,
            R16i,
            R8i,
            Rgb10A2ui,
            Rg16ui,
            Rg8ui,
            R16ui,
            R8ui,
        ]
    };

    /// The GLSL layout-qualifier spelling.
    pub const fn glsl_name(self) -> &'static str {
        use TextureFormat::*;
        match self {
            Rgba8 => "rgba8",
            Rgba8Snorm => "rgba8_snorm",
            Rgba8ui => "rgba8ui",
            Rgba8i => "rgba8i",
            Rgba16f => "rgba16f",
            Rgba16 => "rgba16",
            Rgba16ui => "rgba16ui",
            Rgba16i => "rgba16i",
            Rgba32f => "rgba32f",
            Rgba32ui => "rgba32ui",
            Rgba32i => "rgba32i",
            Rg8 => "rg8",
            Rg16f => "rg16f",
            Rg32f => "rg32f",
            Rg32ui => "rg32ui",
            R8 => "r8",
            R16f => "r16f",
            R32f => "r32f",
            R32ui => "r32ui",
            R32i => "r32i",
            R11fG11fB10f => "r11f_g11f_b10f",
            Rgb10A2 => "rgb10_a2",
            Rg16 => "rg16",
            R16 => "r16",
            Rgba16Snorm => "rgba16_snorm",
            Rg16Snorm => "rg16_snorm",
            Rg8Snorm => "rg8_snorm",
            R16Snorm => "r16_snorm",
            R8Snorm => "r8_snorm",
            Rg32i => "rg32i",
            Rg16i => "rg16i",
            Rg8i => "rg8i",
            R16i => "r16i",
            R8i => "r8i",
            Rgb10A2ui => "rgb10_a2ui",
            Rg16ui => "rg16ui",
            Rg8ui => "rg8ui",
            R16ui => "r16ui",
            R8ui => "r8ui",
        }
    }

    /// `'f'` (float/normalized), `'i'` or `'u'`: must match the image type's component kind.
    pub const fn component_kind(self) -> char {
        use TextureFormat::*;
        match self {
            Rgba8ui | Rgba16ui | Rgba32ui | Rg32ui | R32ui | Rgb10A2ui | Rg16ui | Rg8ui | R16ui
            | R8ui => 'u',
            Rgba8i | Rgba16i | Rgba32i | R32i | Rg32i | Rg16i | Rg8i | R16i | R8i => 'i',
            Rgba8 | Rgba8Snorm | Rgba16f | Rgba16 | Rgba32f | Rg8 | Rg16f | Rg32f | R8 | R16f
            | R32f | R11fG11fB10f | Rgb10A2 | Rg16 | R16 | Rgba16Snorm | Rg16Snorm | Rg8Snorm
            | R16Snorm | R8Snorm => 'f',
        }
    }
}

/// Memory access of a storage buffer or image.
///
/// `Read` becomes `readonly`, `Write` becomes `writeonly`, and both of those and `ReadWrite` add `restrict`
/// (the resource is not aliased). `NoRestrict` is read-write without `restrict`, for aliased bindings.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Qualifier {
    Read,
    Write,
    ReadWrite,
    NoRestrict,
}

impl Qualifier {
    /// The GLSL memory qualifiers, with a trailing space when not empty.
    pub const fn glsl_prefix(self) -> &'static str {
        match self {
            Qualifier::Read => "restrict readonly ",
            Qualifier::Write => "restrict writeonly ",
            Qualifier::ReadWrite => "restrict ",
            Qualifier::NoRestrict => "",
        }
    }
}

/// How often a resource changes; it picks the descriptor set.
///
/// | frequency | set | meant for |
/// |---|---|---|
/// | `Pass` | 0 | bound once per render pass: view uniforms, shadow maps, environment |
/// | `Batch` | 1 | bound per material or draw batch: textures, material parameters |
/// | `Geometry` | 2 | bound per object or draw: instance data, skinning matrices |
///
/// The resource's slot is its binding inside that set, so a `Pass` and a `Batch` resource may share a slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Frequency {
    Pass,
    Batch,
    Geometry,
}

impl Frequency {
    /// Every frequency, in set order.
    pub const ALL: [Frequency; 3] = [Frequency::Pass, Frequency::Batch, Frequency::Geometry];

    /// The descriptor set index.
    pub const fn set(self) -> u32 {
        match self {
            Frequency::Pass => 0,
            Frequency::Batch => 1,
            Frequency::Geometry => 2,
        }
    }
}

/// Interpolation of a stage-interface member.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Interpolation {
    Smooth,
    Flat,
    NoPerspective,
}

impl Interpolation {
    /// The GLSL qualifier.
    pub const fn glsl_name(self) -> &'static str {
        match self {
            Interpolation::Smooth => "smooth",
            Interpolation::Flat => "flat",
            Interpolation::NoPerspective => "noperspective",
        }
    }
}

/// Promise about `gl_FragDepth` writes, which lets the driver keep early depth tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DepthWrite {
    /// No layout qualifier is emitted.
    #[default]
    Unchanged,
    Any,
    Greater,
    Less,
}

impl DepthWrite {
    /// The `gl_FragDepth` redeclaration, if any.
    pub const fn glsl_layout(self) -> Option<&'static str> {
        match self {
            DepthWrite::Unchanged => None,
            DepthWrite::Any => Some("depth_any"),
            DepthWrite::Greater => Some("depth_greater"),
            DepthWrite::Less => Some("depth_less"),
        }
    }
}

/// Built-in variables a shader uses, as bit flags. Used to enable extensions and to document intent.
///
/// ```
/// use shader_info::BuiltinBits;
/// let b = BuiltinBits::VERTEX_ID | BuiltinBits::INSTANCE_ID;
/// assert!(b.contains(BuiltinBits::VERTEX_ID));
/// assert!(!b.contains(BuiltinBits::LAYER));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct BuiltinBits(pub u32);

impl BuiltinBits {
    pub const NONE: BuiltinBits = BuiltinBits(0);
    pub const VERTEX_ID: BuiltinBits = BuiltinBits(1 << 0);
    pub const INSTANCE_ID: BuiltinBits = BuiltinBits(1 << 1);
    pub const POINT_SIZE: BuiltinBits = BuiltinBits(1 << 2);
    pub const POINT_COORD: BuiltinBits = BuiltinBits(1 << 3);
    pub const FRAG_COORD: BuiltinBits = BuiltinBits(1 << 4);
    pub const FRONT_FACING: BuiltinBits = BuiltinBits(1 << 5);
    pub const CLIP_DISTANCES: BuiltinBits = BuiltinBits(1 << 6);
    pub const LAYER: BuiltinBits = BuiltinBits(1 << 7);
    pub const VIEWPORT_INDEX: BuiltinBits = BuiltinBits(1 << 8);
    pub const PRIMITIVE_ID: BuiltinBits = BuiltinBits(1 << 9);
    pub const BARYCENTRIC_COORD: BuiltinBits = BuiltinBits(1 << 10);
    pub const GLOBAL_INVOCATION_ID: BuiltinBits = BuiltinBits(1 << 11);
    pub const LOCAL_INVOCATION_ID: BuiltinBits = BuiltinBits(1 << 12);
    pub const WORK_GROUP_ID: BuiltinBits = BuiltinBits(1 << 13);
    pub const SUBGROUP: BuiltinBits = BuiltinBits(1 << 14);
    /// Atomic operations on images (`imageAtomicAdd`, …), which the atomic image types
    /// ([`ImageType::AtomicUint2D`], …) require.
    pub const TEXTURE_ATOMIC: BuiltinBits = BuiltinBits(1 << 15);
    /// `gl_LocalInvocationIndex` (Blender names it apart from [`BuiltinBits::LOCAL_INVOCATION_ID`]).
    pub const LOCAL_INVOCATION_INDEX: BuiltinBits = BuiltinBits(1 << 16);
    /// `gl_NumWorkGroups`.
    pub const NUM_WORK_GROUP: BuiltinBits = BuiltinBits(1 << 17);
    /// `gl_WorkGroupSize`.
    pub const WORK_GROUP_SIZE: BuiltinBits = BuiltinBits(1 << 18);
    /// The stage writes depth in Vulkan's range (0 to 1) already. Blender declares it where its sources do; this
    /// library never remaps depth, so it documents intent and changes nothing.
    pub const CLIP_CONTROL: BuiltinBits = BuiltinBits(1 << 19);

    /// Every bit with its name.
    pub const NAMED: [(BuiltinBits, &'static str); 20] = [
        (BuiltinBits::VERTEX_ID, "VERTEX_ID"),
        (BuiltinBits::INSTANCE_ID, "INSTANCE_ID"),
        (BuiltinBits::POINT_SIZE, "POINT_SIZE"),
        (BuiltinBits::POINT_COORD, "POINT_COORD"),
        (BuiltinBits::FRAG_COORD, "FRAG_COORD"),
        (BuiltinBits::FRONT_FACING, "FRONT_FACING"),
        (BuiltinBits::CLIP_DISTANCES, "CLIP_DISTANCES"),
        (BuiltinBits::LAYER, "LAYER"),
        (BuiltinBits::VIEWPORT_INDEX, "VIEWPORT_INDEX"),
        (BuiltinBits::PRIMITIVE_ID, "PRIMITIVE_ID"),
        (BuiltinBits::BARYCENTRIC_COORD, "BARYCENTRIC_COORD"),
        (BuiltinBits::GLOBAL_INVOCATION_ID, "GLOBAL_INVOCATION_ID"),
        (BuiltinBits::LOCAL_INVOCATION_ID, "LOCAL_INVOCATION_ID"),
        (BuiltinBits::WORK_GROUP_ID, "WORK_GROUP_ID"),
        (BuiltinBits::SUBGROUP, "SUBGROUP"),
        (BuiltinBits::TEXTURE_ATOMIC, "TEXTURE_ATOMIC"),
        (
            BuiltinBits::LOCAL_INVOCATION_INDEX,
            "LOCAL_INVOCATION_INDEX",
        ),
        (BuiltinBits::NUM_WORK_GROUP, "NUM_WORK_GROUP"),
        (BuiltinBits::WORK_GROUP_SIZE, "WORK_GROUP_SIZE"),
        (BuiltinBits::CLIP_CONTROL, "CLIP_CONTROL"),
    ];

    /// True when every bit of `other` is set.
    pub const fn contains(self, other: BuiltinBits) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for BuiltinBits {
    type Output = BuiltinBits;
    fn bitor(self, rhs: BuiltinBits) -> BuiltinBits {
        BuiltinBits(self.0 | rhs.0)
    }
}

impl std::ops::BitOrAssign for BuiltinBits {
    fn bitor_assign(&mut self, rhs: BuiltinBits) {
        self.0 |= rhs.0;
    }
}

/// The tessellator's domain: what a patch is subdivided into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TessDomain {
    Triangles,
    Quads,
    Isolines,
}

impl TessDomain {
    pub const fn glsl_name(self) -> &'static str {
        match self {
            TessDomain::Triangles => "triangles",
            TessDomain::Quads => "quads",
            TessDomain::Isolines => "isolines",
        }
    }
}

/// How the tessellator spaces the subdivisions along an edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TessSpacing {
    Equal,
    FractionalEven,
    FractionalOdd,
}

impl TessSpacing {
    pub const fn glsl_name(self) -> &'static str {
        match self {
            TessSpacing::Equal => "equal_spacing",
            TessSpacing::FractionalEven => "fractional_even_spacing",
            TessSpacing::FractionalOdd => "fractional_odd_spacing",
        }
    }
}

/// Geometry-shader input primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimitiveIn {
    Points,
    Lines,
    LinesAdjacency,
    Triangles,
    TrianglesAdjacency,
}

impl PrimitiveIn {
    pub const fn glsl_name(self) -> &'static str {
        match self {
            PrimitiveIn::Points => "points",
            PrimitiveIn::Lines => "lines",
            PrimitiveIn::LinesAdjacency => "lines_adjacency",
            PrimitiveIn::Triangles => "triangles",
            PrimitiveIn::TrianglesAdjacency => "triangles_adjacency",
        }
    }

    /// Vertices per input primitive: the size of the geometry stage's input arrays.
    pub const fn vertex_count(self) -> u32 {
        match self {
            PrimitiveIn::Points => 1,
            PrimitiveIn::Lines => 2,
            PrimitiveIn::LinesAdjacency => 4,
            PrimitiveIn::Triangles => 3,
            PrimitiveIn::TrianglesAdjacency => 6,
        }
    }
}

/// Geometry-shader output primitive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimitiveOut {
    Points,
    LineStrip,
    TriangleStrip,
}

impl PrimitiveOut {
    pub const fn glsl_name(self) -> &'static str {
        match self {
            PrimitiveOut::Points => "points",
            PrimitiveOut::LineStrip => "line_strip",
            PrimitiveOut::TriangleStrip => "triangle_strip",
        }
    }
}

/// Dual-source blending index of a fragment output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum DualBlend {
    #[default]
    None,
    Src0,
    Src1,
}

/// A programmable pipeline stage.
///
/// ```
/// use shader_info::Stage;
/// assert_eq!(Stage::ClosestHit.short_name(), "rchit");
/// assert_eq!("frag".parse::<Stage>().unwrap(), Stage::Fragment);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    Vertex,
    TessControl,
    TessEvaluation,
    Geometry,
    Fragment,
    Compute,
    RayGen,
    Miss,
    ClosestHit,
    AnyHit,
    Intersection,
    Callable,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 12] = [
        Stage::Vertex,
        Stage::TessControl,
        Stage::TessEvaluation,
        Stage::Geometry,
        Stage::Fragment,
        Stage::Compute,
        Stage::RayGen,
        Stage::Miss,
        Stage::ClosestHit,
        Stage::AnyHit,
        Stage::Intersection,
        Stage::Callable,
    ];

    /// The file-extension style short name glslc uses (`vert`, `frag`, `rgen`, …).
    pub const fn short_name(self) -> &'static str {
        match self {
            Stage::Vertex => "vert",
            Stage::TessControl => "tesc",
            Stage::TessEvaluation => "tese",
            Stage::Geometry => "geom",
            Stage::Fragment => "frag",
            Stage::Compute => "comp",
            Stage::RayGen => "rgen",
            Stage::Miss => "rmiss",
            Stage::ClosestHit => "rchit",
            Stage::AnyHit => "rahit",
            Stage::Intersection => "rint",
            Stage::Callable => "rcall",
        }
    }

    /// The name used in the standard define: `GPU_<NAME>_SHADER`.
    pub const fn define_name(self) -> &'static str {
        match self {
            Stage::Vertex => "GPU_VERTEX_SHADER",
            Stage::TessControl => "GPU_TESS_CONTROL_SHADER",
            Stage::TessEvaluation => "GPU_TESS_EVALUATION_SHADER",
            Stage::Geometry => "GPU_GEOMETRY_SHADER",
            Stage::Fragment => "GPU_FRAGMENT_SHADER",
            Stage::Compute => "GPU_COMPUTE_SHADER",
            Stage::RayGen => "GPU_RAYGEN_SHADER",
            Stage::Miss => "GPU_MISS_SHADER",
            Stage::ClosestHit => "GPU_CLOSEST_HIT_SHADER",
            Stage::AnyHit => "GPU_ANY_HIT_SHADER",
            Stage::Intersection => "GPU_INTERSECTION_SHADER",
            Stage::Callable => "GPU_CALLABLE_SHADER",
        }
    }

    /// True for the six ray-tracing stages.
    pub const fn is_ray_tracing(self) -> bool {
        matches!(
            self,
            Stage::RayGen
                | Stage::Miss
                | Stage::ClosestHit
                | Stage::AnyHit
                | Stage::Intersection
                | Stage::Callable
        )
    }

    /// True for the rasterization stages (vertex through fragment).
    pub const fn is_graphics(self) -> bool {
        matches!(
            self,
            Stage::Vertex
                | Stage::TessControl
                | Stage::TessEvaluation
                | Stage::Geometry
                | Stage::Fragment
        )
    }
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.short_name())
    }
}

impl std::str::FromStr for Stage {
    type Err = String;
    fn from_str(s: &str) -> Result<Stage, String> {
        let lower = s.to_ascii_lowercase();
        let found = Stage::ALL
            .iter()
            .copied()
            .find(|st| st.short_name() == lower || format!("{st:?}").to_ascii_lowercase() == lower);
        found.ok_or_else(|| {
            let names: Vec<&str> = Stage::ALL.iter().map(|s| s.short_name()).collect();
            format!("unknown stage `{s}`: expected one of {}", names.join(", "))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glsl_names_round_trip() {
        for t in Type::ALL {
            assert_eq!(Type::from_glsl_name(t.glsl_name()), Some(t));
        }
    }

    #[test]
    fn locations_follow_the_spec() {
        assert_eq!(Type::Vec4.locations(), 1);
        assert_eq!(Type::Mat4.locations(), 4);
        assert_eq!(Type::Mat2x3.locations(), 2);
        assert_eq!(Type::DVec3.locations(), 2);
        assert_eq!(Type::DVec2.locations(), 1);
    }

    #[test]
    fn stage_parses_long_and_short_names() {
        assert_eq!("closesthit".parse::<Stage>(), Ok(Stage::ClosestHit));
        assert_eq!("comp".parse::<Stage>(), Ok(Stage::Compute));
        assert!("pixel".parse::<Stage>().unwrap_err().contains("vert"));
    }

    #[test]
    fn every_non_depth_image_has_both_forms() {
        use ImageType::*;
        for t in [
            Float2D,
            Int3D,
            UintBuffer,
            Float2DMultisample,
            UintCubeArray,
        ] {
            assert!(t.sampler_glsl().is_some() && t.image_glsl().is_some());
        }
        assert!(Shadow2D.image_glsl().is_none());
        assert_eq!(UintCube.component_kind(), 'u');
    }
}
