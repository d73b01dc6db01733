//! Validation of a resolved info: every problem at once, as typed diagnostics; and [`ValidatedInfo`], the proof
//! that an info passed it, which is what generation and the pipeline plan take.
//!
//! One file per concern (the way naga's `valid/` is cut); each check reads the info through one `Checker` and
//! pushes what it finds. This file runs them in a fixed order, which is the order of the diagnostics.

mod branches;
mod checker;
mod compute;
mod constants;
mod device_limits;
mod hostile;
mod interfaces;
mod names;
mod render_state;
mod resources;
mod shared_types;
mod stages;

use checker::Checker;
pub use checker::ValidateOptions;
pub use hostile::unsafe_text_problem;
pub use names::identifier_problem;
pub use render_state::StateFacts;
pub(crate) use render_state::state_problems;

use crate::diagnostic::{Code, Diagnostic};
use crate::registry::Registry;
use crate::resolve::ResolvedInfo;
use crate::rust_twin::rust_twin_problems_of;
use crate::variants::VariantSet;
use std::ops::Deref;

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
    resources::check_resources(&mut c);
    interfaces::check_vertex_inputs(&mut c);
    interfaces::check_fragment_outputs(&mut c);
    interfaces::check_interfaces(&mut c);
    resources::check_push_constants(&mut c);
    constants::check_constants_and_defines(&mut c);
    names::check_names(&mut c);
    stages::check_stages(&mut c);
    branches::check_branches(&mut c);
    stages::check_builtins(&mut c);
    branches::check_conditions(&mut c);
    stages::check_entry_points(&mut c);
    resources::check_subpass_inputs(&mut c);
    hostile::check_hostile(&mut c);
    device_limits::check_limits(&mut c);
    c.diags.extend(render_state::check_render_state(info));
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
    /// Struct names its typedef sources define ([`ValidateOptions::extra_type_names`]), kept for validating its
    /// variants.
    extra_type_names: Vec<String>,
    /// [`ValidatedInfo::code_id`].
    code: CodeId,
}

/// Which declaration a validated info is, but for branch values and render state ([`ValidatedInfo::code_id`]): not
/// part of its value, so that a variant derived from a twin equals the variant validated alone.
#[derive(Clone, Copy)]
struct CodeId(u64);

impl CodeId {
    fn fresh() -> CodeId {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        CodeId(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl PartialEq for CodeId {
    fn eq(&self, _: &CodeId) -> bool {
        true
    }
}

impl std::fmt::Debug for CodeId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CodeId")
    }
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
                extra_type_names: opts.extra_type_names.to_vec(),
                code: CodeId::fresh(),
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
            extra_type_names: self.extra_type_names.clone(),
            code: CodeId::fresh(),
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
        let label = set.label(index);
        let opts = ValidateOptions {
            registry,
            extra_type_names: &self.extra_type_names,
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

    /// Unique variant `index` of `set` (this info's variants), derived from `twin`, a validated variant of `set`
    /// whose info differs from it only in branch values and render state ([`VariantSet::branch_twins`]): the same
    /// as [`ValidatedInfo::variant`] (with the builtins `twin` found in the text they share), with only the render
    /// state checked again. No other check reads branch values or render state (the generated text reads branch
    /// values in one section: [`crate::GeneratedStage::with_branches`]), so in an ubershader whose variants differ
    /// in their branches' values only, one variant is validated and generated instead of each. `None` where
    /// `twin` is no such variant: validate `index` with [`ValidatedInfo::variant`].
    ///
    /// ```
    /// use shader_info::*;
    /// fn fold(v: &mut VariantBuilder) {
    ///     if v.get("BLEND") {
    ///         v.state(StateItem::Blend(Blend::Alpha));
    ///         v.set("BLEND", false);
    ///     }
    /// }
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("surface")
    ///     .branch("BLEND")
    ///     .branch("FOG")
    ///     .specialize(fold)
    ///     .fragment_out(0, Type::Vec4, "color")
    ///     .vertex_source("s.vert")
    ///     .fragment_source("s.frag"));
    /// let info = reg.validated("surface").unwrap();
    /// let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    /// let first = info.variant(&set, 0, &reg).unwrap();
    /// for i in 1..set.variants.len() {
    ///     let twin = info.branch_twin(&set, i, &first).unwrap();
    ///     assert_eq!(twin, info.variant(&set, i, &reg));
    /// }
    /// ```
    pub fn branch_twin(
        &self,
        set: &VariantSet,
        index: usize,
        twin: &ValidatedInfo,
    ) -> Option<Result<ValidatedInfo, Vec<Diagnostic>>> {
        let v = set.variants.get(index)?;
        let t = set.variants.get(twin.variant_index()?)?;
        if twin.name != self.name || v.changes() != t.changes() {
            return None;
        }
        // `twin` applied the same changes; what follows the branches is redone as `Variant::apply` does it.
        let info = twin.info.with_changes(|i| {
            i.branch_values = v.branch_values(&set.branches);
            crate::resolve::apply_conditions(i);
            i.render_state = self.info.render_state.clone();
            v.apply_state(&mut i.render_state, &self.info.name, self.info.origin);
        });
        // A conditional resource that follows the branches changes what everything else checks.
        if !info.same_but_branch_values_and_state(&twin.info) {
            return None;
        }
        let label = set.label(index);
        // Render state gives errors only: `twin`, valid, had none of its own to drop from its warnings.
        let errors = render_state::check_render_state(&info);
        if !errors.is_empty() {
            return Some(Err(errors
                .into_iter()
                .map(|d| d.variant(label.clone()))
                .collect()));
        }
        Some(Ok(ValidatedInfo {
            info,
            warnings: twin.warnings.clone(),
            variant: Some((index, label)),
            extra_type_names: twin.extra_type_names.clone(),
            // What it declares is `twin`'s.
            code: twin.code,
        }))
    }

    /// The resolved declaration.
    pub fn resolved(&self) -> &ResolvedInfo {
        &self.info
    }

    /// The declaration, for a transformation that keeps it valid (see [`ValidatedInfo::with_subpass_mode`]).
    pub(crate) fn resolved_mut(&mut self) -> &mut ResolvedInfo {
        self.code = CodeId::fresh();
        &mut self.info
    }

    /// Warnings validation found.
    pub fn warnings(&self) -> &[Diagnostic] {
        &self.warnings
    }

    /// Which declaration this is, but for branch values and render state: two validated infos with the same id declare
    /// the same resources, interfaces, constants, sources and everything else ([`ValidatedInfo::branch_twin`] gives a
    /// variant its twin's id); two ids that differ say nothing. What reads neither branch values nor render state
    /// (the check of a compiled module against its declaration) can be done once per id.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("s").branch("FOG").vertex_source("s.vert").fragment_source("s.frag"));
    /// let info = reg.validated("s").unwrap();
    /// let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    /// let off = info.variant(&set, 0, &reg).unwrap();
    /// let on = info.branch_twin(&set, 1, &off).unwrap().unwrap();
    /// assert_eq!(on.code_id(), off.code_id());
    /// assert_ne!(info.variant(&set, 1, &reg).unwrap().code_id(), off.code_id());
    /// ```
    pub fn code_id(&self) -> u64 {
        self.code.0
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
