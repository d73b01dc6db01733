//! Resolution of `additional_info`: one flat, immutable info with every item of the info and the infos it reuses.
//!
//! Depth-first, in declaration order: the info's own items come first, then each dependency's (recursively).
//! Identical items reached twice (diamond-shaped reuse) are kept once. Singular items (a stage source, the local
//! group size, the geometry layout, …) may be declared by several infos only with the same value; otherwise the
//! conflict is an error naming both infos.
//!
//! What follows from the flattened declaration alone is derived here too, once, before validation sees it: the
//! bindings, the sampled images that emulate subpass inputs, and which conditional resources are present.

use crate::constant::{ConstValue, SharedConstant};
use crate::diagnostic::{Code, Diagnostic};
use crate::info::ShaderCreateInfo;
use crate::item::Item;
use crate::registry::Registry;
use crate::render_state::StateItem;
use crate::resource::{Resource, ResourceKind, SlotSpace, derive_bindings};
use crate::sampler_state::SamplerState;
use crate::types::Frequency;
use std::collections::HashSet;
use std::ops::Deref;

/// An info with its `additional_info` chain flattened in. Immutable: everything downstream works on this.
#[derive(Clone, Debug, PartialEq)]
pub struct ResolvedInfo {
    info: ShaderCreateInfo,
    composed_of: Vec<String>,
}

impl ResolvedInfo {
    /// Every info that contributed, the resolved one first, in depth-first order.
    pub fn composed_of(&self) -> &[String] {
        &self.composed_of
    }

    /// The flattened declaration.
    pub fn info(&self) -> &ShaderCreateInfo {
        &self.info
    }

    /// Builds a resolved info from an info that has no `additional_info` (used by variants, which add defines or
    /// swap sources after resolution).
    pub fn with_changes(&self, change: impl FnOnce(&mut ShaderCreateInfo)) -> ResolvedInfo {
        let mut info = self.info.clone();
        change(&mut info);
        ResolvedInfo {
            info,
            composed_of: self.composed_of.clone(),
        }
    }

    /// Whether an array size of a resource, shared variable or push constant is still a name resolution could not
    /// turn into a number (a macro of a shared header: Blender's `drw_view_buf[DRW_VIEW_LEN]`).
    pub fn has_named_sizes(&self) -> bool {
        let named = |name: &str| {
            name.split('[').skip(1).any(|seg| {
                let inner = seg.trim_end_matches(']').trim();
                !inner.is_empty() && inner.parse::<u32>().is_err()
            })
        };
        self.resources.iter().any(|r| named(&r.value.name))
            || self
                .conditional_resources
                .iter()
                .filter_map(|c| c.value.resource.as_ref().ok())
                .any(|r| named(&r.name))
            || self.shared_variables.iter().any(|v| named(&v.value.name))
            || self.push_constants.iter().any(|p| named(&p.value.name))
    }

    /// This info with the array sizes still named (see [`ResolvedInfo::has_named_sizes`]) taken from `headers`, the
    /// numeric macros (`#define DRW_VIEW_LEN 1`) of the shared headers its stages include before the resources.
    pub fn with_header_sizes(&self, headers: &[(String, u32)]) -> ResolvedInfo {
        self.with_changes(|info| size_by_constants_and(info, headers))
    }
}

impl Deref for ResolvedInfo {
    type Target = ShaderCreateInfo;
    fn deref(&self) -> &ShaderCreateInfo {
        &self.info
    }
}

impl Registry {
    /// Resolves `additional_info` of the named info (see [`crate::resolve`]).
    pub fn resolve(&self, name: &str) -> Result<ResolvedInfo, Vec<Diagnostic>> {
        resolve(self, name)
    }
}

/// Resolves `name` against `registry`, reporting every problem found on the way.
pub fn resolve(registry: &Registry, name: &str) -> Result<ResolvedInfo, Vec<Diagnostic>> {
    let Some(root) = registry.info(name) else {
        return Err(vec![
            Diagnostic::error(
                Code::UnknownInfo,
                name,
                format!("no info named `{name}` is registered"),
            )
            .hint(suggest(registry, name)),
        ]);
    };
    let mut out = ShaderCreateInfo {
        name: root.name.clone(),
        origin: root.origin,
        do_static_compilation: root.do_static_compilation,
        twin: root.twin.clone(),
        ..Default::default()
    };
    let mut twin_problem = None;
    if let Some(t) = &root.twin {
        let hint = if t.value == root.name {
            Some((
                "an info cannot be its own twin".to_string(),
                "name the info that replaces it".to_string(),
            ))
        } else if registry.info(&t.value).is_none() {
            Some((
                format!("`{name}` names twin `{}`, which is not registered", t.value),
                suggest(registry, &t.value),
            ))
        } else {
            None
        };
        if let Some((message, hint)) = hint {
            twin_problem = Some(
                Diagnostic::error(Code::UnknownInfo, name, message)
                    .item(format!("twin(\"{}\")", t.value))
                    .at(&t.declared_in, t.origin)
                    .hint(hint),
            );
        }
    }
    let mut r = Resolver {
        registry,
        root: name,
        visited: HashSet::new(),
        stack: Vec::new(),
        on_stack: HashSet::new(),
        steps: 0,
        diags: Vec::new(),
        order: Vec::new(),
    };
    r.visit(root, &mut out);
    r.diags.extend(twin_problem);
    size_by_constants(&mut out);
    if out.blender_prelude {
        blender_buffer_types(&mut out);
    }
    // Blender numbers slots per kind (sampler 0 beside storage buffer 0): a port written as Blender's info is
    // numbered as Blender numbers it, unless it says otherwise.
    let space = out.slot_space.as_ref().map_or_else(
        || match out.blender_prelude {
            true => SlotSpace::PerKind,
            false => SlotSpace::default(),
        },
        |s| s.value,
    );
    // Conditional resources get their bindings with the others, so every variant binds alike.
    derive_bindings(
        &mut out
            .resources
            .iter_mut()
            .map(|r| &mut r.value)
            .chain(
                out.conditional_resources
                    .iter_mut()
                    .filter_map(|c| c.value.resource.as_mut().ok()),
            )
            .collect::<Vec<_>>(),
        space,
    );
    emulating_resources(&mut out);
    apply_conditions(&mut out);
    for c in &mut out.specialization_constants {
        c.value.id = registry.constant_id(&c.declared_in, &c.value.name);
    }
    if r.diags.is_empty() {
        Ok(ResolvedInfo {
            info: out,
            composed_of: r.order,
        })
    } else {
        Err(r.diags)
    }
}

/// Adds the emulating sampled image of each subpass input: set 0, bindings after every declared one (conditional
/// ones too, so all variants bind alike), read with a nearest sampler fixed by the declaration.
fn emulating_resources(info: &mut ShaderCreateInfo) {
    let set = Frequency::Pass.set();
    let mut next = info
        .resources
        .iter()
        .map(|r| &r.value)
        .chain(
            info.conditional_resources
                .iter()
                .filter_map(|c| c.value.resource.as_ref().ok()),
        )
        .filter(|r| r.set() == set)
        .map(|r| r.binding.saturating_add(1))
        .max()
        .unwrap_or(0);
    for it in &info.subpass_inputs {
        info.resources.push(Item {
            value: Resource {
                slot: next,
                binding: next,
                frequency: Frequency::Pass,
                name: it.value.resource_name(),
                kind: ResourceKind::Sampler {
                    image_type: it.value.image_type(),
                    state: Some(SamplerState::nearest()),
                },
            },
            declared_in: it.declared_in.clone(),
            origin: it.origin,
        });
        next = next.saturating_add(1);
    }
}

/// Puts into `info.resources` exactly the conditional resources whose condition holds for the info's branch values
/// (a branch not listed is false) and boolean shared constants; the others are pruned.
pub(crate) fn apply_conditions(info: &mut ShaderCreateInfo) {
    if info.conditional_resources.is_empty() {
        return;
    }
    let holds = conditions_holding(
        info,
        |name| info.branch_values.iter().any(|(n, v)| n == name && *v),
        |c| c.value,
    );
    let present: Vec<Item<Resource>> = info
        .conditional_resources
        .iter()
        .zip(holds)
        .filter(|(_, holds)| *holds)
        .filter_map(|(it, _)| {
            Some(Item {
                value: it.value.resource.clone().ok()?,
                declared_in: it.declared_in.clone(),
                origin: it.origin,
            })
        })
        .collect();
    let conditional: Vec<Resource> = info
        .conditional_resources
        .iter()
        .filter_map(|it| it.value.resource.clone().ok())
        .collect();
    info.resources.retain(|r| !conditional.contains(&r.value));
    info.resources.extend(present);
}

/// Whether the condition of each of `info`'s conditional resources holds: a name in a condition is true where
/// `branch_on` says that branch is on, or where a shared constant of that name has the boolean value `true`
/// (`value_of` gives a constant's value, a variant's override before it is applied). The one rule for resolution
/// and for grouping variants ([`crate::VariantSet::branch_twins`]).
pub(crate) fn conditions_holding(
    info: &ShaderCreateInfo,
    branch_on: impl Fn(&str) -> bool,
    value_of: impl Fn(&SharedConstant) -> ConstValue,
) -> Vec<bool> {
    let on = |name: &str| {
        branch_on(name)
            || info
                .constants
                .iter()
                .any(|c| c.value.name == name && value_of(&c.value) == ConstValue::Bool(true))
    };
    info.conditional_resources
        .iter()
        .map(|it| it.value.condition.eval(&on))
        .collect()
}

/// Buffer types written in Blender's dialect (`float4`, `uint2`, `float4x4`, …) under their GLSL names, which the
/// Blender prelude makes them: everything after resolution (layouts, reflection, translations) reads one name.
fn blender_buffer_types(out: &mut ShaderCreateInfo) {
    let conditional = out
        .conditional_resources
        .iter_mut()
        .filter_map(|c| c.value.resource.as_mut().ok());
    for r in out
        .resources
        .iter_mut()
        .map(|r| &mut r.value)
        .chain(conditional)
    {
        if let ResourceKind::UniformBuffer { type_name }
        | ResourceKind::StorageBuffer { type_name, .. } = &mut r.kind
            && let Some(glsl) = crate::blender::blender_type_alias(type_name)
        {
            *type_name = glsl.to_string();
        }
    }
}

/// Resolves array sizes that name a value the info knows (`views[VIEW_COUNT]` → `views[4]`): a shared constant, an
/// integer `define_value`, or `gl_WorkGroupSize.x`/`.y`/`.z` of the declared work group; every bracket of a
/// multi-dimensional shared array (`tile[TILE][TILE]`). Every later step (layouts, descriptor counts, generation)
/// then sees numbers. A push constant sized so (`params[N]`) gets its array size. A name that is no positive
/// integer is left as written, for validation to report.
fn size_by_constants(info: &mut ShaderCreateInfo) {
    size_by_constants_and(info, &[]);
}

/// [`size_by_constants`], then the numeric macros of `headers` for the sizes still named: the info's own defines
/// come first, as a header's `#if !defined(NAME)` default comes after them in the generated text.
fn size_by_constants_and(info: &mut ShaderCreateInfo, headers: &[(String, u32)]) {
    let constants = info.constants.clone();
    // A header's number counts only for a name the info does not define: a define of another value (`4u`, another
    // macro) comes first in the text, and the header's `#if !defined(NAME)` default is then not what compiles.
    let defined = |name: &str| info.defines.iter().any(|d| d.value.macro_name() == name);
    let defines: Vec<(String, u32)> = info
        .defines
        .iter()
        .filter_map(|d| {
            let value = d.value.value.as_deref()?.trim();
            let n = value.trim_end_matches(['u', 'U']).parse::<u32>().ok()?;
            (n > 0 && d.value.params().is_none()).then(|| (d.value.macro_name().to_string(), n))
        })
        .chain(
            headers
                .iter()
                .filter(|(name, n)| *n > 0 && !defined(name))
                .cloned(),
        )
        .collect();
    let group = info.local_group_size.as_ref().map(|g| g.value);
    let mut used: Vec<String> = Vec::new();
    let mut value_of = |inner: &str| -> Option<u32> {
        if let Some(n) = constants
            .iter()
            .find(|c| c.value.name == inner)
            .and_then(|c| c.value.as_size())
        {
            if !used.iter().any(|u| u == inner) {
                used.push(inner.to_string());
            }
            return Some(n);
        }
        if let Some((_, n)) = defines.iter().find(|(name, _)| name == inner) {
            return Some(*n);
        }
        let axis = match inner.strip_prefix("gl_WorkGroupSize.")? {
            "x" => 0,
            "y" => 1,
            "z" => 2,
            _ => return None,
        };
        group.map(|g| g[axis]).filter(|n| *n > 0)
    };
    let mut sized = |name: &mut String| {
        let Some(open) = name.find('[') else { return };
        let mut out = name[..open].to_string();
        for segment in name[open..].split_inclusive(']') {
            let inner = segment.trim_start_matches('[').trim_end_matches(']').trim();
            match inner.parse::<u32>().ok().or_else(|| value_of(inner)) {
                Some(n) if segment.starts_with('[') && segment.ends_with(']') => {
                    out.push_str(&format!("[{n}]"))
                }
                _ => return,
            }
        }
        *name = out;
    };
    info.resources
        .iter_mut()
        .for_each(|r| sized(&mut r.value.name));
    info.conditional_resources
        .iter_mut()
        .filter_map(|c| c.value.resource.as_mut().ok())
        .for_each(|r| sized(&mut r.name));
    info.shared_variables
        .iter_mut()
        .for_each(|v| sized(&mut v.value.name));
    for pc in info.push_constants.iter_mut().map(|p| &mut p.value) {
        sized(&mut pc.name);
        if pc.array_size.is_none()
            && let Ok((base, crate::resource::ArraySize::Fixed(n))) =
                crate::resource::split_array_name(&pc.name)
        {
            let base = base.to_string();
            pc.name = base;
            pc.array_size = Some(n);
        }
    }
    info.size_constants = used;
}

fn suggest(registry: &Registry, name: &str) -> String {
    suggest_except(registry, name, None)
}

/// `did you mean …`, leaving out `referrer` (an info does not mean itself) and saying nothing close for an empty
/// or very short name, which every name "contains".
fn suggest_except(registry: &Registry, name: &str, referrer: Option<&str>) -> String {
    if name.trim().is_empty() {
        return "write the name of the info to reuse, e.g. `additional_info(\"gpu_view_uniforms\")`".to_string();
    }
    let close: Vec<&str> = registry
        .infos()
        .map(|i| i.name.as_str())
        .filter(|n| Some(*n) != referrer)
        .filter(|n| {
            (name.len() >= 3 && (n.contains(name) || name.contains(*n)))
                || edit_distance(n, name) <= 3.min(name.len().saturating_sub(1))
        })
        .take(3)
        .collect();
    if close.is_empty() {
        "check the spelling, and that the crate declaring it is linked (`use shaders as _;`)"
            .to_string()
    } else {
        format!(
            "did you mean {}?",
            close
                .iter()
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        )
    }
}

pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

struct Resolver<'a> {
    registry: &'a Registry,
    root: &'a str,
    visited: HashSet<String>,
    stack: Vec<String>,
    /// The names on `stack`, so that the cycle test per edge is constant time (a search of `stack` made resolving
    /// a chain quadratic in its depth).
    on_stack: HashSet<String>,
    /// Edges followed and names tested: linear in the size of the graph (kept for the test that says so).
    steps: u64,
    diags: Vec<Diagnostic>,
    order: Vec<String>,
}

fn merge_list<T: PartialEq + Clone>(dst: &mut Vec<Item<T>>, src: &[Item<T>]) {
    for it in src {
        if !dst.iter().any(|d| d.value == it.value) {
            dst.push(it.clone());
        }
    }
}

impl<'a> Resolver<'a> {
    fn merge_singular<T: PartialEq + Clone + std::fmt::Debug>(
        &mut self,
        what: &str,
        dst: &mut Option<Item<T>>,
        src: &Option<Item<T>>,
    ) {
        let Some(new) = src else { return };
        match dst {
            None => *dst = Some(new.clone()),
            Some(old) if old.value == new.value => {}
            Some(old) => self.diags.push(
                Diagnostic::error(
                    Code::SingularConflict,
                    self.root,
                    format!(
                        "{what} is declared twice with different values: {:?} in `{}` and {:?} in `{}`",
                        old.value, old.declared_in, new.value, new.declared_in
                    ),
                )
                .item(what.to_string())
                .at(&new.declared_in, new.origin)
                .related(format!("first declared in `{}`", old.declared_in), old.origin)
                .hint(match what {
                    // A derive declares per-set slots itself: its binding constants name them.
                    "slot numbering" => {
                        "infos composed together number their slots one way: a #[derive(ShaderInfo)] (or \
                         slots_per_set) names its slots as bindings, so number the other info per set (drop its \
                         slots_per_kind), or declare the composed info with the builder"
                    }
                    _ => "an info has at most one of these: keep one declaration, or split the infos",
                }),
            ),
        }
    }

    /// Render state: one declaration per slot (a blend per location, one depth test, …); the same slot declared
    /// differently by two infos is a conflict naming both. Within one info a later call replaces an earlier one.
    fn merge_state(&mut self, dst: &mut Vec<Item<StateItem>>, src: &[Item<StateItem>]) {
        let mut own: Vec<&Item<StateItem>> = Vec::new();
        for it in src {
            own.retain(|o| o.value.slot() != it.value.slot());
            own.push(it);
        }
        for new in own {
            match dst.iter().find(|d| d.value.slot() == new.value.slot()) {
                None => dst.push(new.clone()),
                Some(old) if old.value == new.value => {}
                Some(old) => {
                    let old = old.clone();
                    self.diags.push(
                        Diagnostic::error(
                            Code::SingularConflict,
                            self.root,
                            format!(
                                "render state is declared twice with different values: `{}` in `{}` and `{}` in `{}`",
                                old.value.describe(),
                                old.declared_in,
                                new.value.describe(),
                                new.declared_in
                            ),
                        )
                        .item(new.value.describe())
                        .at(&new.declared_in, new.origin)
                        .related(format!("first declared in `{}`", old.declared_in), old.origin)
                        .hint("declare each piece of render state once along the additional_info chain, or change it per variant in the specialize function"),
                    );
                }
            }
        }
    }

    /// Depth-first over the `additional_info` graph with an explicit stack: a chain of any length is walked
    /// without recursion, so a long one cannot overflow the thread's stack (an abort that would take the host
    /// application down).
    fn visit(&mut self, root: &'a ShaderCreateInfo, out: &mut ShaderCreateInfo) {
        self.enter(root, out);
        let mut frames: Vec<(&'a ShaderCreateInfo, usize)> = vec![(root, 0)];
        while let Some((info, next)) = frames.last_mut() {
            self.steps += 1;
            let Some(dep) = info.additional_infos.get(*next) else {
                frames.pop();
                if let Some(name) = self.stack.pop() {
                    self.on_stack.remove(&name);
                }
                continue;
            };
            *next += 1;
            let dep_name = &dep.value;
            if self.on_stack.contains(dep_name.as_str()) {
                let pos = self.stack.iter().position(|s| s == dep_name).unwrap_or(0);
                let mut cycle: Vec<&str> = self.stack[pos..].iter().map(String::as_str).collect();
                cycle.push(dep_name);
                self.diags.push(
                    Diagnostic::error(
                        Code::AdditionalInfoCycle,
                        self.root,
                        format!("additional_info forms a cycle: {}", cycle.join(" → ")),
                    )
                    .item(format!("additional_info(\"{dep_name}\")"))
                    .at(&dep.declared_in, dep.origin)
                    .hint("remove one of the additional_info calls in the cycle"),
                );
                continue;
            }
            if self.visited.contains(dep_name) {
                continue;
            }
            match self.registry.info(dep_name) {
                Some(d) => {
                    self.enter(d, out);
                    frames.push((d, 0));
                }
                None => self.diags.push(
                    Diagnostic::error(
                        Code::UnknownInfo,
                        self.root,
                        if dep_name.trim().is_empty() {
                            format!(
                                "`{}` calls additional_info with an empty name",
                                dep.declared_in
                            )
                        } else {
                            format!("`{}` refers to unknown info `{dep_name}`", dep.declared_in)
                        },
                    )
                    .item(format!("additional_info(\"{dep_name}\")"))
                    .at(&dep.declared_in, dep.origin)
                    .hint(suggest_except(
                        self.registry,
                        dep_name,
                        Some(&dep.declared_in),
                    )),
                ),
            }
        }
    }

    /// Merges one info's own items into `out` and puts it on the walk's path.
    fn enter(&mut self, info: &ShaderCreateInfo, out: &mut ShaderCreateInfo) {
        // A branch named twice in one info is a slip (the same name reached through two infos is one branch).
        for (i, b) in info.branches.iter().enumerate() {
            if info.branches[..i].iter().any(|f| f.value == b.value) {
                self.diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        self.root,
                        format!("`{}` declares branch `{}` twice", info.name, b.value),
                    )
                    .item(format!("branch `{}`", b.value))
                    .at(&b.declared_in, b.origin)
                    .hint("each branch is one bit of the permutation: declare it once"),
                );
            }
        }
        self.visited.insert(info.name.clone());
        self.on_stack.insert(info.name.clone());
        self.stack.push(info.name.clone());
        self.order.push(info.name.clone());

        merge_list(&mut out.vertex_inputs, &info.vertex_inputs);
        merge_list(&mut out.vertex_out, &info.vertex_out);
        merge_list(&mut out.geometry_out, &info.geometry_out);
        merge_list(&mut out.tess_control_out, &info.tess_control_out);
        merge_list(&mut out.tess_patch_out, &info.tess_patch_out);
        merge_list(&mut out.tess_evaluation_out, &info.tess_evaluation_out);
        merge_list(&mut out.fragment_outputs, &info.fragment_outputs);
        merge_list(&mut out.push_constants, &info.push_constants);
        merge_list(&mut out.resources, &info.resources);
        merge_list(&mut out.conditional_resources, &info.conditional_resources);
        merge_list(&mut out.entry_points, &info.entry_points);
        merge_list(&mut out.subpass_inputs, &info.subpass_inputs);
        merge_list(
            &mut out.specialization_constants,
            &info.specialization_constants,
        );
        merge_list(&mut out.defines, &info.defines);
        merge_list(&mut out.constants, &info.constants);
        merge_list(&mut out.shared_variables, &info.shared_variables);
        merge_list(&mut out.typedef_sources, &info.typedef_sources);
        merge_list(&mut out.branches, &info.branches);
        merge_list(&mut out.skipped_targets, &info.skipped_targets);
        self.merge_state(&mut out.render_state, &info.render_state);
        out.builtins |= info.builtins;
        out.blender_prelude |= info.blender_prelude || self.registry.blender_prelude();
        self.merge_singular(
            "geometry_layout",
            &mut out.geometry_layout,
            &info.geometry_layout,
        );
        self.merge_singular(
            "local_group_size",
            &mut out.local_group_size,
            &info.local_group_size,
        );
        self.merge_singular("depth_write", &mut out.depth_write, &info.depth_write);
        self.merge_singular(
            "tessellation_layout",
            &mut out.tessellation_layout,
            &info.tessellation_layout,
        );
        self.merge_singular("slot numbering", &mut out.slot_space, &info.slot_space);
        self.merge_singular("specialize", &mut out.specialize, &info.specialize);
        self.merge_singular(
            "early_fragment_test",
            &mut out.early_fragment_test,
            &info.early_fragment_test,
        );
        for src in &info.sources {
            let stage = src.value.0;
            match out.sources.iter().position(|s| s.value.0 == stage) {
                None => out.sources.push(src.clone()),
                Some(i) => {
                    let mut first = Some(out.sources[i].clone());
                    self.merge_singular(
                        &format!("{}_source", stage_word(stage)),
                        &mut first,
                        &Some(src.clone()),
                    );
                }
            }
        }
    }
}

fn stage_word(stage: crate::Stage) -> &'static str {
    use crate::Stage::*;
    match stage {
        Vertex => "vertex",
        TessControl => "tess_control",
        TessEvaluation => "tess_evaluation",
        Geometry => "geometry",
        Fragment => "fragment",
        Compute => "compute",
        RayGen => "raygen",
        Miss => "miss",
        ClosestHit => "closest_hit",
        AnyHit => "any_hit",
        Intersection => "intersection",
        Callable => "callable",
    }
}

#[cfg(test)]
mod tests {
    use crate::*;

    fn reg(infos: Vec<ShaderCreateInfo>) -> Registry {
        let mut r = Registry::new();
        for i in infos {
            r.add_info(i);
        }
        r
    }

    #[test]
    fn own_items_first_then_dependencies_depth_first() {
        let r = reg(vec![
            ShaderCreateInfo::new("a")
                .define("A")
                .additional_info("b")
                .additional_info("c"),
            ShaderCreateInfo::new("b").define("B").additional_info("d"),
            ShaderCreateInfo::new("c").define("C").additional_info("d"),
            ShaderCreateInfo::new("d").define("D"),
        ]);
        let res = r.resolve("a").unwrap();
        let names: Vec<&str> = res.defines.iter().map(|d| d.value.name.as_str()).collect();
        assert_eq!(names, ["A", "B", "D", "C"]);
        assert_eq!(res.composed_of(), ["a", "b", "d", "c"]);
        assert_eq!(res.defines[2].declared_in, "d");
    }

    #[test]
    fn cycle_is_printed() {
        let r = reg(vec![
            ShaderCreateInfo::new("a").additional_info("b"),
            ShaderCreateInfo::new("b").additional_info("c"),
            ShaderCreateInfo::new("c").additional_info("a"),
        ]);
        let e = r.resolve("a").unwrap_err();
        assert_eq!(e[0].code, Code::AdditionalInfoCycle);
        assert!(e[0].message.contains("a → b → c → a"), "{}", e[0]);
    }

    #[test]
    fn unknown_names_the_referrer() {
        let r = reg(vec![
            ShaderCreateInfo::new("a").additional_info("b"),
            ShaderCreateInfo::new("b").additional_info("nope"),
        ]);
        let e = r.resolve("a").unwrap_err();
        assert_eq!(e[0].code, Code::UnknownInfo);
        assert!(
            e[0].message.contains("`b` refers to unknown info `nope`"),
            "{}",
            e[0]
        );
        assert_eq!(e[0].declared_in.as_deref(), Some("b"));
    }

    #[test]
    fn singular_conflict_names_both_infos() {
        let r = reg(vec![
            ShaderCreateInfo::new("a")
                .vertex_source("a.glsl")
                .additional_info("b"),
            ShaderCreateInfo::new("b")
                .vertex_source("b.glsl")
                .local_group_size(8),
        ]);
        let e = r.resolve("a").unwrap_err();
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].code, Code::SingularConflict);
        assert!(
            e[0].message.contains("`a`") && e[0].message.contains("`b`"),
            "{}",
            e[0]
        );
    }

    #[test]
    fn same_singular_value_is_not_a_conflict() {
        let r = reg(vec![
            ShaderCreateInfo::new("a")
                .local_group_size(8)
                .additional_info("b"),
            ShaderCreateInfo::new("b").local_group_size(8),
        ]);
        assert!(r.resolve("a").is_ok());
    }

    /// Resolving a chain takes steps linear in its depth (issue #29: a search of the walk's path per edge made
    /// 200,000 links take 46 s). Counted, not timed.
    #[test]
    fn resolving_a_long_chain_takes_linear_steps() {
        let n = 200_000usize;
        let mut r = Registry::new();
        for i in 0..n {
            let mut info = ShaderCreateInfo::new(format!("link{i}"));
            if i + 1 < n {
                info = info.additional_info(format!("link{}", i + 1));
            }
            r.add_info(info);
        }
        let root = r.info("link0").unwrap();
        let mut out = ShaderCreateInfo::default();
        let mut walk = super::Resolver {
            registry: &r,
            root: "link0",
            visited: Default::default(),
            stack: Vec::new(),
            on_stack: Default::default(),
            steps: 0,
            diags: Vec::new(),
            order: Vec::new(),
        };
        walk.visit(root, &mut out);
        assert!(walk.diags.is_empty());
        assert_eq!(walk.order.len(), n);
        assert!(walk.steps <= 2 * n as u64 + 1, "{} steps", walk.steps);
        assert!(walk.stack.is_empty() && walk.on_stack.is_empty());
    }

    #[test]
    fn duplicate_registration_is_reported() {
        let r = reg(vec![ShaderCreateInfo::new("a"), ShaderCreateInfo::new("a")]);
        assert_eq!(r.problems().len(), 1);
        assert_eq!(r.problems()[0].code, Code::DuplicateInfo);
    }
}
