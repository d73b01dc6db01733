//! The pipeline plan: every fact a backend needs that follows from a validated declaration, computed once, as
//! backend-neutral plain data — descriptor sets and bindings (kinds, counts, stage usage, buffer block sizes), the
//! push-constant block, vertex attributes, color targets, specialization constants and the compute local size.
//!
//! Backends (`gpu::vk`, the wgpu backend, the cross-language targets) only map this data to their API's types:
//! DESIGN.md's "one derivation, thin backends".
//!
//! ```
//! use shader_info::*;
//! let mut reg = Registry::new();
//! reg.add_info(
//!     ShaderCreateInfo::new("tinted")
//!         .vertex_in(0, Type::Vec3, "pos")
//!         .sampler(0, ImageType::Float2D, "image", Frequency::Batch)
//!         .push_constant(Type::Vec4, "tint")
//!         .fragment_out(0, Type::Vec4, "frag_color")
//!         .vertex_source("t.vert")
//!         .fragment_source("t.frag"),
//! );
//! let plan = PipelinePlan::new(&reg.validated("tinted").unwrap(), &reg);
//! assert_eq!(plan.kind, PipelineKind::Graphics);
//! assert!(plan.sets[0].bindings.is_empty()); // set 0 is empty, set 1 holds the texture
//! assert_eq!(plan.sets[1].bindings[0].kind, DescriptorKind::CombinedImageSampler);
//! assert_eq!(plan.push_constants.as_ref().unwrap().size, 16);
//! assert_eq!(plan.vertex_attributes[0].format, VertexFormat::Float32x3);
//! ```

use crate::builtins::BuiltinFeature;
use crate::constant::ConstValue;
use crate::diagnostic::{Code, Diagnostic};
use crate::interfaces::{InterfaceUse, interface_use};
use crate::item::Item;
use crate::layout::{BlockLayout, round_up};
use crate::push_spill::PushConstantSpill;
use crate::registry::Registry;
use crate::render_state::RenderState;
use crate::resource::{DescriptorKind, Resource, ResourceKind};
use crate::rust_twin::push_constant_twin_problems;
use crate::shader_type::ShaderType;
use crate::targets::TargetMap;
use crate::types::{DualBlend, Scalar, Stage, Type};
use crate::validate::ValidatedInfo;
use crate::vertex::{VertexFormat, VertexInputLimits, VertexRate, VertexRules};
use serde::Serialize;
use std::fmt;

/// What kind of pipeline an info makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PipelineKind {
    Graphics,
    Compute,
    RayTracing,
}

impl PipelineKind {
    /// The kind of pipeline built from these stages (validation ensures they are of one kind).
    pub fn of(stages: &[Stage]) -> PipelineKind {
        if stages.contains(&Stage::Compute) {
            PipelineKind::Compute
        } else if stages.iter().any(|s| s.is_ray_tracing()) {
            PipelineKind::RayTracing
        } else {
            PipelineKind::Graphics
        }
    }
}

/// A set of stages, one bit per [`Stage`].
///
/// ```
/// use shader_info::{Stage, StageMask};
/// let m = StageMask::of(&[Stage::Vertex, Stage::Fragment]);
/// assert!(m.contains(Stage::Fragment) && !m.contains(Stage::Compute));
/// assert_eq!(m.stages(), [Stage::Vertex, Stage::Fragment]);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StageMask(pub u16);

impl StageMask {
    /// No stage.
    pub const NONE: StageMask = StageMask(0);

    /// The mask of `stages`.
    pub fn of(stages: &[Stage]) -> StageMask {
        StageMask(stages.iter().fold(0, |m, s| m | 1 << (*s as u16)))
    }

    /// True when `stage` is in the mask.
    pub fn contains(self, stage: Stage) -> bool {
        self.0 & (1 << (stage as u16)) != 0
    }

    /// True when no stage is in the mask.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The stages, in pipeline order.
    pub fn stages(self) -> Vec<Stage> {
        Stage::ALL
            .iter()
            .copied()
            .filter(|s| self.contains(*s))
            .collect()
    }
}

impl std::ops::BitOr for StageMask {
    type Output = StageMask;
    fn bitor(self, rhs: StageMask) -> StageMask {
        StageMask(self.0 | rhs.0)
    }
}

impl fmt::Debug for StageMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.stages().iter().map(|s| s.short_name()).collect();
        write!(f, "[{}]", names.join(", "))
    }
}

impl Serialize for StageMask {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.stages().iter().map(|st| st.short_name()))
    }
}

/// One binding of a descriptor set.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BindingPlan {
    pub binding: u32,
    /// The declared name without its array suffix.
    pub name: String,
    pub kind: DescriptorKind,
    /// Descriptors in the binding (`name[N]` textures and images get N; buffers 1).
    pub count: u32,
    /// Stages that may access it: every stage of the info, until [`PipelinePlan::with_stage_usage`] narrows it to
    /// the stages whose compiled code does.
    pub stages: StageMask,
    /// The declared resource (image type, format, qualifier, buffer type) for backends that need more than the
    /// descriptor kind.
    #[serde(skip)]
    pub resource: ResourceKind,
    /// The smallest buffer a buffer binding accepts: its std140/std430 block (one element for a runtime array),
    /// rounded up to its largest member alignment (WGSL's size of the struct, and its Rust twin's); `None` for
    /// other kinds, and for buffer types declared in typedef files.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("tinted")
    ///     .uniform_buf(0, "vec3", "tint", Frequency::Pass)
    ///     .uniform_buf(1, "float", "fade", Frequency::Pass)
    ///     .storage_buf(2, Qualifier::Write, "vec3", "points[]", Frequency::Pass)
    ///     .local_group_size(1).compute_source("t.comp"));
    /// let plan = PipelinePlan::new(&reg.validated("tinted").unwrap(), &reg);
    /// let sizes: Vec<_> = plan.sets[0].bindings.iter().map(|b| b.min_size).collect();
    /// // 12 bytes of `vec3` are a 16-byte block (WebGPU drops a dispatch given 12); a runtime array holds one
    /// // element at its 16-byte stride.
    /// assert_eq!(sizes, [Some(16), Some(4), Some(16)]);
    /// ```
    pub min_size: Option<u32>,
    /// The info that declared the resource and where (host-side errors about the binding name its declaration).
    #[serde(skip)]
    pub declared_in: String,
    #[serde(skip)]
    pub origin: crate::origin::Origin,
}

/// The bindings of one descriptor set (a frequency), sorted by binding.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DescriptorSetPlan {
    pub set: u32,
    pub bindings: Vec<BindingPlan>,
}

/// The push-constant block.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PushConstantPlan {
    /// Bytes, a multiple of 4 (what a push-constant range needs).
    pub size: u32,
    pub stages: StageMask,
    #[serde(skip)]
    pub layout: BlockLayout,
    /// Where the block lives when it is too large to push ([`PushConstantSpill`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spill: Option<PushConstantSpill>,
}

impl PushConstantPlan {
    /// The size of the block's Rust twin: the std430 end rounded up to the block's alignment, the size a
    /// `#[derive(ShaderStruct)]` or `#[derive(ShaderInfo)]` struct must have (its tail padding included). It is
    /// also what WGSL counts as the block's size (a struct's size is rounded to its alignment), so it is what a
    /// WebGPU pipeline layout reserves for immediates.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("p").push_constant(Type::Float, "dt").push_constant(Type::Vec2, "gravity")
    ///     .push_constant(Type::Uint, "count").local_group_size(1).compute_source("p.comp"));
    /// let pc = PipelinePlan::new(&reg.validated("p").unwrap(), &reg).push_constants.unwrap();
    /// assert_eq!((pc.size, pc.twin_size()), (20, 24));
    /// ```
    pub fn twin_size(&self) -> u32 {
        self.layout.size.max(self.size)
    }

    /// The block's bytes out of what the host hands over: `bytes` must be the block itself ([`Self::size`]) or its
    /// Rust twin with the tail padding the derives demand ([`Self::twin_size`]); the padding is cut off. Any other
    /// length is an error naming the info and both sizes — never bytes past the range handed to a device (a
    /// dropped draw on wgpu, undefined behaviour on Vulkan).
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("p").push_constant(Type::Float, "dt").push_constant(Type::Vec2, "gravity")
    ///     .push_constant(Type::Uint, "count").local_group_size(1).compute_source("p.comp"));
    /// let pc = PipelinePlan::new(&reg.validated("p").unwrap(), &reg).push_constants.unwrap();
    /// assert_eq!(pc.block_bytes("p", &[0u8; 24]).unwrap().len(), 20);
    /// assert_eq!(pc.block_bytes("p", &[0u8; 20]).unwrap().len(), 20);
    /// let e = pc.block_bytes("p", &[0u8; 16]).unwrap_err();
    /// assert!(e[0].message.contains("16 bytes") && e[0].info == "p");
    /// ```
    pub fn block_bytes<'a>(
        &self,
        info: &str,
        bytes: &'a [u8],
    ) -> Result<&'a [u8], Vec<Diagnostic>> {
        block_of(info, self.size, self.twin_size(), bytes)
    }
}

/// What a backend pushes of the bytes the host hands over, given the layout's block as its two sizes (`None`: the
/// info declares none) — the one rule both backends apply: empty bytes push nothing (values pushed before stay);
/// bytes for an info without a block, or of any length but the block's or its twin's, are an error naming the
/// info — never bytes past the range handed to a device (a dropped draw on wgpu, undefined behaviour on Vulkan).
///
/// ```
/// use shader_info::push_block_bytes;
/// assert_eq!(push_block_bytes("p", Some((20, 24)), &[0u8; 24]).unwrap().unwrap().len(), 20);
/// assert_eq!(push_block_bytes("p", Some((20, 24)), &[]).unwrap(), None);
/// assert!(push_block_bytes("p", None, &[0u8; 4]).unwrap_err()[0].message.contains("declares no push constants"));
/// ```
pub fn push_block_bytes<'a>(
    info: &str,
    block: Option<(u32, u32)>,
    bytes: &'a [u8],
) -> Result<Option<&'a [u8]>, Vec<Diagnostic>> {
    if bytes.is_empty() {
        return Ok(None);
    }
    let Some((size, twin_size)) = block else {
        return Err(vec![
            Diagnostic::error(
                Code::HostMismatch,
                info,
                format!(
                    "{} bytes were pushed, but `{info}` declares no push constants",
                    bytes.len()
                ),
            )
            .item("push_constant")
            .hint("declare the block with push_constant, or push nothing"),
        ]);
    };
    block_of(info, size, twin_size, bytes).map(Some)
}

fn block_of<'a>(
    info: &str,
    size: u32,
    twin_size: u32,
    bytes: &'a [u8],
) -> Result<&'a [u8], Vec<Diagnostic>> {
    let (size, twin) = (size as usize, twin_size as usize);
    // A twin is the block and its tail padding, never shorter (sizes from a hand-made layout are not trusted).
    if bytes.len() == size || (bytes.len() == twin && twin >= size) {
        return Ok(&bytes[..size]);
    }
    let sizes = if size == twin {
        format!("{size} bytes")
    } else {
        format!("{size} bytes (its std430 end) or {twin} (its Rust twin, with tail padding)")
    };
    Err(vec![Diagnostic::error(
        Code::HostMismatch,
        info,
        format!(
            "the push-constant block of `{info}` takes {sizes}, but {} bytes were pushed",
            bytes.len()
        ),
    )
    .item("push_constant")
    .hint(
        "push the block's #[derive(ShaderStruct)] twin (or the #[derive(ShaderInfo)] struct), or bytes of exactly \
         the block's size",
    )])
}

/// One vertex attribute: a `vertex_in` of a scalar or vector type, or one column of a matrix.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VertexAttributePlan {
    pub location: u32,
    pub format: VertexFormat,
    /// The declared input it belongs to (matrices give one attribute per column).
    pub name: String,
    /// Byte offset inside the input's value (the column's offset for matrices).
    pub offset_in_value: u32,
    /// Bytes of the whole input value.
    pub value_size: u32,
    /// Per vertex (`vertex_in`) or per instance (`instance_in`).
    #[serde(skip_serializing_if = "is_per_vertex")]
    pub rate: VertexRate,
    /// The host struct field the input was declared from ([`crate::ShaderCreateInfo::vertex_struct`]): its
    /// buffer is read with the struct's layout.
    #[serde(skip)]
    pub host: Option<crate::vertex::HostField>,
    /// The info that declared the input and where (diagnostics about its place in a buffer name it).
    #[serde(skip)]
    pub declared_in: String,
    #[serde(skip)]
    pub origin: crate::origin::Origin,
}

/// How vertex attributes are laid out in buffers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum VertexArrangement {
    /// One buffer (binding 0), attributes interleaved in location order, tightly packed.
    #[default]
    Interleaved,
    /// One buffer per input: the input at the i-th lowest location reads binding i.
    PerInput,
    /// As [`Self::Interleaved`], each buffer read with the stride given for its rate where that is larger than
    /// the packed one: host structs padded to their alignment (Rust pads a struct with a `glam::Mat4` or `Vec4` to
    /// a multiple of 16 bytes). A typed pipeline whose structs are padded is fetched so
    /// ([`crate::VertexData`]).
    Strided { vertex: u32, instance: u32 },
}

/// A vertex buffer binding and the attributes read from it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct VertexBufferPlan {
    pub binding: u32,
    pub stride: u32,
    /// Whether the buffer advances per vertex or per instance.
    #[serde(skip_serializing_if = "is_per_vertex")]
    pub rate: VertexRate,
    /// `(location, format, offset)` of each attribute read from this buffer.
    pub attributes: Vec<(u32, VertexFormat, u32)>,
}

/// A color attachment written by the fragment stage.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ColorTargetPlan {
    pub location: u32,
    pub name: String,
    /// The component kind the attachment must have: float (any float or normalized format), int or uint.
    #[serde(serialize_with = "scalar_name")]
    pub scalar: Scalar,
    pub components: u32,
    /// Dual-source blending index, when the output is one of a dual-source pair.
    #[serde(skip)]
    pub blend: DualBlend,
}

fn scalar_name<S: serde::Serializer>(s: &Scalar, ser: S) -> Result<S::Ok, S::Error> {
    ser.serialize_str(match s {
        Scalar::Float | Scalar::Double => "float",
        Scalar::Int | Scalar::Bool => "sint",
        Scalar::Uint => "uint",
    })
}

/// A specialization constant (a pipeline-time value).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SpecConstantPlan {
    pub id: u32,
    pub name: String,
    #[serde(serialize_with = "type_name")]
    pub ty: Type,
    #[serde(serialize_with = "const_literal")]
    pub default: ConstValue,
}

fn type_name<S: serde::Serializer>(t: &Type, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(t.glsl_name())
}

fn const_literal<S: serde::Serializer>(v: &ConstValue, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&v.glsl_literal())
}

/// Everything a backend needs to build the pipeline of one validated info (or variant).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PipelinePlan {
    /// The key the renderer fetches it by: the info name, or `name#v<index>` for a variant.
    pub key: String,
    pub kind: PipelineKind,
    #[serde(serialize_with = "stage_names")]
    pub stages: Vec<Stage>,
    /// Sets `0..=highest used`, a gap being an empty set.
    pub sets: Vec<DescriptorSetPlan>,
    pub push_constants: Option<PushConstantPlan>,
    /// Vertex attributes in location order.
    pub vertex_attributes: Vec<VertexAttributePlan>,
    /// Color targets in location order.
    pub color_targets: Vec<ColorTargetPlan>,
    pub specialization_constants: Vec<SpecConstantPlan>,
    pub local_size: Option<[u32; 3]>,
    /// Bytes of work-group memory the declared shared variables take (0: none declared).
    #[serde(skip_serializing_if = "is_zero")]
    pub shared_memory: u64,
    /// Control points per patch of a tessellation pipeline, from the declared tessellation layout.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch_control_points: Option<u32>,
    /// Device features the declared builtins need in this pipeline (`shaderOutputLayer`, …).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub builtin_features: Vec<BuiltinFeature>,
    /// The declared render state of a graphics pipeline (`None` for compute and ray tracing).
    pub render_state: Option<RenderState>,
    /// Where every binding lives on each cross-language target.
    pub targets: TargetMap,
    /// The interface locations each stage reads and writes, checked against the device's limits.
    #[serde(skip)]
    pub interface_use: Vec<InterfaceUse>,
    /// The declared geometry layout (invocations, vertices per invocation), and where it is declared.
    #[serde(skip)]
    pub geometry_layout: Option<Item<crate::info::GeometryLayout>>,
    /// What a render state given at pipeline creation is checked against ([`Self::state_problems`]).
    #[serde(skip)]
    pub state_facts: crate::validate::StateFacts,
}

fn stage_names<S: serde::Serializer>(stages: &[Stage], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(stages.iter().map(|st| st.short_name()))
}

impl PipelinePlan {
    /// Derives the plan of a validated info. `registry` holds the shared structs buffer sizes come from.
    pub fn new(info: &ValidatedInfo, registry: &Registry) -> PipelinePlan {
        let stages = info.stages();
        let all = StageMask::of(&stages);
        let mut sets: Vec<DescriptorSetPlan> = Vec::new();
        for it in &info.resources {
            let r = &it.value;
            let set = r.set() as usize;
            while sets.len() <= set {
                sets.push(DescriptorSetPlan {
                    set: sets.len() as u32,
                    bindings: Vec::new(),
                });
            }
            let name = r
                .split_name()
                .map_or(r.name.as_str(), |(b, _)| b)
                .to_string();
            // The block's end rounded up to its members' largest alignment: the size WGSL gives the struct (a
            // `vec3` block is 16 bytes there, and WebGPU drops a draw whose buffer is 12), and the size of its Rust
            // twin, which is what a host uploads.
            let min_size = match r.block_layout(registry) {
                Some(Ok(l)) => {
                    let align = l.members.iter().map(|m| m.align).max().unwrap_or(4).max(4);
                    Some(round_up(l.end.max(1), align))
                }
                _ => None,
            };
            let kind = r.descriptor_kind();
            sets[set].bindings.push(BindingPlan {
                binding: r.binding,
                name,
                kind,
                count: r.descriptor_count(),
                // Vulkan allows an input attachment in no other stage.
                stages: if kind == DescriptorKind::InputAttachment {
                    StageMask::of(&[Stage::Fragment])
                } else {
                    all
                },
                resource: r.kind.clone(),
                min_size,
                declared_in: it.declared_in.clone(),
                origin: it.origin,
            });
        }
        for s in &mut sets {
            s.bindings.sort_by_key(|b| b.binding);
        }
        let spill = PushConstantSpill::of(info);
        let push_constants = match info.push_constant_layout() {
            Some(Ok(layout)) => Some(PushConstantPlan {
                size: round_up(layout.end, 4),
                stages: all,
                layout,
                spill,
            }),
            // Validation proved the layout; an info without push constants has none.
            _ => None,
        };
        if let (Some(pc), Some(spill)) = (&push_constants, spill) {
            while sets.len() <= spill.set as usize {
                sets.push(DescriptorSetPlan {
                    set: sets.len() as u32,
                    bindings: Vec::new(),
                });
            }
            sets[spill.set as usize].bindings.push(BindingPlan {
                binding: spill.binding,
                name: PushConstantSpill::NAME.to_string(),
                kind: DescriptorKind::StorageBuffer,
                count: 1,
                stages: all,
                resource: ResourceKind::StorageBuffer {
                    qualifier: crate::types::Qualifier::Read,
                    type_name: PushConstantSpill::NAME.to_string(),
                },
                min_size: Some(pc.size),
                declared_in: info.name.clone(),
                origin: Default::default(),
            });
        }
        let mut inputs: Vec<_> = info.vertex_inputs.iter().collect();
        inputs.sort_by_key(|i| i.value.location);
        let mut vertex_attributes = Vec::new();
        for it in inputs {
            let input = &it.value;
            let (cols, rows) = input.ty.shape();
            // Matrices take one attribute per column, of the column's vector type; a declared packed format
            // replaces the default (validation proved it fits the input).
            let Some(format) = input
                .format
                .or_else(|| VertexFormat::of(input.ty.scalar(), rows))
            else {
                continue;
            };
            let value_size = cols * format.size();
            for c in 0..cols {
                vertex_attributes.push(VertexAttributePlan {
                    location: input.location + c * (input.ty.locations() / cols),
                    format,
                    name: input.name.clone(),
                    offset_in_value: c * format.size(),
                    value_size,
                    rate: input.rate,
                    host: input.host,
                    declared_in: it.declared_in.clone(),
                    origin: it.origin,
                });
            }
        }
        let mut color_targets: Vec<ColorTargetPlan> = info
            .fragment_outputs
            .iter()
            .map(|o| ColorTargetPlan {
                location: o.value.location,
                name: o.value.name.clone(),
                scalar: o.value.ty.scalar(),
                components: o.value.ty.shape().1,
                blend: o.value.blend,
            })
            .collect();
        color_targets.sort_by_key(|c| (c.location, c.blend as u8));
        let specialization_constants = info
            .specialization_constant_ids()
            .into_iter()
            .zip(&info.specialization_constants)
            .map(|(id, c)| SpecConstantPlan {
                id,
                name: c.value.name.clone(),
                ty: c.value.ty,
                default: c.value.default,
            })
            .collect();
        let all: Vec<&Resource> = info.resources.iter().map(|r| &r.value).collect();
        let at = |set: u32, binding: u32| {
            all.iter()
                .copied()
                .find(move |r| r.set() == set && r.binding == binding)
        };
        let declared: Vec<(u32, u32, &str, DescriptorKind)> = sets
            .iter()
            .flat_map(|s| {
                s.bindings
                    .iter()
                    .map(move |b| (s.set, b.binding, b.name.as_str(), b.kind))
            })
            .collect();
        let targets = TargetMap::derive(
            &declared,
            // A spilled block is a binding of the map, not a push-constant block.
            push_constants
                .as_ref()
                .filter(|p| p.spill.is_none())
                .map(|p| p.size),
            &|set, binding| at(set, binding).and_then(|r| r.portable_sampler_binding(&all)),
            &|set, binding| at(set, binding).is_some_and(Resource::writable),
            &|set, binding| {
                at(set, binding).is_some_and(|r| {
                    r.split_name()
                        .is_ok_and(|(_, size)| size == crate::resource::ArraySize::Runtime)
                })
            },
            &|set, binding| match at(set, binding)?.kind {
                ResourceKind::Sampler { state, .. } => state,
                ResourceKind::Image { .. }
                | ResourceKind::UniformBuffer { .. }
                | ResourceKind::StorageBuffer { .. }
                | ResourceKind::AccelerationStructure
                | ResourceKind::InputAttachment { .. } => None,
            },
        );
        let kind = PipelineKind::of(&stages);
        let mut builtin_features = info.builtins.device_features(&stages);
        // The Blender prelude's `gl_InstanceID` is `gl_InstanceIndex - gl_BaseInstance`: the base instance is a draw
        // parameter.
        if info.blender_prelude
            && info
                .builtins
                .contains(crate::types::BuiltinBits::INSTANCE_ID)
            && stages.contains(&Stage::Vertex)
        {
            builtin_features.push(crate::builtins::BuiltinFeature {
                feature: "shaderDrawParameters",
                why: "gl_InstanceID of the Blender prelude (it reads gl_BaseInstance)".into(),
            });
        }
        PipelinePlan {
            key: info.key(),
            kind,
            render_state: (kind == PipelineKind::Graphics).then(|| render_state(info)),
            stages,
            sets,
            push_constants,
            vertex_attributes,
            color_targets,
            specialization_constants,
            local_size: info.local_group_size.as_ref().map(|g| g.value),
            shared_memory: info
                .shared_variables
                .iter()
                .filter_map(|v| v.value.bytes())
                .sum(),
            builtin_features,
            patch_control_points: info
                .tessellation_layout
                .as_ref()
                .map(|t| t.value.control_points),
            targets,
            interface_use: interface_use(info),
            geometry_layout: info.geometry_layout.clone(),
            state_facts: crate::validate::StateFacts::of(info),
        }
    }

    /// A render state given whole for this pipeline (`GraphicsOptions::state`) against the rules the declared
    /// state meets at validation: integer outputs that blend, constant factors or a stencil reference nothing sets,
    /// a topology the stages cannot take, numbers that are not numbers. Each is said at `item`.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("s").fragment_out(0, Type::Vec4, "color")
    ///     .vertex_source("v").fragment_source("f"));
    /// let plan = PipelinePlan::new(&reg.validated("s").unwrap(), &reg);
    /// let stencil = StencilFace::new(CompareOp::Equal, StencilOp::Keep);
    /// let state = RenderState {
    ///     stencil: Some(StencilState { front: stencil, back: stencil, read_mask: 0xff, write_mask: 0, reference: None }),
    ///     ..RenderState::default()
    /// };
    /// let d = plan.state_problems(&state, "GraphicsOptions::state");
    /// assert!(d[0].message.contains("without a reference"), "{}", d[0].message);
    /// assert!(plan.state_problems(&RenderState::default(), "GraphicsOptions::state").is_empty());
    /// ```
    pub fn state_problems(&self, state: &RenderState, item: &str) -> Vec<Diagnostic> {
        crate::validate::state_problems(&self.key, state, &self.state_facts, item)
    }

    /// The input attachments of a plan made in [`crate::SubpassMode::LocalRead`]: `(binding name, color attachment
    /// location it reads)`, in binding order. Empty for an emulated plan.
    pub fn input_attachments(&self) -> Vec<(&str, u32)> {
        self.sets
            .iter()
            .flat_map(|s| &s.bindings)
            .filter_map(|b| match b.resource {
                ResourceKind::InputAttachment { index, .. } => Some((b.name.as_str(), index)),
                ResourceKind::Sampler { .. }
                | ResourceKind::Image { .. }
                | ResourceKind::UniformBuffer { .. }
                | ResourceKind::StorageBuffer { .. }
                | ResourceKind::AccelerationStructure => None,
            })
            .collect()
    }

    /// The plan with each binding's stages narrowed to `used(set, binding)` (from reflection of the compiled
    /// modules); a binding no stage uses keeps every stage, since a declared binding still belongs in the layout.
    pub fn with_stage_usage(mut self, used: impl Fn(u32, u32) -> StageMask) -> PipelinePlan {
        for set in &mut self.sets {
            for b in &mut set.bindings {
                let m = used(set.set, b.binding);
                if !m.is_empty() {
                    b.stages = m;
                }
            }
        }
        self
    }

    /// Every binding with its set, in (set, binding) order.
    pub fn bindings(&self) -> impl Iterator<Item = (u32, &BindingPlan)> {
        self.sets
            .iter()
            .flat_map(|s| s.bindings.iter().map(move |b| (s.set, b)))
    }

    /// The ways this plan's work-group size exceeds a device's limits (`max_size` per axis, `max_invocations` in
    /// all), each naming both numbers: checked before pipeline creation, so the driver never sees a size it
    /// cannot run. Empty for plans without a work-group size.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("wide").local_group_size(512).compute_source("w.comp"));
    /// let plan = PipelinePlan::new(&reg.validated("wide").unwrap(), &reg);
    /// let problems = plan.work_group_problems([256, 256, 64], 256); // a device with small limits
    /// assert_eq!(problems.len(), 2); // x and the invocation count
    /// assert!(problems[0].message.contains("512") && problems[0].message.contains("256"));
    /// ```
    pub fn work_group_problems(&self, max_size: [u32; 3], max_invocations: u32) -> Vec<Diagnostic> {
        let Some(size) = self.local_size else {
            return Vec::new();
        };
        let problem = |message: String| {
            Diagnostic::error(Code::WorkGroupSize, &self.key, message)
                .item("local_group_size")
                .hint("use a smaller local_group_size (or a specialization constant for the size) on this device")
        };
        let mut out = Vec::new();
        for ((axis, s), max) in ["x", "y", "z"].iter().zip(size).zip(max_size) {
            if s > max {
                out.push(problem(format!(
                    "the work group's {axis} size is {s}; this device allows at most {max}"
                )));
            }
        }
        let invocations: u128 = size.iter().map(|s| u128::from(*s)).product();
        if invocations > u128::from(max_invocations) {
            out.push(problem(format!(
                "the work group has {invocations} invocations ({}×{}×{}); this device allows at most {max_invocations}",
                size[0], size[1], size[2]
            )));
        }
        out
    }

    /// The differences between `T` — a `#[derive(ShaderVertex)]` struct meant to fill this plan's interleaved
    /// per-vertex buffer — and the plan's layout: every `vertex_in` must be a field of the same name, byte offset
    /// and format, every field a `vertex_in`, and the struct's size the stride. Empty when `T` is the layout.
    pub fn vertex_problems<T: crate::vertex::ShaderVertex>(&self) -> Vec<Diagnostic> {
        self.buffer_problems::<T>(VertexArrangement::Interleaved, VertexRate::Vertex)
    }

    /// [`Self::vertex_problems`] for the per-instance buffer (the `instance_in`s).
    ///
    /// ```
    /// use shader_info::*;
    /// #[derive(Clone, Copy, ShaderVertex)]
    /// #[repr(C)]
    /// struct Sprite { rect: [f32; 4], layer: u32 }
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("s").vertex_in(0, Type::Vec2, "corner")
    ///     .instance_in(1, Type::Vec4, "rect").instance_in(2, Type::Uint, "layer")
    ///     .vertex_source("s.vert").fragment_source("s.frag"));
    /// let plan = PipelinePlan::new(&reg.validated("s").unwrap(), &reg);
    /// assert!(plan.instance_problems::<Sprite>().is_empty());
    /// // The per-vertex buffer is another struct: `Sprite` has no `corner`.
    /// assert!(plan.vertex_problems::<Sprite>()[0].message.contains("`corner`"));
    /// ```
    pub fn instance_problems<T: crate::vertex::ShaderVertex>(&self) -> Vec<Diagnostic> {
        self.buffer_problems::<T>(VertexArrangement::Interleaved, VertexRate::Instance)
    }

    /// The differences between `T` and the buffer of the inputs of `rate` in `arrangement` (interleaved or
    /// strided: one buffer per rate).
    pub fn buffer_problems<T: crate::vertex::ShaderVertex>(
        &self,
        arrangement: VertexArrangement,
        rate: VertexRate,
    ) -> Vec<Diagnostic> {
        let item = rate.item();
        let problem = |message: String| {
            Diagnostic::error(Code::RustTwin, &self.key, message)
                .item(format!("vertex struct `{}`", std::any::type_name::<T>()))
                .hint(format!(
                    "make the struct follow the info's {item} declarations (names, order, packed formats)"
                ))
        };
        let mut out = Vec::new();
        let (stride, attributes) = self
            .vertex_buffers(arrangement)
            .into_iter()
            .find(|b| b.rate == rate)
            .map_or((0, Vec::new()), |b| (b.stride, b.attributes));
        for (location, format, offset) in &attributes {
            let Some(a) = self
                .vertex_attributes
                .iter()
                .find(|a| a.location == *location)
            else {
                continue;
            };
            let name = a.name.as_str();
            // A matrix input is one attribute per column: its first column is checked for the whole field.
            if a.offset_in_value > 0 {
                continue;
            }
            let columns = self
                .vertex_attributes
                .iter()
                .filter(|c| c.name == a.name)
                .count() as u32;
            match T::FIELDS.iter().find(|f| f.name == name) {
                None => out.push(problem(format!(
                    "{item} `{name}` (location {location}) has no field in the struct"
                ))),
                Some(f) if f.offset != *offset || f.format != *format || f.columns != columns => {
                    let shape = |format: &VertexFormat, columns: u32| match columns {
                        1 => format!("{format:?}"),
                        n => format!("{n} columns of {format:?}"),
                    };
                    let mut d = problem(format!(
                        "field `{name}` is {} at byte {}, but the declaration reads {} at byte {offset}",
                        shape(&f.format, f.columns),
                        f.offset,
                        shape(format, columns)
                    ));
                    // Only the place differs: Rust aligned the field (a glam Vec4 after a Vec3 is at 16).
                    if f.format == *format && f.columns == columns {
                        d.hint = Some(format!(
                            "declare the inputs from the struct ({}_struct::<{}>(first location)), whose offsets \
                             the pipeline then reads, or order its fields so that none is padded",
                            rate.step(),
                            crate::vertex::short_name(std::any::type_name::<T>())
                        ));
                    }
                    out.push(d)
                }
                Some(_) => {}
            }
        }
        for f in T::FIELDS {
            match self.vertex_attributes.iter().find(|a| a.name == f.name) {
                None => out.push(problem(format!(
                    "field `{}` is no {item} of `{}`: the shader would not read it",
                    f.name, self.key
                ))),
                Some(a) if a.rate != rate => out.push(problem(format!(
                    "field `{}` is a per-{} input, {} `{}` of `{}`, read from the other buffer: it belongs in that \
                     buffer's struct",
                    f.name,
                    a.rate.step(),
                    a.rate.item(),
                    f.name,
                    self.key
                ))),
                Some(_) => {}
            }
        }
        if T::STRIDE != stride && out.is_empty() {
            let end = T::FIELDS
                .iter()
                .map(|f| f.offset + f.columns * f.format.size())
                .max()
                .unwrap_or(0);
            let mut d = problem(format!(
                "the struct is {} bytes, but one {} of the declaration takes {stride}",
                T::STRIDE,
                rate.step()
            ));
            if T::STRIDE > stride && end == stride {
                d.message.push_str(&format!(
                    " ({} bytes of padding after its last field: Rust pads a struct to its alignment, 16 for \
                     glam's Vec4 and Mat4)",
                    T::STRIDE - end
                ));
                d.hint = Some(format!(
                    "declare the inputs from the struct ({}_struct::<{}>(first location)): its size is then \
                     the stride of every pipeline, warmed ones included; or fetch the pipeline typed \
                     (typed_graphics, typed_instanced), which reads the buffer with the struct's stride, or ask \
                     for VertexArrangement::Strided with {} for its {item}s",
                    rate.step(),
                    crate::vertex::short_name(std::any::type_name::<T>()),
                    T::STRIDE
                ));
            }
            out.push(d);
        }
        out
    }

    /// Why a device whose `maxComputeSharedMemorySize` is `max_bytes` cannot run this plan's shared variables:
    /// empty when it can. Checked before anything is compiled, like [`Self::work_group_problems`].
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("big").shared_variable(Type::Vec4, "tile[4096]")
    ///     .local_group_size(64).compute_source("big.comp"));
    /// let plan = PipelinePlan::new(&reg.validated("big").unwrap(), &reg);
    /// assert_eq!(plan.shared_memory, 65536);
    /// assert!(plan.shared_memory_problems(32768)[0].message.contains("32768"));
    /// ```
    pub fn shared_memory_problems(&self, max_bytes: u32) -> Vec<Diagnostic> {
        if self.shared_memory <= u64::from(max_bytes) {
            return Vec::new();
        }
        vec![
            Diagnostic::error(
                Code::WorkGroupSize,
                &self.key,
                format!(
                    "the shared variables take {} bytes; this device allows at most {max_bytes} per work group",
                    self.shared_memory
                ),
            )
            .item("shared_variable")
            .hint("use smaller shared arrays (a constant of the info can size them per device class)"),
        ]
    }

    /// The differences between `T` — a `#[derive(ShaderStruct)]` struct meant to be uploaded as this plan's
    /// push-constant block — and the block: every GLSL member must be there with the same name, type, array size and
    /// std430 offset, and `T` must hold the whole block. Empty when `T` is the block.
    ///
    /// ```
    /// use shader_info::*;
    /// #[derive(Clone, Copy, ShaderStruct)]
    /// #[repr(C)]
    /// #[shader(std430)]
    /// struct TintPush { tint: glam::Vec4, scale: f32, _pad: Pad<12> }
    /// let mut reg = Registry::shared_types_from_inventory();
    /// reg.add_info(ShaderCreateInfo::new("t").push_constant(Type::Vec4, "tint").push_constant(Type::Float, "scale")
    ///     .local_group_size(1).compute_source("t.comp"));
    /// let plan = PipelinePlan::new(&reg.validated("t").unwrap(), &reg);
    /// assert!(plan.push_constant_problems::<TintPush>(&reg).is_empty());
    /// ```
    pub fn push_constant_problems<T: ShaderType>(&self, registry: &Registry) -> Vec<Diagnostic> {
        push_constant_twin_problems::<T>(
            &self.key,
            self.push_constants.as_ref().map(|p| (&p.layout, p.size)),
            registry,
        )
    }

    /// The vertex buffers for an arrangement of the attributes.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("m").vertex_in(0, Type::Vec3, "pos").vertex_in(1, Type::Mat2, "m")
    ///     .vertex_in(3, Type::UVec4, "ids").vertex_source("v").fragment_source("f"));
    /// let info = ValidatedInfo::new(reg.resolve("m").unwrap(),
    ///     &ValidateOptions { registry: &reg, extra_type_names: &[], require_complete: false }).unwrap();
    /// let plan = PipelinePlan::new(&info, &reg);
    /// let one = plan.vertex_buffers(VertexArrangement::Interleaved);
    /// assert_eq!(one[0].stride, 12 + 16 + 16);
    /// assert_eq!(one[0].attributes[2], (2, VertexFormat::Float32x2, 20));
    /// assert_eq!(plan.vertex_buffers(VertexArrangement::PerInput).len(), 3);
    /// ```
    pub fn vertex_buffers(&self, arrangement: VertexArrangement) -> Vec<VertexBufferPlan> {
        let per_vertex = self
            .vertex_attributes
            .iter()
            .any(|a| a.rate == VertexRate::Vertex);
        let mut out: Vec<VertexBufferPlan> = Vec::new();
        for a in &self.vertex_attributes {
            let first_column = a.offset_in_value == 0;
            let binding = match arrangement {
                // The per-vertex buffer is binding 0 and the per-instance one follows, whatever their locations.
                VertexArrangement::Interleaved | VertexArrangement::Strided { .. } => {
                    match a.rate {
                        VertexRate::Vertex => 0,
                        VertexRate::Instance => u32::from(per_vertex),
                    }
                }
                // A matrix's later columns are in its first column's buffer.
                VertexArrangement::PerInput => {
                    out.len() as u32 - u32::from(!first_column && !out.is_empty())
                }
            };
            let at = out
                .iter()
                .position(|b| b.binding == binding)
                .unwrap_or_else(|| {
                    out.push(VertexBufferPlan {
                        binding,
                        stride: 0,
                        rate: a.rate,
                        attributes: Vec::new(),
                    });
                    out.len() - 1
                });
            let b = &mut out[at];
            let base = match a.host {
                // Declared from a host struct: where the struct has it, one struct a step. (Each input of a
                // per-input buffer is alone in it, packed.)
                Some(host) if arrangement != VertexArrangement::PerInput => {
                    b.stride = host.stride;
                    host.offset
                }
                // Tightly packed in location order: an input starts where the buffer's previous one ended.
                _ => {
                    if first_column {
                        b.stride += a.value_size;
                    }
                    b.stride - a.value_size
                }
            };
            b.attributes
                .push((a.location, a.format, base + a.offset_in_value));
        }
        if let VertexArrangement::Strided { vertex, instance } = arrangement {
            for b in &mut out {
                b.stride = b.stride.max(match b.rate {
                    VertexRate::Vertex => vertex,
                    VertexRate::Instance => instance,
                });
            }
        }
        out.sort_by_key(|b| b.binding);
        out
    }

    /// The `arrangement`'s buffers and strides against a device's `limits`: errors at the declaration, before the
    /// driver refuses the pipeline (or, without the validation layer, behaves as it likes).
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// let mut info = ShaderCreateInfo::new("many");
    /// for l in 0..9 {
    ///     info = info.vertex_in(l, Type::Vec4, format!("attr{l}"));
    /// }
    /// reg.add_info(info.vertex_source("v").fragment_source("f"));
    /// let plan = PipelinePlan::new(&reg.validated("many").unwrap(), &reg);
    /// // WebGPU's default limits (a browser's adapter): 8 buffers, 2,048 bytes a step.
    /// let webgpu = VertexInputLimits { buffers: 8, stride: 2048, attribute_offset: 2048 };
    /// assert!(plan.vertex_input_problems(VertexArrangement::Interleaved, &webgpu).is_empty());
    /// let d = plan.vertex_input_problems(VertexArrangement::PerInput, &webgpu);
    /// assert!(d[0].message.contains("9 vertex buffers"), "{}", d[0].message);
    /// // A host struct padded past what the device reads in one step.
    /// let padded = VertexArrangement::Strided { vertex: 4096, instance: 0 };
    /// let d = plan.vertex_input_problems(padded, &webgpu);
    /// assert!(d[0].message.contains("vertex is 4096 bytes"), "{}", d[0].message);
    /// ```
    pub fn vertex_input_problems(
        &self,
        arrangement: VertexArrangement,
        limits: &VertexInputLimits,
    ) -> Vec<Diagnostic> {
        let buffers = self.vertex_buffers(arrangement);
        let mut out = Vec::new();
        if buffers.len() as u64 > u64::from(limits.buffers) {
            let last = self.vertex_attributes.last().map_or(0, |a| a.location);
            out.push(self.vertex_input_problem(
                format!(
                    "`{}` reads {} vertex buffers with VertexArrangement::{arrangement:?}; this device allows {}",
                    self.key,
                    buffers.len(),
                    limits.buffers
                ),
                "interleave the inputs (VertexArrangement::Interleaved: one buffer per rate)",
                last,
            ));
        }
        for b in &buffers {
            if b.stride > limits.stride {
                let location = b.attributes.last().map_or(0, |a| a.0);
                out.push(self.vertex_input_problem(
                    format!(
                        "buffer {}'s {} is {} bytes; this device reads at most {} per step",
                        b.binding,
                        b.rate.step(),
                        b.stride,
                        limits.stride
                    ),
                    "split the inputs over buffers (VertexArrangement::PerInput), or pack them",
                    location,
                ));
            }
            for &(location, _, offset) in &b.attributes {
                if offset > limits.attribute_offset {
                    out.push(self.vertex_input_problem(
                        format!(
                            "the attribute at location {location} is at byte {offset} of buffer {}'s {}; this \
                             device reads attributes at offsets up to {}",
                            b.binding,
                            b.rate.step(),
                            limits.attribute_offset
                        ),
                        "move the field nearer the start of its struct (padding before it counts), or split \
                         the struct over buffers",
                        location,
                    ));
                }
            }
        }
        out
    }

    /// A vertex-input diagnostic at the input whose attribute is at `location` (a matrix's column names the
    /// matrix): the item, the info that declared it and where.
    fn vertex_input_problem(&self, message: String, hint: &str, location: u32) -> Diagnostic {
        let d = Diagnostic::error(Code::VertexInputOutOfRange, &self.key, message).hint(hint);
        match self
            .vertex_attributes
            .iter()
            .find(|a| a.location == location)
        {
            Some(a) => d
                .item(format!("{} `{}`", a.rate.item(), a.name))
                .at(&a.declared_in, a.origin),
            None => d,
        }
    }

    /// Attributes of the `arrangement`'s buffers at offsets their formats cannot be read from, and strides that
    /// do not keep every vertex's attributes so, by `rules` (the API's, [`VertexRules`]): errors at the input,
    /// before a pipeline reads its data from the wrong bytes.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("v").vertex_in_packed(0, Type::Vec2, VertexFormat::Unorm8x2, "uv")
    ///     .vertex_in(1, Type::Vec3, "pos").vertex_source("v").fragment_source("f"));
    /// let plan = PipelinePlan::new(&reg.validated("v").unwrap(), &reg);
    /// let d = plan.vertex_layout_problems(VertexArrangement::Interleaved, VertexRules::Vulkan);
    /// assert!(d[0].message.contains("`pos` (Float32x3) is at byte 2"), "{}", d[0].message);
    /// assert!(plan.vertex_layout_problems(VertexArrangement::PerInput, VertexRules::Vulkan).is_empty());
    /// ```
    pub fn vertex_layout_problems(
        &self,
        arrangement: VertexArrangement,
        rules: VertexRules,
    ) -> Vec<Diagnostic> {
        let attribute = |location: u32| {
            self.vertex_attributes
                .iter()
                .find(|a| a.location == location)
        };
        let name_of = |location: u32| attribute(location).map_or("", |a| a.name.as_str());
        let problem = |message: String, location: u32| {
            // A buffer declared from a struct has the struct's layout: the struct is what to change.
            let hint = match attribute(location).and_then(|a| a.host) {
                Some(h) => format!(
                    "order the fields of `{}` with the largest formats first, or pad a 2-byte packed field to 4 \
                     bytes (Unorm8x4) or with a `Pad` field, or give each input its own buffer \
                     (VertexArrangement::PerInput)",
                    crate::vertex::short_name(h.struct_name)
                ),
                None => "declare the inputs with the largest formats first (their locations in that order), \
                         widen a 2-byte packed input to 4 bytes (Unorm8x4), or give each input its own buffer \
                         (VertexArrangement::PerInput)"
                    .to_string(),
            };
            self.vertex_input_problem(message, &hint, location)
        };
        let api = rules.api();
        let mut out = Vec::new();
        for b in self.vertex_buffers(arrangement) {
            for &(location, format, offset) in &b.attributes {
                let align = rules.offset_alignment(format);
                if offset % align != 0 {
                    out.push(problem(
                        format!(
                            "`{}` ({format:?}) is at byte {offset} of the vertex in buffer {}; {api} reads it only \
                             at multiples of {align}",
                            name_of(location),
                            b.binding,
                        ),
                        location,
                    ));
                }
            }
            // The input that asks for the most (the widest component among equals), named by the diagnostic.
            let Some(&(widest, format, _)) = b
                .attributes
                .iter()
                .rev()
                .max_by_key(|(_, f, _)| (rules.stride_alignment(*f), f.component_size()))
            else {
                continue;
            };
            let needed = rules.stride_alignment(format);
            if b.stride % needed != 0 {
                out.push(problem(
                    format!(
                        "buffer {}'s vertex is {} bytes, not a multiple of {needed}: {api} would read the next \
                         vertex's inputs unaligned",
                        b.binding, b.stride
                    ),
                    widest,
                ));
            }
        }
        out
    }
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

fn is_per_vertex(rate: &VertexRate) -> bool {
    *rate == VertexRate::Vertex
}

/// The info's render state; without a declared topology, the geometry stage's input decides it (a geometry stage
/// that takes lines drew triangle lists, which Vulkan refuses).
fn render_state(info: &crate::info::ShaderCreateInfo) -> RenderState {
    use crate::render_state::{StateItem, Topology};
    let mut state = RenderState::from_items(&info.render_state);
    let declared = info
        .render_state
        .iter()
        .any(|i| matches!(i.value, StateItem::Topology(_)));
    if let (false, Some(g)) = (declared, &info.geometry_layout) {
        state.topology = Topology::feeding(g.value.primitive_in)[0];
    }
    state
}
