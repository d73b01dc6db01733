//! Descriptor-bound resources: what each kind is, how it is declared in GLSL, which descriptor it becomes, and the
//! std140/std430 block of a buffer, and what is wrong with one. Everything that depends on a resource's kind lives
//! here, so a new kind is one enum variant and the matches below, plus its builder method on
//! [`crate::ShaderCreateInfo`] (a new *descriptor* kind is also one line in each backend's map).

use crate::diagnostic::Code;
use crate::layout::{
    BlockLayout, Field, FieldArray, FieldType, LayoutError, Rules, StructLookup, layout_fields,
};
use crate::sampler_state::SamplerState;
use crate::types::{Frequency, ImageType, Qualifier, TextureFormat, Type};
use serde::Serialize;

/// The kind of a bound resource and what it needs.
#[derive(Clone, Debug, PartialEq)]
pub enum ResourceKind {
    /// A combined image sampler, with the sampler state the declaration fixes (an immutable sampler), if any.
    Sampler {
        image_type: ImageType,
        state: Option<SamplerState>,
    },
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
    /// A color attachment read at the fragment's own pixel (`subpassInput`): a subpass input in
    /// [`crate::SubpassMode::LocalRead`]. `index` is the attachment's location; `image_type` is `Float2D`, `Int2D`
    /// or `Uint2D`. Never declared directly: [`crate::ValidatedInfo::with_subpass_mode`] makes it.
    InputAttachment { index: u32, image_type: ImageType },
}

impl ResourceKind {
    /// Position of the kind in the generated source: samplers, images, uniform buffers, storage buffers,
    /// acceleration structures (DESIGN.md's resource order).
    pub fn order(&self) -> u8 {
        match self {
            ResourceKind::Sampler { .. } | ResourceKind::InputAttachment { .. } => 0,
            ResourceKind::Image { .. } => 1,
            ResourceKind::UniformBuffer { .. } => 2,
            ResourceKind::StorageBuffer { .. } => 3,
            ResourceKind::AccelerationStructure => 4,
        }
    }

    /// The sampler state the declaration fixes (`sampler_with_state`): the backends make it an immutable sampler
    /// (Vulkan) or a sampler of their own (wgpu), and the host binds a texture alone.
    pub fn fixed_sampler(&self) -> Option<&crate::SamplerState> {
        match self {
            ResourceKind::Sampler { state, .. } => state.as_ref(),
            ResourceKind::Image { .. }
            | ResourceKind::UniformBuffer { .. }
            | ResourceKind::StorageBuffer { .. }
            | ResourceKind::AccelerationStructure
            | ResourceKind::InputAttachment { .. } => None,
        }
    }

    /// True for storage buffers and images the shader may write.
    pub fn writable(&self) -> bool {
        match self {
            ResourceKind::Image { qualifier, .. }
            | ResourceKind::StorageBuffer { qualifier, .. } => *qualifier != Qualifier::Read,
            ResourceKind::Sampler { .. }
            | ResourceKind::UniformBuffer { .. }
            | ResourceKind::AccelerationStructure
            | ResourceKind::InputAttachment { .. } => false,
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
            ResourceKind::InputAttachment { .. } => "subpass_in",
        }
    }
}

/// A descriptor-bound resource: sampler, image, uniform buffer or storage buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct Resource {
    /// The slot as declared: the binding inside the frequency's set, or, in an info that declares
    /// [`SlotSpace::PerKind`], the slot among the resources of its kind.
    pub slot: u32,
    /// The Vulkan binding inside the set. Equal to `slot` until resolution, which derives it from the info's
    /// [`SlotSpace`]; everything that binds (generated GLSL, layouts, binding maps) reads this.
    pub binding: u32,
    pub frequency: Frequency,
    /// The declared name, which may carry `[N]` or `[]`; see [`Resource::split_name`].
    pub name: String,
    pub kind: ResourceKind,
}

/// How an info numbers its resources' slots.
///
/// Vulkan has one binding space per descriptor set. Blender's create infos keep one per *kind* (sampler 0 and
/// storage buffer 0 side by side); [`SlotSpace::PerKind`] accepts such declarations and derives distinct bindings:
/// in each set, uniform buffers come first, then storage buffers, samplers, images and acceleration structures,
/// each kind starting after the highest slot of the kinds before it. The bindings depend only on the resolved
/// info, so every variant of it binds alike.
///
/// ```
/// use shader_info::*;
/// let info = ShaderCreateInfo::new("per_kind")
///     .slots_per_kind()
///     .sampler(0, ImageType::Float2D, "albedo", Frequency::Pass)
///     .sampler(1, ImageType::Float2D, "normals", Frequency::Pass)
///     .uniform_buf(0, "vec4", "tint", Frequency::Pass);
/// let mut r = Registry::new();
/// r.add_info(info);
/// let resolved = r.resolve("per_kind").unwrap();
/// let binding = |n: &str| resolved.resources.iter().find(|x| x.value.name == n).unwrap().value.binding;
/// assert_eq!((binding("tint"), binding("albedo"), binding("normals")), (0, 1, 2));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, Serialize)]
pub enum SlotSpace {
    /// One binding space per set, shared by every kind (Vulkan's own rule): the slot is the binding.
    #[default]
    PerSet,
    /// One slot space per kind in each set; bindings are derived.
    PerKind,
}

impl ResourceKind {
    /// Position of the kind in a [`SlotSpace::PerKind`] set's bindings.
    fn binding_rank(&self) -> u8 {
        match self {
            ResourceKind::UniformBuffer { .. } => 0,
            ResourceKind::StorageBuffer { .. } => 1,
            ResourceKind::Sampler { .. } | ResourceKind::InputAttachment { .. } => 2,
            ResourceKind::Image { .. } => 3,
            ResourceKind::AccelerationStructure => 4,
        }
    }
}

/// Derives every resource's binding from its slot under `space` (see [`SlotSpace`]). Under `PerKind` a slot too
/// large to be offset keeps an out-of-range binding for validation to report.
pub(crate) fn derive_bindings(resources: &mut [&mut Resource], space: SlotSpace) {
    if space == SlotSpace::PerSet {
        resources.iter_mut().for_each(|r| r.binding = r.slot);
        return;
    }
    let mut sets: Vec<u32> = resources.iter().map(|r| r.set()).collect();
    sets.sort_unstable();
    sets.dedup();
    for set in sets {
        let mut base = 0u32;
        for rank in 0..=4u8 {
            let of_kind = |r: &Resource| r.set() == set && r.kind.binding_rank() == rank;
            let Some(highest) = resources
                .iter()
                .filter(|r| of_kind(r))
                .map(|r| r.slot)
                .max()
            else {
                continue;
            };
            for r in resources.iter_mut().filter(|r| of_kind(r)) {
                r.binding = base.saturating_add(r.slot);
            }
            base = base.saturating_add(highest).saturating_add(1);
        }
    }
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

/// [`split_array_name`] for a shared variable, which may be an array of arrays (`tile[8][8]`, as GLSL writes
/// work-group tiles): the base and the element count of all dimensions.
///
/// ```
/// use shader_info::{ArraySize, split_shared_name};
/// assert_eq!(split_shared_name("tile[8][4]"), Ok(("tile", ArraySize::Fixed(32))));
/// assert_eq!(split_shared_name("sum[64]"), Ok(("sum", ArraySize::Fixed(64))));
/// assert!(split_shared_name("tile[8][0]").is_err());
/// assert!(split_shared_name("tile[8]x[4]").is_err());
/// ```
pub fn split_shared_name(name: &str) -> Result<(&str, ArraySize), String> {
    let Some(open) = name.find('[') else {
        return Ok((name, ArraySize::Single));
    };
    let (base, rest) = name.split_at(open);
    if rest.matches('[').count() < 2 {
        return split_array_name(name);
    }
    let mut count: u32 = 1;
    for segment in rest.split_inclusive(']') {
        // `tile[8]x[4]`: each dimension follows the last one's `]` (the text is written into GLSL as it is).
        if !segment.trim_start().starts_with('[') {
            return Err(format!(
                "`{name}`: `{}` stands between its dimensions; write them one after another (`{base}[8][4]`)",
                segment.trim_end_matches(']')
            ));
        }
        let (_, size) =
            split_array_name(&format!("{base}{segment}")).map_err(|e| format!("`{name}`: {e}"))?;
        let ArraySize::Fixed(n) = size else {
            return Err(format!(
                "`{name}`: every dimension of an array of arrays needs a size"
            ));
        };
        count = count
            .checked_mul(n)
            .ok_or_else(|| format!("`{name}` has more than 2^32 elements"))?;
    }
    Ok((base, ArraySize::Fixed(count)))
}

/// The kind of descriptor a resource becomes: the backend-neutral fact every backend maps to its own type.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum DescriptorKind {
    /// A texture and sampler in one descriptor (Vulkan GLSL `sampler2D`).
    CombinedImageSampler,
    /// A texture without a sampler (`texture2D`): the portable form of a sampler's image.
    SampledImage,
    /// A sampler without a texture (`sampler`, `samplerShadow`): the portable form of a sampler's filter state.
    Sampler,
    StorageImage,
    UniformTexelBuffer,
    StorageTexelBuffer,
    UniformBuffer,
    StorageBuffer,
    AccelerationStructure,
    /// A color attachment read at the fragment's pixel (`subpassInput`, dynamic-rendering local read).
    InputAttachment,
}

impl DescriptorKind {
    /// The descriptor a declared resource becomes in Vulkan GLSL.
    pub fn of(kind: &ResourceKind) -> DescriptorKind {
        match kind {
            ResourceKind::Sampler { image_type, .. } if image_type.is_buffer() => {
                DescriptorKind::UniformTexelBuffer
            }
            ResourceKind::Sampler { .. } => DescriptorKind::CombinedImageSampler,
            ResourceKind::Image { image_type, .. } if image_type.is_buffer() => {
                DescriptorKind::StorageTexelBuffer
            }
            ResourceKind::Image { .. } => DescriptorKind::StorageImage,
            ResourceKind::UniformBuffer { .. } => DescriptorKind::UniformBuffer,
            ResourceKind::StorageBuffer { .. } => DescriptorKind::StorageBuffer,
            ResourceKind::AccelerationStructure => DescriptorKind::AccelerationStructure,
            ResourceKind::InputAttachment { .. } => DescriptorKind::InputAttachment,
        }
    }
}

impl Resource {
    /// The GLSL declaration (Vulkan GLSL, `layout(set, binding)`).
    pub fn glsl_declaration(&self) -> String {
        let (set, binding) = (self.set(), self.binding);
        let (base, size) = self.split_name().unwrap_or((&self.name, ArraySize::Single));
        let suffix = match size {
            ArraySize::Single => String::new(),
            ArraySize::Fixed(n) => format!("[{n}]"),
            ArraySize::Runtime => "[]".to_string(),
        };
        match &self.kind {
            ResourceKind::Sampler { image_type, .. } => format!(
                "layout(set = {set}, binding = {binding}) uniform {} {base}{suffix};",
                image_type.sampler_glsl().unwrap_or("sampler2D")
            ),
            ResourceKind::Image {
                format,
                qualifier,
                image_type,
            } => format!(
                "layout(set = {set}, binding = {binding}, {}) uniform {}{} {base}{suffix};",
                format.glsl_name(),
                qualifier.glsl_prefix(),
                image_type.image_glsl().unwrap_or("image2D")
            ),
            ResourceKind::UniformBuffer { type_name } => format!(
                "layout(std140, set = {set}, binding = {binding}) uniform _{base} {{\n  {type_name} {base}{suffix};\n}};"
            ),
            ResourceKind::StorageBuffer {
                qualifier,
                type_name,
            } => format!(
                "layout(std430, set = {set}, binding = {binding}) {}buffer _{base} {{\n  {type_name} {base}{suffix};\n}};",
                qualifier.glsl_prefix()
            ),
            ResourceKind::AccelerationStructure => format!(
                "layout(set = {set}, binding = {binding}) uniform accelerationStructureEXT {base}{suffix};"
            ),
            ResourceKind::InputAttachment { index, image_type } => format!(
                "layout(input_attachment_index = {index}, set = {set}, binding = {binding}) uniform {}subpassInput {base};",
                image_type.glsl_prefix()
            ),
        }
    }

    /// The declaration in the portable flavor (see [`crate::Flavor::Portable`]): a combined sampler becomes a
    /// texture at its own binding and a sampler at [`Resource::portable_sampler_binding`], and a define makes
    /// `name` the combined sampler again for user code. Everything else is declared as in Vulkan GLSL. `all` is every
    /// resource of the info.
    pub fn portable_glsl_declaration(&self, all: &[&Resource]) -> String {
        let (ResourceKind::Sampler { image_type, .. }, Some(sampler_binding)) =
            (&self.kind, self.portable_sampler_binding(all))
        else {
            return self.glsl_declaration();
        };
        let set = self.set();
        let name = &self.name;
        let texture = Resource::portable_texture_name(name);
        let sampler_name = Resource::portable_sampler_name(name);
        let sampler = if image_type.is_shadow() {
            "samplerShadow"
        } else {
            "sampler"
        };
        format!(
            "layout(set = {set}, binding = {}) uniform {} {texture};\n\
             layout(set = {set}, binding = {sampler_binding}) uniform {sampler} {sampler_name};\n\
             #define {name} {}({texture}, {sampler_name})",
            self.binding,
            image_type.texture_glsl(),
            image_type.sampler_glsl().unwrap_or("sampler2D"),
        )
    }

    /// Whether the portable form declares this as a texture `<name>_texture`, a sampler `<name>_sampler` and the
    /// macro `<name>` combining them: a single combined sampler of an image (texel buffers have no sampler, arrays
    /// are not portable).
    pub(crate) fn splits_in_portable(&self) -> bool {
        matches!(&self.kind, ResourceKind::Sampler { image_type, .. } if !image_type.is_buffer())
            && self
                .split_name()
                .is_ok_and(|(_, size)| size == ArraySize::Single)
    }

    /// The name of the texture half of combined sampler `name` in the portable form.
    pub(crate) fn portable_texture_name(name: &str) -> String {
        format!("{name}_texture")
    }

    /// The name of the sampler half of combined sampler `name` in the portable form.
    pub(crate) fn portable_sampler_name(name: &str) -> String {
        format!("{name}_sampler")
    }

    /// The binding of the sampler half of a combined sampler in the portable form, among `all` the resources of its
    /// info: after the highest binding any resource of its set uses, in the order of the samplers' own bindings (so
    /// it never collides with a declared binding). `None` for other kinds, and for what stays combined: texel
    /// buffers (no sampler) and arrays (not portable).
    ///
    /// ```
    /// use shader_info::*;
    /// let info = ShaderCreateInfo::new("x")
    ///     .sampler(0, ImageType::Float2D, "albedo", Frequency::Batch)
    ///     .sampler(2, ImageType::Float2D, "normal", Frequency::Batch)
    ///     .uniform_buf(5, "vec4", "tint", Frequency::Batch);
    /// let all: Vec<&Resource> = info.resources.iter().map(|r| &r.value).collect();
    /// assert_eq!(all[0].portable_sampler_binding(&all), Some(6));
    /// assert_eq!(all[1].portable_sampler_binding(&all), Some(7));
    /// assert_eq!(all[2].portable_sampler_binding(&all), None);
    /// ```
    pub fn portable_sampler_binding(&self, all: &[&Resource]) -> Option<u32> {
        if !self.splits_in_portable() {
            return None;
        }
        let in_set = || all.iter().filter(|r| r.frequency == self.frequency);
        let highest = in_set().map(|r| r.binding).max()?;
        let index = in_set()
            .filter(|r| r.splits_in_portable() && r.binding < self.binding)
            .count() as u32;
        highest.checked_add(1)?.checked_add(index)
    }

    /// True for storage buffers and images the shader may write.
    pub fn writable(&self) -> bool {
        self.kind.writable()
    }

    /// The descriptor kind.
    pub fn descriptor_kind(&self) -> DescriptorKind {
        DescriptorKind::of(&self.kind)
    }

    /// The block layout rules of a buffer: std140 for uniform buffers, std430 for storage buffers.
    pub fn block_rules(&self) -> Option<Rules> {
        match self.kind {
            ResourceKind::UniformBuffer { .. } => Some(Rules::Std140),
            ResourceKind::StorageBuffer { .. } => Some(Rules::Std430),
            ResourceKind::Sampler { .. }
            | ResourceKind::Image { .. }
            | ResourceKind::AccelerationStructure
            | ResourceKind::InputAttachment { .. } => None,
        }
    }

    /// The one member of a buffer's block (`type_name base[N]`), when the resource is a buffer whose type is a
    /// GLSL type or a struct `structs` knows (structs declared in typedef files are the compiler's to check).
    pub fn block_field(&self, structs: &dyn StructLookup) -> Option<Field> {
        let (ResourceKind::UniformBuffer { type_name }
        | ResourceKind::StorageBuffer { type_name, .. }) = &self.kind
        else {
            return None;
        };
        let ty = match Type::from_glsl_name(type_name) {
            Some(t) => FieldType::Value(t),
            None if structs.find_struct(type_name).is_some() => {
                FieldType::Struct(type_name.clone())
            }
            // A shared enum is `#define <name> uint` in the generated text.
            None if structs.is_enum(type_name) => FieldType::Value(Type::Uint),
            None => return None,
        };
        let (base, size) = self.split_name().ok()?;
        let array = match size {
            ArraySize::Single => FieldArray::None,
            ArraySize::Fixed(n) => FieldArray::Fixed(n),
            ArraySize::Runtime => FieldArray::Runtime,
        };
        Some(Field {
            name: base.to_string(),
            ty,
            array,
        })
    }

    /// The std140/std430 layout of a buffer's block; `None` for other kinds and for types the registry does not
    /// hold.
    pub fn block_layout(
        &self,
        structs: &dyn StructLookup,
    ) -> Option<Result<BlockLayout, LayoutError>> {
        let field = self.block_field(structs)?;
        let rules = self.block_rules()?;
        Some(layout_fields(&[field], rules, structs, &mut Vec::new()))
    }

    /// What is wrong with the resource for its kind, as `(code, message, hint)`: a storage image's format against
    /// its image type, a buffer's type (`known` says which names are types) and its block layout.
    pub fn kind_problems(
        &self,
        known: &dyn Fn(&str) -> bool,
        structs: &dyn StructLookup,
    ) -> Vec<(Code, String, String)> {
        let mut out = Vec::new();
        match &self.kind {
            ResourceKind::Sampler { image_type, state } => {
                for (message, hint) in state.iter().flat_map(|s| s.problems(*image_type)) {
                    out.push((
                        Code::InvalidImage,
                        format!("sampler state: {message}"),
                        hint,
                    ));
                }
            }
            ResourceKind::AccelerationStructure | ResourceKind::InputAttachment { .. } => {}
            ResourceKind::Image {
                format, image_type, ..
            } => {
                if image_type.image_glsl().is_none() {
                    out.push((
                        Code::InvalidImage,
                        format!(
                            "{image_type:?} is a depth/shadow type, which storage images cannot be"
                        ),
                        "use a float image type, or declare a sampler".into(),
                    ));
                } else if image_type.is_atomic()
                    && !matches!(format, TextureFormat::R32ui | TextureFormat::R32i)
                {
                    out.push((
                        Code::InvalidImage,
                        format!(
                            "{image_type:?} is an atomic image, but its format is `{}`; image atomics work on 32-bit integer texels",
                            format.glsl_name()
                        ),
                        "declare it with TextureFormat::R32ui (AtomicUint*) or TextureFormat::R32i (AtomicInt*)"
                            .into(),
                    ));
                } else if format.component_kind() != image_type.component_kind() {
                    out.push((
                        Code::InvalidImage,
                        format!(
                            "format `{}` holds {} components but {image_type:?} is a {} image",
                            format.glsl_name(),
                            kind_word(format.component_kind()),
                            kind_word(image_type.component_kind())
                        ),
                        "match the image type to the format (e.g. `r32ui` with a `Uint*` type)"
                            .into(),
                    ));
                }
            }
            ResourceKind::UniformBuffer { type_name }
            | ResourceKind::StorageBuffer { type_name, .. } => {
                if let Some(open) = type_name.find('[')
                    && known(type_name[..open].trim())
                {
                    // A C-style array type (`vec4[4]`): the size belongs to the name in this DSL.
                    let (base, _) = self.split_name().unwrap_or((&self.name, ArraySize::Single));
                    out.push((
                        Code::UnknownType,
                        format!("buffer type `{type_name}` carries an array size; the size belongs to the name"),
                        format!(
                            "write the type `{}` and the name `{base}{}`",
                            type_name[..open].trim(),
                            &type_name[open..]
                        ),
                    ));
                } else if !known(type_name) {
                    out.push((
                        Code::UnknownType,
                        format!("buffer type `{type_name}` is neither a GLSL type nor a known shared struct"),
                        "derive `ShaderStruct` for it (and link its crate), declare it in a typedef source, or fix the spelling".into(),
                    ));
                } else if let Some(Err(e)) = self.block_layout(structs) {
                    out.push((
                        Code::Layout,
                        format!("the layout of `{type_name}` cannot be computed: {e}"),
                        "fix the struct named above (recursion, array sizes, a runtime array that is not last)".into(),
                    ));
                }
            }
        }
        out
    }
}

fn kind_word(k: char) -> &'static str {
    match k {
        'u' => "unsigned integer",
        'i' => "signed integer",
        _ => "float",
    }
}
