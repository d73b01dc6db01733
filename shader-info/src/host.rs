//! The host side, typed from the declaration: what a renderer hands a pipeline — push-constant data, vertex
//! buffers, resources for a bind group, branch values — checked against the plan where it is handed over. These
//! are the rules; both backends apply them through the library core, so a rule is written once:
//!
//! - [`PushBlock`]: a Rust type that is an info's push-constant block (a `#[derive(ShaderStruct)]` twin, checked
//!   member by member; a `#[derive(ShaderInfo)]` struct, proven when it was compiled; or [`NoPush`]).
//! - [`VertexData`]: a `#[derive(ShaderVertex)]` struct that is an info's vertex buffer (or [`NoVertices`]).
//! - [`PipelinePlan::bind_set`]: resources named as declared, the set derived from the names; a resource left
//!   out, unknown, given twice or of the wrong kind is an error naming it, its info and its declaration.
//! - [`VariantSet::permutation`]: branch values by name, with "did you mean" for a typo.

use crate::diagnostic::{Code, Diagnostic};
use crate::registry::Registry;
use crate::resource::DescriptorKind;
use crate::shader_type::ShaderType;
use crate::variants::VariantSet;
use crate::vertex::{ShaderVertex, VertexRate};
use crate::{BindingPlan, PipelinePlan, PushConstantSpill, VertexArrangement};

/// A Rust type whose bytes are an info's push-constant block. Backends take typed pushes only of such types, and
/// check the type against the pipeline's block once, when the typed pipeline is fetched.
///
/// Implemented for every `#[derive(ShaderStruct)]` struct (checked member by member against the block: names,
/// types, array sizes, std430 offsets), for `#[derive(ShaderInfo)]` structs (the block of their own info, proven
/// at compile time), and for [`NoPush`].
pub trait PushBlock: bytemuck::NoUninit + 'static {
    /// Why `Self` is not `plan`'s push-constant block: empty when it is.
    fn push_problems(plan: &PipelinePlan, registry: &Registry) -> Vec<Diagnostic>;
}

impl<T: ShaderType + bytemuck::NoUninit + 'static> PushBlock for T {
    fn push_problems(plan: &PipelinePlan, registry: &Registry) -> Vec<Diagnostic> {
        let mut out = plan.push_constant_problems::<T>(registry);
        for d in &mut out {
            d.code = Code::HostMismatch;
        }
        out
    }
}

/// The push "block" of a pipeline whose info declares none.
///
/// ```
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("c").push_constant(Type::Float, "t").local_group_size(1).compute_source("c"));
/// let plan = PipelinePlan::new(&reg.validated("c").unwrap(), &reg);
/// assert!(NoPush::push_problems(&plan, &reg)[0].message.contains("declares a push-constant block"));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoPush;

// SAFETY: a zero-sized type has no bytes, so none is uninitialized.
unsafe impl bytemuck::NoUninit for NoPush {}

impl PushBlock for NoPush {
    fn push_problems(plan: &PipelinePlan, _: &Registry) -> Vec<Diagnostic> {
        match &plan.push_constants {
            None => Vec::new(),
            Some(pc) => vec![
                Diagnostic::error(
                    Code::HostMismatch,
                    &plan.key,
                    format!(
                        "`{}` declares a push-constant block ({} bytes), but the pipeline was asked for with NoPush",
                        plan.key, pc.size
                    ),
                )
                .item("push_constant")
                .hint("name the block's Rust twin (a #[derive(ShaderStruct)] struct, or the #[derive(ShaderInfo)] struct)"),
            ],
        }
    }
}

/// Why the push block of `twin`'s `plan`, which serves info `info` where one of its stages cannot run, is not the
/// block of `info` itself: the struct was proven against `info`'s declaration, not the twin's.
fn twin_block_problem(
    plan: &PipelinePlan,
    registry: &Registry,
    info: &str,
    twin: &str,
) -> Option<Diagnostic> {
    let own = match registry.validated(info) {
        Ok(v) => PipelinePlan::new(&v, registry),
        Err(d) => return d.into_iter().next(),
    };
    let members = |p: &PipelinePlan| {
        p.push_constants
            .as_ref()
            .map(|pc| pc.layout.members.clone())
            .unwrap_or_default()
    };
    let (ours, theirs) = (members(&own), members(plan));
    if ours == theirs {
        return None;
    }
    let describe = |m: Option<&crate::layout::MemberLayout>| {
        m.map_or("nothing".to_string(), |m| {
            format!("`{} {}` at byte {}", m.ty.glsl_name(), m.name, m.offset)
        })
    };
    let at = (0..ours.len().max(theirs.len()))
        .find(|&i| ours.get(i) != theirs.get(i))
        .unwrap_or(0);
    Some(
        Diagnostic::error(
            Code::HostMismatch,
            &plan.key,
            format!(
                "`{twin}` serves `{info}` here (a stage of `{info}` cannot run), but its push-constant block is not \
                 `{info}`'s: member {at} is {} there, {} in `{info}`",
                describe(theirs.get(at)),
                describe(ours.get(at))
            ),
        )
        .item("push_constant")
        .hint(format!("declare the twin's push constants as `{info}` does (a shared additional_info keeps them one)")),
    )
}

/// Why `#[derive(ShaderInfo)]` struct `type_name` (its push-constant `fields`, `size` bytes), the block of info
/// `info`, is not `plan`'s block: empty when `plan` is that info, one of its variants or its twin (which serves it
/// where one of its stages cannot run), and its block is the struct's fields. (The struct's layout was proven
/// against its own declaration when it was compiled; but push constants an `additional_info` adds are in the
/// block and not in the struct — a struct without fields would push nothing — so the members are compared too.)
#[doc(hidden)]
pub fn derived_push_problems(
    plan: &PipelinePlan,
    registry: &Registry,
    info: &str,
    type_name: &str,
    fields: &[crate::shader_type::FieldInfo],
    size: usize,
) -> Vec<Diagnostic> {
    let planned = plan.key.split('#').next().unwrap_or_default();
    let twin = registry
        .info(info)
        .and_then(|i| i.twin.as_ref())
        .is_some_and(|t| t.value == planned);
    if twin && let Some(d) = twin_block_problem(plan, registry, info, planned) {
        return vec![d];
    }
    if planned != info && !twin {
        return vec![
            Diagnostic::error(
                Code::HostMismatch,
                &plan.key,
                format!(
                    "`{type_name}` is the push-constant block of `{info}`, not of `{}`",
                    plan.key
                ),
            )
            .item("push_constant")
            .hint(format!(
                "fetch `{info}` (`{type_name}::NAME`), or push the block of `{planned}`"
            )),
        ];
    }
    let own: Vec<&str> = fields
        .iter()
        .filter(|f| {
            !matches!(
                f.glsl.kind,
                crate::shader_type::GlslKind::Padding | crate::shader_type::GlslKind::Struct(_)
            )
        })
        .map(|f| f.name)
        .collect();
    let block: Vec<&str> = plan
        .push_constants
        .iter()
        .flat_map(|pc| pc.layout.members.iter().map(|m| m.name.as_str()))
        .collect();
    let twin = plan.push_constants.as_ref().map_or(0, |pc| pc.twin_size());
    if own == block && (block.is_empty() || size as u32 >= twin) {
        return Vec::new();
    }
    let inherited: Vec<&str> = block.iter().filter(|m| !own.contains(m)).copied().collect();
    vec![
        Diagnostic::error(
            Code::HostMismatch,
            &plan.key,
            format!(
                "`{type_name}` holds {} but the push-constant block of `{info}` is {} ({twin} bytes){}",
                if own.is_empty() {
                    "no push constant".to_string()
                } else {
                    format!("`{}`", own.join("`, `"))
                },
                if block.is_empty() {
                    "empty".to_string()
                } else {
                    format!("`{}`", block.join("`, `"))
                },
                if inherited.is_empty() {
                    String::new()
                } else {
                    format!(
                        "; `{}` come from an additional info, not from the struct",
                        inherited.join("`, `")
                    )
                }
            ),
        )
        .item("push_constant")
        .hint(
            "push a #[derive(ShaderStruct)] twin of the whole block, or declare every push constant as a field of \
             the struct",
        ),
    ]
}

/// A Rust type that is an info's vertex buffer (or its instance buffer): named when a typed graphics pipeline is
/// fetched, checked against the declared `vertex_in`s (or `instance_in`s) once (names, order, formats, offsets,
/// stride).
///
/// Implemented for every `#[derive(ShaderVertex)]` struct and for [`NoVertices`].
pub trait VertexData: 'static {
    /// The size of one value in the buffer (`None`: no buffer): a typed pipeline reads its buffer with this stride.
    const STRIDE: Option<u32> = None;

    /// Why `Self` is not the buffer of `plan`'s inputs of `rate` in `arrangement`: empty when it is.
    fn buffer_problems(
        plan: &PipelinePlan,
        arrangement: VertexArrangement,
        rate: VertexRate,
    ) -> Vec<Diagnostic>;

    /// Why `Self` is not the interleaved per-vertex buffer of `plan`: empty when it is.
    fn vertex_problems(plan: &PipelinePlan) -> Vec<Diagnostic> {
        Self::buffer_problems(plan, VertexArrangement::Interleaved, VertexRate::Vertex)
    }

    /// [`Self::buffer_problems`] for a pipeline whose inputs are arranged as `arrangement`: one struct is one
    /// interleaved buffer, so a pipeline reading each input from a buffer of its own
    /// ([`VertexArrangement::PerInput`], with more than one input of the rate) reads other strides and offsets
    /// than the struct has.
    fn arranged_problems(
        plan: &PipelinePlan,
        arrangement: VertexArrangement,
        rate: VertexRate,
    ) -> Vec<Diagnostic> {
        let buffers = plan
            .vertex_buffers(arrangement)
            .iter()
            .filter(|b| b.rate == rate)
            .count();
        // With more buffers than one, the struct's own layout is checked as one buffer of its rate and the count
        // is the error below; with one, that buffer is what the pipeline reads (packed, whatever the struct's
        // padding), so the struct is checked against it as it is.
        let one_buffer = match arrangement {
            VertexArrangement::PerInput if buffers > 1 => VertexArrangement::Interleaved,
            other => other,
        };
        let mut out = Self::buffer_problems(plan, one_buffer, rate);
        if one_buffer == VertexArrangement::PerInput {
            for d in &mut out {
                d.hint = Some(
                    "ask for VertexArrangement::Interleaved: the per-input arrangement reads each input packed, \
                     from the start of a buffer of its own, not at the struct's offsets and stride"
                        .into(),
                );
            }
        }
        if out.is_empty() && buffers > 1 {
            out.push(
                Diagnostic::error(
                    Code::HostMismatch,
                    &plan.key,
                    format!(
                        "`{}` is one interleaved buffer, but the pipeline of `{}` was asked for with \
                         VertexArrangement::{arrangement:?} ({buffers} buffers of its {} inputs)",
                        std::any::type_name::<Self>().rsplit("::").next().unwrap_or_default(),
                        plan.key,
                        rate.item()
                    ),
                )
                .item(rate.item())
                .hint("ask for VertexArrangement::Interleaved, or fetch the pipeline untyped and bind a buffer per input"),
            );
        }
        out
    }
}

impl<T: ShaderVertex> VertexData for T {
    const STRIDE: Option<u32> = Some(T::STRIDE);

    fn buffer_problems(
        plan: &PipelinePlan,
        arrangement: VertexArrangement,
        rate: VertexRate,
    ) -> Vec<Diagnostic> {
        let mut out = plan.buffer_problems::<T>(arrangement, rate);
        for d in &mut out {
            d.code = Code::HostMismatch;
        }
        out.extend(written_by_hand_problems::<T>(&plan.key));
        out
    }
}

/// What a `ShaderVertex` written by hand may claim wrongly (the derive states it from the struct): a `STRIDE` other
/// than the struct's size (its buffer is made of `size_of` steps, the pipeline would take `STRIDE` ones), and a
/// field past its end.
fn written_by_hand_problems<T: ShaderVertex>(key: &str) -> Vec<Diagnostic> {
    let name = crate::vertex::short_name(std::any::type_name::<T>());
    let size = std::mem::size_of::<T>() as u64;
    let mut out = Vec::new();
    if u64::from(T::STRIDE) != size {
        out.push(
            Diagnostic::error(
                Code::HostMismatch,
                key,
                format!(
                    "`{name}` says its stride is {} bytes (ShaderVertex::STRIDE), but it is {size} bytes: a buffer \
                     of them would be read at the wrong vertices",
                    T::STRIDE
                ),
            )
            .item(name.to_string())
            .hint("derive ShaderVertex, or give STRIDE as size_of the struct"),
        );
    }
    for f in T::FIELDS {
        let end = u64::from(f.offset) + u64::from(f.columns) * u64::from(f.format.size());
        if end > size {
            out.push(
                Diagnostic::error(
                    Code::HostMismatch,
                    key,
                    format!(
                        "field `{}` of `{name}` is bytes {}..{end}, past the struct's {size} bytes",
                        f.name, f.offset
                    ),
                )
                .item(format!("{name}.{}", f.name))
                .hint("derive ShaderVertex, or give the field's own offset and format"),
            );
        }
    }
    out
}

/// The arrangement a typed pipeline whose vertex and instance structs are `V` and `I` is created with, when
/// `requested` for it: [`VertexArrangement::Strided`] with the structs' sizes where one is larger than its packed
/// buffer (tail padding to its alignment), so that the pipeline reads the struct's own stride; `requested`
/// otherwise (the pipeline a warm-up made for it).
///
/// ```
/// use shader_info::*;
/// #[derive(Clone, Copy, ShaderVertex)]
/// #[repr(C)]
/// struct Instance { model: glam::Mat4, layer: u32 } // 68 bytes of fields, 80 with glam's 16-byte alignment
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("i").instance_in(0, Type::Mat4, "model").instance_in(4, Type::Uint, "layer")
///     .vertex_source("v").fragment_source("f"));
/// let plan = PipelinePlan::new(&reg.validated("i").unwrap(), &reg);
/// let a = typed_arrangement::<NoVertices, Instance>(&plan, VertexArrangement::Interleaved);
/// assert_eq!(a, VertexArrangement::Strided { vertex: 0, instance: 80 });
/// assert!(Instance::arranged_problems(&plan, a, VertexRate::Instance).is_empty());
/// ```
pub fn typed_arrangement<V: VertexData, I: VertexData>(
    plan: &PipelinePlan,
    requested: VertexArrangement,
) -> VertexArrangement {
    if requested != VertexArrangement::Interleaved {
        return requested;
    }
    let packed = plan.vertex_buffers(VertexArrangement::Interleaved);
    let stride_of = |rate| {
        packed
            .iter()
            .find(|b| b.rate == rate)
            .map_or(0, |b| b.stride)
    };
    let (vertex, instance) = (V::STRIDE.unwrap_or(0), I::STRIDE.unwrap_or(0));
    if vertex > stride_of(VertexRate::Vertex) || instance > stride_of(VertexRate::Instance) {
        VertexArrangement::Strided { vertex, instance }
    } else {
        requested
    }
}

/// The vertex input of a pipeline that reads no vertex buffer (a fullscreen triangle made from the vertex index),
/// or no instance buffer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct NoVertices;

impl VertexData for NoVertices {
    fn buffer_problems(
        plan: &PipelinePlan,
        _arrangement: VertexArrangement,
        rate: VertexRate,
    ) -> Vec<Diagnostic> {
        let names: Vec<&str> = plan
            .vertex_attributes
            .iter()
            .filter(|a| a.offset_in_value == 0 && a.rate == rate)
            .map(|a| a.name.as_str())
            .collect();
        if names.is_empty() {
            return Vec::new();
        }
        let (what, hint) = match rate {
            VertexRate::Vertex => (
                "vertex inputs",
                "name the #[derive(ShaderVertex)] struct of its vertex buffer",
            ),
            VertexRate::Instance => (
                "per-instance inputs",
                "fetch it with typed_instanced, naming the #[derive(ShaderVertex)] struct of its instance buffer",
            ),
        };
        vec![
            Diagnostic::error(
                Code::HostMismatch,
                &plan.key,
                format!(
                    "`{}` reads {what} ({}), but the pipeline was asked for with NoVertices",
                    plan.key,
                    names.join(", ")
                ),
            )
            .item(rate.item())
            .hint(hint),
        ]
    }
}

/// What the host binds to one declared resource, in the terms every backend shares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HostResource {
    /// A uniform or storage buffer, and its size in bytes where the backend knows it (checked against the
    /// smallest buffer the declared block fits in, [`BindingPlan::min_size`]).
    Buffer { bytes: Option<u64> },
    /// A texture (image view) alone: a sampled texture, a storage image, an input attachment, or a combined
    /// sampler whose sampler the declaration fixes (`sampler_with_state`).
    Texture,
    /// A texture with its sampler, for a combined sampler.
    TextureAndSampler,
    /// So many textures alone, for a declared array (`name[N]`): every element, in order.
    Textures(u32),
    /// So many textures with their samplers, for a declared array of combined samplers.
    TexturesAndSamplers(u32),
    /// A buffer read as texels of a format (a texel buffer's view).
    TexelBuffer(crate::types::TextureFormat),
    /// A ray-tracing acceleration structure.
    AccelerationStructure,
}

impl HostResource {
    /// What a resource of `binding`'s kind takes, for messages.
    fn wanted(binding: &BindingPlan) -> String {
        let n = binding.count;
        let fixed = has_fixed_sampler(binding);
        match binding.kind {
            DescriptorKind::UniformBuffer | DescriptorKind::StorageBuffer => match binding.min_size
            {
                Some(m) => format!("a buffer of at least {m} bytes"),
                None => "a buffer".into(),
            },
            // One view is written per binding: the rest of an array would be read unwritten.
            DescriptorKind::UniformTexelBuffer | DescriptorKind::StorageTexelBuffer if n > 1 => {
                format!(
                    "{n} texel buffers, which no bind call here writes (each takes a view of its own); declare {n} \
                 single texel buffers, or bind this one yourself"
                )
            }
            DescriptorKind::UniformTexelBuffer => match &binding.resource {
                crate::ResourceKind::Sampler { image_type, .. } => format!(
                    "a texel buffer (a buffer and its texels' format, of {} components)",
                    component_kind_word(image_type.component_kind())
                ),
                _ => "a texel buffer (a buffer and its texels' format)".into(),
            },
            DescriptorKind::StorageTexelBuffer => match &binding.resource {
                crate::ResourceKind::Image { format, .. } => {
                    format!("a texel buffer of its declared format {format:?}")
                }
                _ => "a texel buffer (a buffer and its texels' format)".into(),
            },
            DescriptorKind::CombinedImageSampler if n > 1 && fixed => {
                format!("{n} textures (their sampler is declared)")
            }
            DescriptorKind::CombinedImageSampler if n > 1 => format!("{n} textures with samplers"),
            DescriptorKind::CombinedImageSampler if fixed => {
                "a texture alone (its sampler is declared)".into()
            }
            DescriptorKind::CombinedImageSampler => "a texture and a sampler".into(),
            DescriptorKind::SampledImage | DescriptorKind::StorageImage if n > 1 => {
                format!("{n} textures")
            }
            DescriptorKind::SampledImage | DescriptorKind::StorageImage => "a texture".into(),
            DescriptorKind::InputAttachment => "a texture (the attachment's view)".into(),
            DescriptorKind::Sampler => "a sampler".into(),
            DescriptorKind::AccelerationStructure => "an acceleration structure".into(),
        }
    }

    /// What was given, for messages.
    fn given(self) -> String {
        match self {
            HostResource::Buffer { bytes: Some(b) } => format!("a buffer of {b} bytes"),
            HostResource::Buffer { bytes: None } => "a buffer".into(),
            HostResource::Texture => "a texture alone".into(),
            HostResource::TextureAndSampler => "a texture and a sampler".into(),
            HostResource::Textures(n) => format!("{n} textures"),
            HostResource::TexturesAndSamplers(n) => format!("{n} textures with samplers"),
            HostResource::TexelBuffer(f) => format!("a texel buffer of {f:?}"),
            HostResource::AccelerationStructure => "an acceleration structure".into(),
        }
    }

    /// Whether this resource fits `binding`: its kind, its count for an array, a buffer's size.
    fn fits(self, binding: &BindingPlan) -> bool {
        let (n, fixed) = (binding.count, has_fixed_sampler(binding));
        // An array of one (`shadow[1]`, whose typed set struct field is `[_; 1]`) is one descriptor, as a single
        // texture is.
        let single = match self {
            HostResource::Textures(1) => HostResource::Texture,
            HostResource::TexturesAndSamplers(1) => HostResource::TextureAndSampler,
            other => other,
        };
        if n == 1 && single != self {
            return single.fits(binding);
        }
        match binding.kind {
            DescriptorKind::UniformBuffer | DescriptorKind::StorageBuffer => match self {
                HostResource::Buffer { bytes } => bytes
                    .zip(binding.min_size)
                    .is_none_or(|(b, m)| b >= u64::from(m)),
                _ => false,
            },
            // A texel buffer is read through a view of a format: a sampled one of the declared component kind (a
            // float format for a FloatBuffer), a storage one of exactly the declared format.
            DescriptorKind::UniformTexelBuffer | DescriptorKind::StorageTexelBuffer if n > 1 => {
                false
            }
            DescriptorKind::UniformTexelBuffer => match (self, &binding.resource) {
                (HostResource::TexelBuffer(f), crate::ResourceKind::Sampler { image_type, .. }) => {
                    f.component_kind() == image_type.component_kind()
                }
                _ => false,
            },
            DescriptorKind::StorageTexelBuffer => match (self, &binding.resource) {
                (HostResource::TexelBuffer(f), crate::ResourceKind::Image { format, .. }) => {
                    f == *format
                }
                _ => false,
            },
            DescriptorKind::CombinedImageSampler if n > 1 => {
                self == if fixed {
                    HostResource::Textures(n)
                } else {
                    HostResource::TexturesAndSamplers(n)
                }
            }
            // A declared sampler is the one the shader samples with on every backend: a host sampler beside it
            // would be ignored on Vulkan (immutable) and used on wgpu, two different frames.
            DescriptorKind::CombinedImageSampler if fixed => self == HostResource::Texture,
            DescriptorKind::CombinedImageSampler => self == HostResource::TextureAndSampler,
            DescriptorKind::SampledImage | DescriptorKind::StorageImage if n > 1 => {
                self == HostResource::Textures(n)
            }
            DescriptorKind::SampledImage
            | DescriptorKind::StorageImage
            | DescriptorKind::InputAttachment => self == HostResource::Texture,
            DescriptorKind::Sampler => false,
            DescriptorKind::AccelerationStructure => self == HostResource::AccelerationStructure,
        }
    }

    /// What to do about a resource that does not fit `binding`.
    fn remedy(binding: &BindingPlan) -> String {
        let name = &binding.name;
        match binding.kind {
            DescriptorKind::UniformTexelBuffer | DescriptorKind::StorageTexelBuffer => format!(
                "bind `{name}` with {} (`Bound::TexelBuffer(buffer, format)`)",
                Self::wanted(binding)
            ),
            DescriptorKind::UniformBuffer | DescriptorKind::StorageBuffer
                if binding.min_size.is_some() =>
            {
                format!(
                    "bind `{name}` with {} (the declared block's size)",
                    Self::wanted(binding)
                )
            }
            _ => format!("bind `{name}` with {}", Self::wanted(binding)),
        }
    }
}

/// The kind of texel a component kind (`ImageType::component_kind`, `TextureFormat::component_kind`) names, for
/// messages.
///
/// ```
/// assert_eq!(shader_info::component_kind_word('u'), "unsigned integer");
/// ```
pub fn component_kind_word(kind: char) -> &'static str {
    match kind {
        'i' => "signed integer",
        'u' => "unsigned integer",
        _ => "float or normalized",
    }
}

fn has_fixed_sampler(binding: &BindingPlan) -> bool {
    binding.resource.fixed_sampler().is_some()
}

/// The resources of one bind group, resolved against the plan: the set (derived from the names) and, in the
/// order they were given, the declared binding each resource goes to.
#[derive(Debug)]
pub struct BindSet<'p> {
    pub set: u32,
    pub bindings: Vec<&'p BindingPlan>,
}

/// Up to three names of `candidates` close to `name`, as "did you mean `a`, `b`?" (empty when none is close).
pub(crate) fn did_you_mean<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> String {
    let close: Vec<String> = candidates
        .filter(|c| {
            crate::resolve::edit_distance(c, name) <= 2.max(name.len() / 4)
                || (name.len() >= 3 && (c.contains(name) || name.contains(*c)))
        })
        .take(3)
        .map(|c| format!("`{c}`"))
        .collect();
    if close.is_empty() {
        String::new()
    } else {
        format!("did you mean {}?", close.join(", "))
    }
}

impl PipelinePlan {
    /// Resolves the resources of one bind group by their declared names: the set is the one the names are
    /// declared in (nobody types a set number), every declared resource of that set must be given once, and each
    /// must be of its declared kind. Every problem is a [`Code::HostMismatch`] error naming the resource, its info
    /// and the Rust line that declared it.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("m").sampler(0, ImageType::Float2D, "albedo", Frequency::Batch)
    ///     .uniform_buf(1, "vec4", "tint", Frequency::Batch).local_group_size(1).compute_source("m"));
    /// let plan = PipelinePlan::new(&reg.validated("m").unwrap(), &reg);
    /// let buffer = HostResource::Buffer { bytes: Some(16) };
    /// let set = plan.bind_set(&[("tint", buffer), ("albedo", HostResource::TextureAndSampler)]).unwrap();
    /// assert_eq!((set.set, set.bindings[0].binding), (1, 1));
    /// let e = plan.bind_set(&[("tint", buffer)]).unwrap_err();
    /// assert!(e[0].message.contains("`albedo`") && e[0].message.contains("left out"));
    /// let e = plan.bind_set(&[("tint", HostResource::Texture), ("albedo", HostResource::TextureAndSampler)]).unwrap_err();
    /// assert!(e[0].message.contains("takes a buffer"));
    /// // A vec4 block needs 16 bytes: 8 would be read past its end.
    /// let small = HostResource::Buffer { bytes: Some(8) };
    /// let e = plan.bind_set(&[("tint", small), ("albedo", HostResource::TextureAndSampler)]).unwrap_err();
    /// assert!(e[0].message.contains("at least 16 bytes, but a buffer of 8 bytes was given"), "{}", e[0].message);
    /// let e = plan.bind_set(&[("albdo", HostResource::TextureAndSampler)]).unwrap_err();
    /// assert!(e[0].hint.as_deref().unwrap().contains("did you mean `albedo`"));
    /// ```
    pub fn bind_set(
        &self,
        resources: &[(&str, HostResource)],
    ) -> Result<BindSet<'_>, Vec<Diagnostic>> {
        let key = &self.key;
        let hidden = |b: &BindingPlan| b.name == PushConstantSpill::NAME;
        let declared = || {
            self.sets
                .iter()
                .flat_map(|s| s.bindings.iter().map(move |b| (s.set, b)))
                .filter(|(_, b)| !hidden(b))
        };
        let problem = |b: Option<&BindingPlan>, message: String, hint: String| {
            let d = Diagnostic::error(Code::HostMismatch, key, message).hint(hint);
            match b {
                Some(b) => d
                    .item(format!("resource `{}`", b.name))
                    .at(&b.declared_in, b.origin),
                None => d,
            }
        };
        let mut out = Vec::new();
        let mut found: Vec<(u32, &BindingPlan, HostResource)> = Vec::new();
        for (name, given) in resources {
            let Some((set, b)) = declared().find(|(_, b)| b.name == *name) else {
                let names: Vec<String> = declared()
                    .map(|(s, b)| format!("`{}` (set {s})", b.name))
                    .collect();
                let suggestion = did_you_mean(name, declared().map(|(_, b)| b.name.as_str()));
                out.push(problem(
                    None,
                    format!(
                        "`{name}` is not a resource of `{key}`; it declares {}",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ),
                    if suggestion.is_empty() {
                        "bind the resources by the names the info declares".to_string()
                    } else {
                        suggestion
                    },
                ));
                continue;
            };
            if found.iter().any(|(_, f, _)| f.name == *name) {
                out.push(problem(
                    Some(b),
                    format!("`{name}` is given twice"),
                    "give each resource once".to_string(),
                ));
                continue;
            }
            if !given.fits(b) {
                out.push(problem(
                    Some(b),
                    format!(
                        "`{name}` (set {set}, binding {}) takes {}, but {} was given",
                        b.binding,
                        HostResource::wanted(b),
                        given.given()
                    ),
                    HostResource::remedy(b),
                ));
            }
            found.push((set, b, *given));
        }
        let sets: Vec<u32> = {
            let mut s: Vec<u32> = found.iter().map(|(s, _, _)| *s).collect();
            s.dedup();
            s.sort_unstable();
            s.dedup();
            s
        };
        if sets.len() > 1 {
            let per: Vec<String> = found
                .iter()
                .map(|(s, b, _)| format!("`{}` is in set {s}", b.name))
                .collect();
            out.push(problem(
                None,
                format!("a bind group holds one set, but {}", per.join(", ")),
                "make one group per set (the set follows from the declared frequency)".to_string(),
            ));
        }
        if let Some(&set) = sets.first()
            && sets.len() == 1
        {
            for (_, b) in declared().filter(|(s, _)| *s == set) {
                if !found.iter().any(|(_, f, _)| f.name == b.name) {
                    out.push(problem(
                        Some(b),
                        format!(
                            "`{}` (set {set}, binding {}) was left out of the group: it takes {}",
                            b.name,
                            b.binding,
                            HostResource::wanted(b)
                        ),
                        "give every resource the set declares (a bind group is complete)"
                            .to_string(),
                    ));
                }
            }
        }
        if resources.is_empty() {
            out.push(problem(
                None,
                format!("an empty bind group for `{key}`: no set to derive"),
                "name the resources to bind".to_string(),
            ));
        }
        if !out.is_empty() {
            return Err(out);
        }
        Ok(BindSet {
            set: sets[0],
            bindings: found.into_iter().map(|(_, b, _)| b).collect(),
        })
    }
}

impl VariantSet {
    /// The permutation of branch values given by name, as diagnostics: an unknown branch gets "did you mean" and
    /// the declared branches; a branch the values leave out is off.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("s").branch("GRAYSCALE").branch("TINT").vertex_source("v")
    ///     .fragment_source("f"));
    /// let set = enumerate_variants(&reg.resolve("s").unwrap(), 16).unwrap();
    /// assert_eq!(set.permutation(&[("TINT", true)]).unwrap(), 0b10);
    /// let e = set.permutation(&[("GREYSCALE", true)]).unwrap_err();
    /// assert!(e[0].hint.as_deref().unwrap().contains("did you mean `GRAYSCALE`"));
    /// let e = set.permutation(&[("TINT", true), ("TINT", false)]).unwrap_err();
    /// assert!(e[0].message.contains("given twice"));
    /// ```
    pub fn permutation(&self, values: &[(&str, bool)]) -> Result<u64, Vec<Diagnostic>> {
        let mut bits = 0;
        let mut out = Vec::new();
        for (at, (name, v)) in values.iter().enumerate() {
            match self.branches.iter().position(|b| b == name) {
                Some(_) if values[..at].iter().any(|(n, _)| n == name) => {
                    out.push(
                        Diagnostic::error(
                            Code::Branch,
                            &self.info,
                            format!("branch `{name}` of `{}` is given twice", self.info),
                        )
                        .item(format!("branch `{name}`"))
                        .hint("give each branch once"),
                    );
                }
                Some(i) if *v => match crate::variants::branch_bit(i) {
                    Some(bit) => bits |= bit,
                    None => out.push(
                        Diagnostic::error(
                            Code::Branch,
                            &self.info,
                            format!(
                                "branch `{name}` of `{}` is bit {i} of a 64-bit permutation index",
                                self.info
                            ),
                        )
                        .item(format!("branch `{name}`"))
                        .hint("a variant set has at most 64 branches; build it with enumerate_variants"),
                    ),
                },
                Some(_) => {}
                None => {
                    let suggestion = did_you_mean(name, self.branches.iter().map(String::as_str));
                    out.push(
                        Diagnostic::error(
                            Code::Branch,
                            &self.info,
                            format!(
                                "`{}` has no branch named `{name}`; its branches: {}",
                                self.info,
                                if self.branches.is_empty() {
                                    "none".to_string()
                                } else {
                                    self.branches.join(", ")
                                }
                            ),
                        )
                        .item(format!("branch `{name}`"))
                        .hint(if suggestion.is_empty() {
                            "name a declared branch".to_string()
                        } else {
                            suggestion
                        }),
                    );
                }
            }
        }
        if out.is_empty() { Ok(bits) } else { Err(out) }
    }
}

#[cfg(test)]
mod tests {
    use crate::*;

    /// A `ShaderVertex` written by hand whose `STRIDE` is not its size (or whose field runs past it) is refused
    /// where a typed pipeline takes it: its buffer is made of `size_of` steps, the pipeline would step `STRIDE`.
    #[test]
    fn a_hand_written_vertex_whose_stride_is_not_its_size_is_refused() {
        #[derive(Clone, Copy)]
        #[repr(C)]
        struct Wrong {
            pos: [f32; 3],
        }
        impl ShaderVertex for Wrong {
            const FIELDS: &'static [VertexField] = &[
                VertexField {
                    name: "pos",
                    offset: 0,
                    format: VertexFormat::Float32x3,
                    columns: 1,
                },
                VertexField {
                    name: "tail",
                    offset: 12,
                    format: VertexFormat::Float32,
                    columns: 1,
                },
            ];
            const STRIDE: u32 = 16;
        }
        let mut reg = Registry::new();
        reg.add_info(
            ShaderCreateInfo::new("strided")
                .vertex_in(0, Type::Vec3, "pos")
                .vertex_in(1, Type::Float, "tail")
                .fragment_out(0, Type::Vec4, "color")
                .vertex_source("v")
                .fragment_source("f"),
        );
        let plan = PipelinePlan::new(&reg.validated("strided").unwrap(), &reg);
        let e = <Wrong as VertexData>::vertex_problems(&plan);
        let text = render_all(&e);
        assert!(
            text.contains("says its stride is 16 bytes") && text.contains("but it is 12 bytes"),
            "{text}"
        );
        assert!(
            text.contains("field `tail` of `Wrong` is bytes 12..16"),
            "{text}"
        );
        assert!(e.iter().all(|d| d.code == Code::HostMismatch));
    }

    /// A bind writes one view per texel-buffer binding: an array of them is refused where it is bound, naming it,
    /// rather than drawn with its other elements unwritten.
    #[test]
    fn an_array_of_texel_buffers_is_refused_where_it_is_bound() {
        let mut reg = Registry::new();
        reg.add_info(
            ShaderCreateInfo::new("luts")
                .sampler(0, ImageType::FloatBuffer, "lut[4]", Frequency::Batch)
                .sampler(1, ImageType::FloatBuffer, "one", Frequency::Batch)
                .local_group_size(1)
                .compute_source("c"),
        );
        let plan = PipelinePlan::new(&reg.validated("luts").unwrap(), &reg);
        let texels = HostResource::TexelBuffer(TextureFormat::Rgba32f);
        let e = plan
            .bind_set(&[("lut", texels), ("one", texels)])
            .map(drop)
            .unwrap_err();
        assert_eq!(e.len(), 1, "{}", render_all(&e));
        assert!(
            e[0].message.contains("`lut`") && e[0].message.contains("4 texel buffers"),
            "{}",
            e[0].message
        );
        // A single one binds.
        reg.add_info(
            ShaderCreateInfo::new("lut")
                .sampler(0, ImageType::FloatBuffer, "one", Frequency::Batch)
                .local_group_size(1)
                .compute_source("c"),
        );
        let plan = PipelinePlan::new(&reg.validated("lut").unwrap(), &reg);
        plan.bind_set(&[("one", texels)]).unwrap();
    }

    /// `shadow[1]` is one descriptor: its typed set struct field (`[_; 1]`) gives an array of one, which used to
    /// fit nothing (every bind failed, "takes a texture and a sampler, but 1 textures with samplers was given").
    #[test]
    fn an_array_of_one_binds_as_its_one_descriptor() {
        let mut reg = Registry::new();
        reg.add_info(
            ShaderCreateInfo::new("one")
                .sampler(0, ImageType::Float2D, "shadow[1]", Frequency::Batch)
                .image(
                    1,
                    TextureFormat::Rgba8,
                    Qualifier::Write,
                    ImageType::Float2D,
                    "target[1]",
                    Frequency::Batch,
                )
                .local_group_size(1)
                .compute_source("c"),
        );
        let plan = PipelinePlan::new(&reg.validated("one").unwrap(), &reg);
        let bind = |shadow, out| {
            plan.bind_set(&[("shadow", shadow), ("target", out)])
                .map(drop)
        };
        use HostResource::*;
        bind(TexturesAndSamplers(1), Textures(1)).unwrap();
        bind(TextureAndSampler, Texture).unwrap();
        let e = bind(TexturesAndSamplers(2), Texture).unwrap_err();
        assert!(
            e[0].message.contains("2 textures with samplers"),
            "{}",
            e[0].message
        );
        assert!(
            bind(Textures(1), Texture).is_err(),
            "a texture alone for a combined sampler"
        );
    }
}
