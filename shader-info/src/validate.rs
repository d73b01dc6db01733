//! Validation of a resolved info: every problem at once, as typed diagnostics; and [`ValidatedInfo`], the proof
//! that an info passed it, which is what generation and the pipeline plan take.

use crate::diagnostic::{Code, Diagnostic};
use crate::info::*;
use crate::interfaces::{interface_lists, stage_blocks};
use crate::layout::StructLookup;
use crate::origin::Origin;
use crate::registry::Registry;
use crate::resolve::ResolvedInfo;
use crate::resource::{ArraySize, Resource, ResourceKind, SlotSpace, split_array_name};
use crate::rust_twin::rust_twin_problems_of;
use crate::types::*;
use crate::variants::VariantSet;
use std::collections::HashMap;
use std::ops::Deref;

/// Vulkan's guaranteed minimum for `maxPushConstantsSize`.
pub const MAX_PUSH_CONSTANT_BYTES: u32 = 128;

/// The largest push-constant block that is spilled (see [`crate::PushConstantSpill`]); a larger one belongs in a
/// declared `storage_buf`. 64 KiB: far past any real block, and within every device's storage-buffer range.
pub const MAX_SPILLED_PUSH_CONSTANT_BYTES: u32 = 65536;
/// Vulkan's guaranteed minimum for `maxVertexInputAttributes`.
pub const MAX_VERTEX_ATTRIBUTES: u32 = 16;
/// Color attachments a fragment stage may write: 8, what desktop GPUs and lavapipe support (the Vulkan
/// specification guarantees only 4; a renderer targeting such a device keeps to locations 0..3).
pub const MAX_FRAGMENT_OUTPUTS: u32 = 8;

/// What validation needs besides the info.
pub struct ValidateOptions<'a> {
    /// Shared structs (buffer types, their Rust twins).
    pub registry: &'a Registry,
    /// Struct names declared in typedef source files (which the core does not parse).
    pub extra_type_names: &'a [String],
    /// Check that the info is complete enough to compile (on for compilable infos).
    pub require_complete: bool,
}

/// Why `name` is not a usable GLSL identifier, if it is not.
///
/// ```
/// use shader_info::identifier_problem;
/// assert!(identifier_problem("color").is_none());
/// assert!(identifier_problem("gl_Color").unwrap().contains("gl_"));
/// assert!(identifier_problem("a__b").unwrap().contains("__"));
/// assert!(identifier_problem("float").unwrap().contains("keyword"));
/// assert!(identifier_problem("2d").is_some());
/// ```
pub fn identifier_problem(name: &str) -> Option<String> {
    crate::glsl_names::identifier_problem(name)
}

struct Checker<'a> {
    info: &'a ResolvedInfo,
    opts: &'a ValidateOptions<'a>,
    diags: Vec<Diagnostic>,
}

impl Checker<'_> {
    fn err<T>(
        &mut self,
        code: Code,
        item: String,
        it: &Item<T>,
        message: String,
        hint: impl Into<String>,
    ) {
        self.diags.push(
            Diagnostic::error(code, &self.info.name, message)
                .item(item)
                .at(&it.declared_in, it.origin)
                .hint(hint),
        );
    }

    fn ident<T>(&mut self, what: &str, name: &str, it: &Item<T>) {
        if let Some(p) = identifier_problem(name) {
            self.err(
                Code::InvalidIdentifier,
                format!("{what} `{name}`"),
                it,
                p,
                "rename it to a plain GLSL identifier",
            );
        }
    }

    fn known_type(&self, name: &str) -> bool {
        Type::from_glsl_name(name).is_some()
            || self.opts.registry.find_struct(name).is_some()
            || self.opts.extra_type_names.iter().any(|n| n == name)
    }
}

/// Checks a resolved info and returns every problem found (empty when valid).
///
/// ```
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(
///     ShaderCreateInfo::new("bad")
///         .sampler(0, ImageType::Float2D, "a", Frequency::Pass)
///         .sampler(0, ImageType::Float2D, "b", Frequency::Pass),
/// );
/// let info = reg.resolve("bad").unwrap();
/// let opts = ValidateOptions { registry: &reg, extra_type_names: &[], require_complete: false };
/// let diags = validate(&info, &opts);
/// assert_eq!(diags[0].code, Code::BindingCollision);
/// ```
pub fn validate(info: &ResolvedInfo, opts: &ValidateOptions) -> Vec<Diagnostic> {
    let mut c = Checker {
        info,
        opts,
        diags: Vec::new(),
    };
    check_resources(&mut c);
    check_vertex_inputs(&mut c);
    check_fragment_outputs(&mut c);
    check_interfaces(&mut c);
    check_push_constants(&mut c);
    check_constants_and_defines(&mut c);
    check_names(&mut c);
    check_stages(&mut c);
    check_branches(&mut c);
    check_builtins(&mut c);
    check_conditions(&mut c);
    check_entry_points(&mut c);
    check_subpass_inputs(&mut c);
    check_hostile(&mut c);
    check_limits(&mut c);
    c.diags.extend(crate::render_state::problems(info));
    c.diags.extend(rust_twin_problems_of(opts.registry, info));
    c.diags
}

/// An info that passed validation (no errors; its warnings kept): the only thing [`crate::generate`] and the
/// pipeline plan accept, so nothing downstream can be handed an unchecked declaration.
///
/// ```
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("ok").push_constant(Type::Vec4, "color"));
/// let opts = ValidateOptions { registry: &reg, extra_type_names: &[], require_complete: false };
/// let info = ValidatedInfo::new(reg.resolve("ok").unwrap(), &opts).unwrap();
/// assert_eq!(info.key(), "ok");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ValidatedInfo {
    info: ResolvedInfo,
    warnings: Vec<Diagnostic>,
    /// `(index, description)` of the unique variant this is, for infos with static branches.
    variant: Option<(usize, String)>,
}

impl ValidatedInfo {
    /// Validates `info`: every error at once, or the validated info with its warnings.
    pub fn new(
        info: ResolvedInfo,
        opts: &ValidateOptions,
    ) -> Result<ValidatedInfo, Vec<Diagnostic>> {
        let (errors, warnings): (Vec<Diagnostic>, Vec<Diagnostic>) = validate(&info, opts)
            .into_iter()
            .partition(|d| d.is_error());
        if errors.is_empty() {
            Ok(ValidatedInfo {
                info,
                warnings,
                variant: None,
            })
        } else {
            Err(errors)
        }
    }

    /// This info with builtins found in its compiled modules added to those it declares (Blender ORs in the
    /// builtins its sources use). Only builtins that change nothing in the generated text may be found this way;
    /// the caller (`gpu::flow::Flow`) checks that.
    pub fn with_found_builtins(&self, found: crate::types::BuiltinBits) -> ValidatedInfo {
        ValidatedInfo {
            info: self.info.with_changes(|i| i.builtins |= found),
            warnings: self.warnings.clone(),
            variant: self.variant.clone(),
        }
    }

    /// Unique variant `index` of `set` (this info's variants), applied and validated again: the specialize function
    /// may have swapped sources or added defines. Every diagnostic names the variant.
    pub fn variant(
        &self,
        set: &VariantSet,
        index: usize,
        registry: &Registry,
    ) -> Result<ValidatedInfo, Vec<Diagnostic>> {
        let Some(v) = set.variants.get(index) else {
            return Err(vec![
                Diagnostic::error(
                    Code::Branch,
                    &self.name,
                    format!(
                        "variant {index} does not exist; `{}` has {} unique variants",
                        self.name,
                        set.variants.len()
                    ),
                )
                .at(&self.name, self.origin),
            ]);
        };
        let label = format!("v{index} {}", set.describe(v.bits));
        let opts = ValidateOptions {
            registry,
            extra_type_names: &[],
            require_complete: true,
        };
        let mut out =
            ValidatedInfo::new(v.apply(&self.info, &set.branches), &opts).map_err(|d| {
                d.into_iter()
                    .map(|d| d.variant(label.clone()))
                    .collect::<Vec<_>>()
            })?;
        out.variant = Some((index, label));
        Ok(out)
    }

    /// The resolved declaration.
    pub fn resolved(&self) -> &ResolvedInfo {
        &self.info
    }

    /// The declaration, for a transformation that keeps it valid (see [`ValidatedInfo::with_subpass_mode`]).
    pub(crate) fn resolved_mut(&mut self) -> &mut ResolvedInfo {
        &mut self.info
    }

    /// Warnings validation found.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// The unique variant index, for a variant.
    pub fn variant_index(&self) -> Option<usize> {
        self.variant.as_ref().map(|(i, _)| *i)
    }

    /// `v3 {SKINNING, FOG}` for a variant.
    pub fn variant_label(&self) -> Option<&str> {
        self.variant.as_ref().map(|(_, l)| l.as_str())
    }

    /// What a renderer fetches this by: the info name, or `name#v<index>` for a variant.
    pub fn key(&self) -> String {
        match &self.variant {
            Some((i, _)) => format!("{}#v{i}", self.name),
            None => self.name.clone(),
        }
    }
}

impl Registry {
    /// Resolves and validates the named info for compiling it (its completeness checked too): the first two steps
    /// of the flow.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("half").vertex_source("a.vert"));
    /// let errors = reg.validated("half").unwrap_err();
    /// assert!(errors[0].message.contains("fragment source is missing"));
    /// ```
    pub fn validated(&self, name: &str) -> Result<ValidatedInfo, Vec<Diagnostic>> {
        let opts = ValidateOptions {
            registry: self,
            extra_type_names: &[],
            require_complete: true,
        };
        ValidatedInfo::new(self.resolve(name)?, &opts)
    }
}

impl Deref for ValidatedInfo {
    type Target = ResolvedInfo;
    fn deref(&self) -> &ResolvedInfo {
        &self.info
    }
}

fn check_branches(c: &mut Checker) {
    let info = c.info;
    for b in &info.branches {
        let name = b.value.as_str();
        c.ident("branch", name, b);
        let clash = info
            .defines
            .iter()
            .find(|d| d.value.macro_name() == name)
            .map(|d| ("define", d.declared_in.clone(), d.origin))
            .or_else(|| {
                info.resources
                    .iter()
                    .find(|r| {
                        r.value
                            .split_name()
                            .map(|(n, _)| n)
                            .unwrap_or(&r.value.name)
                            == name
                    })
                    .map(|r| (r.value.kind.word(), r.declared_in.clone(), r.origin))
            })
            .or_else(|| {
                info.specialization_constants
                    .iter()
                    .find(|k| k.value.name == name)
                    .map(|k| ("specialization_constant", k.declared_in.clone(), k.origin))
            })
            .or_else(|| {
                info.push_constants
                    .iter()
                    .find(|k| k.value.name == name)
                    .map(|k| ("push_constant", k.declared_in.clone(), k.origin))
            })
            .or_else(|| {
                info.vertex_inputs
                    .iter()
                    .find(|v| v.value.name == name)
                    .map(|v| ("vertex_in", v.declared_in.clone(), v.origin))
            })
            .or_else(|| {
                info.fragment_outputs
                    .iter()
                    .find(|f| f.value.name == name)
                    .map(|f| ("fragment_out", f.declared_in.clone(), f.origin))
            })
            .or_else(|| {
                interface_lists(info)
                    .into_iter()
                    .flat_map(|(_, list)| list)
                    .find(|i| {
                        i.value.name == name
                            || i.value.instance_name == name
                            || i.value.members.iter().any(|m| m.name == name)
                    })
                    .map(|i| {
                        (
                            "interface, its instance or a member",
                            i.declared_in.clone(),
                            i.origin,
                        )
                    })
            })
            .or_else(|| shared_type_clash(c, name));
        if let Some((what, decl, origin)) = clash {
            c.diags.push(
                Diagnostic::error(
                    Code::Branch,
                    &info.name,
                    format!("branch `{name}` (from `{}`) has the same name as a {what} (from `{decl}`)", b.declared_in),
                )
                .item(format!("branch `{name}`"))
                .at(&b.declared_in, b.origin)
                .related(format!("{what} `{name}` declared in `{decl}`"), origin)
                .hint(format!("a branch becomes `const bool {name}` in GLSL: rename the branch or the other item")),
            );
        }
    }
}

/// The shared type this info emits (a struct, an enum, or one of the enum's constants) that is named `name`: a
/// branch of that name would be a second global of the same name in GLSL.
fn shared_type_clash(c: &Checker, name: &str) -> Option<(&'static str, String, Origin)> {
    let info = c.info;
    let reg = c.opts.registry;
    let buffers = info.resources.iter().filter_map(|r| match &r.value.kind {
        ResourceKind::UniformBuffer { type_name }
        | ResourceKind::StorageBuffer { type_name, .. } => {
            Some((type_name.as_str(), r.declared_in.clone(), r.origin))
        }
        _ => None,
    });
    let typedefs = info
        .typedef_sources
        .iter()
        .map(|t| (t.value.as_str(), t.declared_in.clone(), t.origin));
    typedefs.chain(buffers).find_map(|(ty, decl, origin)| {
        if ty == name && (reg.enum_def(ty).is_some() || reg.find_struct(ty).is_some()) {
            return Some(("shared type", decl, origin));
        }
        reg.enum_def(ty)
            .filter(|e| e.values.iter().any(|(v, _)| v == name))
            .map(|_| ("value of a shared enum", decl, origin))
    })
}

fn check_resources(c: &mut Checker) {
    let info = c.info;
    let mut bindings: HashMap<(u32, u32), &Item<Resource>> = HashMap::new();
    for it in &info.resources {
        let r = &it.value;
        let base = match r.split_name() {
            Ok((base, size)) => {
                if size == ArraySize::Runtime
                    && !matches!(r.kind, ResourceKind::StorageBuffer { .. })
                {
                    c.err(
                        Code::InvalidArray,
                        format!("{} `{}`", r.kind.word(), r.name),
                        it,
                        format!(
                            "`{}` is a runtime-sized array, which only storage buffers can be",
                            r.name
                        ),
                        "give the array a size: `name[N]`",
                    );
                }
                Some(base.to_string())
            }
            Err(e) => {
                let (message, hint) = named_size_problem(info, &r.name)
                    .unwrap_or((e, "write `name`, `name[N]` or `name[]`".to_string()));
                c.err(
                    Code::InvalidArray,
                    format!("{} `{}`", r.kind.word(), r.name),
                    it,
                    message,
                    hint,
                );
                None
            }
        };
        if let Some(base) = base {
            c.ident(r.kind.word(), &base, it);
        }
        if let Some(first) = bindings.get(&(r.set(), r.binding)) {
            let f = &first.value;
            let per_kind = info
                .slot_space
                .as_ref()
                .is_some_and(|s| s.value == SlotSpace::PerKind);
            let (place, hint) = if per_kind {
                (
                    format!("{} slot {} of set {}", r.kind.word(), r.slot, r.set()),
                    format!(
                        "give one of them another slot; the info numbers slots per kind (`slots_per_kind`), so only resources of one kind share a slot space (frequency {:?} is set {})",
                        r.frequency,
                        r.set()
                    ),
                )
            } else {
                (
                    format!("set {} binding {}", r.set(), r.binding),
                    format!(
                        "give one of them another slot; frequency {:?} is set {}, and bindings are shared by every kind of resource in a set{}",
                        r.frequency,
                        r.set(),
                        if f.kind.word() == r.kind.word() {
                            ""
                        } else {
                            ". Infos written with one slot space per kind (as Blender's are) can say so with `.slots_per_kind()`, and bindings are derived"
                        }
                    ),
                )
            };
            c.diags.push(
                Diagnostic::error(
                    Code::BindingCollision,
                    &info.name,
                    format!(
                        "{} `{}` (from `{}`) and {} `{}` (from `{}`) both use {place}",
                        f.kind.word(),
                        f.name,
                        first.declared_in,
                        r.kind.word(),
                        r.name,
                        it.declared_in,
                    ),
                )
                .item(format!("{} `{}`", r.kind.word(), r.name))
                .at(&it.declared_in, it.origin)
                .related(
                    format!(
                        "{} `{}` declared in `{}`",
                        f.kind.word(),
                        f.name,
                        first.declared_in
                    ),
                    first.origin,
                )
                .hint(hint),
            );
        } else {
            bindings.insert((r.set(), r.binding), it);
        }
        let known = |name: &str| c.known_type(name);
        for (code, message, hint) in r.kind_problems(&known, c.opts.registry) {
            c.err(
                code,
                format!("{} `{}`", r.kind.word(), r.name),
                it,
                message,
                hint,
            );
        }
    }
}

fn check_vertex_inputs(c: &mut Checker) {
    let info = c.info;
    let mut used: Vec<(u64, u64, &Item<VertexInput>)> = Vec::new();
    for it in &info.vertex_inputs {
        let v = &it.value;
        c.ident("vertex_in", &v.name, it);
        if let Some(problem) = v.format.and_then(|f| f.problem_with(v.ty)) {
            c.err(
                Code::UnknownType,
                format!("vertex_in `{}`", v.name),
                it,
                format!("vertex input `{}` cannot be read from its packed format: {problem}", v.name),
                "pick the format by what the shader reads: Unorm/Snorm/Float16 for float inputs, Uint for uint, Sint for int",
            );
        }
        // In u64: a location near u32::MAX must not wrap into a small range.
        let end = u64::from(v.location) + u64::from(v.ty.locations());
        if v.ty.scalar() == Scalar::Bool {
            c.err(
                Code::UnknownType,
                format!("vertex_in `{}`", v.name),
                it,
                format!(
                    "vertex input `{}` is a `{}`; GLSL does not allow boolean vertex inputs",
                    v.name, v.ty
                ),
                "use `uint` or `int` and compare with 0",
            );
        }
        if end > u64::from(MAX_VERTEX_ATTRIBUTES) {
            c.err(
                Code::VertexInputOutOfRange,
                format!("vertex_in `{}`", v.name),
                it,
                format!(
                    "vertex input `{}` ({}) uses locations {}..={}, past the {} Vulkan guarantees",
                    v.name,
                    v.ty,
                    v.location,
                    end - 1,
                    MAX_VERTEX_ATTRIBUTES
                ),
                format!("use locations 0..={}", MAX_VERTEX_ATTRIBUTES - 1),
            );
        }
        for (s, e, other) in &used {
            if u64::from(v.location) < *e && *s < end {
                c.err(
                    Code::VertexInputOverlap,
                    format!("vertex_in `{}`", v.name),
                    it,
                    format!(
                        "vertex input `{}` (locations {}..={}) overlaps `{}` (locations {}..={})",
                        v.name,
                        v.location,
                        end - 1,
                        other.value.name,
                        s,
                        e - 1
                    ),
                    "a matrix takes one location per column: move the later input past the earlier one",
                );
                break;
            }
        }
        used.push((u64::from(v.location), end, it));
    }
}

fn check_fragment_outputs(c: &mut Checker) {
    let info = c.info;
    let mut seen: HashMap<(u32, u32), &Item<FragmentOutput>> = HashMap::new();
    for it in &info.fragment_outputs {
        let f = &it.value;
        c.ident("fragment_out", &f.name, it);
        let index = u32::from(f.blend == DualBlend::Src1);
        if let Some(first) = seen.get(&(f.location, index)) {
            let other = first.value.name.clone();
            c.err(
                Code::FragmentOutputCollision,
                format!("fragment_out `{}`", f.name),
                it,
                format!("fragment outputs `{other}` and `{}` both use location {}", f.name, f.location),
                "give each output its own location (dual-source blending uses DualBlend::Src0/Src1 at location 0)",
            );
        } else {
            seen.insert((f.location, index), it);
        }
        if f.blend != DualBlend::None && f.location != 0 {
            c.err(
                Code::FragmentOutputCollision,
                format!("fragment_out `{}`", f.name),
                it,
                format!("dual-source output `{}` is at location {}; dual-source blending uses location 0", f.name, f.location),
                "move it to location 0",
            );
        }
        if f.location >= MAX_FRAGMENT_OUTPUTS {
            c.err(
                Code::FragmentOutputCollision,
                format!("fragment_out `{}`", f.name),
                it,
                format!(
                    "fragment output `{}` is at location {}, past {MAX_FRAGMENT_OUTPUTS} color attachments",
                    f.name, f.location
                ),
                format!("use locations 0..={}", MAX_FRAGMENT_OUTPUTS - 1),
            );
        }
        if f.ty.scalar() == Scalar::Bool || f.ty.is_matrix() || f.ty.is_double() {
            c.err(
                Code::UnknownType,
                format!("fragment_out `{}`", f.name),
                it,
                format!("fragment output `{}` is a `{}`; color attachments hold float, int or uint vectors", f.name, f.ty),
                "use a float, int or uint scalar or vector",
            );
        }
    }
}

fn check_interfaces(c: &mut Checker) {
    let info = c.info;
    // Vulkan asks `flat` of integer and double inputs of the fragment stage only: a smooth `int` from the vertex
    // to the geometry stage is valid (glslang compiles it), so only the blocks the fragment stage reads count.
    let fragment_reads: Vec<*const Item<StageInterfaceInfo>> = stage_blocks(info, Stage::Fragment)
        .iter()
        .map(|b| b.item as *const _)
        .collect();
    for (dir, list) in interface_lists(info) {
        for it in list.iter() {
            let read_by_fragment = fragment_reads.contains(&(it as *const _));
            let iface = &it.value;
            c.ident("interface", &iface.name, it);
            if iface.members.is_empty() {
                c.err(
                    Code::IncompleteInfo,
                    format!("{dir} `{}`", iface.name),
                    it,
                    format!("interface `{}` has no members: GLSL has no empty blocks", iface.name),
                    "add a member (`.smooth(…)`, `.flat(…)`, `.no_perspective(…)`) or remove the interface",
                );
            }
            if !iface.instance_name.is_empty() {
                c.ident("interface instance", &iface.instance_name, it);
            }
            for m in &iface.members {
                let item = Item {
                    value: (),
                    declared_in: iface.name.clone(),
                    origin: m.origin,
                };
                c.ident("interface member", &m.name, &item);
                if read_by_fragment
                    && (m.ty.is_integer() || m.ty.is_double())
                    && m.interpolation != Interpolation::Flat
                {
                    c.diags.push(
                        Diagnostic::error(
                            Code::InterpolationNotFlat,
                            &info.name,
                            format!(
                                "{dir} member `{}` of `{}` is a `{}` with {} interpolation; Vulkan requires integer and double inputs of the fragment stage to be `flat` (spec 15.1.5 / 8.11)",
                                m.name,
                                iface.name,
                                m.ty,
                                m.interpolation.glsl_name()
                            ),
                        )
                        .item(format!("interface member `{}.{}`", iface.name, m.name))
                        .at(&it.declared_in, m.origin)
                        .hint(format!("declare it with `.flat(Type::{:?}, \"{}\")`", m.ty, m.name)),
                    );
                }
                if m.ty.scalar() == Scalar::Bool {
                    c.diags.push(
                        Diagnostic::error(
                            Code::UnknownType,
                            &info.name,
                            format!("interface member `{}` is a `{}`; GLSL does not allow boolean stage inputs", m.name, m.ty),
                        )
                        .item(format!("interface member `{}.{}`", iface.name, m.name))
                        .at(&it.declared_in, m.origin)
                        .hint("use a flat `uint`"),
                    );
                }
            }
        }
    }
}

fn check_push_constants(c: &mut Checker) {
    let info = c.info;
    if info.push_constants.is_empty() {
        return;
    }
    for it in &info.push_constants {
        c.ident("push_constant", &it.value.name, it);
        if it.value.array_size == Some(0) {
            c.err(
                Code::InvalidArray,
                format!("push_constant `{}`", it.value.name),
                it,
                format!("push constant `{}` has array size 0", it.value.name),
                "sizes must be at least 1",
            );
        }
    }
    let layout = match info.push_constant_layout() {
        None => return,
        Some(Ok(l)) => l,
        Some(Err(e)) => {
            let last = info.push_constants.last().expect("non-empty");
            c.err(
                Code::Layout,
                "push constants".to_string(),
                last,
                e.to_string(),
                "fix the member named above",
            );
            return;
        }
    };
    if layout.end > MAX_PUSH_CONSTANT_BYTES {
        let members: Vec<String> = layout
            .members
            .iter()
            .map(|m| format!("{} at {} ({} bytes)", m.name, m.offset, m.size))
            .collect();
        let last = info.push_constants.last().expect("non-empty");
        let message = |limit: &str| {
            format!(
                "the push-constant block is {} bytes in std430, over the {limit}: {}",
                layout.end,
                members.join(", ")
            )
        };
        if layout.end > MAX_SPILLED_PUSH_CONSTANT_BYTES {
            c.err(
                Code::PushConstantTooLarge,
                "push constants".to_string(),
                last,
                message(&format!(
                    "{MAX_SPILLED_PUSH_CONSTANT_BYTES} bytes a spilled block may hold"
                )),
                "move the larger members (matrices, arrays) into a uniform_buf or storage_buf",
            );
        } else {
            let spill = crate::plan::PushConstantSpill::PLACE;
            c.diags.push(
                Diagnostic::warning(Code::PushConstantTooLarge, &info.name, format!(
                    "{}; it is spilled to a read-only storage buffer with the same layout at set {} binding {}",
                    message(&format!("{MAX_PUSH_CONSTANT_BYTES} bytes Vulkan guarantees")),
                    spill.0,
                    spill.1
                ))
                .item("push constants")
                .at(&last.declared_in, last.origin)
                .hint("nothing to do: the backends' push calls write the buffer. To push for real, move the larger members into a uniform_buf"),
            );
        }
    }
}

fn check_constants_and_defines(c: &mut Checker) {
    let info = c.info;
    for it in &info.specialization_constants {
        let sc = &it.value;
        c.ident("specialization_constant", &sc.name, it);
        if !matches!(sc.ty, Type::Bool | Type::Int | Type::Uint | Type::Float) {
            c.err(
                Code::InvalidConstant,
                format!("specialization_constant `{}`", sc.name),
                it,
                format!("specialization constant `{}` is a `{}`; only bool, int, uint and float can be specialized", sc.name, sc.ty),
                "split it into scalar constants",
            );
        } else if sc.default.ty() != sc.ty {
            c.err(
                Code::InvalidConstant,
                format!("specialization_constant `{}`", sc.name),
                it,
                format!(
                    "specialization constant `{}` is a `{}` but its default {:?} is a `{}`",
                    sc.name,
                    sc.ty,
                    sc.default,
                    sc.default.ty()
                ),
                format!("give a `{}` default", sc.ty),
            );
        }
    }
    for it in &info.defines {
        // A function-like macro (`name(a, b)`) is a name and a parameter list; the body follows the value's rules.
        if let Some(p) = crate::glsl_names::define_name_problem(&it.value.name) {
            c.err(
                Code::InvalidIdentifier,
                format!("define `{}`", it.value.name),
                it,
                p,
                "name a define with a plain GLSL identifier, or `name(a, b)` for a function-like macro",
            );
        }
    }
    for it in &info.constants {
        c.ident("constant", &it.value.name, it);
        if let ConstValue::Float(f) = it.value.value
            && !f.is_finite()
        {
            c.err(
                Code::InvalidConstant,
                format!("constant `{}`", it.value.name),
                it,
                format!(
                    "constant `{}` is {f}, which GLSL cannot write",
                    it.value.name
                ),
                "give it a finite value",
            );
        }
    }
    if let Some(it) = &info.local_group_size
        && it.value.contains(&0)
    {
        c.err(
            Code::ZeroGroupSize,
            "local_group_size".to_string(),
            it,
            format!("local group size {:?} has a zero dimension", it.value),
            "every dimension must be at least 1",
        );
    }
}

/// What is wrong with an array size written as a name (`views[VIEW_COUNT]`) that resolution left unresolved.
fn named_size_problem(info: &ShaderCreateInfo, name: &str) -> Option<(String, String)> {
    let inner = name[name.find('[')? + 1..].trim_end_matches(']').trim();
    if !inner.starts_with(|ch: char| ch.is_ascii_alphabetic() || ch == '_') {
        return None;
    }
    Some(
        match info.constants.iter().find(|c| c.value.name == inner) {
            Some(c) => (
                format!(
                    "`{name}` is sized by constant `{inner}`, which is {}: an array size must be a positive integer",
                    c.value.value.glsl_literal()
                ),
                format!("give `{inner}` a positive integer value in Rust (a `u32`)"),
            ),
            None => (
                format!("`{name}` is sized by `{inner}`, which is no constant of this info"),
                format!(
                    "declare `const {inner}: u32 = …;` in Rust and add `.constant(constant!({inner}))` to this info \
                 or to one it includes"
                ),
            ),
        },
    )
}

fn check_names(c: &mut Checker) {
    let info = c.info;
    // Everything that becomes a global GLSL name in some stage.
    let mut names: Vec<(String, String, String, Origin)> = Vec::new();
    // First the names the generator writes whatever the user declared: the shared types this info emits (with
    // their enum constants) and the push-constant block, so that the declared item is the one reported.
    for (ty, origin) in check_shared_types(c) {
        let reg = c.opts.registry;
        if let Some(e) = reg.enum_def(&ty) {
            names.push((ty.clone(), "shared enum".into(), ty.clone(), origin));
            for (v, _) in &e.values {
                names.push((
                    v.clone(),
                    format!("value of shared enum `{ty}`"),
                    ty.clone(),
                    origin,
                ));
            }
        } else {
            names.push((ty.clone(), "shared struct".into(), ty.clone(), origin));
        }
    }
    if !info.push_constants.is_empty() {
        names.push((
            crate::plan::PushConstantSpill::NAME.to_string(),
            "the generated push-constant block".into(),
            info.name.clone(),
            info.origin,
        ));
    }
    let mut add = |name: &str, what: &str, it_decl: &str, origin: Origin| {
        names.push((
            name.to_string(),
            what.to_string(),
            it_decl.to_string(),
            origin,
        ));
    };
    for it in &info.resources {
        let base = it
            .value
            .split_name()
            .map(|(b, _)| b.to_string())
            .unwrap_or_else(|_| it.value.name.clone());
        add(&base, it.value.kind.word(), &it.declared_in, it.origin);
        // A buffer's block is named `_<name>` (see `Resource::glsl_declaration`): a global name as well.
        if it.value.block_rules().is_some() {
            add(
                &format!("_{base}"),
                &format!("block of {} `{base}`", it.value.kind.word()),
                &it.declared_in,
                it.origin,
            );
        }
    }
    for it in &info.push_constants {
        add(&it.value.name, "push_constant", &it.declared_in, it.origin);
    }
    for it in &info.specialization_constants {
        add(
            &it.value.name,
            "specialization_constant",
            &it.declared_in,
            it.origin,
        );
    }
    for it in &info.vertex_inputs {
        add(&it.value.name, "vertex_in", &it.declared_in, it.origin);
    }
    for it in &info.fragment_outputs {
        add(&it.value.name, "fragment_out", &it.declared_in, it.origin);
    }
    // A define of a declared name would rewrite that declaration's identifier.
    for it in &info.defines {
        add(it.value.macro_name(), "define", &it.declared_in, it.origin);
    }
    for it in &info.constants {
        add(&it.value.name, "constant", &it.declared_in, it.origin);
    }

    for it in &info.shared_variables {
        let base = split_array_name(&it.value.name).map_or(it.value.name.as_str(), |(b, _)| b);
        add(base, "shared_variable", &it.declared_in, it.origin);
    }
    let globals = names.len();
    for (_, list) in interface_lists(info) {
        let mut local = names[..globals].to_vec();
        for it in list.iter() {
            let iface = &it.value;
            // The block's name is global too: a member or another item of the same name collides with it.
            local.push((
                iface.name.clone(),
                "interface block".into(),
                it.declared_in.clone(),
                it.origin,
            ));
            if iface.instance_name.is_empty() {
                for m in &iface.members {
                    local.push((
                        m.name.clone(),
                        format!("member of interface `{}`", iface.name),
                        it.declared_in.clone(),
                        m.origin,
                    ));
                }
            } else {
                local.push((
                    iface.instance_name.clone(),
                    "interface instance".into(),
                    it.declared_in.clone(),
                    it.origin,
                ));
                let mut seen: HashMap<&str, ()> = HashMap::new();
                for m in &iface.members {
                    if seen.insert(&m.name, ()).is_some() {
                        c.diags.push(
                            Diagnostic::error(
                                Code::DuplicateName,
                                &info.name,
                                format!(
                                    "interface `{}` has two members named `{}`",
                                    iface.name, m.name
                                ),
                            )
                            .item(format!("interface member `{}`", m.name))
                            .at(&it.declared_in, m.origin)
                            .hint("rename one of them"),
                        );
                    }
                }
            }
        }
        report_duplicates(c, &local[globals..], &local);
    }
    report_duplicates(c, &names, &names);
}

fn report_duplicates(
    c: &mut Checker,
    candidates: &[(String, String, String, Origin)],
    all: &[(String, String, String, Origin)],
) {
    for (i, (name, what, decl, origin)) in candidates.iter().enumerate() {
        let offset = all.len() - candidates.len();
        if let Some((_, w0, d0, o0)) = all[..offset + i].iter().find(|(n, ..)| n == name) {
            c.diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    &c.info.name,
                    format!("`{name}` is declared twice: as {w0} (in `{d0}`) and as {what} (in `{decl}`)"),
                )
                .item(format!("{what} `{name}`"))
                .at(decl, *origin)
                .related(format!("{w0} `{name}` declared in `{d0}`"), *o0)
                .hint("names share one GLSL namespace: rename one of them"),
            );
        }
    }
}

/// The interfaces each stage declares ([`stage_blocks`]) must make a chain: the stage before the fragment stage
/// writes what it reads, items have their stage, both tessellation stages come together, and no two blocks of
/// one stage share an instance name.
fn check_stage_interfaces(c: &mut Checker, stages: &[Stage], origin: Origin) {
    let info = c.info;
    let has = |s: Stage| stages.contains(&s);
    let problem = |item: &str, message: String, hint: &str, at: (&str, Origin)| {
        Diagnostic::error(Code::IncompleteInfo, &info.name, message)
            .item(item.to_string())
            .at(at.0, at.1)
            .hint(hint.to_string())
    };
    let here = (info.name.as_str(), origin);
    let (tesc, tese) = (has(Stage::TessControl), has(Stage::TessEvaluation));
    if tesc != tese {
        let (present, missing, method) = if tesc {
            ("control", "evaluation", "tess_evaluation_source")
        } else {
            ("evaluation", "control", "tess_control_source")
        };
        c.diags.push(problem(
            "stage sources",
            format!("the info has a tessellation {present} stage but no {missing} stage; Vulkan takes both or neither"),
            &format!("add `.{method}(file)`"),
            here,
        ));
    }
    // Items without their stage are warnings, not errors: a variant may add the stage (`VariantBuilder::source`).
    let warning = |mut d: Diagnostic| {
        d.severity = crate::diagnostic::Severity::Warning;
        d
    };
    let stage_of = [
        ("tess_control_out", Stage::TessControl),
        ("tess_patch_out", Stage::TessControl),
        ("tess_evaluation_out", Stage::TessEvaluation),
        ("geometry_out", Stage::Geometry),
    ];
    for (list, stage) in stage_of {
        let items = interface_lists(info)
            .into_iter()
            .find(|(l, _)| *l == list)
            .map_or(&[][..], |(_, items)| items);
        if let Some(it) = items.first()
            && !has(stage)
            && !stages.is_empty()
        {
            c.diags.push(warning(problem(
                &format!("{list} `{}`", it.value.name),
                format!("`{list}` is declared but the info has no {stage} stage to write it"),
                &format!("add the {stage} stage's source (or a variant that adds it), or remove the interface"),
                (&it.declared_in, it.origin),
            )));
        }
    }
    if let Some(it) = &info.tessellation_layout {
        if !tesc && !tese && !stages.is_empty() {
            c.diags.push(warning(problem(
                "tessellation_layout",
                "a tessellation layout is declared but the info has no tessellation stages".into(),
                "add `.tess_control_source(file)` and `.tess_evaluation_source(file)`, or remove the layout",
                (&it.declared_in, it.origin),
            )));
        }
        // Every implementation supports patches of 32 control points (Vulkan's minimum maxTessellationPatchSize).
        if !(1..=32).contains(&it.value.control_points) {
            let d = Diagnostic::error(
                Code::OutOfRange,
                &info.name,
                format!(
                    "a patch of {} control points; Vulkan guarantees 1 to 32",
                    it.value.control_points
                ),
            )
            .item("tessellation_layout")
            .at(&it.declared_in, it.origin)
            .hint("use between 1 and 32 control points");
            c.diags.push(d);
        }
    }
    // Data written before the fragment stage must reach it through the list it reads.
    if has(Stage::Fragment) && !info.vertex_out.is_empty() {
        let read = stage_blocks(info, Stage::Fragment);
        let wanted = if has(Stage::Geometry) {
            Some(("geometry_out", "a geometry stage", "geometry"))
        } else if tesc || tese {
            Some((
                "tess_evaluation_out",
                "tessellation",
                "tessellation evaluation",
            ))
        } else {
            None
        };
        if let Some((list, with, writer)) = wanted
            && read.is_empty()
        {
            c.diags.push(problem(
                list,
                format!("with {with} the fragment stage reads `{list}`, which is empty"),
                &format!("declare what the {writer} stage writes with `.{list}(&interface)`"),
                here,
            ));
        }
    }
    for &stage in stages {
        let blocks = stage_blocks(info, stage);
        for (i, b) in blocks.iter().enumerate() {
            if b.instance.is_empty() {
                continue;
            }
            if let Some(first) = blocks[..i].iter().find(|f| f.instance == b.instance) {
                c.diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        &info.name,
                        format!(
                            "the {stage} stage declares two interface blocks with instance name `{}`: {} `{}` and {} `{}`",
                            b.instance, first.list, first.item.value.name, b.list, b.item.value.name
                        ),
                    )
                    .item(format!("{} `{}`", b.list, b.item.value.name))
                    .at(&b.item.declared_in, b.item.origin)
                    .related(format!("{} `{}` declared in `{}`", first.list, first.item.value.name, first.item.declared_in), first.item.origin)
                    .hint("give one of the interfaces another instance name"),
                );
            }
        }
    }
}

/// A subpass input is a scalar or vector of a fragment stage, reading a color attachment that can exist.
fn check_subpass_inputs(c: &mut Checker) {
    let info = c.info;
    let stages = info.stages();
    for (i, it) in info.subpass_inputs.iter().enumerate() {
        let s = &it.value;
        let item = format!("subpass_in `{}`", s.name);
        c.ident("subpass_in", &s.name, it);
        if s.ty.shape().0 != 1 || s.ty.scalar() == Scalar::Bool || s.ty.is_double() {
            c.err(
                Code::UnknownType,
                item.clone(),
                it,
                format!("subpass input `{}` is a `{}`; attachments hold float, int or uint scalars and vectors", s.name, s.ty),
                "declare it as the attachment's texel type (vec4 for a color target)",
            );
        }
        if s.index >= MAX_FRAGMENT_OUTPUTS {
            c.err(
                Code::OutOfRange,
                item.clone(),
                it,
                format!("subpass input `{}` reads attachment {}, past the {MAX_FRAGMENT_OUTPUTS} color attachments", s.name, s.index),
                "read one of the color attachments an earlier pass writes",
            );
        }
        if info.subpass_inputs[..i]
            .iter()
            .any(|p| p.value.index == s.index)
        {
            c.err(
                Code::DuplicateName,
                item.clone(),
                it,
                format!("attachment {} is read by two subpass inputs", s.index),
                "read each attachment once and use the value twice",
            );
        }
        if !stages.is_empty() && !stages.contains(&Stage::Fragment) {
            c.err(
                Code::IncompleteInfo,
                item,
                it,
                "subpass inputs are fragment inputs, but the info has no fragment stage"
                    .to_string(),
                "add the fragment stage, or remove the subpass input",
            );
        }
    }
}

/// An entry-point name is an identifier the targets accept, declared once per stage of the info.
fn check_entry_points(c: &mut Checker) {
    let info = c.info;
    let stages = info.stages();
    for (i, it) in info.entry_points.iter().enumerate() {
        let (stage, name) = (&it.value.0, &it.value.1);
        let item = format!("entry_point({stage}, \"{name}\")");
        if name != "main" {
            c.ident("entry point", name, it);
        }
        if let Some(first) = info.entry_points[..i].iter().find(|e| e.value.0 == *stage) {
            c.err(
                Code::SingularConflict,
                item.clone(),
                it,
                format!(
                    "the {stage} stage's entry point is named twice: `{}` (in `{}`) and `{name}` (in `{}`)",
                    first.value.1, first.declared_in, it.declared_in
                ),
                "name each stage's entry point once along the additional_info chain",
            );
        }
        if !stages.is_empty() && !stages.contains(stage) {
            c.err(
                Code::UnknownStage,
                item,
                it,
                format!(
                    "an entry point is named for the {stage} stage, which the info does not have"
                ),
                "name entry points of the info's stages only",
            );
        }
    }
}

/// A condition reads branches and boolean shared constants of the info, and only resources are conditional.
fn check_conditions(c: &mut Checker) {
    let info = c.info;
    for it in &info.conditional_resources {
        let cr = &it.value;
        let what = match &cr.resource {
            Ok(r) => format!("{} `{}`", r.kind.word(), r.name),
            Err(_) => "resources_if".to_string(),
        };
        if let Err(other) = &cr.resource {
            c.err(
                Code::Branch,
                what.clone(),
                it,
                format!("`resources_if({})` declares {other}; only resources can be conditional", cr.condition),
                "declare other items outside `resources_if`, or give variants their own with the specialize function",
            );
        }
        for name in cr.condition.names() {
            let known = info.branches.iter().any(|b| b.value == name)
                || info
                    .constants
                    .iter()
                    .any(|k| k.value.name == name && k.value.value.ty() == Type::Bool);
            if !known {
                let branches: Vec<&str> = info.branches.iter().map(|b| b.value.as_str()).collect();
                c.err(
                    Code::Branch,
                    what.clone(),
                    it,
                    format!(
                        "{what} is declared under `{}`, but `{name}` is no branch or boolean constant of the info",
                        cr.condition
                    ),
                    if branches.is_empty() {
                        "declare the branch with `.branch(..)`, or a boolean `constant!`".to_string()
                    } else {
                        format!("its branches: {}", branches.join(", "))
                    },
                );
            }
        }
    }
}

/// Atomic image types need the atomics builtin declared, and a declared builtin that no stage can use is a slip.
fn check_builtins(c: &mut Checker) {
    let info = c.info;
    for it in &info.resources {
        let r = &it.value;
        let image_type = match &r.kind {
            ResourceKind::Sampler { image_type, .. } | ResourceKind::Image { image_type, .. } => {
                *image_type
            }
            _ => continue,
        };
        if image_type.is_atomic() && !info.builtins.contains(BuiltinBits::TEXTURE_ATOMIC) {
            c.err(
                Code::InvalidImage,
                format!("{} `{}`", r.kind.word(), r.name),
                it,
                format!(
                    "{} `{}` is an atomic image ({image_type:?}), but the info does not declare BuiltinBits::TEXTURE_ATOMIC",
                    r.kind.word(),
                    r.name
                ),
                "add `.builtins(BuiltinBits::TEXTURE_ATOMIC)`: backends without native image atomics need to know",
            );
        }
    }
    let stages = info.stages();
    if stages.is_empty() {
        return;
    }
    let unusable = info.builtins.unusable_in(&stages);
    if !unusable.is_empty() {
        let list: Vec<&str> = stages.iter().map(|s| s.short_name()).collect();
        c.diags.push(
            Diagnostic::warning(
                Code::IncompleteInfo,
                &info.name,
                format!(
                    "builtins {} are declared, but no stage of the info ({}) can use them",
                    unusable.join(", "),
                    list.join(", ")
                ),
            )
            .item("builtins")
            .at(&info.name, info.origin)
            .hint("remove them from `.builtins(…)`, or add the stage that uses them"),
        );
    }
}

fn check_stages(c: &mut Checker) {
    let info = c.info;
    let stages = info.stages();
    let has = |s: Stage| stages.contains(&s);
    let graphics = stages.iter().any(|s| s.is_graphics());
    let rt = stages.iter().any(|s| s.is_ray_tracing());
    let compute = has(Stage::Compute);
    let kinds = [graphics, rt, compute].iter().filter(|b| **b).count();
    let head = info.sources.first();
    let origin = head.map_or(info.origin, |h| h.origin);
    if kinds > 1 {
        let list: Vec<&str> = stages.iter().map(|s| s.short_name()).collect();
        c.diags.push(
            Diagnostic::error(
                Code::MixedPipelineKinds,
                &info.name,
                format!("the info mixes stages of different pipeline kinds: {}", list.join(", ")),
            )
            .item("stage sources")
            .at(&info.name, origin)
            .hint("a compute info has only a compute source; graphics and ray-tracing infos have none"),
        );
    }
    check_stage_interfaces(c, &stages, origin);
    if compute && info.local_group_size.is_none() && c.opts.require_complete {
        c.diags.push(
            Diagnostic::error(
                Code::IncompleteInfo,
                &info.name,
                "a compute info needs a local group size",
            )
            .item("local_group_size")
            .at(&info.name, origin)
            .hint("add `.local_group_size(x)` (or the 2d/3d forms)"),
        );
    }
    if !compute && let Some(it) = &info.local_group_size {
        c.err(
            Code::IncompleteInfo,
            "local_group_size".into(),
            it,
            "local_group_size is set but the info has no compute source".into(),
            "add `.compute_source(file)` or remove the local group size",
        );
    }
    if !c.opts.require_complete {
        return;
    }
    if stages.is_empty() {
        c.diags.push(
            Diagnostic::error(Code::IncompleteInfo, &info.name, "the info is marked compilable but declares no stage source")
                .item("stage sources")
                .at(&info.name, info.origin)
                .hint("add `.vertex_source`/`.fragment_source`, `.compute_source` or ray-tracing sources, or do_static_compilation(false)"),
        );
    }
    if graphics && (!has(Stage::Vertex) || !has(Stage::Fragment)) {
        let missing = if has(Stage::Vertex) {
            "fragment"
        } else {
            "vertex"
        };
        c.diags.push(
            Diagnostic::error(Code::IncompleteInfo, &info.name, format!("a graphics info needs a vertex and a fragment source; the {missing} source is missing"))
                .item(format!("{missing}_source"))
                .at(&info.name, origin)
                .hint(format!("add `.{missing}_source(file)`, directly or through additional_info")),
        );
    }
    if has(Stage::Geometry) && info.geometry_layout.is_none() {
        c.diags.push(
            Diagnostic::error(
                Code::IncompleteInfo,
                &info.name,
                "a geometry source needs a geometry layout",
            )
            .item("geometry_layout")
            .at(&info.name, origin)
            .hint("add `.geometry_layout(PrimitiveIn::…, PrimitiveOut::…, max_vertices)`"),
        );
    }
    if let Some(g) = &info.geometry_layout
        && has(Stage::Geometry)
        && g.value.primitive_out == crate::types::PrimitiveOut::Points
        && !info.builtins.contains(BuiltinBits::POINT_SIZE)
    {
        c.diags.push(
            Diagnostic::error(
                Code::RenderState,
                &info.name,
                "the geometry stage emits points, but no stage declares BuiltinBits::POINT_SIZE: a point's size is \
                 undefined unless the geometry stage writes gl_PointSize",
            )
            .item("geometry_layout")
            .at(&g.declared_in, g.origin)
            .hint("declare .builtins(BuiltinBits::POINT_SIZE) and write gl_PointSize in the geometry stage (the \
                   device needs shaderTessellationAndGeometryPointSize, which the plan asks for)"),
        );
    }
    if rt && !has(Stage::RayGen) {
        c.diags.push(
            Diagnostic::error(
                Code::IncompleteInfo,
                &info.name,
                "a ray-tracing info needs a ray-generation source",
            )
            .item("raygen_source")
            .at(&info.name, origin)
            .hint("add `.raygen_source(file)`"),
        );
    }
}

/// The highest binding number a declaration may use. Vulkan sets no limit, but glslang keeps a binding in 16 bits
/// (65,535 is "too large"), the portable targets put split samplers above the highest binding, drivers size a set
/// layout by its highest binding and WebGPU allows 1000 bindings per group: a binding past 4095 is a typo, not a
/// design.
pub const MAX_BINDING: u32 = 4095;
/// The largest descriptor array (`name[N]`); real bindless tables stay below it (NVIDIA allows about a million
/// sampled images per set).
pub const MAX_DESCRIPTOR_ARRAY: u32 = 1 << 20;
/// Work-group limits every Vulkan device guarantees (`maxComputeWorkGroupSize`, `maxComputeWorkGroupInvocations`).
/// Many real shaders go past them on purpose: past them is a warning; past the device's own limits, an error at
/// pipeline creation.
pub const GUARANTEED_WORK_GROUP_SIZE: [u32; 3] = [128, 128, 64];
pub const GUARANTEED_WORK_GROUP_INVOCATIONS: u32 = 128;
/// Work-group (`shared`) memory every Vulkan device guarantees (`maxComputeSharedMemorySize`): past it is a warning;
/// past the device's own limit, an error before pipeline creation.
pub const GUARANTEED_SHARED_MEMORY: u64 = 16 * 1024;
/// The largest work-group axis a declaration may ask for (the compiler's limit; real devices stop near 1024).
pub const MAX_WORK_GROUP_AXIS: u32 = u16::MAX as u32;

/// Why a piece of text that the generator copies into GLSL could change more than the item it belongs to: a line
/// break (a new preprocessor line), a line continuation, a comment opener (everything after it), a NUL or another
/// control character.
///
/// ```
/// use shader_info::unsafe_text_problem;
/// assert!(unsafe_text_problem("vec3(1.0, 0.5, 0.0)").is_none());
/// assert!(unsafe_text_problem("1\n#error injected").is_some());
/// assert!(unsafe_text_problem("1 /* x").is_some());
/// ```
pub fn unsafe_text_problem(text: &str) -> Option<String> {
    if let Some(c) = text.chars().find(|c| c.is_control() && *c != '\t') {
        return Some(match c {
            '\n' | '\r' => {
                "contains a line break, which would start a new line of GLSL".to_string()
            }
            '\0' => "contains a NUL character".to_string(),
            c => format!("contains the control character U+{:04X}", c as u32),
        });
    }
    if let Some(c) = text
        .chars()
        .find(|c| matches!(c, '\u{2028}' | '\u{2029}' | '\u{85}'))
    {
        return Some(format!("contains the line separator U+{:04X}", c as u32));
    }
    if text.contains('\\') {
        return Some("contains `\\`, which continues a preprocessor line into the next".into());
    }
    if text.contains("/*") || text.contains("*/") || text.contains("//") {
        return Some(
            "contains a comment marker, which would swallow the generated code after it".into(),
        );
    }
    None
}

/// Rules against declarations that would otherwise pass and hurt later: text that reaches the generated GLSL,
/// numbers at the edges of their range, items the info's kind cannot use, names and work-group sizes.
fn check_hostile(c: &mut Checker) {
    let info = c.info;
    if let Some(p) = info_name_problem(&info.name) {
        c.diags.push(
            Diagnostic::error(Code::InvalidIdentifier, &info.name, format!("the info name {:?} {p}", info.name))
                .item("info name")
                .at(&info.name, info.origin)
                .hint("name infos with letters, digits and `_`, starting with a letter or `_` (e.g. `gpu_shader_text`)"),
        );
    }
    for it in &info.defines {
        if let Some(value) = &it.value.value
            && let Some(p) = unsafe_text_problem(value)
        {
            c.err(
                Code::InvalidConstant,
                format!("define `{}`", it.value.name),
                it,
                format!("the value of define `{}` {p}", it.value.name),
                "a define value is one line of GLSL tokens without comments; put longer code in a source file",
            );
        }
    }
    let files = info
        .sources
        .iter()
        .map(|it| {
            (
                format!("{}_source", it.value.0.short_name()),
                &it.value.1,
                it.declared_in.as_str(),
                it.origin,
            )
        })
        .chain(info.typedef_sources.iter().map(|it| {
            (
                "typedef_source".to_string(),
                &it.value,
                it.declared_in.as_str(),
                it.origin,
            )
        }));
    let mut bad_files = Vec::new();
    for (what, file, declared_in, origin) in files {
        let problem = if file.is_empty() {
            Some("is empty".to_string())
        } else if let Some(c) = file.chars().find(|c| matches!(c, '"' | '\\')) {
            Some(format!(
                "contains `{c}`, which cannot appear in a `#line` file name"
            ))
        } else {
            unsafe_text_problem(file)
        };
        if let Some(p) = problem {
            bad_files.push(
                Diagnostic::error(
                    Code::MissingSource,
                    &info.name,
                    format!("the {what} file name {file:?} {p}"),
                )
                .item(what)
                .at(declared_in, origin)
                .hint("give a path relative to the shader root, with `/` between folders"),
            );
        }
    }
    c.diags.extend(bad_files);
    for it in &info.specialization_constants {
        if let ConstValue::Float(f) = it.value.default
            && !f.is_finite()
        {
            c.err(
                Code::InvalidConstant,
                format!("specialization_constant `{}`", it.value.name),
                it,
                format!(
                    "specialization constant `{}` defaults to {f}, which GLSL cannot write",
                    it.value.name
                ),
                "give a finite default",
            );
        }
    }
    for it in &info.resources {
        let r = &it.value;
        if r.binding > MAX_BINDING {
            let derived = if r.binding == r.slot {
                String::new()
            } else {
                format!(" (derived from its slot {} per kind)", r.slot)
            };
            c.err(
                Code::OutOfRange,
                format!("{} `{}`", r.kind.word(), r.name),
                it,
                format!(
                    "{} `{}` is at binding {}{derived}, past {MAX_BINDING}",
                    r.kind.word(),
                    r.name,
                    r.binding
                ),
                "use small binding numbers: a set's bindings are counted from 0 (and stay below 1000 to run on WebGPU)",
            );
        }
        // A texture or image array is a descriptor array (a buffer's suffix sizes an array inside the block).
        if let Ok((_, ArraySize::Fixed(n))) = r.split_name()
            && matches!(
                r.kind,
                ResourceKind::Sampler { .. } | ResourceKind::Image { .. }
            )
            && n > MAX_DESCRIPTOR_ARRAY
        {
            c.err(
                Code::OutOfRange,
                format!("{} `{}`", r.kind.word(), r.name),
                it,
                format!(
                    "`{}` has {n} descriptors, past {MAX_DESCRIPTOR_ARRAY}",
                    r.name
                ),
                "use a runtime-sized storage buffer for large tables",
            );
        }
    }
    for it in &info.push_constants {
        if let Some(n) = it.value.array_size
            && u64::from(n) * 4 > u64::from(MAX_SPILLED_PUSH_CONSTANT_BYTES)
        {
            c.err(
                Code::PushConstantTooLarge,
                format!("push_constant `{}`", it.value.name),
                it,
                format!(
                    "push constant `{}` has {n} elements, more than fit in the {MAX_SPILLED_PUSH_CONSTANT_BYTES} bytes a push-constant block may spill to",
                    it.value.name
                ),
                "move the array into a uniform_buf or storage_buf",
            );
        }
    }
    check_kind_items(c);
    check_work_group(c);
    check_shared_variables(c);
    let mut seen: Vec<&Item<String>> = Vec::new();
    for b in &info.branches {
        if let Some(first) = seen.iter().find(|f| f.value == b.value) {
            let (declared_in, origin) = (first.declared_in.clone(), first.origin);
            c.diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    &info.name,
                    format!("branch `{}` is declared twice", b.value),
                )
                .item(format!("branch `{}`", b.value))
                .at(&b.declared_in, b.origin)
                .related(
                    format!("branch `{}` declared in `{declared_in}`", b.value),
                    origin,
                )
                .hint("each branch is one bit of the permutation: declare it once"),
            );
        } else {
            seen.push(b);
        }
    }
}

/// Why an info name is unusable: it names files, diagnostics and variant keys (`name#v3`).
fn info_name_problem(name: &str) -> Option<&'static str> {
    let mut chars = name.chars();
    match chars.next() {
        None => Some("is empty"),
        Some(c) if !(c.is_ascii_alphabetic() || c == '_') => {
            Some("must start with a letter or `_`")
        }
        _ if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
            Some("may only hold letters, digits and `_`")
        }
        _ => None,
    }
}

/// Items that only a graphics pipeline can use, on an info whose stages make another kind.
fn check_kind_items(c: &mut Checker) {
    let info = c.info;
    let stages = info.stages();
    if stages.is_empty() || stages.iter().any(|s| s.is_graphics()) {
        return;
    }
    let kind = if stages.contains(&Stage::Compute) {
        "a compute"
    } else {
        "a ray-tracing"
    };
    let mut found: Vec<(String, String, Origin)> = Vec::new();
    for it in &info.vertex_inputs {
        found.push((
            format!("vertex_in `{}`", it.value.name),
            it.declared_in.clone(),
            it.origin,
        ));
    }
    for (list, items) in interface_lists(info) {
        for it in items {
            found.push((
                format!("{list} `{}`", it.value.name),
                it.declared_in.clone(),
                it.origin,
            ));
        }
    }
    if let Some(it) = &info.geometry_layout {
        found.push(("geometry_layout".into(), it.declared_in.clone(), it.origin));
    }
    if let Some(it) = &info.tessellation_layout {
        found.push((
            "tessellation_layout".into(),
            it.declared_in.clone(),
            it.origin,
        ));
    }
    for it in &info.fragment_outputs {
        found.push((
            format!("fragment_out `{}`", it.value.name),
            it.declared_in.clone(),
            it.origin,
        ));
    }
    if let Some(it) = &info.depth_write {
        found.push(("depth_write".into(), it.declared_in.clone(), it.origin));
    }
    if let Some(it) = &info.early_fragment_test {
        found.push((
            "early_fragment_test".into(),
            it.declared_in.clone(),
            it.origin,
        ));
    }
    for (item, declared_in, origin) in found {
        c.diags.push(
            Diagnostic::error(
                Code::IncompleteInfo,
                &info.name,
                format!(
                    "{item} is a graphics item, but `{}` is {kind} info: no stage would use it",
                    info.name
                ),
            )
            .item(item)
            .at(&declared_in, origin)
            .hint("remove it, or move it to the graphics info that needs it"),
        );
    }
}

/// Work-group sizes: an overflowing invocation count is an error; past the guaranteed minimums, a warning.
/// Shared variables: compute only, well named and sized, and their total within what devices give.
fn check_shared_variables(c: &mut Checker) {
    let info = c.info;
    let stages = info.stages();
    let mut total = 0u64;
    for it in &info.shared_variables {
        let v = &it.value;
        let item = format!("shared_variable `{}`", v.name);
        if !stages.is_empty() && !stages.contains(&Stage::Compute) {
            c.err(
                Code::IncompleteInfo,
                item.clone(),
                it,
                format!(
                    "{item} is work-group memory, but `{}` has no compute stage: no stage would use it",
                    info.name
                ),
                "declare it on the compute info, or on a building block only compute infos include",
            );
        }
        match split_array_name(&v.name) {
            Ok((base, size)) => {
                c.ident("shared_variable", base, it);
                if size == ArraySize::Runtime {
                    c.err(
                        Code::InvalidArray,
                        item.clone(),
                        it,
                        format!("{item} has no size: work-group memory is sized when the pipeline is made"),
                        "give it a size: `name[N]`, or `name[CONSTANT]` with a constant of the info",
                    );
                }
            }
            Err(e) => {
                let (message, hint) = named_size_problem(info, &v.name)
                    .unwrap_or((e, "write `name` or `name[N]`".to_string()));
                c.err(Code::InvalidArray, item.clone(), it, message, hint);
            }
        }
        total += v.bytes().unwrap_or(0);
    }
    if total > GUARANTEED_SHARED_MEMORY
        && let Some(first) = info.shared_variables.first()
    {
        c.diags.push(
            Diagnostic::warning(
                Code::WorkGroupSize,
                &info.name,
                format!(
                    "the shared variables take {total} bytes, past the {GUARANTEED_SHARED_MEMORY} bytes every device guarantees"
                ),
            )
            .item("shared_variable")
            .at(&first.declared_in, first.origin)
            .hint("fine on devices that allow it (checked against the device's limit before pipeline creation); keep within the guarantee to run everywhere"),
        );
    }
}

fn check_work_group(c: &mut Checker) {
    let info = c.info;
    let Some(it) = &info.local_group_size else {
        return;
    };
    let [x, y, z] = it.value;
    if it.value.contains(&0) {
        return; // reported as ZeroGroupSize
    }
    if let Some(big) = it.value.iter().find(|s| **s > MAX_WORK_GROUP_AXIS) {
        c.err(
            Code::WorkGroupSize,
            "local_group_size".into(),
            it,
            format!("local group size {x}×{y}×{z} has an axis of {big}, past {MAX_WORK_GROUP_AXIS}, more than any device allows"),
            format!("Vulkan guarantees {GUARANTEED_WORK_GROUP_SIZE:?} per axis; devices allow about 1024"),
        );
        return;
    }
    let invocations = u128::from(x) * u128::from(y) * u128::from(z);
    if invocations > u128::from(u32::MAX) {
        c.err(
            Code::WorkGroupSize,
            "local_group_size".into(),
            it,
            format!("local group size {x}×{y}×{z} is {invocations} invocations, past what a work group can count"),
            format!("Vulkan guarantees {GUARANTEED_WORK_GROUP_INVOCATIONS} invocations per group; devices allow about 1024"),
        );
        return;
    }
    // Past what glslang and every device refuse: an error, with the axis and the limit.
    let mut beyond = Vec::new();
    for (axis, (size, limit)) in ["x", "y", "z"]
        .iter()
        .zip(it.value.iter().zip(MAX_WORK_GROUP_SIZE))
    {
        if *size > limit {
            beyond.push(format!("{axis} = {size} is past {limit}"));
        }
    }
    if invocations > u128::from(MAX_WORK_GROUP_INVOCATIONS) {
        beyond.push(format!(
            "{invocations} invocations are past {MAX_WORK_GROUP_INVOCATIONS}"
        ));
    }
    if !beyond.is_empty() {
        c.err(
            Code::WorkGroupSize,
            "local_group_size".into(),
            it,
            format!(
                "local group size {x}×{y}×{z}: {}; no device runs it (devices allow at most {MAX_WORK_GROUP_SIZE:?} and {MAX_WORK_GROUP_INVOCATIONS} invocations, glslang refuses larger axes)",
                beyond.join("; ")
            ),
            format!(
                "keep each axis within {MAX_WORK_GROUP_SIZE:?} and x×y×z within {MAX_WORK_GROUP_INVOCATIONS}; Vulkan guarantees {GUARANTEED_WORK_GROUP_SIZE:?} and {GUARANTEED_WORK_GROUP_INVOCATIONS}"
            ),
        );
        return;
    }
    let mut past = Vec::new();
    for (axis, (size, limit)) in ["x", "y", "z"]
        .iter()
        .zip(it.value.iter().zip(GUARANTEED_WORK_GROUP_SIZE))
    {
        if *size > limit {
            past.push(format!("{axis} = {size} is past the guaranteed {limit}"));
        }
    }
    if invocations > u128::from(GUARANTEED_WORK_GROUP_INVOCATIONS) {
        past.push(format!(
            "{invocations} invocations are past the guaranteed {GUARANTEED_WORK_GROUP_INVOCATIONS}"
        ));
    }
    if !past.is_empty() {
        c.diags.push(
            Diagnostic::warning(
                Code::WorkGroupSize,
                &info.name,
                format!(
                    "local group size {x}×{y}×{z}: {} (typical devices allow {MAX_WORK_GROUP_SIZE:?} and {MAX_WORK_GROUP_INVOCATIONS} invocations)",
                    past.join("; ")
                ),
            )
            .item("local_group_size")
            .at(&it.declared_in, it.origin)
            .hint("fine on devices that allow it (checked against the device's limits before pipeline creation); keep within the guarantees to run everywhere"),
        );
    }
}

/// The highest `constant_id` glslang accepts ("specialization-constant id is too large" from 2047 on).
pub const MAX_CONSTANT_ID: u32 = 2046;
/// Vulkan's guaranteed `maxGeometryOutputVertices`, which is also glslang's `gl_MaxGeometryOutputVertices`: a
/// larger `max_vertices` does not compile.
pub const MAX_GEOMETRY_OUTPUT_VERTICES: u32 = 256;
/// Vulkan's guaranteed `maxGeometryShaderInvocations` (NVIDIA and Intel stop there; AMD allows 127).
pub const GUARANTEED_GEOMETRY_INVOCATIONS: u32 = 32;
/// The most geometry invocations any device allows.
pub const MAX_GEOMETRY_INVOCATIONS: u32 = 127;
/// What real devices allow per work-group axis and per group (`maxComputeWorkGroupSize` of NVIDIA, AMD, Intel and
/// Apple; glslang's `gl_MaxComputeWorkGroupSize` refuses larger axes): past these no device runs the shader.
pub const MAX_WORK_GROUP_SIZE: [u32; 3] = [1024, 1024, 64];
pub const MAX_WORK_GROUP_INVOCATIONS: u32 = 1024;
/// Interface locations between two stages that Vulkan guarantees (64 components, `maxVertexOutputComponents`,
/// `maxFragmentInputComponents`), and what desktop devices allow (128 components).
pub const GUARANTEED_INTERFACE_LOCATIONS: u32 = 16;
pub const MAX_INTERFACE_LOCATIONS: u32 = 32;
/// Vulkan's guaranteed `maxUniformBufferRange`, and the typical value (NVIDIA's 64 KiB; AMD and Intel allow more).
pub const GUARANTEED_UNIFORM_BUFFER_BYTES: u64 = 16 * 1024;
pub const TYPICAL_UNIFORM_BUFFER_BYTES: u64 = 64 * 1024;

/// The shared structs and enums the info's stages emit (buffer types and typedef names, and the structs and enums
/// those hold), in a walk that is iterative and bounded: a typedef name that names no type, a struct that holds
/// itself through another, nesting past [`crate::layout::MAX_STRUCT_NESTING`], and the registry's problems with
/// each emitted type are reported for this info. Returns each type once, with where it was registered.
fn check_shared_types(c: &mut Checker) -> Vec<(String, Origin)> {
    use crate::layout::{FieldType, MAX_STRUCT_NESTING};
    let info = c.info;
    let reg = c.opts.registry;
    let mut roots: Vec<(String, String, &str, Origin)> = Vec::new();
    for it in &info.resources {
        if let ResourceKind::UniformBuffer { type_name }
        | ResourceKind::StorageBuffer { type_name, .. } = &it.value.kind
        {
            roots.push((
                type_name.clone(),
                format!("{} `{}`", it.value.kind.word(), it.value.name),
                &it.declared_in,
                it.origin,
            ));
        }
    }
    for it in &info.typedef_sources {
        let name = it.value.as_str();
        if !crate::generate::is_type_name(name) || name.is_empty() {
            continue;
        }
        let known = reg.find_struct(name).is_some()
            || reg.enum_def(name).is_some()
            || c.opts.extra_type_names.iter().any(|n| n == name);
        if !known {
            let mut close: Vec<&str> = reg
                .structs()
                .map(|d| d.name.as_str())
                .filter(|n| crate::resolve::edit_distance(n, name) <= 2)
                .collect();
            close.truncate(3);
            c.err(
                Code::UnknownType,
                format!("typedef_source(\"{name}\")"),
                it,
                format!(
                    "typedef_source(\"{name}\") names no shared struct or enum (a name without `.` or `/` is a type, not a file)"
                ),
                if close.is_empty() {
                    "derive `ShaderStruct`/`ShaderEnum` for the type (and link its crate), or give a file path such as `common/types.glsl`".to_string()
                } else {
                    format!("did you mean `{}`?", close.join("` or `"))
                },
            );
            continue;
        }
        roots.push((
            name.to_string(),
            format!("typedef_source(\"{name}\")"),
            &it.declared_in,
            it.origin,
        ));
    }
    // 0: not seen, 1: on the walk's path, 2: done.
    let mut state: HashMap<String, u8> = HashMap::new();
    let mut emitted: Vec<(String, Origin)> = Vec::new();
    for (root, item, declared_in, origin) in roots {
        let from_typedef = item.starts_with("typedef_source");
        if state.contains_key(&root) {
            continue;
        }
        let mut path: Vec<(String, usize)> = vec![(root.clone(), 0)];
        state.insert(root.clone(), 1);
        while let Some((name, next)) = path.last_mut() {
            let def = reg.find_struct(name);
            let field = def.and_then(|d| d.fields.get(*next));
            *next += 1;
            let Some(field) = field else {
                let name = name.clone();
                path.pop();
                state.insert(name.clone(), 2);
                let meta = reg.struct_meta(&name);
                let type_origin = meta.map_or(Origin::default(), |m| m.origin);
                for en in meta.map_or(&[][..], |m| m.enums.as_slice()) {
                    if state.insert(en.clone(), 2).is_none() {
                        emitted.push((en.clone(), type_origin));
                    }
                }
                if reg.enum_def(&name).is_some() || def.is_some() {
                    emitted.push((name, type_origin));
                }
                continue;
            };
            let FieldType::Struct(inner) = &field.ty else {
                continue;
            };
            let known = reg.find_struct(inner).is_some()
                || reg.enum_def(inner).is_some()
                || c.opts.extra_type_names.iter().any(|n| n == inner);
            if !known {
                // A buffer's layout reports an unknown struct (with the field); a typedef type has no layout.
                if from_typedef {
                    c.diags.push(
                        Diagnostic::error(
                            Code::UnknownType,
                            &info.name,
                            format!(
                                "shared struct `{name}` has a field `{}` of type `{inner}`, which names no shared struct",
                                field.name
                            ),
                        )
                        .item(item.clone())
                        .at(declared_in, origin)
                        .hint("register the struct (derive `ShaderStruct`), or give the field a GLSL type"),
                    );
                }
                continue;
            }
            match state.get(inner) {
                Some(2) => {}
                Some(_) => {
                    let from = path.iter().position(|(n, _)| n == inner).unwrap_or(0);
                    let mut chain: Vec<&str> =
                        path[from..].iter().map(|(n, _)| n.as_str()).collect();
                    chain.push(inner);
                    // A buffer's layout reports its recursion (with offsets); typedef types have no layout.
                    if from_typedef {
                        c.diags.push(
                            Diagnostic::error(
                                Code::Layout,
                                &info.name,
                                format!("shared struct `{inner}` contains itself: {}", chain.join(" → ")),
                            )
                            .item(item.clone())
                            .at(declared_in, origin)
                            .hint("a struct cannot hold itself, not even through another: hold an index into a buffer of them instead"),
                        );
                    }
                }
                None if path.len() >= MAX_STRUCT_NESTING => {
                    c.diags.push(
                        Diagnostic::error(
                            Code::Layout,
                            &info.name,
                            format!(
                                "shared structs are nested more than {MAX_STRUCT_NESTING} deep from `{root}`: {} → …",
                                path[..4].iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(" → ")
                            ),
                        )
                        .item(item.clone())
                        .at(declared_in, origin)
                        .hint("flatten the structs: real data nests a handful of levels"),
                    );
                    for (n, _) in path.drain(..) {
                        state.insert(n, 2);
                    }
                }
                None => {
                    state.insert(inner.clone(), 1);
                    path.push((inner.clone(), 0));
                }
            }
        }
    }
    for (ty, _) in &emitted {
        for d in reg.type_problems(ty) {
            let mut d = d.clone();
            d.info = info.name.clone();
            c.diags.push(d);
        }
    }
    emitted
}

/// Numbers past what glslang or every device refuses are errors; past what Vulkan guarantees but within what
/// some devices allow, warnings that name both numbers.
fn check_limits(c: &mut Checker) {
    let info = c.info;
    let stages = info.stages();
    for (id, it) in info
        .specialization_constant_ids()
        .into_iter()
        .zip(&info.specialization_constants)
    {
        if id > MAX_CONSTANT_ID {
            c.err(
                Code::OutOfRange,
                format!("specialization_constant `{}`", it.value.name),
                it,
                format!(
                    "specialization constant `{}` gets constant_id {id}, past the {MAX_CONSTANT_ID} glslang accepts \
                     (ids are numbered across the registry, one per declared constant)",
                    it.value.name
                ),
                "declare fewer specialization constants across the registry: turn rarely changed ones into \
                 `compilation_constant`s, or share one declaration through additional_info",
            );
        }
    }
    if let Some(g) = &info.geometry_layout {
        let l = &g.value;
        if l.invocations == 0 || l.invocations > MAX_GEOMETRY_INVOCATIONS {
            c.err(
                Code::OutOfRange,
                "geometry_layout".into(),
                g,
                format!(
                    "the geometry layout asks for {} invocations; a geometry stage runs 1 to {MAX_GEOMETRY_INVOCATIONS} times per primitive",
                    l.invocations
                ),
                format!(
                    "use `geometry_layout(…)` for one invocation, or `geometry_layout_instanced(…, n)` with n from 1 to {GUARANTEED_GEOMETRY_INVOCATIONS} (Vulkan's guarantee)"
                ),
            );
        } else if l.invocations > GUARANTEED_GEOMETRY_INVOCATIONS {
            c.diags.push(
                Diagnostic::warning(
                    Code::OutOfRange,
                    &info.name,
                    format!(
                        "the geometry layout asks for {} invocations, past the {GUARANTEED_GEOMETRY_INVOCATIONS} Vulkan guarantees (NVIDIA and Intel stop at 32, AMD allows {MAX_GEOMETRY_INVOCATIONS})",
                        l.invocations
                    ),
                )
                .item("geometry_layout")
                .at(&g.declared_in, g.origin)
                .hint("keep to 32 invocations to run everywhere"),
            );
        }
        if l.max_vertices > MAX_GEOMETRY_OUTPUT_VERTICES {
            c.err(
                Code::OutOfRange,
                "geometry_layout".into(),
                g,
                format!(
                    "the geometry layout emits up to {} vertices, past the {MAX_GEOMETRY_OUTPUT_VERTICES} glslang and Vulkan allow (`gl_MaxGeometryOutputVertices`)",
                    l.max_vertices
                ),
                format!("emit at most {MAX_GEOMETRY_OUTPUT_VERTICES} vertices per invocation; split the work with `geometry_layout_instanced`"),
            );
        }
        if !stages.is_empty() && !stages.contains(&Stage::Geometry) {
            let mut d = Diagnostic::error(
                Code::IncompleteInfo,
                &info.name,
                "a geometry layout is declared but the info has no geometry stage: it would be ignored",
            )
            .item("geometry_layout")
            .at(&g.declared_in, g.origin)
            .hint("add `.geometry_source(file)`, or remove the layout");
            // A variant may add the stage (`VariantBuilder::source`).
            if info.specialize.is_some() {
                d.severity = crate::diagnostic::Severity::Warning;
            }
            c.diags.push(d);
        }
    }
    if let Some(sp) = &info.specialize
        && info.branches.is_empty()
    {
        c.err(
            Code::Branch,
            "specialize".into(),
            sp,
            "a specialize function is declared but the info has no branches: it would never run".into(),
            "declare the branches it reads with `.branch(\"NAME\")`, or remove the specialize function",
        );
    }
    // Interface locations between stages.
    for &stage in &stages {
        for dir in [
            crate::interfaces::Direction::In,
            crate::interfaces::Direction::Out,
        ] {
            let blocks: Vec<_> = stage_blocks(info, stage)
                .into_iter()
                .filter(|b| b.direction == dir)
                .collect();
            let Some(last) = blocks.last() else { continue };
            let used = last.location + last.item.value.locations();
            if used <= GUARANTEED_INTERFACE_LOCATIONS {
                continue;
            }
            let what = format!(
                "the {stage} stage's {} use {used} locations",
                if dir == crate::interfaces::Direction::In {
                    "inputs"
                } else {
                    "outputs"
                }
            );
            let mut d = Diagnostic::new(
                if used > MAX_INTERFACE_LOCATIONS {
                    crate::diagnostic::Severity::Error
                } else {
                    crate::diagnostic::Severity::Warning
                },
                Code::OutOfRange,
                &info.name,
                if used > MAX_INTERFACE_LOCATIONS {
                    format!("{what}, past the {MAX_INTERFACE_LOCATIONS} any device allows (Vulkan guarantees {GUARANTEED_INTERFACE_LOCATIONS})")
                } else {
                    format!("{what}, past the {GUARANTEED_INTERFACE_LOCATIONS} Vulkan guarantees (desktop devices allow {MAX_INTERFACE_LOCATIONS})")
                },
            )
            .item(format!("{} `{}`", last.list, last.item.value.name))
            .at(&last.item.declared_in, last.item.origin)
            .hint("pack the data: a vec4 takes one location, a float too; merge scalars into vectors");
            d.stage = Some(stage);
            c.diags.push(d);
        }
    }
    for it in &info.resources {
        if !matches!(it.value.kind, ResourceKind::UniformBuffer { .. }) {
            continue;
        }
        let Some(Ok(layout)) = it.value.block_layout(c.opts.registry) else {
            continue;
        };
        if u64::from(layout.size) > GUARANTEED_UNIFORM_BUFFER_BYTES {
            c.diags.push(
                Diagnostic::warning(
                    Code::OutOfRange,
                    &info.name,
                    format!(
                        "uniform_buf `{}` is {} bytes, past the {GUARANTEED_UNIFORM_BUFFER_BYTES} Vulkan guarantees for a uniform buffer (typical devices: {TYPICAL_UNIFORM_BUFFER_BYTES})",
                        it.value.name, layout.size
                    ),
                )
                .item(format!("uniform_buf `{}`", it.value.name))
                .at(&it.declared_in, it.origin)
                .hint("fine where the device's maxUniformBufferRange allows it; a storage_buf has no such limit"),
            );
        }
    }
}

#[cfg(test)]
mod names_tests {
    use crate::Type;
    use crate::glsl_names::GLSL_TYPE_NAMES;

    /// The shared name list (also read by the derive macros) knows every type the DSL can declare.
    #[test]
    fn every_declarable_type_is_a_reserved_name() {
        for t in Type::ALL {
            assert!(
                GLSL_TYPE_NAMES.contains(&t.glsl_name()),
                "{}",
                t.glsl_name()
            );
        }
    }
}
