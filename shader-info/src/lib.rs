//! # shader-info
//!
//! Declare each shader's interface once, in Rust, and generate everything else from it: the GLSL declarations of
//! every stage (with a source map back to your files), std140/std430 layouts, and the registry the compiler, the
//! static-compilation pass and the Vulkan backend work from.
//!
//! ```
//! use shader_info::*;
//!
//! let iface = StageInterfaceInfo::new("color_iface", "").smooth(Type::Vec4, "color");
//! let mut registry = Registry::new();
//! registry.add_info(
//!     ShaderCreateInfo::new("flat_color")
//!         .vertex_in(0, Type::Vec3, "pos")
//!         .vertex_in(1, Type::Vec4, "col")
//!         .vertex_out(&iface)
//!         .fragment_out(0, Type::Vec4, "frag_color")
//!         .push_constant(Type::Mat4, "mvp")
//!         .vertex_source("flat_color.vert.glsl")
//!         .fragment_source("flat_color.frag.glsl")
//!         .do_static_compilation(true),
//! );
//! let loader = MemoryLoader::default()
//!     .with("flat_color.vert.glsl", "void main() { color = col; gl_Position = mvp * vec4(pos, 1.0); }")
//!     .with("flat_color.frag.glsl", "void main() { frag_color = color; }");
//! let info = registry.validated("flat_color").unwrap();
//! let opts = GenerateOptions::new(&loader, &registry);
//! let vert = generate(&info, Stage::Vertex, &opts).unwrap();
//! println!("{}", vert.source);
//! assert!(vert.source.contains("layout(location = 0) out color_iface {"));
//! ```
//!
//! Data flows one way: declare → register → resolve `additional_info` → validate ([`ValidatedInfo`]) → variants →
//! generate, and the [`PipelinePlan`] every backend maps; the `gpu` crate compiles and creates pipelines from there.

mod blender;
mod builtins;
mod condition;
mod constant;
mod device_use;
mod diagnostic;
mod generate;
// One identifier rule with the derive macros (their crate cannot depend on this one).
use shader_info_glsl_names as glsl_names;
mod host;
mod info;
mod interfaces;
mod item;
pub mod layout;
mod limits;
mod origin;
mod plan;
mod push_spill;
mod registry;
pub mod render_state;
mod resolve;
mod resource;
mod rust_twin;
mod sampler_state;
mod shader_type;
mod spec_values;
mod specialize;
mod subpass;
mod targets;
mod typed_bindings;
mod types;
mod validate;
mod variants;
mod vertex;

pub use blender::{
    BLENDER_PRELUDE, BLENDER_PRELUDE_FRAGMENT, BLENDER_PRELUDE_GEOMETRY,
    BLENDER_PRELUDE_NOT_FRAGMENT, BLENDER_PRELUDE_VERTEX, blender_empty_include,
    blender_file_by_name, blender_type_alias, without_blender_prelude,
};
pub use builtins::BuiltinFeature;
pub use condition::Condition;
pub use constant::{ConstOverride, ConstValue, SharedConstant};
pub use device_use::DescriptorCounts;
pub use diagnostic::{Code, Diagnostic, Related, Severity, render, render_all};
pub use generate::{
    DirLoader, Flavor, GenerateOptions, GeneratedStage, LineOrigin, MappedLocation, MemoryLoader,
    SourceLoader, SourceMap, SourceMapEntry, blender_enums, c_dialect_problem, generate,
    include_directive, include_target, portable_spec_name, typedef_struct_names, without_bom,
};
pub use glsl_names::define_name_problem;
pub use host::{
    BindSet, HostResource, NoPush, NoVertices, PushBlock, VertexData, component_kind_word,
    derived_push_problems, typed_arrangement,
};
pub use info::{
    ConditionalResource, Define, FragmentOutput, GeometryLayout, InterfaceMember, PushConstant,
    ShaderCreateInfo, SharedVariable, SpecializationConstant, StageInterfaceInfo, SubpassInput,
    TessellationLayout,
};
pub use interfaces::{
    Direction, InterfaceUse, PER_VERTEX_COMPONENTS, StageBlock, interface_use, stage_blocks,
};
pub use item::Item;
pub use layout::{
    BlockLayout, Field, FieldArray, FieldType, LayoutError, MemberLayout, Rules, StructDef,
    StructLookup, StructMap, layout_fields,
};
pub use limits::{
    GUARANTEED_GEOMETRY_INVOCATIONS, GUARANTEED_GEOMETRY_TOTAL_OUTPUT_COMPONENTS,
    GUARANTEED_INTERFACE_LOCATIONS, GUARANTEED_UNIFORM_BUFFER_BYTES,
    GUARANTEED_WORK_GROUP_INVOCATIONS, GUARANTEED_WORK_GROUP_SIZE, MAX_BINDING, MAX_CONSTANT_ID,
    MAX_DESCRIPTOR_ARRAY, MAX_FRAGMENT_OUTPUTS, MAX_GEOMETRY_INVOCATIONS,
    MAX_GEOMETRY_OUTPUT_VERTICES, MAX_INTERFACE_LOCATIONS, MAX_PUSH_CONSTANT_BYTES,
    MAX_PUSH_CONSTANTS_SIZE, MAX_SPILLED_PUSH_CONSTANT_BYTES, MAX_VERTEX_ATTRIBUTES,
    MAX_WORK_GROUP_INVOCATIONS, MAX_WORK_GROUP_SIZE, TYPICAL_UNIFORM_BUFFER_BYTES,
};
pub use origin::Origin;
pub use plan::{
    BindingPlan, ColorTargetPlan, DescriptorSetPlan, PipelineKind, PipelinePlan, PushConstantPlan,
    SpecConstantPlan, StageMask, VertexArrangement, VertexAttributePlan, VertexBufferPlan,
    push_block_bytes,
};
pub use push_spill::PushConstantSpill;
pub use registry::{
    EnumDef, EnumRegistration, InfoRegistration, InterfaceRegistration, Registry, StructMeta,
    StructRegistration,
};
pub use render_state::{
    Blend, BlendComponent, BlendFactor, BlendOp, ColorWrites, CompareOp, CullMode, DepthBias,
    DepthState, DynamicStates, FrontFace, PolygonMode, RenderState, StateItem, StencilFace,
    StencilOp, StencilState, Topology,
};
pub use resolve::{ResolvedInfo, resolve};
pub use resource::{
    ArraySize, DescriptorKind, Resource, ResourceKind, SlotSpace, split_array_name,
    split_shared_name,
};
pub use rust_twin::rust_twin_problems;
pub use sampler_state::{BorderColor, SamplerState, TexelFilter, WrapMode};
pub use shader_info_macros::{
    ShaderEnum, ShaderInfo, ShaderStruct, ShaderVertex, shader_info, shader_struct,
};
pub use shader_type::{
    __private, Binding, Bool32, GlslKind, GlslType, Message, Pad, ShaderType, StdLayout,
    TypeLayout, std_layout,
};
pub use spec_values::SpecValues;
pub use specialize::{SpecializeFn, VariantBuilder};
pub use subpass::SubpassMode;
pub use targets::{
    BindingPart, GL_PUSH_CONSTANT_UNIFORM, GlClass, GlSlot, HlslRegister, MslClass, MslSlot,
    PUSH_CONSTANT_SPACE, PushConstantTargets, Target, TargetBinding, TargetMap,
};
pub use typed_bindings::{BindingSet, Bound, Branches, HostTypes, Unsupported};
pub use types::{
    BuiltinBits, DepthWrite, DualBlend, Frequency, ImageType, Interpolation, PrimitiveIn,
    PrimitiveOut, Qualifier, Scalar, Stage, TessDomain, TessSpacing, TextureFormat, Type,
};
pub use validate::{
    StateFacts, ValidateOptions, ValidatedInfo, identifier_problem, unsafe_text_problem, validate,
};
pub use variants::{
    DEFAULT_BRANCH_LIMIT, Enumeration, MAX_BRANCH_LIMIT, MAX_UNIQUE_VARIANTS, PermutationChunk,
    Variant, VariantError, VariantSet, enumerate_variants,
};
pub use vertex::{
    HostField, ShaderVertex, StorageScalar, VertexAttribute, VertexField, VertexFormat,
    VertexInput, VertexInputLimits, VertexRate, VertexRules, VertexStorage,
};

// Lets the derive macros' `::shader_info::…` paths work inside this crate's own tests too.
extern crate self as shader_info;

#[doc(hidden)]
pub use bytemuck;
#[doc(hidden)]
pub use inventory;
