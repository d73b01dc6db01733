//! The declaration builders: [`ShaderCreateInfo`] and [`StageInterfaceInfo`].
//!
//! Builders are plain data. No method panics or fails on user input: arguments are recorded as given and
//! [`crate::validate`] reports every problem at once. Each item remembers the Rust file and line that declared it
//! (through `#[track_caller]`), so a diagnostic can point at the declaration.

use crate::condition::Condition;
use crate::constant::{ConstValue, SharedConstant};
use crate::item::Item;
use crate::layout::{
    BlockLayout, Field, FieldArray, FieldType, LayoutError, Rules, StructMap, layout_fields,
};
use crate::origin::Origin;
use crate::render_state::*;
use crate::resource::{Resource, ResourceKind, SlotSpace};
use crate::sampler_state::SamplerState;
use crate::specialize::{SpecializeFn, VariantBuilder};
use crate::targets::Target;
use crate::types::*;
use crate::vertex::{VertexInput, VertexRate};

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

/// A `layout(constant_id = n) const` declaration.
#[derive(Clone, Debug, PartialEq)]
pub struct SpecializationConstant {
    pub ty: Type,
    pub name: String,
    pub default: ConstValue,
    /// The `constant_id`, assigned by resolution (see [`crate::Registry::constant_id`]); `None` before it.
    pub id: Option<u32>,
}

/// A `shared` variable of the compute stage: work-group memory declared with the info, so its size is known
/// before compiling and checked against the device's `maxComputeSharedMemorySize` (and the 16 KiB every
/// Vulkan device guarantees). The name may carry an array size, a number or a [`SharedConstant`]'s name.
///
/// ```
/// use shader_info::{ShaderCreateInfo, Type};
/// let info = ShaderCreateInfo::new("reduce").shared_variable(Type::Vec4, "partial[64]");
/// assert_eq!(info.shared_variables[0].value.name, "partial[64]");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SharedVariable {
    pub ty: Type,
    pub name: String,
}

impl SharedVariable {
    /// Bytes of work-group memory it takes, counting each element at its std430 array stride (a `vec3` as 16
    /// bytes): what drivers allocate at most. `None` while its array size is not a number.
    pub fn bytes(&self) -> Option<u64> {
        let count = match crate::resource::split_shared_name(&self.name).ok()?.1 {
            crate::resource::ArraySize::Single => 1,
            crate::resource::ArraySize::Fixed(n) => u64::from(n),
            crate::resource::ArraySize::Runtime => return None,
        };
        let scalar = self.ty.scalar().size();
        let (columns, rows) = self.ty.shape();
        let column = match rows {
            1 => scalar,
            2 => 2 * scalar,
            _ => 4 * scalar,
        };
        Some(count * u64::from(columns * column))
    }
}

/// A preprocessor define: object-like (`NAME` or `NAME value`) or function-like (`name(a, b) body`, `name` holding
/// the parameter list: `#define name(a, b) body`).
#[derive(Clone, Debug, PartialEq)]
pub struct Define {
    pub name: String,
    pub value: Option<String>,
}

impl Define {
    /// Splits Blender's one-string form into the macro (with its parameter list) and the body, as Blender writes
    /// `#define <text>`: `"name(a) body"` is function-like; `"NAME value"` and `"NAME (a + b)"` (a space before the
    /// parenthesis) are object-like.
    ///
    /// ```
    /// use shader_info::ShaderCreateInfo;
    /// let info = ShaderCreateInfo::new("x").define("resource_handle (chunk * LEN + resource_id)");
    /// assert_eq!(info.defines[0].value.name, "resource_handle");
    /// assert_eq!(info.defines[0].value.value.as_deref(), Some("(chunk * LEN + resource_id)"));
    /// ```
    fn from_blender(text: String) -> Define {
        if let Some(open) = text.find('(')
            && let Some(close) = text[open..].find(')').map(|i| open + i)
            && !text[..open].contains(char::is_whitespace)
        {
            let body = text[close + 1..].trim();
            return Define {
                name: text[..=close].to_string(),
                value: (!body.is_empty()).then(|| body.to_string()),
            };
        }
        if let Some((name, body)) = text.trim().split_once(char::is_whitespace)
            && name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            return Define {
                name: name.to_string(),
                value: Some(body.trim().to_string()),
            };
        }
        Define {
            name: text,
            value: None,
        }
    }

    /// The macro's name: `name` without a parameter list.
    ///
    /// ```
    /// use shader_info::ShaderCreateInfo;
    /// let info = ShaderCreateInfo::new("x").define("to_display(a) a");
    /// assert_eq!(info.defines[0].value.macro_name(), "to_display");
    /// assert_eq!(info.defines[0].value.params(), Some(vec!["a"]));
    /// assert_eq!(info.defines[0].value.value.as_deref(), Some("a"));
    /// ```
    pub fn macro_name(&self) -> &str {
        self.name.split('(').next().unwrap_or(&self.name)
    }

    /// The parameters of a function-like macro (`None` for an object-like one).
    pub fn params(&self) -> Option<Vec<&str>> {
        let (_, rest) = self.name.split_once('(')?;
        let list = rest.strip_suffix(')').unwrap_or(rest).trim();
        Some(if list.is_empty() {
            Vec::new()
        } else {
            list.split(',').map(str::trim).collect()
        })
    }
}

/// The geometry stage's primitive layout.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeometryLayout {
    pub primitive_in: PrimitiveIn,
    pub primitive_out: PrimitiveOut,
    pub max_vertices: u32,
    pub invocations: u32,
}

/// The tessellation stages' patch layout: control points per patch (the pipeline's patch size too), and how the
/// evaluation stage's domain is subdivided, spaced and wound.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TessellationLayout {
    pub control_points: u32,
    pub domain: TessDomain,
    pub spacing: TessSpacing,
    /// The winding of generated triangles (`ccw`/`cw`), which the render state's front face then sees.
    pub winding: FrontFace,
}

/// A resource declared under a condition ([`ShaderCreateInfo::resources_if`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ConditionalResource {
    pub condition: Condition,
    /// The resource; `Err` names something other than a resource declared under the condition, which validation
    /// reports.
    pub resource: Result<Resource, String>,
}

/// A fragment input read from a color attachment an earlier pass wrote ([`ShaderCreateInfo::subpass_in`]).
#[derive(Clone, Debug, PartialEq)]
pub struct SubpassInput {
    /// The color attachment location it reads.
    pub index: u32,
    pub ty: Type,
    /// The name shader code reads it by, as a value.
    pub name: String,
}

impl SubpassInput {
    /// The name of the binding that carries it (the host binds the attachment's image there, in either mode).
    pub fn resource_name(&self) -> String {
        format!("{}_input", self.name)
    }

    /// The image type of its emulating texture, from the declared value's scalar.
    pub(crate) fn image_type(&self) -> ImageType {
        match self.ty.scalar() {
            Scalar::Int => ImageType::Int2D,
            Scalar::Uint => ImageType::Uint2D,
            Scalar::Float | Scalar::Double | Scalar::Bool => ImageType::Float2D,
        }
    }
}

/// A typedef entry that names a registered shared type rather than a file.
pub(crate) fn is_type_name(s: &str) -> bool {
    !s.contains(['.', '/'])
}

/// The `<stage>_source(file)` shorthands of [`ShaderCreateInfo::stage_source`], one per stage.
macro_rules! stage_source_shorthands {
    ($($(#[$doc:meta])* $name:ident => $stage:ident),* $(,)?) => {
        impl ShaderCreateInfo {$(
            $(#[$doc])*
            #[track_caller]
            pub fn $name(self, file: impl Into<String>) -> Self {
                self.stage_source(Stage::$stage, file)
            }
        )*}
    };
}

stage_source_shorthands! {
    /// The vertex stage's source file.
    vertex_source => Vertex,
    /// The fragment stage's source file.
    fragment_source => Fragment,
    /// The geometry stage's source file.
    geometry_source => Geometry,
    /// The tessellation control stage's source file.
    tess_control_source => TessControl,
    /// The tessellation evaluation stage's source file.
    tess_evaluation_source => TessEvaluation,
    /// The compute stage's source file.
    compute_source => Compute,
    /// The ray-generation stage's source file.
    raygen_source => RayGen,
    /// The miss stage's source file.
    miss_source => Miss,
    /// The closest-hit stage's source file.
    closest_hit_source => ClosestHit,
    /// The any-hit stage's source file.
    any_hit_source => AnyHit,
    /// The intersection stage's source file.
    intersection_source => Intersection,
    /// The callable stage's source file.
    callable_source => Callable,
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
    /// The tessellation stages' patch layout.
    pub tessellation_layout: Option<Item<TessellationLayout>>,
    /// Per-control-point data the tessellation control stage writes and the evaluation stage reads.
    pub tess_control_out: Vec<Item<StageInterfaceInfo>>,
    /// Per-patch data the tessellation control stage writes and the evaluation stage reads.
    pub tess_patch_out: Vec<Item<StageInterfaceInfo>>,
    /// Data the tessellation evaluation stage passes on (to the geometry or fragment stage).
    pub tess_evaluation_out: Vec<Item<StageInterfaceInfo>>,
    pub fragment_outputs: Vec<Item<FragmentOutput>>,
    pub push_constants: Vec<Item<PushConstant>>,
    pub resources: Vec<Item<Resource>>,
    pub specialization_constants: Vec<Item<SpecializationConstant>>,
    pub defines: Vec<Item<Define>>,
    /// Constants shared with Rust ([`SharedConstant`]).
    pub constants: Vec<Item<SharedConstant>>,
    /// Work-group memory of the compute stage ([`SharedVariable`]).
    pub shared_variables: Vec<Item<SharedVariable>>,
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
    pub specialize: Option<Item<SpecializeFn>>,
    /// Branch values of one variant (set by [`crate::Variant::apply`]); branches not listed are `false`.
    pub branch_values: Vec<(String, bool)>,
    /// Cross-language targets this info opts out of, each with the reason the report gives.
    pub skipped_targets: Vec<Item<(Target, String)>>,
    /// Resources present only where a condition on branches holds ([`Self::resources_if`]); `resources` holds
    /// those whose condition holds for the info's branch values.
    pub conditional_resources: Vec<Item<ConditionalResource>>,
    /// Shared and compilation constants that size arrays (set by resolution): their value is the same in every
    /// variant.
    pub size_constants: Vec<String>,
    /// Fragment inputs read from attachments ([`Self::subpass_in`]).
    pub subpass_inputs: Vec<Item<SubpassInput>>,
    /// Entry-point names other than `main`, per stage ([`Self::entry_point`]).
    pub entry_points: Vec<Item<(Stage, String)>>,
    /// How resource slots are numbered ([`SlotSpace`]); `None` is [`SlotSpace::PerSet`], or
    /// [`SlotSpace::PerKind`] under the Blender prelude ([`Self::blender_compat`]).
    pub slot_space: Option<Item<SlotSpace>>,
    /// Declared render state (see [`crate::render_state`]), one item per builder call.
    pub render_state: Vec<Item<StateItem>>,
    /// The Blender compatibility prelude ([`Self::blender_compat`]); inherited through `additional_info`.
    pub blender_prelude: bool,
    /// The info that replaces this one where one of its stages cannot run ([`Self::twin`]); not inherited.
    pub twin: Option<Item<String>>,
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

    /// Whether `other` is this info but for its branch values and render state: what no check but the render-state
    /// one reads, and what generation writes in the branch section only. Every field is named, so a field added
    /// later must be placed on one side or the other here.
    pub(crate) fn same_but_branch_values_and_state(&self, other: &ShaderCreateInfo) -> bool {
        let ShaderCreateInfo {
            name,
            origin,
            vertex_inputs,
            vertex_out,
            geometry_layout,
            geometry_out,
            tessellation_layout,
            tess_control_out,
            tess_patch_out,
            tess_evaluation_out,
            fragment_outputs,
            push_constants,
            resources,
            specialization_constants,
            defines,
            constants,
            shared_variables,
            typedef_sources,
            additional_infos,
            local_group_size,
            builtins,
            depth_write,
            early_fragment_test,
            do_static_compilation,
            sources,
            branches,
            specialize,
            branch_values: _,
            skipped_targets,
            conditional_resources,
            size_constants,
            subpass_inputs,
            entry_points,
            slot_space,
            render_state: _,
            blender_prelude,
            twin,
        } = self;
        *name == other.name
            && *origin == other.origin
            && *vertex_inputs == other.vertex_inputs
            && *vertex_out == other.vertex_out
            && *geometry_layout == other.geometry_layout
            && *geometry_out == other.geometry_out
            && *tessellation_layout == other.tessellation_layout
            && *tess_control_out == other.tess_control_out
            && *tess_patch_out == other.tess_patch_out
            && *tess_evaluation_out == other.tess_evaluation_out
            && *fragment_outputs == other.fragment_outputs
            && *push_constants == other.push_constants
            && *resources == other.resources
            && *specialization_constants == other.specialization_constants
            && *defines == other.defines
            && *constants == other.constants
            && *shared_variables == other.shared_variables
            && *typedef_sources == other.typedef_sources
            && *additional_infos == other.additional_infos
            && *local_group_size == other.local_group_size
            && *builtins == other.builtins
            && *depth_write == other.depth_write
            && *early_fragment_test == other.early_fragment_test
            && *do_static_compilation == other.do_static_compilation
            && *sources == other.sources
            && *branches == other.branches
            && *specialize == other.specialize
            && *skipped_targets == other.skipped_targets
            && *conditional_resources == other.conditional_resources
            && *size_constants == other.size_constants
            && *subpass_inputs == other.subpass_inputs
            && *entry_points == other.entry_points
            && *slot_space == other.slot_space
            && *blender_prelude == other.blender_prelude
            && *twin == other.twin
    }

    /// Names this info as the declarer of each of its own items. An info renamed after its builder calls
    /// (`info.name = …`) would otherwise keep the old name on its items, and everything keyed by it (the
    /// specialization-constant ids, "declared in" of diagnostics) would name an info that does not exist.
    pub(crate) fn restamp_items(&mut self) {
        let name = self.name.clone();
        macro_rules! restamp {
            ($($list:ident),*) => {$(
                for it in self.$list.iter_mut() {
                    it.declared_in.clone_from(&name);
                }
            )*};
        }
        restamp!(
            vertex_inputs,
            vertex_out,
            geometry_layout,
            geometry_out,
            tessellation_layout,
            tess_control_out,
            tess_patch_out,
            tess_evaluation_out,
            fragment_outputs,
            push_constants,
            resources,
            specialization_constants,
            defines,
            constants,
            shared_variables,
            typedef_sources,
            additional_infos,
            local_group_size,
            depth_write,
            early_fragment_test,
            sources,
            branches,
            specialize,
            skipped_targets,
            conditional_resources,
            subpass_inputs,
            entry_points,
            slot_space,
            render_state
        );
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
    pub fn vertex_in(self, location: u32, ty: Type, name: impl Into<String>) -> Self {
        self.input(location, ty, None, name.into(), VertexRate::Vertex)
    }

    /// Any of the vertex inputs, declared where the caller's caller stands.
    #[track_caller]
    fn input(
        self,
        location: u32,
        ty: Type,
        format: Option<crate::vertex::VertexFormat>,
        name: String,
        rate: VertexRate,
    ) -> Self {
        self.input_from(VertexInput {
            location,
            ty,
            name,
            format,
            rate,
            host: None,
        })
    }

    #[track_caller]
    fn input_from(mut self, input: VertexInput) -> Self {
        let it = self.item(input);
        self.vertex_inputs.push(it);
        self
    }

    /// The per-vertex inputs of a host struct: one `vertex_in` per field, in field order from `first_location`
    /// (a matrix takes one location per column), named as the field and read as the type its format gives the
    /// shader ([`crate::VertexField::shader_type`]: `Float32x3` a `vec3`, `Unorm8x4` a `vec4`). The pipeline then
    /// reads the buffer with the struct's own layout, its field offsets and its size as stride, padding included:
    /// a struct Rust pads (a `glam::Vec3` before a `glam::Vec4`, or a size rounded up to 16) is the layout, so the
    /// pipelines warmed from the declaration are the ones a typed fetch of the struct uses. Every input of the
    /// rate then comes from the struct: one declared beside it is an error.
    ///
    /// ```
    /// use shader_info::*;
    /// #[derive(Clone, Copy, ShaderVertex)]
    /// #[repr(C)]
    /// struct Vertex { pos: glam::Vec3, color: glam::Vec4, uv: glam::Vec2 }
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("mesh").vertex_struct::<Vertex>(0)
    ///     .vertex_source("m.vert").fragment_source("m.frag"));
    /// let plan = PipelinePlan::new(&reg.validated("mesh").unwrap(), &reg);
    /// let buffer = &plan.vertex_buffers(VertexArrangement::Interleaved)[0];
    /// // `color` is at 16 (glam's Vec4 is 16-aligned), and the struct is 48 bytes.
    /// assert_eq!((buffer.stride, buffer.attributes[1]), (48, (1, VertexFormat::Float32x4, 16)));
    /// assert!(plan.vertex_problems::<Vertex>().is_empty());
    /// ```
    #[track_caller]
    pub fn vertex_struct<V: crate::vertex::ShaderVertex>(self, first_location: u32) -> Self {
        self.struct_inputs::<V>(first_location, VertexRate::Vertex)
    }

    /// The per-instance inputs of a host struct ([`Self::vertex_struct`] for [`Self::instance_in`]).
    #[track_caller]
    pub fn instance_struct<I: crate::vertex::ShaderVertex>(self, first_location: u32) -> Self {
        self.struct_inputs::<I>(first_location, VertexRate::Instance)
    }

    #[track_caller]
    fn struct_inputs<V: crate::vertex::ShaderVertex>(
        mut self,
        first_location: u32,
        rate: VertexRate,
    ) -> Self {
        for input in crate::vertex::struct_inputs::<V>(first_location, rate) {
            self = self.input_from(input);
        }
        self
    }

    /// A per-instance attribute at `location`: the shader reads it as any `vertex_in`, and the pipeline reads it
    /// from a buffer that advances once per instance of an instanced draw (Vulkan's instance input rate,
    /// WebGPU's instance step mode). Per-instance inputs share the location space with the per-vertex ones and get
    /// a buffer of their own ([`crate::PipelinePlan::vertex_buffers`]).
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("sprites")
    ///     .vertex_in(0, Type::Vec2, "corner")
    ///     .instance_in(1, Type::Vec4, "rect")
    ///     .instance_in_packed(2, Type::Vec4, VertexFormat::Unorm8x4, "tint")
    ///     .vertex_source("s.vert").fragment_source("s.frag"));
    /// let plan = PipelinePlan::new(&reg.validated("sprites").unwrap(), &reg);
    /// let buffers = plan.vertex_buffers(VertexArrangement::Interleaved);
    /// assert_eq!((buffers[0].rate, buffers[0].stride), (VertexRate::Vertex, 8));
    /// assert_eq!((buffers[1].binding, buffers[1].rate, buffers[1].stride), (1, VertexRate::Instance, 20));
    /// ```
    #[track_caller]
    pub fn instance_in(self, location: u32, ty: Type, name: impl Into<String>) -> Self {
        self.input(location, ty, None, name.into(), VertexRate::Instance)
    }

    /// A per-instance attribute stored in a packed format ([`Self::instance_in`], [`Self::vertex_in_packed`]).
    #[track_caller]
    pub fn instance_in_packed(
        self,
        location: u32,
        ty: Type,
        format: crate::vertex::VertexFormat,
        name: impl Into<String>,
    ) -> Self {
        self.input(
            location,
            ty,
            Some(format),
            name.into(),
            VertexRate::Instance,
        )
    }

    /// A vertex attribute stored in a packed format (normalized 8/16-bit colors, 16-bit integers, half floats,
    /// 10:10:10:2 normals): the shader reads `ty`, the buffer holds `format`, and the pipeline's vertex layout
    /// (offsets, stride, the Vulkan and wgpu formats) follows the format. Validation checks they fit.
    ///
    /// ```
    /// use shader_info::{ShaderCreateInfo, Type, VertexFormat};
    /// let info = ShaderCreateInfo::new("packed")
    ///     .vertex_in(0, Type::Vec3, "pos")
    ///     .vertex_in_packed(1, Type::Vec4, VertexFormat::Unorm8x4, "color")
    ///     .vertex_in_packed(2, Type::Vec4, VertexFormat::Unorm10_10_10_2, "nor");
    /// # let _ = info;
    /// ```
    #[track_caller]
    pub fn vertex_in_packed(
        self,
        location: u32,
        ty: Type,
        format: crate::vertex::VertexFormat,
        name: impl Into<String>,
    ) -> Self {
        self.input(location, ty, Some(format), name.into(), VertexRate::Vertex)
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

    /// The tessellation stages' layout: `control_points` per patch (also the pipeline's patch size), and the
    /// evaluation stage's domain, spacing and winding.
    ///
    /// ```
    /// use shader_info::*;
    /// let v = StageInterfaceInfo::new("VertOut", "v").smooth(Type::Vec3, "pos");
    /// let p = StageInterfaceInfo::new("PatchOut", "patch_data").smooth(Type::Float, "level");
    /// let info = ShaderCreateInfo::new("terrain")
    ///     .vertex_out(&v)
    ///     .tessellation_layout(3, TessDomain::Triangles, TessSpacing::Equal, FrontFace::CounterClockwise)
    ///     .tess_control_out(&v)
    ///     .tess_patch_out(&p)
    ///     .tess_evaluation_out(&v)
    ///     .vertex_source("terrain.vert.glsl")
    ///     .tess_control_source("terrain.tesc.glsl")
    ///     .tess_evaluation_source("terrain.tese.glsl")
    ///     .fragment_source("terrain.frag.glsl");
    /// assert_eq!(info.tessellation_layout.unwrap().value.control_points, 3);
    /// ```
    #[track_caller]
    pub fn tessellation_layout(
        mut self,
        control_points: u32,
        domain: TessDomain,
        spacing: TessSpacing,
        winding: FrontFace,
    ) -> Self {
        self.tessellation_layout = Some(self.item(TessellationLayout {
            control_points,
            domain,
            spacing,
            winding,
        }));
        self
    }

    /// Per-control-point data the tessellation control stage writes (`instance[gl_InvocationID]`) and the
    /// evaluation stage reads (`instance[i]`).
    #[track_caller]
    pub fn tess_control_out(mut self, interface: &StageInterfaceInfo) -> Self {
        let it = self.item(interface.clone());
        self.tess_control_out.push(it);
        self
    }

    /// Per-patch data (`patch out`) the tessellation control stage writes and the evaluation stage reads.
    #[track_caller]
    pub fn tess_patch_out(mut self, interface: &StageInterfaceInfo) -> Self {
        let it = self.item(interface.clone());
        self.tess_patch_out.push(it);
        self
    }

    /// Data the tessellation evaluation stage passes on (to the geometry or fragment stage).
    #[track_caller]
    pub fn tess_evaluation_out(mut self, interface: &StageInterfaceInfo) -> Self {
        let it = self.item(interface.clone());
        self.tess_evaluation_out.push(it);
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

    /// A push-constant member. All members form one `std430` block of at most 128 bytes. The name may carry an
    /// array size (`"parameters[12]"`, what Blender writes as `push_constant(Type::VEC4, "parameters", 12)`): the
    /// same as [`Self::push_constant_array`].
    #[track_caller]
    pub fn push_constant(mut self, ty: Type, name: impl Into<String>) -> Self {
        let name = name.into();
        let (name, array_size) = match name
            .strip_suffix(']')
            .and_then(|n| n.split_once('['))
            .and_then(|(base, size)| Some((base, size.trim().parse::<u32>().ok()?)))
        {
            Some((base, size)) => (base.to_string(), Some(size)),
            None => (name, None),
        };
        let it = self.item(PushConstant {
            ty,
            name,
            array_size,
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
            binding: slot,
            frequency,
            name,
            kind,
        });
        self.resources.push(it);
        self
    }

    /// Numbers this info's resource slots per kind, as Blender's create infos do (sampler 0 and uniform buffer 0
    /// side by side); bindings are derived at resolution (see [`SlotSpace`]). Inherited through
    /// `additional_info`: infos composed together must agree.
    #[track_caller]
    pub fn slots_per_kind(mut self) -> Self {
        self.slot_space = Some(self.item(SlotSpace::PerKind));
        self
    }

    /// Declares this info's slots to be its bindings, Vulkan's own rule and the default ([`SlotSpace::PerSet`]; the
    /// Blender prelude's default is per kind),
    /// for code that names the bindings: composed with an info that numbers per kind ([`Self::slots_per_kind`]),
    /// resolution reports the conflict, naming both, instead of moving the resources to other bindings.
    /// `#[derive(ShaderInfo)]` declares it for an info with resources (its binding constants name the slots).
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("base").slots_per_kind()
    ///     .uniform_buf(0, "vec4", "shared_params", Frequency::Batch));
    /// reg.add_info(ShaderCreateInfo::new("lit").slots_per_set().additional_info("base")
    ///     .sampler(0, ImageType::Float2D, "albedo", Frequency::Batch));
    /// let e = reg.resolve("lit").unwrap_err();
    /// assert_eq!(e[0].code, Code::SingularConflict);
    /// ```
    #[track_caller]
    pub fn slots_per_set(mut self) -> Self {
        self.slot_space = Some(self.item(SlotSpace::PerSet));
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
            ResourceKind::Sampler {
                image_type,
                state: None,
            },
        )
    }

    /// A combined image sampler whose sampler state the declaration fixes (see [`SamplerState`]): an immutable
    /// sampler in the Vulkan set layout, so the host binds the image alone.
    #[track_caller]
    pub fn sampler_with_state(
        self,
        slot: u32,
        image_type: ImageType,
        name: impl Into<String>,
        frequency: Frequency,
        state: SamplerState,
    ) -> Self {
        self.resource(
            slot,
            frequency,
            name.into(),
            ResourceKind::Sampler {
                image_type,
                state: Some(state),
            },
        )
    }

    /// Declares the resources `declare` adds as present only where `condition` holds (Blender's conditional
    /// resources): each variant keeps the ones whose condition its branch values (or boolean shared constants)
    /// satisfy, so resources of mutually exclusive variants may share a slot; collisions are checked per variant.
    /// Shader code guards their use with the preprocessor symbol every branch gets, `#if BRANCH_<NAME>`.
    ///
    /// ```
    /// use shader_info::*;
    /// let info = ShaderCreateInfo::new("mesh")
    ///     .branch("SKINNING")
    ///     .resources_if(Condition::branch("SKINNING"), |i| {
    ///         i.storage_buf(2, Qualifier::Read, "mat4", "bones[]", Frequency::Batch)
    ///     })
    ///     .resources_if(Condition::branch("SKINNING").not(), |i| {
    ///         i.sampler(2, ImageType::Float2D, "baked_pose", Frequency::Batch)
    ///     });
    /// let mut reg = Registry::new();
    /// reg.add_info(info);
    /// let resolved = reg.resolve("mesh").unwrap();
    /// // Resolved with every branch false: the sampler is there, the bones are not.
    /// assert_eq!(resolved.resources.len(), 1);
    /// assert_eq!(resolved.resources[0].value.name, "baked_pose");
    /// ```
    #[track_caller]
    pub fn resources_if(
        mut self,
        condition: impl Into<Condition>,
        declare: impl FnOnce(ShaderCreateInfo) -> ShaderCreateInfo,
    ) -> Self {
        let condition = condition.into();
        let scratch = declare(ShaderCreateInfo::new(self.name.clone()));
        // Anything but resources declared in the closure is reported by validation, never silently kept.
        let only_resources = ShaderCreateInfo {
            name: scratch.name.clone(),
            origin: scratch.origin,
            resources: scratch.resources.clone(),
            ..Default::default()
        };
        let declared_other = only_resources != scratch;
        for it in scratch.resources {
            self.conditional_resources.push(Item {
                value: ConditionalResource {
                    condition: condition.clone(),
                    resource: Ok(it.value),
                },
                declared_in: it.declared_in,
                origin: it.origin,
            });
        }
        if declared_other {
            let it = self.item(ConditionalResource {
                condition,
                resource: Err("something other than a resource".to_string()),
            });
            self.conditional_resources.push(it);
        }
        self
    }

    /// Names the entry point of `stage` in the compiled module (`vs_main`, `shadow_fs`, …): what Vulkan's
    /// `pName`, wgpu's `entry_point` and the WGSL, MSL and HLSL translations call it. The GLSL source keeps its
    /// `void main()`; OpenGL GLSL output does too (OpenGL has no other).
    ///
    /// ```
    /// use shader_info::*;
    /// let info = ShaderCreateInfo::new("x")
    ///     .entry_point(Stage::Vertex, "vs_main")
    ///     .vertex_source("x.vert.glsl");
    /// assert_eq!(info.entry_point_of(Stage::Vertex), "vs_main");
    /// assert_eq!(info.entry_point_of(Stage::Fragment), "main");
    /// ```
    #[track_caller]
    pub fn entry_point(mut self, stage: Stage, name: impl Into<String>) -> Self {
        let it = self.item((stage, name.into()));
        self.entry_points.push(it);
        self
    }

    /// The entry-point name of `stage`: the declared one, else `main`.
    pub fn entry_point_of(&self, stage: Stage) -> &str {
        self.entry_points
            .iter()
            .find(|e| e.value.0 == stage)
            .map_or("main", |e| e.value.1.as_str())
    }

    /// A fragment input read from the color attachment at `index` under the fragment (Blender's `subpass_in`):
    /// shader code reads `name` as a value of type `ty`. It is carried by a binding, `<name>_input`, derived at
    /// set 0 after the declared bindings: a sampled image read at the fragment's own pixel once the pass that wrote
    /// the attachment ended (the emulation, every device), or an input attachment read inside that pass by
    /// dynamic-rendering local read (see [`crate::SubpassMode`]).
    ///
    /// ```
    /// use shader_info::*;
    /// let info = ShaderCreateInfo::new("composite")
    ///     .subpass_in(0, Type::Vec4, "scene_color")
    ///     .fragment_out(0, Type::Vec4, "frag_color")
    ///     .fragment_source("composite.frag.glsl");
    /// let mut reg = Registry::new();
    /// reg.add_info(info);
    /// let resolved = reg.resolve("composite").unwrap();
    /// assert_eq!(resolved.resources[0].value.name, "scene_color_input");
    /// ```
    #[track_caller]
    pub fn subpass_in(mut self, index: u32, ty: Type, name: impl Into<String>) -> Self {
        let it = self.item(SubpassInput {
            index,
            ty,
            name: name.into(),
        });
        self.subpass_inputs.push(it);
        self
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
        // Blender converts the default to the declared type; so does this, where nothing is lost.
        let it = self.item(SpecializationConstant {
            ty,
            name: name.into(),
            default: default.into().converted_to(ty),
            id: None,
        });
        self.specialization_constants.push(it);
        self
    }

    /// A constant shared with Rust: a typed GLSL `const` in every stage, usable as an array size in this info's
    /// declarations (`"views[VIEW_COUNT]"`) and in the infos that include it.
    ///
    /// ```
    /// use shader_info::{constant, Frequency, ImageType, ShaderCreateInfo};
    /// const VIEW_COUNT: u32 = 4;
    /// let info = ShaderCreateInfo::new("multiview")
    ///     .constant(constant!(VIEW_COUNT))
    ///     .sampler(0, ImageType::Float2D, "views[VIEW_COUNT]", Frequency::Pass);
    /// # let _ = info;
    /// ```
    #[track_caller]
    pub fn constant(mut self, constant: SharedConstant) -> Self {
        let it = self.item(constant);
        self.constants.push(it);
        self
    }

    /// A compilation constant (Blender's `compilation_constant`): a value known when the shader is generated,
    /// written as a typed GLSL `const` (the type is the Rust value's: `bool`, `i32`, `u32`, `f32`). It is the same
    /// concept as a branch, which is a boolean compilation constant whose two values the variants enumerate: the
    /// specialize function reads and changes both ([`VariantBuilder::get`]/[`VariantBuilder::set`] for branches,
    /// [`VariantBuilder::constant`]/[`VariantBuilder::set_constant`] here), and `resources_if` conditions read
    /// boolean ones. A constant used as an array size keeps its value in every variant.
    ///
    /// ```
    /// use shader_info::*;
    /// fn specialize(v: &mut VariantBuilder) {
    ///     if v.get("HIGH_QUALITY") {
    ///         v.set_constant("SAMPLE_COUNT", 16u32);
    ///     }
    /// }
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("blur")
    ///     .compilation_constant("SAMPLE_COUNT", 4u32)
    ///     .branch("HIGH_QUALITY")
    ///     .specialize(specialize));
    /// let info = reg.resolve("blur").unwrap();
    /// let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    /// let hq = set.lookup(set.bits_of(&[("HIGH_QUALITY", true)]).unwrap()).unwrap();
    /// let applied = set.variants[hq].apply(&info, &set.branches);
    /// assert_eq!(applied.constants[0].value.glsl(), "const uint SAMPLE_COUNT = 16u;");
    /// ```
    #[track_caller]
    pub fn compilation_constant(
        mut self,
        name: impl Into<String>,
        value: impl Into<ConstValue>,
    ) -> Self {
        let it = self.item(SharedConstant::new(name, value));
        self.constants.push(it);
        self
    }

    /// A `shared` variable of the compute stage (Blender's `shared_variable`): `shared <ty> <name>;` in the
    /// generated compute source, counted against the device's shared-memory limit before the pipeline is made.
    ///
    /// ```
    /// use shader_info::{ShaderCreateInfo, Type};
    /// let info = ShaderCreateInfo::new("histogram")
    ///     .shared_variable(Type::Uint, "bins[256]")
    ///     .local_group_size(256)
    ///     .compute_source("histogram.comp.glsl");
    /// # let _ = info;
    /// ```
    #[track_caller]
    pub fn shared_variable(mut self, ty: Type, name: impl Into<String>) -> Self {
        let it = self.item(SharedVariable {
            ty,
            name: name.into(),
        });
        self.shared_variables.push(it);
        self
    }

    /// `#define name`. A macro with its body may be given whole, as Blender's infos write it:
    /// `.define("to_display(a) a")` is `#define to_display(a) a` (the same as
    /// `.define_value("to_display(a)", "a")`) and `.define("LEN 4")` is `#define LEN 4`; a library file may
    /// `#undef` and replace it.
    #[track_caller]
    pub fn define(mut self, name: impl Into<String>) -> Self {
        let it = self.item(Define::from_blender(name.into()));
        self.defines.push(it);
        self
    }

    /// `#define name value`; `name` may carry a parameter list (`"mix3(a, b, c)"`): a function-like macro.
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

    /// Opts into the Blender compatibility prelude, for sources ported from Blender unchanged (inherited through
    /// `additional_info`; [`crate::Registry::blender_compat`] turns it on for a whole registry). Every stage then
    /// gets what Blender's GLSL prelude and its Vulkan backend give its sources:
    ///
    /// - `USE_GPU_SHADER_CREATE_INFO`;
    /// - `gl_VertexID` and `gl_InstanceID` in the vertex stage, with OpenGL's meaning: `gl_InstanceID` is
    ///   `gl_InstanceIndex - gl_BaseInstance` (Vulkan's instance index counts from the draw's first instance; the
    ///   base comes from `GL_ARB_shader_draw_parameters`, the device feature `shaderDrawParameters`), and the
    ///   backend's `gpu_InstanceIndex`, `gpu_BaseInstance` and `GPU_ARB_shader_draw_parameters`;
    /// - the type names of Blender's shared C++/GLSL dialect and GLSL backend (`float2`…`float4x4`, `int2`,
    ///   `uint3`, `bool4`, `bool32_t`, `packed_float3`, `uint32_t`, `half4`, `depth2D`, …; a buffer may be
    ///   declared of one, `uniform_buf(0, "float4", …)`), and what its shared utility header defines for GLSL
    ///   (`BLI_STATIC_ASSERT*`, `static`, `inline`, `cosf`…), spelt as Blender spells them, so a ported header that
    ///   defines them again compiles;
    /// - the C enums of a `typedef_source` header rewritten as Blender's preprocessor rewrites them (the type a
    ///   macro of `uint`, each value a constant), so a shared header in that dialect can be a `typedef_source`;
    /// - `DFDX_SIGN`, `DFDY_SIGN`, `gpu_Layer`, `gpu_ViewportIndex`, the resource accessors of newer sources
    ///   (`buffer_get(info, name)`, …), the stage-agnostic `gpu_discard_fragment()`, `gpu_dfdx`, `gpu_dfdy` and
    ///   `gpu_fwidth`, `gpu_EmitVertex` in a geometry stage and `gpu_BaryCoord` in a fragment stage;
    /// - the create-info lint stubs of newer sources (`VERTEX_SHADER_CREATE_INFO(info)`, …) as empty macros.
    ///
    /// Resource slots are numbered per kind, as Blender numbers them ([`Self::slots_per_kind`]), unless the info
    /// declares otherwise. Depth is not remapped: a stage that writes OpenGL's depth range (Blender's Vulkan backend
    /// halves it after `main` unless the info declares `BuiltinBits::CLIP_CONTROL`) writes it unchanged.
    ///
    /// `#pragma BLENDER_REQUIRE(file)` is read as `#pragma require(file)` with or without the prelude.
    ///
    /// ```
    /// use shader_info::ShaderCreateInfo;
    /// let info = ShaderCreateInfo::new("ported").blender_compat();
    /// assert!(info.blender_prelude);
    /// ```
    #[track_caller]
    pub fn blender_compat(mut self) -> Self {
        self.blender_prelude = true;
        self
    }

    /// Names the info that replaces this one wherever one of its stages cannot run: on the translation targets
    /// (none has a geometry or tessellation stage; WGSL, MSL, HLSL, OpenGL and ES all take the twin there), and in
    /// a library whose backend or device cannot run the stage (wgpu has no geometry stage; a Vulkan device may lack
    /// `geometryShader` or `tessellationShader`). Blender's Metal-only `*_no_geom` infos are such twins. The twin
    /// is an info of its own, compiled, checked and translated as one; the replaced info's modules on those
    /// targets report "served by its twin" and point at it. Not inherited through `additional_info`: a twin
    /// belongs to one info.
    ///
    /// ```
    /// use shader_info::ShaderCreateInfo;
    /// let info = ShaderCreateInfo::new("polyline").twin("polyline_no_geom");
    /// assert_eq!(info.twin.unwrap().value, "polyline_no_geom");
    /// ```
    #[track_caller]
    pub fn twin(mut self, name: impl Into<String>) -> Self {
        self.twin = Some(self.item(name.into()));
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

    #[track_caller]
    fn state(mut self, item: StateItem) -> Self {
        let it = self.item(item);
        self.render_state.push(it);
        self
    }

    /// How vertices form primitives (default: triangle lists).
    #[track_caller]
    pub fn topology(self, topology: Topology) -> Self {
        self.state(StateItem::Topology(topology))
    }

    /// Primitive restart at the all-ones index (strips; lists need a device feature).
    #[track_caller]
    pub fn primitive_restart(self, enable: bool) -> Self {
        self.state(StateItem::PrimitiveRestart(enable))
    }

    /// Filled polygons, wireframe or points (non-fill needs `fillModeNonSolid`).
    #[track_caller]
    pub fn polygon_mode(self, mode: PolygonMode) -> Self {
        self.state(StateItem::PolygonMode(mode))
    }

    /// Which faces are culled (default: none).
    #[track_caller]
    pub fn cull(self, mode: CullMode) -> Self {
        self.state(StateItem::Cull(mode))
    }

    /// Which winding is front-facing (default: counter-clockwise).
    #[track_caller]
    pub fn front_face(self, face: FrontFace) -> Self {
        self.state(StateItem::FrontFace(face))
    }

    /// Line width in pixels (other than 1 needs `wideLines`).
    #[track_caller]
    pub fn line_width(self, width: f32) -> Self {
        self.state(StateItem::LineWidth(width.to_bits()))
    }

    /// Blending of every color output that has none of its own (default: opaque).
    ///
    /// ```
    /// use shader_info::*;
    /// let info = ShaderCreateInfo::new("ui").blend(Blend::Alpha).blend_at(1, Blend::Opaque);
    /// let s = RenderState::from_items(&info.render_state);
    /// assert_eq!((s.blend_at(0), s.blend_at(1)), (Blend::Alpha, Blend::Opaque));
    /// ```
    #[track_caller]
    pub fn blend(self, blend: Blend) -> Self {
        self.state(StateItem::Blend(blend))
    }

    /// Blending of the color output at `location`.
    #[track_caller]
    pub fn blend_at(self, location: u32, blend: Blend) -> Self {
        self.state(StateItem::BlendAt(location, blend))
    }

    /// The channels the color output at `location` writes (default: all).
    #[track_caller]
    pub fn color_writes(self, location: u32, mask: ColorWrites) -> Self {
        self.state(StateItem::ColorWrites(location, mask))
    }

    /// The depth test (the pipeline then needs a depth attachment).
    #[track_caller]
    pub fn depth(self, state: DepthState) -> Self {
        self.state(StateItem::Depth(Some(state)))
    }

    /// The stencil test (the pipeline then needs a stencil attachment).
    #[track_caller]
    pub fn stencil(self, state: StencilState) -> Self {
        self.state(StateItem::Stencil(Some(state)))
    }

    /// Depth bias (shadow maps, decals).
    #[track_caller]
    pub fn depth_bias(self, bias: DepthBias) -> Self {
        self.state(StateItem::DepthBias(Some(bias)))
    }

    /// Alpha to coverage (multisampled cut-outs).
    #[track_caller]
    pub fn alpha_to_coverage(self, enable: bool) -> Self {
        self.state(StateItem::AlphaToCoverage(enable))
    }

    /// States set while recording instead of in the pipeline.
    #[track_caller]
    pub fn dynamic(self, states: DynamicStates) -> Self {
        self.state(StateItem::Dynamic(states))
    }

    /// Opts out of a cross-language target: the static pass reports the module as skipped there, with `reason`,
    /// instead of translating it. Inherited through `additional_info`.
    ///
    /// ```
    /// use shader_info::{ShaderCreateInfo, Target};
    /// let info = ShaderCreateInfo::new("x").skip_target(Target::Gles, "this renderer ships no OpenGL ES build");
    /// assert_eq!(info.skipped_targets[0].value.0, Target::Gles);
    /// ```
    #[track_caller]
    pub fn skip_target(mut self, target: Target, reason: impl Into<String>) -> Self {
        let it = self.item((target, reason.into()));
        self.skipped_targets.push(it);
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

    /// A static boolean branch: `const bool NAME` in GLSL, `true` or `false` per variant (see
    /// [`crate::enumerate_variants`]).
    #[track_caller]
    pub fn branch(mut self, name: impl Into<String>) -> Self {
        let it = self.item(name.into());
        self.branches.push(it);
        self
    }

    /// The function that folds each permutation of the branches (see [`crate::enumerate_variants`]).
    #[track_caller]
    pub fn specialize(mut self, f: fn(&mut VariantBuilder)) -> Self {
        self.specialize = Some(Item {
            value: SpecializeFn(f),
            declared_in: self.name.clone(),
            origin: Origin::caller(),
        });
        self
    }

    /// The push-constant block as layout fields, in declaration order.
    pub fn push_constant_fields(&self) -> Vec<Field> {
        self.push_constants
            .iter()
            .map(|p| Field {
                name: p.value.name.clone(),
                ty: FieldType::Value(p.value.ty),
                array: p
                    .value
                    .array_size
                    .map_or(FieldArray::None, FieldArray::Fixed),
            })
            .collect()
    }

    /// The std430 layout of the push-constant block, `None` when there are no push constants: the one place the
    /// block is laid out (validation, the pipeline plan and the reflection cross-check all use it).
    ///
    /// ```
    /// use shader_info::*;
    /// let info = ShaderCreateInfo::new("x").push_constant(Type::Vec3, "a").push_constant(Type::Float, "b");
    /// let l = info.push_constant_layout().unwrap().unwrap();
    /// assert_eq!((l.members[1].offset, l.end), (12, 16));
    /// ```
    pub fn push_constant_layout(&self) -> Option<Result<BlockLayout, LayoutError>> {
        if self.push_constants.is_empty() {
            return None;
        }
        // Members are GLSL value types: no struct lookup is needed.
        Some(layout_fields(
            &self.push_constant_fields(),
            Rules::Std430,
            &StructMap::default(),
            &mut Vec::new(),
        ))
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
