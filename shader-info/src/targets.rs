//! Where every resource of a pipeline lives on each cross-language target, derived from the declaration (through
//! its [`crate::PipelinePlan`]) — not guessed by a translator — so a renderer binds by name on every API.
//!
//! The rules (one per target, applied to the *portable* descriptors: a combined sampler is a texture at its own
//! binding plus a sampler at [`crate::Resource::portable_sampler_binding`]):
//!
//! | target | resource | push constants |
//! |---|---|---|
//! | WGSL | `@group(set) @binding(binding)` | `var<immediate>` (wgpu immediates) |
//! | HLSL | `register(<class><binding>, space<set>)`: `b` uniform buffers, `t` textures, read-only storage buffers and texel buffers, `s` samplers (the number of their texture: samplers have their own register class), `u` storage images and writable storage buffers | `register(b0, space3)` ([`PUSH_CONSTANT_SPACE`]) |
//! | MSL | one numbering per class for the whole pipeline (every stage uses the same index), in (set, binding) order: `[[buffer(i)]]` uniform and storage buffers, `[[texture(i)]]` textures and storage images, `[[sampler(i)]]` samplers | `[[buffer(n)]]`, n = the number of buffers; the buffer-sizes buffer (runtime arrays) at n + 1; vertex buffers from [`TargetMap::msl_vertex_buffer_base`] |
//! | OpenGL / ES | one binding space per GL kind, in (set, binding) order: uniform-block bindings, shader-storage-block bindings, texture units (a sampler is bound to its texture's unit), image units | one plain `uniform` struct named [`GL_PUSH_CONSTANT_UNIFORM`] in every stage (set its members by name: `gpu_push_constants.<member>`) |

use crate::resource::DescriptorKind;
use serde::Serialize;

/// The HLSL register space of the push-constant block: one past the last frequency set.
pub const PUSH_CONSTANT_SPACE: u32 = 3;

/// The OpenGL uniform holding the push-constant block: the same name in every stage, so a linked program has one
/// uniform per member (`gpu_push_constants.<member>`) for the host to set.
pub const GL_PUSH_CONSTANT_UNIFORM: &str = "gpu_push_constants";

/// A cross-language target.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Target {
    /// WebGPU Shading Language (what wgpu runs).
    Wgsl,
    /// Metal Shading Language 2.x.
    Msl,
    /// HLSL, shader model 6.
    Hlsl,
    /// GLSL for OpenGL 4.3 core.
    Gl,
    /// GLSL for OpenGL ES 3.1.
    Gles,
}

impl Target {
    /// Every target.
    pub const ALL: [Target; 5] = [
        Target::Wgsl,
        Target::Msl,
        Target::Hlsl,
        Target::Gl,
        Target::Gles,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Target::Wgsl => "wgsl",
            Target::Msl => "msl",
            Target::Hlsl => "hlsl",
            Target::Gl => "gl",
            Target::Gles => "gles",
        }
    }

    /// The file extension of a translated module (`NAME.STAGE.<extension>`).
    ///
    /// ```
    /// use shader_info::Target;
    /// assert_eq!(Target::Gles.extension(), "gles.glsl");
    /// ```
    pub fn extension(self) -> &'static str {
        match self {
            Target::Wgsl => "wgsl",
            Target::Msl => "msl",
            Target::Hlsl => "hlsl",
            Target::Gl => "gl.glsl",
            Target::Gles => "gles.glsl",
        }
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Target {
    type Err = String;
    fn from_str(s: &str) -> Result<Target, String> {
        Target::ALL
            .iter()
            .copied()
            .find(|t| t.name() == s.trim().to_ascii_lowercase())
            .ok_or_else(|| {
                format!("unknown target `{s}`: expected one of wgsl, msl, hlsl, gl, gles")
            })
    }
}

/// Which part of a declared resource a portable binding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BindingPart {
    /// The resource as declared.
    Whole,
    /// The texture of a combined sampler.
    Texture,
    /// The sampler of a combined sampler.
    Sampler,
}

/// An HLSL register.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct HlslRegister {
    /// `b`, `t`, `s` or `u`.
    pub class: char,
    pub register: u32,
    pub space: u32,
}

/// The MSL argument table a resource is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MslClass {
    Buffer,
    Texture,
    Sampler,
    /// A sampler whose state the declaration fixes: a `constexpr sampler` inside the function, no argument; the
    /// index is its place in the translation's list of inline samplers.
    InlineSampler,
}

/// An MSL argument index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct MslSlot {
    pub class: MslClass,
    pub index: u32,
}

/// The OpenGL binding space a resource is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GlClass {
    UniformBlock,
    StorageBlock,
    TextureUnit,
    ImageUnit,
}

/// An OpenGL binding point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct GlSlot {
    pub class: GlClass,
    pub binding: u32,
}

/// One portable binding and where it lives on each target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetBinding {
    /// The declared name (without array suffix).
    pub name: String,
    pub part: BindingPart,
    /// Set and binding in Vulkan and in the portable SPIR-V; also WGSL's `@group`/`@binding`.
    pub set: u32,
    pub binding: u32,
    pub kind: DescriptorKind,
    /// Storage buffers and images the shader may write.
    pub writable: bool,
    pub hlsl: HlslRegister,
    pub msl: MslSlot,
    /// `None` for a sampler: OpenGL binds it to its texture's unit.
    pub gl: Option<GlSlot>,
    /// The state a sampler's declaration fixes ([`crate::ShaderCreateInfo::sampler_with_state`]): MSL writes it
    /// as an inline sampler; an HLSL host gives it to a static sampler of its root signature.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sampler_state: Option<crate::SamplerState>,
}

/// Where the push-constant block lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PushConstantTargets {
    pub hlsl: HlslRegister,
    pub msl_buffer: u32,
    /// The OpenGL uniform struct ([`GL_PUSH_CONSTANT_UNIFORM`]).
    pub gl_uniform: &'static str,
    /// Bytes of the block.
    pub size: u32,
}

/// Every binding of a pipeline on every target.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TargetMap {
    pub bindings: Vec<TargetBinding>,
    pub push_constants: Option<PushConstantTargets>,
    /// The MSL buffer index of the buffer holding runtime-array sizes, when a storage buffer has a runtime array.
    pub msl_sizes_buffer: Option<u32>,
    /// The first MSL buffer index free for vertex buffers.
    pub msl_vertex_buffer_base: u32,
}

impl TargetMap {
    /// The binding of a portable (set, binding).
    pub fn at(&self, set: u32, binding: u32) -> Option<&TargetBinding> {
        self.bindings
            .iter()
            .find(|b| b.set == set && b.binding == binding)
    }

    /// The bindings the host binds for a stage that uses `used` (portable set, binding): those, and the sampler
    /// half of every split sampler whose texture half is among them. A declared sampler is one resource to the
    /// host, so it binds both halves whenever a stage uses either; a translator may drop the sampler half of a
    /// texture the stage only fetches from or measures (`texelFetch`, `textureSize`: naga does, SPIRV-Cross does
    /// not), which costs nothing, since a bound argument the function does not take is ignored.
    pub fn host_bound(&self, used: &[(u32, u32)]) -> Vec<&TargetBinding> {
        let mut out: Vec<&TargetBinding> =
            used.iter().filter_map(|&(s, b)| self.at(s, b)).collect();
        for b in out.clone() {
            if b.part == BindingPart::Texture
                && let Some(sampler) = self
                    .bindings
                    .iter()
                    .find(|o| o.part == BindingPart::Sampler && o.set == b.set && o.name == b.name)
                && !out.iter().any(|o| std::ptr::eq(*o, sampler))
            {
                out.push(sampler);
            }
        }
        out
    }

    /// Derives the map from a plan's bindings (`(set, binding, name, kind)`) and push-constant size.
    /// `sampler_binding(set, binding)` is the portable
    /// sampler binding of the combined sampler there (`None`: it stays whole); `writable(set, binding)` says whether
    /// a storage resource there may be written; `runtime_array(set, binding)` whether a buffer there ends in one;
    /// `sampler_state(set, binding)` the state a sampler there declares.
    pub(crate) fn derive(
        declared: &[(u32, u32, &str, DescriptorKind)],
        push_constant_size: Option<u32>,
        sampler_binding: &dyn Fn(u32, u32) -> Option<u32>,
        writable: &dyn Fn(u32, u32) -> bool,
        runtime_array: &dyn Fn(u32, u32) -> bool,
        sampler_state: &dyn Fn(u32, u32) -> Option<crate::SamplerState>,
    ) -> TargetMap {
        // The portable descriptors, in (set, binding) order, with the declared sampler state of a sampler part.
        type Portable = (
            String,
            BindingPart,
            u32,
            u32,
            DescriptorKind,
            bool,
            Option<crate::SamplerState>,
        );
        let mut portable: Vec<Portable> = Vec::new();
        for &(set, binding, name, kind) in declared {
            let name = name.to_string();
            match (kind, sampler_binding(set, binding)) {
                (DescriptorKind::CombinedImageSampler, Some(sb)) => {
                    let texture = DescriptorKind::SampledImage;
                    portable.push((
                        name.clone(),
                        BindingPart::Texture,
                        set,
                        binding,
                        texture,
                        false,
                        None,
                    ));
                    let sampler = DescriptorKind::Sampler;
                    let state = sampler_state(set, binding);
                    portable.push((name, BindingPart::Sampler, set, sb, sampler, false, state));
                }
                (kind, _) => {
                    let w = writable(set, binding);
                    portable.push((name, BindingPart::Whole, set, binding, kind, w, None))
                }
            }
        }
        portable.sort_by_key(|p| (p.2, p.3));
        let mut msl_next = [0u32; 4];
        let mut gl_next = [0u32; 4];
        let mut sizes_needed = false;
        let mut bindings = Vec::with_capacity(portable.len());
        for (name, part, set, binding, kind, writable, sampler_state) in portable {
            use DescriptorKind as K;
            let hlsl_class = match kind {
                K::UniformBuffer => 'b',
                K::Sampler => 's',
                K::StorageBuffer if writable => 'u',
                K::StorageImage | K::StorageTexelBuffer => 'u',
                K::StorageBuffer
                | K::CombinedImageSampler
                | K::SampledImage
                | K::UniformTexelBuffer
                | K::AccelerationStructure
                | K::InputAttachment => 't',
            };
            // A split sampler takes its texture's register number: samplers have their own class.
            let register = match part {
                BindingPart::Sampler => bindings
                    .iter()
                    .rev()
                    .find(|b: &&TargetBinding| b.name == name && b.part == BindingPart::Texture)
                    .map_or(binding, |t| t.binding),
                BindingPart::Whole | BindingPart::Texture => binding,
            };
            let msl_class = match kind {
                K::UniformBuffer | K::StorageBuffer => MslClass::Buffer,
                // naga writes no anisotropy into an inline sampler: such a state stays an argument the host binds.
                K::Sampler if sampler_state.is_some_and(|s| s.anisotropy <= 1) => {
                    MslClass::InlineSampler
                }
                K::Sampler => MslClass::Sampler,
                K::CombinedImageSampler
                | K::SampledImage
                | K::StorageImage
                | K::UniformTexelBuffer
                | K::StorageTexelBuffer
                | K::AccelerationStructure
                | K::InputAttachment => MslClass::Texture,
            };
            let mi = msl_class as usize;
            let msl = MslSlot {
                class: msl_class,
                index: msl_next[mi],
            };
            msl_next[mi] += 1;
            if kind == K::StorageBuffer && runtime_array(set, binding) {
                sizes_needed = true;
            }
            let gl_class = match kind {
                K::UniformBuffer => Some(GlClass::UniformBlock),
                K::StorageBuffer => Some(GlClass::StorageBlock),
                K::StorageImage | K::StorageTexelBuffer => Some(GlClass::ImageUnit),
                K::Sampler => None,
                K::CombinedImageSampler
                | K::SampledImage
                | K::UniformTexelBuffer
                | K::AccelerationStructure
                | K::InputAttachment => Some(GlClass::TextureUnit),
            };
            let gl = gl_class.map(|class| {
                let i = class as usize;
                gl_next[i] += 1;
                GlSlot {
                    class,
                    binding: gl_next[i] - 1,
                }
            });
            bindings.push(TargetBinding {
                name,
                part,
                set,
                binding,
                kind,
                writable,
                hlsl: HlslRegister {
                    class: hlsl_class,
                    register,
                    space: set,
                },
                msl,
                gl,
                sampler_state,
            });
        }
        let buffers = msl_next[MslClass::Buffer as usize];
        let push_constants = push_constant_size.map(|size| PushConstantTargets {
            hlsl: HlslRegister {
                class: 'b',
                register: 0,
                space: PUSH_CONSTANT_SPACE,
            },
            msl_buffer: buffers,
            gl_uniform: GL_PUSH_CONSTANT_UNIFORM,
            size,
        });
        let msl_sizes_buffer = sizes_needed.then_some(buffers + 1);
        TargetMap {
            bindings,
            push_constants,
            msl_sizes_buffer,
            msl_vertex_buffer_base: buffers + 2,
        }
    }
}
