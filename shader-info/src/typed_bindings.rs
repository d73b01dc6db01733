//! Compile-time bindings for `#[derive(ShaderInfo)]` infos: per descriptor set, a struct whose fields are the
//! resources the derive declares (a resource left out is a missing field, one of the wrong kind a type error),
//! and a struct of the info's branches. The structs are generic over [`HostTypes`], so one declaration is
//! accepted by every backend; each backend turns a set into its bind group through the same checks as binding
//! by name ([`crate::PipelinePlan::bind_set`]), which still catch what the derive cannot see (resources of an
//! `additional_info`, subpass inputs, a variant that lacks a conditional resource).

use crate::host::HostResource;

/// A backend's resource types: what a generated binding struct holds for each kind of resource.
///
/// ```
/// use shader_info::{Bound, HostTypes, Unsupported};
/// struct Toy;
/// impl HostTypes for Toy {
///     type Buffer = Vec<u8>;
///     type Texture = String;
///     type Sampler = ();
///     type AccelerationStructure = Unsupported;
/// }
/// let bytes = vec![0u8; 16];
/// let b: Bound<'_, Toy> = Bound::Buffer(&bytes);
/// assert_eq!(b.host(), shader_info::HostResource::Buffer { bytes: None });
/// ```
pub trait HostTypes: 'static {
    /// A uniform, storage or texel buffer.
    type Buffer: ?Sized;
    /// A texture's view: sampled, storage or input attachment.
    type Texture: ?Sized;
    /// A sampler.
    type Sampler: ?Sized;
    /// A ray-tracing acceleration structure ([`Unsupported`] where the backend binds none by name).
    type AccelerationStructure: ?Sized;

    /// The size of `buffer` in bytes, where the backend knows it: a buffer smaller than the declared block is
    /// then refused where it is bound, not read past its end.
    fn buffer_size(buffer: &Self::Buffer) -> Option<u64> {
        let _ = buffer;
        None
    }
}

/// The type of a resource kind a backend cannot bind by name: it has no value, so a binding struct that needs
/// one cannot be built for that backend (a compile error, not a failure at the draw).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unsupported {}

/// One resource handed to a declared binding, in a backend's types (`gpu::vk::Resource` and `gpu::wgpu::Bind`
/// are this type for their backend).
pub enum Bound<'a, H: HostTypes> {
    /// A uniform, storage or texel buffer (the whole buffer).
    Buffer(&'a H::Buffer),
    /// A texture alone: a sampled texture, a storage image, an input attachment, or a combined sampler whose
    /// sampler the declaration fixes (`sampler_with_state`).
    Texture(&'a H::Texture),
    /// A texture and its sampler, for a combined sampler.
    Sampled(&'a H::Texture, &'a H::Sampler),
    /// Every texture of a declared array (`name[N]`), in order: sampled textures, storage images, or combined
    /// samplers whose sampler the declaration fixes.
    Textures(&'a [&'a H::Texture]),
    /// Every texture of a declared array of combined samplers, with its sampler, in order.
    SampledArray(&'a [(&'a H::Texture, &'a H::Sampler)]),
    /// A texel buffer (`samplerBuffer`, `imageBuffer`): the buffer and the format its texels are read in (a
    /// storage texel buffer's must be its declared format).
    TexelBuffer(&'a H::Buffer, crate::types::TextureFormat),
    /// An acceleration structure.
    AccelerationStructure(&'a H::AccelerationStructure),
}

impl<'a, H: HostTypes> Bound<'a, H> {
    /// An array of one as its one texture: a declared `name[1]` is one descriptor, bound as a plain texture where
    /// the backend has no arrays (wgpu).
    pub fn one_as_single(self) -> Self {
        match self {
            Bound::Textures(&[texture]) => Bound::Texture(texture),
            Bound::SampledArray(&[(texture, sampler)]) => Bound::Sampled(texture, sampler),
            other => other,
        }
    }
}

// Derived impls would demand `H: Clone`; the variants hold only references.
impl<H: HostTypes> Clone for Bound<'_, H> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<H: HostTypes> Copy for Bound<'_, H> {}

impl<H: HostTypes> std::fmt::Debug for Bound<'_, H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Bound::Buffer(_) => "Buffer",
            Bound::Texture(_) => "Texture",
            Bound::Sampled(..) => "Sampled",
            Bound::Textures(_) => "Textures",
            Bound::SampledArray(_) => "SampledArray",
            Bound::TexelBuffer(..) => "TexelBuffer",
            Bound::AccelerationStructure(_) => "AccelerationStructure",
        })
    }
}

impl<H: HostTypes> Bound<'_, H> {
    /// What is handed over, in the terms the core checks against the plan.
    pub fn host(&self) -> HostResource {
        match self {
            Bound::Buffer(b) => HostResource::Buffer {
                bytes: H::buffer_size(b),
            },
            Bound::Texture(_) => HostResource::Texture,
            Bound::Sampled(..) => HostResource::TextureAndSampler,
            Bound::Textures(t) => {
                HostResource::Textures(u32::try_from(t.len()).unwrap_or(u32::MAX))
            }
            Bound::SampledArray(t) => {
                HostResource::TexturesAndSamplers(u32::try_from(t.len()).unwrap_or(u32::MAX))
            }
            Bound::TexelBuffer(_, format) => HostResource::TexelBuffer(*format),
            Bound::AccelerationStructure(_) => HostResource::AccelerationStructure,
        }
    }
}

/// The resources of one descriptor set of a `#[derive(ShaderInfo)]` info, as a struct with one field per
/// declared resource (generated as `<Info><Frequency>Set`, e.g. `SpriteBatchSet`). Backends take it where they
/// take resources by name (`gpu::wgpu::GraphicsPipeline::bind`, `gpu::vk::PipelineLayout::bind`).
///
/// ```
/// use shader_info::{BindingSet, Bound, HostTypes, ShaderInfo, Unsupported};
///
/// #[derive(Clone, Copy, ShaderInfo)]
/// #[shader(
///     name = "typed_sprite",
///     sampler(0, Float2D, "sprite", Batch),
///     sampler(1, Float2D, "layers[2]", Batch),
///     uniform_buf(0, "vec4", "tint", Pass),
///     branch("GRAYSCALE"),
///     fragment_out(0, Vec4, "color"),
///     vertex_source("v.glsl"),
///     fragment_source("f.glsl"),
/// )]
/// struct TypedSprite;
///
/// struct Toy;
/// impl HostTypes for Toy {
///     type Buffer = [u8];
///     type Texture = str;
///     type Sampler = ();
///     type AccelerationStructure = Unsupported;
/// }
/// let (tint, sampler) = ([0u8; 16], ());
/// // Leaving out `sprite`, or giving a buffer for it, does not compile; nor does one layer for `layers[2]`.
/// let layers = [("ground", &sampler), ("sky", &sampler)];
/// let batch = TypedSpriteBatchSet::<Toy> { sprite: ("atlas", &sampler), layers: &layers };
/// assert!(matches!(batch.resources()[1].1, Bound::SampledArray(l) if l.len() == 2));
/// let pass = TypedSpritePassSet::<Toy> { tint: &tint };
/// assert_eq!((TypedSpriteBatchSet::<Toy>::SET, TypedSpritePassSet::<Toy>::SET), (1, 0));
/// assert_eq!(batch.resources()[0].0, "sprite");
/// assert!(matches!(pass.resources()[0].1, Bound::Buffer(_)));
/// ```
pub trait BindingSet<'a, H: HostTypes> {
    /// The `#[derive(ShaderInfo)]` struct whose info declares the set: typed pipelines of that info take it.
    type Info;
    /// The info's name.
    const INFO: &'static str;
    /// The set (WGSL `@group`) the resources are declared in.
    const SET: u32;
    /// Each resource under its declared name; a conditional resource left `None` is not listed.
    fn resources(&self) -> Vec<(&'a str, Bound<'a, H>)>;
}

/// The branches of a `#[derive(ShaderInfo)]` info as a struct of `bool`s (generated as `<Info>Branches`, one
/// field per `branch("NAME")` in snake case, `Default` = every branch off), so a variant is chosen by value with
/// no name to mistype: `Library::variant_of(&SpriteBranches { grayscale: true })`.
///
/// ```
/// use shader_info::{Branches, ShaderInfo};
/// #[derive(Clone, Copy, ShaderInfo)]
/// #[shader(name = "two_branches", branch("GRAYSCALE"), branch("TINT_2"), compute_source("c.glsl"),
///     local_group_size(1))]
/// struct TwoBranches;
/// let b = TwoBranchesBranches { tint_2: true, ..Default::default() };
/// assert_eq!(b.values(), vec![("GRAYSCALE", false), ("TINT_2", true)]);
/// assert_eq!(<TwoBranchesBranches as Branches>::INFO, "two_branches");
/// ```
pub trait Branches {
    /// The info's name.
    const INFO: &'static str;
    /// Every branch the derive declares, by declared name, with its value, then those named in its `inherited`
    /// field (an info with an `additional_info` has one: the branches the base declares).
    fn values(&self) -> Vec<(&'static str, bool)>;
}

impl crate::plan::PipelinePlan {
    /// Why set struct `S` cannot be bound to a pipeline of this plan: empty when `S` is a set of this plan's info
    /// (or of one of its variants). The resources themselves are then checked by [`Self::bind_set`].
    pub fn binding_set_problems<'a, H: HostTypes, S: BindingSet<'a, H>>(
        &self,
    ) -> Vec<crate::diagnostic::Diagnostic> {
        use crate::diagnostic::{Code, Diagnostic};
        let planned = self.key.split('#').next().unwrap_or_default();
        if planned == S::INFO {
            return Vec::new();
        }
        vec![
            Diagnostic::error(
                Code::HostMismatch,
                &self.key,
                format!(
                    "`{}` holds resources of `{}`, not of `{}`",
                    std::any::type_name::<S>()
                        .split('<')
                        .next()
                        .and_then(|p| p.rsplit("::").next())
                        .unwrap_or_default(),
                    S::INFO,
                    self.key
                ),
            )
            .item(format!("set {}", S::SET))
            .hint(format!(
                "bind a set struct of `{planned}`, or fetch `{}`",
                S::INFO
            )),
        ]
    }
}
