//! The declaration builders: [`ShaderCreateInfo`] and [`StageInterfaceInfo`].
//!
//! Builders are plain data. No method panics or fails on user input: arguments are recorded as given and
//! [`crate::validate`] reports every problem at once. Each item remembers the Rust file and line that declared it
//! (through `#[track_caller]`), so a diagnostic can point at the declaration.

use crate::types::*;
use std::fmt;

/// Where a declaration was written in Rust source. Used in diagnostics only.
///
/// Two origins always compare equal: the declaration site is metadata, not part of a declaration's value, so an
/// info declared through the derive macro equals the same info written with the builder.
#[derive(Clone, Copy, Debug, Default)]
pub struct Origin {
    pub file: &'static str,
    pub line: u32,
}

impl Origin {
    /// The caller's location (the builder call in user code).
    #[track_caller]
    pub fn caller() -> Origin {
        let l = std::panic::Location::caller();
        Origin {
            file: l.file(),
            line: l.line(),
        }
    }

    /// True when no location is known.
    pub fn is_unknown(&self) -> bool {
        self.file.is_empty()
    }
}

impl PartialEq for Origin {
    fn eq(&self, _: &Origin) -> bool {
        true
    }
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_unknown() {
            f.write_str("<unknown>")
        } else {
            write!(f, "{}:{}", self.file, self.line)
        }
    }
}

/// A value recorded together with the info that declared it and where.
#[derive(Clone, Debug, PartialEq)]
pub struct Item<T> {
    pub value: T,
    /// Name of the info (or interface) that declared the item; survives `additional_info` resolution.
    pub declared_in: String,
    pub origin: Origin,
}

/// A `vertex_in` attribute.
#[derive(Clone, Debug, PartialEq)]
pub struct VertexInput {
    pub location: u32,
    pub ty: Type,
    pub name: String,
}

/// One member of a stage interface.
#[derive(Clone, Debug, PartialEq)]
pub struct InterfaceMember {
    pub interpolation: Interpolation,
    pub ty: Type,
    pub name: String,
    pub origin: Origin,
}

/// Data passed between stages (vertex → fragment), emitted as a GLSL interface block.
///
/// ```
/// use shader_info::{StageInterfaceInfo, Type};
/// let iface = StageInterfaceInfo::new("text_iface", "")
///     .flat(Type::Vec4, "color_flat")
///     .no_perspective(Type::Vec2, "uv_interp")
///     .flat(Type::Int, "glyph_offset");
/// assert_eq!(iface.members.len(), 3);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct StageInterfaceInfo {
    /// The block name (GLSL type of the interface block).
    pub name: String,
    /// The instance name; empty to access members directly.
    pub instance_name: String,
    pub members: Vec<InterfaceMember>,
    pub origin: Origin,
}

impl StageInterfaceInfo {
    /// Starts an interface with a block name and an instance name (empty for none).
    #[track_caller]
    pub fn new(name: impl Into<String>, instance_name: impl Into<String>) -> Self {
        StageInterfaceInfo {
            name: name.into(),
            instance_name: instance_name.into(),
            members: Vec::new(),
            origin: Origin::caller(),
        }
    }

    #[track_caller]
    fn member(mut self, interpolation: Interpolation, ty: Type, name: impl Into<String>) -> Self {
        self.members.push(InterfaceMember {
            interpolation,
            ty,
            name: name.into(),
            origin: Origin::caller(),
        });
        self
    }

    /// A perspective-correct interpolated member.
    #[track_caller]
    pub fn smooth(self, ty: Type, name: impl Into<String>) -> Self {
        self.member(Interpolation::Smooth, ty, name)
    }

    /// A member taken from the provoking vertex; required for integer and double types.
    #[track_caller]
    pub fn flat(self, ty: Type, name: impl Into<String>) -> Self {
        self.member(Interpolation::Flat, ty, name)
    }

    /// A member interpolated linearly in screen space.
    #[track_caller]
    pub fn no_perspective(self, ty: Type, name: impl Into<String>) -> Self {
        self.member(Interpolation::NoPerspective, ty, name)
    }

    /// Number of locations the whole block consumes.
    pub fn locations(&self) -> u32 {
        self.members.iter().map(|m| m.ty.locations()).sum()
    }
}

/// A `fragment_out` target.
#[derive(Clone, Debug, PartialEq)]
pub struct FragmentOutput {
    pub location: u32,
    pub ty: Type,
    pub name: String,
    pub blend: DualBlend,
}

/// One member of the push-constant block.
#[derive(Clone, Debug, PartialEq)]
pub struct PushConstant {
    pub ty: Type,
    pub name: String,
    /// `Some(n)` for `ty name[n]`.
    pub array_size: Option<u32>,
}

/// The kind of a bound resource and what it needs.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceKind {
    /// A combined image sampler.
    Sampler { image_type: ImageType },
    /// A storage image.
    Image {
        format: TextureFormat,
        qualifier: Qualifier,
        image_type: ImageType,
    },
    /// A `std140` uniform block holding one value (or array) of `type_name`.
    UniformBuffer { type_name: String },
    /// A `std430` storage block holding one value or (runtime) array of `type_name`.
    StorageBuffer {
        qualifier: Qualifier,
        type_name: String,
    },
    /// A ray-tracing acceleration structure (`accelerationStructureEXT`).
    AccelerationStructure,
}

impl ResourceKind {
    /// Position of the kind in the generated source: samplers, images, uniform buffers, storage buffers,
    /// acceleration structures (DESIGN.md's resource order).
    pub fn order(&self) -> u8 {
        match self {
            ResourceKind::Sampler { .. } => 0,
            ResourceKind::Image { .. } => 1,
            ResourceKind::UniformBuffer { .. } => 2,
            ResourceKind::StorageBuffer { .. } => 3,
            ResourceKind::AccelerationStructure => 4,
        }
    }

    /// A short word for messages: `sampler`, `image`, `uniform_buf`, `storage_buf`.
    pub fn word(&self) -> &'static str {
        match self {
            ResourceKind::Sampler { .. } => "sampler",
            ResourceKind::Image { .. } => "image",
            ResourceKind::UniformBuffer { .. } => "uniform_buf",
            ResourceKind::StorageBuffer { .. } => "storage_buf",
            ResourceKind::AccelerationStructure => "acceleration_structure",
        }
    }
}

/// A descriptor-bound resource: sampler, image, uniform buffer or storage buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    /// Binding inside the frequency's set.
    pub slot: u32,
    pub frequency: Frequency,
    /// The declared name, which may carry `[N]` or `[]`; see [`Resource::array`].
    pub name: String,
    pub kind: ResourceKind,
}

/// Array-ness of a resource, parsed from its declared name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArraySize {
    Single,
    Fixed(u32),
    /// `[]`: a runtime-sized array (the last member of a storage buffer).
    Runtime,
}

impl Resource {
    /// The name without its array suffix and the array size, or a message saying what is wrong with it.
    pub fn split_name(&self) -> Result<(&str, ArraySize), String> {
        split_array_name(&self.name)
    }

    /// Descriptors the resource takes in its binding: `N` for `name[N]` samplers, images and acceleration
    /// structures; 1 otherwise. A buffer's `[N]`/`[]` is an array inside its one block, and a runtime-sized
    /// array of descriptors would need descriptor indexing.
    ///
    /// ```
    /// use shader_info::*;
    /// let info = ShaderCreateInfo::new("x")
    ///     .sampler(0, ImageType::Float2D, "shadow_maps[4]", Frequency::Pass)
    ///     .storage_buf(1, Qualifier::Read, "vec4", "lights[16]", Frequency::Pass);
    /// assert_eq!(info.resources[0].value.descriptor_count(), 4);
    /// assert_eq!(info.resources[1].value.descriptor_count(), 1);
    /// ```
    pub fn descriptor_count(&self) -> u32 {
        let is_buffer = matches!(
            self.kind,
            ResourceKind::UniformBuffer { .. } | ResourceKind::StorageBuffer { .. }
        );
        match self.split_name() {
            Ok((_, ArraySize::Fixed(n))) if !is_buffer => n,
            _ => 1,
        }
    }

    /// The descriptor set (from the frequency).
    pub fn set(&self) -> u32 {
        self.frequency.set()
    }
}

/// Splits `name[N]`/`name[]` into the base name and its array size.
///
/// ```
/// use shader_info::{split_array_name, ArraySize};
/// assert_eq!(split_array_name("lights[4]"), Ok(("lights", ArraySize::Fixed(4))));
/// assert_eq!(split_array_name("glyphs[]"), Ok(("glyphs", ArraySize::Runtime)));
/// assert!(split_array_name("bad[x]").is_err());
/// ```
pub fn split_array_name(name: &str) -> Result<(&str, ArraySize), String> {
    let Some(open) = name.find('[') else {
        return Ok((name, ArraySize::Single));
    };
    let (base, rest) = name.split_at(open);
    let Some(inner) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) else {
        return Err(format!(
            "`{name}` has an unclosed or trailing array suffix: write `{base}[N]` or `{base}[]`"
        ));
    };
    let inner = inner.trim();
    if inner.is_empty() {
        return Ok((base, ArraySize::Runtime));
    }
    match inner.parse::<u32>() {
        Ok(0) => Err(format!(
            "`{name}` has an array size of 0: sizes must be at least 1"
        )),
        Ok(n) => Ok((base, ArraySize::Fixed(n))),
        Err(_) => Err(format!(
            "`{name}`: array size `{inner}` is not a positive integer"
        )),
    }
}

/// The value of a specialization constant.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ConstValue {
    Bool(bool),
    Int(i32),
    Uint(u32),
    Float(f32),
}

impl ConstValue {
    /// The GLSL type this value belongs to.
    pub fn ty(self) -> Type {
        match self {
            ConstValue::Bool(_) => Type::Bool,
            ConstValue::Int(_) => Type::Int,
            ConstValue::Uint(_) => Type::Uint,
            ConstValue::Float(_) => Type::Float,
        }
    }

    /// The GLSL literal.
    pub fn glsl_literal(self) -> String {
        match self {
            ConstValue::Bool(b) => b.to_string(),
            ConstValue::Int(i) => i.to_string(),
            ConstValue::Uint(u) => format!("{u}u"),
            ConstValue::Float(f) => {
                let s = format!("{f:?}");
                if s.contains(['.', 'e', 'E']) || s.contains("inf") || s.contains("NaN") {
                    s
                } else {
                    format!("{s}.0")
                }
            }
        }
    }

    /// The 32-bit pattern Vulkan's `VkSpecializationInfo` expects (bools are `VkBool32`).
    pub fn to_bits(self) -> u32 {
        match self {
            ConstValue::Bool(b) => b as u32,
            ConstValue::Int(i) => i as u32,
            ConstValue::Uint(u) => u,
            ConstValue::Float(f) => f.to_bits(),
        }
    }
}

impl From<bool> for ConstValue {
    fn from(v: bool) -> Self {
        ConstValue::Bool(v)
    }
}
impl From<i32> for ConstValue {
    fn from(v: i32) -> Self {
        ConstValue::Int(v)
    }
}
impl From<u32> for ConstValue {
    fn from(v: u32) -> Self {
        ConstValue::Uint(v)
    }
}
impl From<f32> for ConstValue {
    fn from(v: f32) -> Self {
        ConstValue::Float(v)
    }
}

/// A `layout(constant_id = n) const` declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecializationConstant {
    pub ty: Type,
    pub name: String,
    pub default: ConstValue,
    /// The `constant_id`, assigned by resolution (see [`crate::Registry::constant_id`]); `None` before it.
    pub id: Option<u32>,
}

/// A preprocessor define.
#[derive(Clone, Debug, PartialEq)]
pub struct Define {
    pub name: String,
    pub value: Option<String>,
}

/// The geometry stage's primitive layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeometryLayout {
    pub primitive_in: PrimitiveIn,
    pub primitive_out: PrimitiveOut,
    pub max_vertices: u32,
    pub invocations: u32,
}

/// A shader declaration: everything the generator, compiler and pipeline builder need to know.
///
/// ```
/// use shader_info::*;
/// let iface = StageInterfaceInfo::new("color_iface", "").smooth(Type::Vec4, "color");
/// let info = ShaderCreateInfo::new("my_shader")
///     .vertex_in(0, Type::Vec3, "pos")
///     .vertex_in(1, Type::Vec4, "col")
///     .vertex_out(&iface)
///     .fragment_out(0, Type::Vec4, "frag_color")
///     .push_constant(Type::Mat4, "ModelViewProjectionMatrix")
///     .sampler(0, ImageType::Float2D, "image", Frequency::Pass)
///     .vertex_source("my_shader_vert.glsl")
///     .fragment_source("my_shader_frag.glsl")
///     .do_static_compilation(true);
/// assert_eq!(info.vertex_inputs.len(), 2);
/// ```
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ShaderCreateInfo {
    pub name: String,
    pub origin: Origin,
    pub vertex_inputs: Vec<Item<VertexInput>>,
    pub vertex_out: Vec<Item<StageInterfaceInfo>>,
    pub geometry_layout: Option<Item<GeometryLayout>>,
    pub geometry_out: Vec<Item<StageInterfaceInfo>>,
    pub fragment_outputs: Vec<Item<FragmentOutput>>,
    pub push_constants: Vec<Item<PushConstant>>,
    pub resources: Vec<Item<Resource>>,
    pub specialization_constants: Vec<Item<SpecializationConstant>>,
    pub defines: Vec<Item<Define>>,
    pub typedef_sources: Vec<Item<String>>,
    pub additional_infos: Vec<Item<String>>,
    pub local_group_size: Option<Item<[u32; 3]>>,
    pub builtins: BuiltinBits,
    pub depth_write: Option<Item<DepthWrite>>,
    pub early_fragment_test: Option<Item<bool>>,
    pub do_static_compilation: bool,
    /// Stage sources, at most one per stage (a second is kept so validation can report it).
    pub sources: Vec<Item<(Stage, String)>>,
    /// Static branches (see the variants module); each is a boolean known at generation time.
    pub branches: Vec<Item<String>>,
    /// The function folding branch permutations into variants.
    pub specialize: Option<Item<crate::variants::SpecializeFn>>,
    /// Branch values of one variant (set by [`crate::Variant::apply`]); branches not listed are `false`.
    pub branch_values: Vec<(String, bool)>,
}

impl ShaderCreateInfo {
    /// Starts a declaration. The name is what the registry and the renderer look it up by.
    #[track_caller]
    pub fn new(name: impl Into<String>) -> Self {
        ShaderCreateInfo {
            name: name.into(),
            origin: Origin::caller(),
            ..Default::default()
        }
    }

    #[track_caller]
    fn item<T>(&self, value: T) -> Item<T> {
        Item {
            value,
            declared_in: self.name.clone(),
            origin: Origin::caller(),
        }
    }

    /// A vertex attribute at `location` (matrices take one location per column).
    #[track_caller]
    pub fn vertex_in(mut self, location: u32, ty: Type, name: impl Into<String>) -> Self {
        let it = self.item(VertexInput {
            location,
            ty,
            name: name.into(),
        });
        self.vertex_inputs.push(it);
        self
    }

    /// Data the vertex stage passes on (to the geometry or fragment stage).
    #[track_caller]
    pub fn vertex_out(mut self, interface: &StageInterfaceInfo) -> Self {
        let it = self.item(interface.clone());
        self.vertex_out.push(it);
        self
    }

    /// The geometry stage's input and output primitives.
    #[track_caller]
    pub fn geometry_layout(
        mut self,
        primitive_in: PrimitiveIn,
        primitive_out: PrimitiveOut,
        max_vertices: u32,
    ) -> Self {
        self.geometry_layout = Some(self.item(GeometryLayout {
            primitive_in,
            primitive_out,
            max_vertices,
            invocations: 1,
        }));
        self
    }

    /// Like [`Self::geometry_layout`] with an instanced geometry shader.
    #[track_caller]
    pub fn geometry_layout_instanced(
        mut self,
        primitive_in: PrimitiveIn,
        primitive_out: PrimitiveOut,
        max_vertices: u32,
        invocations: u32,
    ) -> Self {
        self.geometry_layout = Some(self.item(GeometryLayout {
            primitive_in,
            primitive_out,
            max_vertices,
            invocations,
        }));
        self
    }

    /// Data the geometry stage passes to the fragment stage.
    #[track_caller]
    pub fn geometry_out(mut self, interface: &StageInterfaceInfo) -> Self {
        let it = self.item(interface.clone());
        self.geometry_out.push(it);
        self
    }

    /// A color attachment output at `location`.
    #[track_caller]
    pub fn fragment_out(self, location: u32, ty: Type, name: impl Into<String>) -> Self {
        self.fragment_out_blend(location, ty, name, DualBlend::None)
    }

    /// A fragment output with a dual-source blending index.
    #[track_caller]
    pub fn fragment_out_blend(
        mut self,
        location: u32,
        ty: Type,
        name: impl Into<String>,
        blend: DualBlend,
    ) -> Self {
        let it = self.item(FragmentOutput {
            location,
            ty,
            name: name.into(),
            blend,
        });
        self.fragment_outputs.push(it);
        self
    }

    /// A push-constant member. All members form one `std430` block of at most 128 bytes.
    #[track_caller]
    pub fn push_constant(mut self, ty: Type, name: impl Into<String>) -> Self {
        let it = self.item(PushConstant {
            ty,
            name: name.into(),
            array_size: None,
        });
        self.push_constants.push(it);
        self
    }

    /// A push-constant array member `ty name[size]`.
    #[track_caller]
    pub fn push_constant_array(mut self, ty: Type, name: impl Into<String>, size: u32) -> Self {
        let it = self.item(PushConstant {
            ty,
            name: name.into(),
            array_size: Some(size),
        });
        self.push_constants.push(it);
        self
    }

    #[track_caller]
    fn resource(
        mut self,
        slot: u32,
        frequency: Frequency,
        name: String,
        kind: ResourceKind,
    ) -> Self {
        let it = self.item(Resource {
            slot,
            frequency,
            name,
            kind,
        });
        self.resources.push(it);
        self
    }

    /// A combined image sampler at binding `slot` of the frequency's set. The name may carry `[N]`.
    #[track_caller]
    pub fn sampler(
        self,
        slot: u32,
        image_type: ImageType,
        name: impl Into<String>,
        frequency: Frequency,
    ) -> Self {
        self.resource(
            slot,
            frequency,
            name.into(),
            ResourceKind::Sampler { image_type },
        )
    }

    /// A storage image.
    #[track_caller]
    pub fn image(
        self,
        slot: u32,
        format: TextureFormat,
        qualifier: Qualifier,
        image_type: ImageType,
        name: impl Into<String>,
        frequency: Frequency,
    ) -> Self {
        self.resource(
            slot,
            frequency,
            name.into(),
            ResourceKind::Image {
                format,
                qualifier,
                image_type,
            },
        )
    }

    /// A uniform block holding `type_name` (a GLSL type or a shared struct); the name may carry `[N]`.
    #[track_caller]
    pub fn uniform_buf(
        self,
        slot: u32,
        type_name: impl Into<String>,
        name: impl Into<String>,
        frequency: Frequency,
    ) -> Self {
        self.resource(
            slot,
            frequency,
            name.into(),
            ResourceKind::UniformBuffer {
                type_name: type_name.into(),
            },
        )
    }

    /// A storage block holding `type_name`; the name may carry `[]` (runtime array) or `[N]`.
    #[track_caller]
    pub fn storage_buf(
        self,
        slot: u32,
        qualifier: Qualifier,
        type_name: impl Into<String>,
        name: impl Into<String>,
        frequency: Frequency,
    ) -> Self {
        self.resource(
            slot,
            frequency,
            name.into(),
            ResourceKind::StorageBuffer {
                qualifier,
                type_name: type_name.into(),
            },
        )
    }

    /// A top-level acceleration structure for ray queries and `traceRayEXT`.
    #[track_caller]
    pub fn acceleration_structure(
        self,
        slot: u32,
        name: impl Into<String>,
        frequency: Frequency,
    ) -> Self {
        self.resource(
            slot,
            frequency,
            name.into(),
            ResourceKind::AccelerationStructure,
        )
    }

    /// A specialization constant; ids are assigned in resolved declaration order.
    #[track_caller]
    pub fn specialization_constant(
        mut self,
        ty: Type,
        name: impl Into<String>,
        default: impl Into<ConstValue>,
    ) -> Self {
        let it = self.item(SpecializationConstant {
            ty,
            name: name.into(),
            default: default.into(),
            id: None,
        });
        self.specialization_constants.push(it);
        self
    }

    /// `#define name`.
    #[track_caller]
    pub fn define(mut self, name: impl Into<String>) -> Self {
        let it = self.item(Define {
            name: name.into(),
            value: None,
        });
        self.defines.push(it);
        self
    }

    /// `#define name value`.
    #[track_caller]
    pub fn define_value(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        let it = self.item(Define {
            name: name.into(),
            value: Some(value.into()),
        });
        self.defines.push(it);
        self
    }

    /// A file of type definitions inserted (once) before the resource declarations.
    #[track_caller]
    pub fn typedef_source(mut self, file: impl Into<String>) -> Self {
        let it = self.item(file.into());
        self.typedef_sources.push(it);
        self
    }

    /// Reuses every item of another info (resolved depth-first, this info's own items first).
    #[track_caller]
    pub fn additional_info(mut self, name: impl Into<String>) -> Self {
        let it = self.item(name.into());
        self.additional_infos.push(it);
        self
    }

    /// Compute workgroup size `x` (y = z = 1).
    #[track_caller]
    pub fn local_group_size(self, x: u32) -> Self {
        self.local_group_size_3d(x, 1, 1)
    }

    /// Compute workgroup size `x × y` (z = 1).
    #[track_caller]
    pub fn local_group_size_2d(self, x: u32, y: u32) -> Self {
        self.local_group_size_3d(x, y, 1)
    }

    /// Compute workgroup size `x × y × z`.
    #[track_caller]
    pub fn local_group_size_3d(mut self, x: u32, y: u32, z: u32) -> Self {
        self.local_group_size = Some(self.item([x, y, z]));
        self
    }

    /// Built-ins the shader uses.
    pub fn builtins(mut self, bits: BuiltinBits) -> Self {
        self.builtins |= bits;
        self
    }

    /// `gl_FragDepth` write promise.
    #[track_caller]
    pub fn depth_write(mut self, value: DepthWrite) -> Self {
        self.depth_write = Some(self.item(value));
        self
    }

    /// Forces early fragment tests (`layout(early_fragment_tests) in;`).
    #[track_caller]
    pub fn early_fragment_test(mut self, enable: bool) -> Self {
        self.early_fragment_test = Some(self.item(enable));
        self
    }

    /// Marks the info as compilable: the static pass compiles it. Not inherited through `additional_info`.
    pub fn do_static_compilation(mut self, enable: bool) -> Self {
        self.do_static_compilation = enable;
        self
    }

    /// The source file of `stage`, relative to the shader root.
    #[track_caller]
    pub fn stage_source(mut self, stage: Stage, file: impl Into<String>) -> Self {
        let it = self.item((stage, file.into()));
        self.sources.push(it);
        self
    }

    /// The vertex stage's source file.
    #[track_caller]
    pub fn vertex_source(self, file: impl Into<String>) -> Self {
        self.stage_source(Stage::Vertex, file)
    }

    /// The fragment stage's source file.
    #[track_caller]
    pub fn fragment_source(self, file: impl Into<String>) -> Self {
        self.stage_source(Stage::Fragment, file)
    }

    /// The geometry stage's source file.
    #[track_caller]
    pub fn geometry_source(self, file: impl Into<String>) -> Self {
        self.stage_source(Stage::Geometry, file)
    }

    /// The compute stage's source file.
    #[track_caller]
    pub fn compute_source(self, file: impl Into<String>) -> Self {
        self.stage_source(Stage::Compute, file)
    }

    /// The ray-generation stage's source file.
    #[track_caller]
    pub fn raygen_source(self, file: impl Into<String>) -> Self {
        self.stage_source(Stage::RayGen, file)
    }

    /// The miss stage's source file.
    #[track_caller]
    pub fn miss_source(self, file: impl Into<String>) -> Self {
        self.stage_source(Stage::Miss, file)
    }

    /// The closest-hit stage's source file.
    #[track_caller]
    pub fn closest_hit_source(self, file: impl Into<String>) -> Self {
        self.stage_source(Stage::ClosestHit, file)
    }

    /// The any-hit stage's source file.
    #[track_caller]
    pub fn any_hit_source(self, file: impl Into<String>) -> Self {
        self.stage_source(Stage::AnyHit, file)
    }

    /// The intersection stage's source file.
    #[track_caller]
    pub fn intersection_source(self, file: impl Into<String>) -> Self {
        self.stage_source(Stage::Intersection, file)
    }

    /// The callable stage's source file.
    #[track_caller]
    pub fn callable_source(self, file: impl Into<String>) -> Self {
        self.stage_source(Stage::Callable, file)
    }

    /// A static boolean branch: `const bool NAME` in GLSL, `true` or `false` per variant (see
    /// [`crate::enumerate_variants`]).
    #[track_caller]
    pub fn branch(mut self, name: impl Into<String>) -> Self {
        let it = self.item(name.into());
        self.branches.push(it);
        self
    }

    /// The source file of `stage`, if declared.
    pub fn source(&self, stage: Stage) -> Option<&str> {
        self.sources
            .iter()
            .find(|s| s.value.0 == stage)
            .map(|s| s.value.1.as_str())
    }

    /// The `constant_id` of each specialization constant, in declaration order: the id resolution assigned, or
    /// the position in the list for an unresolved info.
    pub fn specialization_constant_ids(&self) -> Vec<u32> {
        self.specialization_constants
            .iter()
            .enumerate()
            .map(|(i, c)| c.value.id.unwrap_or(i as u32))
            .collect()
    }

    /// The stages that have a source, in pipeline order.
    pub fn stages(&self) -> Vec<Stage> {
        let mut v: Vec<Stage> = self.sources.iter().map(|s| s.value.0).collect();
        v.sort();
        v.dedup();
        v
    }
}
