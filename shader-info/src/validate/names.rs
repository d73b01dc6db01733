//! Names: GLSL identifiers, duplicates across kinds of items, and the names shared types take.

use super::checker::Checker;
use super::shared_types::check_shared_types;
use crate::diagnostic::{Code, Diagnostic};
use crate::interfaces::interface_lists;
use crate::layout::StructLookup;
use crate::origin::Origin;
use crate::resource::split_shared_name;
use crate::types::Stage;
use std::borrow::Cow;
use std::collections::HashMap;

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

/// One name an info puts into a GLSL namespace, borrowed from the declaration: the pass validates every variant
/// of an info, and owned copies of every name were most of that work.
struct Named<'a> {
    name: Cow<'a, str>,
    what: What<'a>,
    /// Where it is declared (an info, or the shared type it belongs to).
    decl: &'a str,
    origin: Origin,
}

fn named<'a>(name: &'a str, what: What<'a>, decl: &'a str, origin: Origin) -> Named<'a> {
    Named {
        name: Cow::Borrowed(name),
        what,
        decl,
        origin,
    }
}

/// Member `m` of the interface block `it`, named where its block was declared.
fn member_named<'a>(
    it: &'a crate::item::Item<crate::info::StageInterfaceInfo>,
    m: &'a crate::info::InterfaceMember,
) -> Named<'a> {
    named(
        &m.name,
        What::MemberOf(&it.value.name),
        &it.declared_in,
        m.origin,
    )
}

/// Whether two names are never declared in one stage: vertex inputs (per vertex or per instance) exist only in the
/// vertex stage and fragment outputs only in the fragment stage (`vertex_in "color"` or `instance_in "color"` and
/// `fragment_out "color"` is valid GLSL).
fn in_different_stages(a: &What, b: &What) -> bool {
    let input = |w: &What| {
        matches!(
            w,
            What::Item("vertex_in" | "instance_in") | What::StructField(..)
        )
    };
    let output = |w: &What| matches!(w, What::Item("fragment_out"));
    (input(a) && output(b)) || (output(a) && input(b))
}

/// What a name is, said only when it collides.
#[derive(Clone, Copy)]
enum What<'a> {
    Item(&'static str),
    /// The block of a buffer (`_<name>`): its kind and the buffer's name.
    BlockOf(&'static str, &'a str),
    FieldOf(&'a str),
    ValueOf(&'a str),
    MemberOf(&'a str),
    /// A static branch: `const bool <name>` in every stage.
    Branch,
    /// The `BRANCH_<name>` macro of a branch (see `generate::emit_branches`).
    MacroOf(&'a str),
    /// A shared enum: `#define <name> uint` (see `registry::EnumDef::glsl`).
    SharedEnum,
    /// A subpass input: `#define <name> subpassLoad(…)` (see `generate::emit_subpass_values`).
    SubpassInput,
    /// A name only the portable flavor (the translations' input) declares: what it is, and of which item.
    Portable(&'static str, &'a str),
    /// The instance name one stage gives a block (`<instance>_in`, `<block>_out`, see
    /// [`crate::interfaces::stage_blocks`]): the stage and the block.
    InstanceIn(Stage, &'a str),
    /// The geometry stage's macro `<instance>_out` for a block it passes through (see `generate::emit_interfaces`).
    AliasOf(&'a str),
    /// A vertex input declared from a field of a host struct (`vertex_struct`, `instance_struct`): its builder
    /// item and the struct.
    StructField(&'static str, &'static str),
}

impl What<'_> {
    /// For an item the generator writes as a macro, its kind and where the macro is written: defines, branch macros
    /// (`BRANCH_<name>`), shared enums (`#define <Enum> uint`, with the shared types: before the structs that use it
    /// and every block), subpass inputs' reads, the geometry stage's output aliases.
    fn as_macro(&self) -> Option<(&'static str, Written)> {
        Some(match self {
            What::Item("define") => ("define", Written::First),
            What::MacroOf(_) => ("branch macro", Written::First),
            What::SharedEnum => ("shared enum", Written::First),
            What::SubpassInput => ("subpass input", Written::BeforeBlocks),
            What::AliasOf(_) => ("geometry output macro", Written::Last),
            _ => return None,
        })
    }
}

impl std::fmt::Display for What<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            What::Item(w) => f.write_str(w),
            // The item as the user names it (`vertex_in `pos``); the struct is said where it helps (duplicates).
            What::StructField(item, _) => f.write_str(item),
            What::BlockOf(kind, base) => write!(f, "block of {kind} `{base}`"),
            What::FieldOf(ty) => write!(f, "field of shared struct `{ty}`"),
            What::ValueOf(ty) => write!(f, "value of shared enum `{ty}`"),
            What::MemberOf(iface) => write!(f, "member of interface `{iface}`"),
            What::Branch => f.write_str("branch"),
            What::MacroOf(branch) => write!(f, "macro of branch `{branch}`"),
            What::SharedEnum => f.write_str("shared enum"),
            What::SubpassInput => f.write_str("subpass_in"),
            What::Portable(kind, of) => write!(f, "{kind} `{of}`"),
            What::InstanceIn(stage, block) => {
                let stage = match stage {
                    Stage::TessControl => "tessellation control",
                    Stage::TessEvaluation => "tessellation evaluation",
                    _ => "geometry",
                };
                write!(
                    f,
                    "instance name the {stage} stage gives interface `{block}`"
                )
            }
            What::AliasOf(block) => write!(
                f,
                "geometry stage's macro for the output of interface `{block}`"
            ),
        }
    }
}

pub(super) fn check_names(c: &mut Checker) {
    let info = c.info;
    let reg = c.opts.registry;
    let shared = check_shared_types(c);
    // Everything that becomes a global GLSL name in some stage.
    let mut names: Vec<Named> = Vec::new();
    // Names that live inside a struct or block, apart from the globals, but that a macro rewrites all the same.
    let mut members: Vec<Named> = Vec::new();
    // First the names the generator writes whatever the user declared: the shared types this info emits (with
    // their enum constants) and the push-constant block, so that the declared item is the one reported.
    for (ty, origin) in &shared {
        let (ty, origin) = (ty.as_str(), *origin);
        if let Some(s) = reg.find_struct(ty) {
            for f in &s.fields {
                members.push(named(&f.name, What::FieldOf(ty), ty, origin));
            }
        }
        if let Some(e) = reg.enum_def(ty) {
            names.push(named(ty, What::SharedEnum, ty, origin));
            for (v, _) in &e.values {
                names.push(named(v, What::ValueOf(ty), ty, origin));
            }
        } else {
            names.push(named(ty, What::Item("shared struct"), ty, origin));
        }
    }
    // The structs the info's shared headers define (`typedef_source`): type names in every stage, which glslang
    // then refuses as the name of anything else.
    let typedef_origin = info
        .typedef_sources
        .first()
        .map_or(info.origin, |t| t.origin);
    let mut typedef_types: Vec<&String> = c.opts.extra_type_names.iter().collect();
    // One name, one type: a header may define a struct in both branches of an `#if`.
    typedef_types.sort_unstable();
    typedef_types.dedup();
    for ty in typedef_types {
        names.push(named(
            ty,
            What::Item("struct of a typedef_source"),
            &info.name,
            typedef_origin,
        ));
    }
    if !info.push_constants.is_empty() {
        names.push(named(
            crate::push_spill::PushConstantSpill::NAME,
            What::Item("the generated push-constant block"),
            &info.name,
            info.origin,
        ));
    }
    portable_names(info, &mut names);
    stage_instance_names(info, &mut names);
    for it in &info.resources {
        let base = it
            .value
            .split_name()
            .map_or(it.value.name.as_str(), |(b, _)| b);
        let word = it.value.kind.word();
        names.push(named(base, What::Item(word), &it.declared_in, it.origin));
        // A buffer's block is named `_<name>` (see `Resource::glsl_declaration`): a global name as well.
        if it.value.block_rules().is_some() {
            names.push(Named {
                name: Cow::Owned(format!("_{base}")),
                what: What::BlockOf(word, base),
                decl: &it.declared_in,
                origin: it.origin,
            });
        }
    }
    for it in &info.push_constants {
        names.push(named(
            &it.value.name,
            What::Item("push_constant"),
            &it.declared_in,
            it.origin,
        ));
    }
    for it in &info.specialization_constants {
        names.push(named(
            &it.value.name,
            What::Item("specialization_constant"),
            &it.declared_in,
            it.origin,
        ));
    }
    for it in &info.vertex_inputs {
        let item = it.value.rate.item();
        names.push(named(
            &it.value.name,
            it.value.host.map_or(What::Item(item), |h| {
                What::StructField(item, crate::vertex::short_name(h.struct_name))
            }),
            &it.declared_in,
            it.origin,
        ));
    }
    for it in &info.fragment_outputs {
        names.push(named(
            &it.value.name,
            What::Item("fragment_out"),
            &it.declared_in,
            it.origin,
        ));
    }
    // A define of a declared name would rewrite that declaration's identifier.
    for it in &info.defines {
        names.push(named(
            it.value.macro_name(),
            What::Item("define"),
            &it.declared_in,
            it.origin,
        ));
    }
    for it in &info.constants {
        names.push(named(
            &it.value.name,
            What::Item("constant"),
            &it.declared_in,
            it.origin,
        ));
    }
    for it in &info.shared_variables {
        let base = split_shared_name(&it.value.name).map_or(it.value.name.as_str(), |(b, _)| b);
        names.push(named(
            base,
            What::Item("shared_variable"),
            &it.declared_in,
            it.origin,
        ));
    }
    // A subpass input is read through the macro `#define <name> subpassLoad(…)` (or a `texelFetch`).
    for it in &info.subpass_inputs {
        names.push(named(
            &it.value.name,
            What::SubpassInput,
            &it.declared_in,
            it.origin,
        ));
    }
    // Last, so that a collision is reported at the branch: each becomes `const bool <name>` and the macro
    // `BRANCH_<name>` in every stage.
    for it in &info.branches {
        let name = it.value.as_str();
        names.push(named(name, What::Branch, &it.declared_in, it.origin));
        names.push(Named {
            name: Cow::Owned(format!("BRANCH_{name}")),
            what: What::MacroOf(name),
            decl: &it.declared_in,
            origin: it.origin,
        });
    }
    let globals = all_of_each(&names);
    // The members of an instance-named block live in its scope, apart from the globals, but a macro rewrites them
    // all the same.
    for (_, list) in interface_lists(info) {
        for it in list.iter().filter(|it| !it.value.instance_name.is_empty()) {
            let iface = &it.value;
            let mut seen: HashMap<&str, ()> = HashMap::new();
            for m in &iface.members {
                members.push(member_named(it, m));
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
    let interfaces = interface_globals(info);
    for local in &interfaces {
        // Each local name against the globals first, then against the earlier names of its list.
        let mut earlier: HashMap<&str, usize> = HashMap::new();
        for (i, n) in local.iter().enumerate() {
            let global = globals
                .get(n.name.as_ref())
                .and_then(|all| collision(all.iter().map(|&g| &names[g]), n));
            let first = global.or_else(|| earlier.get(n.name.as_ref()).map(|&j| &local[j]));
            match first {
                Some(first) if first.is_branch() => report_duplicate(c, n, first),
                Some(first) => report_duplicate(c, first, n),
                None => {}
            }
            earlier.entry(n.name.as_ref()).or_insert(i);
        }
    }
    // Each name against the earlier one it collides with ([`collision`]), not just the first of its name.
    let mut earlier: HashMap<&str, Vec<usize>> = HashMap::with_capacity(names.len());
    for (i, n) in names.iter().enumerate() {
        let seen = earlier.entry(n.name.as_ref()).or_default();
        if let Some(first) = collision(seen.iter().map(|&j| &names[j]), n) {
            report_duplicate(c, first, n);
        }
        seen.push(i);
    }
    // Each macro with where it is written: a member declared after it is rewritten in its declaration (glslang
    // refuses the stage: an error, or for the portable flavor a `translation` warning that refuses the
    // translations); one declared before it only where code reads it (a warning: that code does not compile).
    let macros = names
        .iter()
        .filter_map(|n| {
            let (kind, written) = n.what.as_macro()?;
            Some((n.name.as_ref(), kind, n.decl, n.origin, written))
        })
        // The portable flavor reads a combined sampler through the macro `<name>`, written with the resources.
        .chain(
            info.resources
                .iter()
                .filter(|r| r.value.splits_in_portable())
                .map(|it| {
                    let name = it.value.name.as_str();
                    (
                        name,
                        "sampler",
                        it.declared_in.as_str(),
                        it.origin,
                        Written::Portable,
                    )
                }),
        );
    let macros: Vec<_> = macros.collect();
    check_swizzle_macros(c, &macros);
    check_layout_words(c, &macros, &names);
    check_derived_lengths(c, names.iter().chain(interfaces.iter().flatten()));
    check_prelude_names(c, &macros, &names, &members, &interfaces);
    check_builtin_function_names(c, &names, &interfaces);
    for &(name, kind, declared_in, origin, written) in &macros {
        // Interface blocks come after every macro but the geometry alias; shared structs before all but defines.
        let in_declaration = |what: &What| match written {
            Written::First => true,
            Written::BeforeBlocks | Written::Portable => matches!(what, What::MemberOf(_)),
            Written::Last => false,
        };
        // The member whose declaration the macro rewrites, if any, else the first it rewrites where code reads
        // it: a struct field of the name came first and hid an interface member whose declaration breaks.
        let mut of_name = members.iter().filter(|m| m.name == name);
        let Some(m) = of_name
            .clone()
            .find(|m| in_declaration(&m.what))
            .or_else(|| of_name.next())
        else {
            continue;
        };
        let (what, decl) = (m.what, m.decl);
        let in_declaration = in_declaration(&what);
        let d = match (in_declaration, written) {
            (true, Written::Portable) => Diagnostic::warning(
                Code::Translation,
                &info.name,
                format!(
                    "sampler `{name}` is the macro `{name}` in the translations' GLSL (a texture and a sampler \
                     combined), which rewrites the declaration of the {what} `{name}` (in `{decl}`): every \
                     translation of `{}` fails on it, its SPIR-V does not",
                    info.name
                ),
            ),
            (true, _) => Diagnostic::error(
                Code::DuplicateName,
                &info.name,
                format!(
                    "{kind} `{name}` would rewrite the {what} `{name}` (in `{decl}`): a macro replaces every token \
                     of its name"
                ),
            ),
            (false, _) => Diagnostic::warning(
                Code::DuplicateName,
                &info.name,
                format!(
                    "{kind} `{name}` is a macro{} that rewrites the {what} `{name}` (in `{decl}`) where code reads \
                     it: that code does not compile",
                    if written == Written::Portable {
                        " in the translations' GLSL"
                    } else {
                        ""
                    }
                ),
            ),
        };
        c.diags.push(
            d.item(format!("{kind} `{name}`"))
                .at(declared_in, origin)
                .related(format!("{what} `{name}` declared in `{decl}`"), m.origin)
                .hint("rename the macro's item or the member (defines are usually written in capitals)"),
        );
    }
}

/// The global names the portable flavor and its translations declare besides the declared items (see
/// `generate::emit_flat_inputs`, `generate::emit_specialization_constants`, [`crate::Resource::portable_glsl_declaration`]
/// and [`crate::GL_PUSH_CONSTANT_UNIFORM`]). A collision with one fails the translations only: it is a warning
/// (`translation`) that the portable flavor's generation refuses with, instead of glslang's error in generated code.
fn portable_names<'a>(info: &'a crate::resolve::ResolvedInfo, names: &mut Vec<Named<'a>>) {
    // The polyfills every stage of the flavor starts with: a declared `inverse` would become `gpu_inverse`, the
    // polyfill's own name.
    for &name in crate::generate::PORTABLE_POLYFILL_NAMES {
        names.push(named(
            name,
            What::Portable("the translations' polyfill of", "inverse"),
            "the portable flavor's preamble",
            info.origin,
        ));
    }
    // A fragment input block with an instance name becomes a struct `gpu_<block>_in` and one variable
    // `gpu_in_<instance>_<member>` per member, and the stage's `main` `gpu_stage_main`.
    let has_fragment = info.sources.iter().any(|s| s.value.0 == Stage::Fragment);
    let any_instance = interface_lists(info)
        .iter()
        .any(|(_, list)| list.iter().any(|it| !it.value.instance_name.is_empty()));
    if has_fragment && any_instance {
        for b in crate::interfaces::stage_blocks(info, Stage::Fragment) {
            let (iface, it) = (&b.item.value, b.item);
            if b.direction != crate::interfaces::Direction::In || iface.instance_name.is_empty() {
                continue;
            }
            names.push(Named {
                name: Cow::Owned(crate::generate::portable_input_struct_name(&iface.name)),
                what: What::Portable("the fragment input struct of interface", &iface.name),
                decl: &it.declared_in,
                origin: it.origin,
            });
            // Its members are copied in a wrapping `main` that calls the stage's own, renamed.
            if !iface.members.is_empty()
                && !names
                    .iter()
                    .any(|n| n.name == crate::generate::PORTABLE_STAGE_MAIN)
            {
                names.push(named(
                    crate::generate::PORTABLE_STAGE_MAIN,
                    What::Portable(
                        "the renamed `main` of the fragment stage, for interface",
                        &iface.name,
                    ),
                    &it.declared_in,
                    it.origin,
                ));
            }
            for m in &iface.members {
                names.push(Named {
                    name: Cow::Owned(crate::generate::portable_input_name(
                        &iface.instance_name,
                        &m.name,
                    )),
                    what: What::Portable("a fragment input of interface", &iface.name),
                    decl: &it.declared_in,
                    origin: m.origin,
                });
            }
        }
    }
    // A combined sampler becomes a texture `<name>_texture` and a sampler `<name>_sampler`.
    for it in info
        .resources
        .iter()
        .filter(|r| r.value.splits_in_portable())
    {
        for (name, half) in [
            (
                crate::resource::Resource::portable_texture_name(&it.value.name),
                "the texture half of sampler",
            ),
            (
                crate::resource::Resource::portable_sampler_name(&it.value.name),
                "the sampler half of sampler",
            ),
        ] {
            names.push(Named {
                name: Cow::Owned(name),
                what: What::Portable(half, &it.value.name),
                decl: &it.declared_in,
                origin: it.origin,
            });
        }
    }
    // An arrayed image's integer coordinate type is declared by a global of its own (see
    // `generate::emit_naga_coordinate_types`).
    for (_, global) in crate::generate::naga_coordinate_globals(info) {
        names.push(Named {
            name: Cow::Owned(global),
            what: What::Portable(
                "the coordinate type global of the arrayed images of",
                &info.name,
            ),
            decl: &info.name,
            origin: info.origin,
        });
    }
    // The OpenGL targets set the push constants as one uniform struct of a fixed name.
    if !info.push_constants.is_empty() {
        names.push(named(
            crate::targets::GL_PUSH_CONSTANT_UNIFORM,
            What::Portable("the OpenGL uniform of the push constants of", &info.name),
            &info.name,
            info.origin,
        ));
    }
    // Each specialization constant is read through a global `gpu_spec<id>_value` (two constants of one id are
    // reported as such, not again here).
    let mut ids = Vec::new();
    for (id, it) in info
        .specialization_constant_ids()
        .into_iter()
        .zip(&info.specialization_constants)
    {
        if ids.contains(&id) {
            continue;
        }
        ids.push(id);
        names.push(Named {
            name: Cow::Owned(crate::generate::portable_spec_name(id)),
            what: What::Portable("the global of specialization constant", &it.value.name),
            decl: &it.declared_in,
            origin: it.origin,
        });
    }
}

/// The instance names the tessellation and geometry stages give blocks besides the declared ones (an input block
/// whose instance name an output of the stage takes is `<instance>_in`; an arrayed block without one is
/// `<block>_in` or `<block>_out`), and the geometry stage's `#define <instance>_out <instance>` for a block it
/// passes through. Each is a global name of its stage; one name is listed once, as the stages are apart.
fn stage_instance_names<'a>(info: &'a crate::resolve::ResolvedInfo, names: &mut Vec<Named<'a>>) {
    let mut listed: Vec<String> = Vec::new();
    for stage in [Stage::TessControl, Stage::TessEvaluation, Stage::Geometry] {
        if !info.sources.iter().any(|s| s.value.0 == stage) {
            continue;
        }
        let blocks = crate::interfaces::stage_blocks(info, stage);
        for b in &blocks {
            let (iface, it) = (&b.item.value, b.item);
            if b.instance.is_empty()
                || b.instance == iface.instance_name
                || listed.contains(&b.instance)
            {
                continue;
            }
            listed.push(b.instance.clone());
            names.push(Named {
                name: Cow::Owned(b.instance.clone()),
                what: What::InstanceIn(stage, &iface.name),
                decl: &it.declared_in,
                origin: it.origin,
            });
        }
        if stage != Stage::Geometry {
            continue;
        }
        for (alias, b) in crate::interfaces::geometry_aliases(&blocks) {
            if !listed.contains(&alias) {
                listed.push(alias.clone());
                names.push(Named {
                    name: Cow::Owned(alias),
                    what: What::AliasOf(&b.item.value.name),
                    decl: &b.item.declared_in,
                    origin: b.item.origin,
                });
            }
        }
    }
}

/// With the Blender prelude (`blender_compat`), every stage starts with its macros (`#define float2 vec2`, …). A
/// macro of the info (a define, or an item the generator writes as a macro: see `macros` in [`check_names`]) of a
/// prelude name redefines it, which glslang refuses unless the definition is the same; the portable flavor's
/// sampler macros exist in the translations only. Any other item, block or member named like an object-like prelude
/// macro is rewritten by it, so it does not compile.
fn check_prelude_names(
    c: &mut Checker,
    macros: &[Macro],
    names: &[Named],
    members: &[Named],
    interfaces: &[Vec<Named>],
) {
    let info = c.info;
    if !info.blender_prelude {
        return;
    }
    let prelude = crate::blender::blender_prelude_macros();
    let find = |name: &str| prelude.iter().find(|m| m.name == name);
    let collapse = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    for &(name, kind, declared_in, origin, written) in macros {
        let Some(m) = find(name) else {
            continue;
        };
        let d = match written {
            // An object-like one is refused below, as the sampler it also is.
            Written::Portable if !m.function_like => continue,
            Written::Portable => Diagnostic::warning(
                Code::Translation,
                &info.name,
                format!(
                    "{kind} `{name}` is the macro `{name}` in the translations' GLSL (a texture and a sampler \
                     combined), a second definition of the Blender prelude's `#define {}`: every translation of \
                     `{}` fails on it, its SPIR-V does not",
                    m.definition, info.name
                ),
            ),
            _ => {
                let same = kind == "define"
                    && info
                        .defines
                        .iter()
                        .filter(|d| d.value.macro_name() == name)
                        .any(|d| {
                            let text = match &d.value.value {
                                Some(v) => format!("{} {v}", d.value.name),
                                None => d.value.name.clone(),
                            };
                            collapse(&text) == collapse(m.definition)
                        });
                if same {
                    // The same macro again: GLSL allows it.
                    continue;
                }
                prelude_error(
                    info,
                    kind,
                    name,
                    m.definition,
                    "a second definition glslang refuses",
                )
            }
        };
        c.diags.push(
            d.item(format!("{kind} `{name}`"))
                .at(declared_in, origin)
                .hint("rename it: the prelude's names are Blender's vector and matrix type names and its lint macros"),
        );
    }
    // Expanded only before `(`, a function-like macro leaves a declaration's name alone (it is followed by `;`,
    // `[` or `=`).
    for n in names
        .iter()
        .chain(members)
        .chain(interfaces.iter().flatten())
        .filter(|n| n.what.as_macro().is_none())
    {
        let Some(m) = find(&n.name).filter(|m| !m.function_like) else {
            continue;
        };
        let what = n.what.to_string();
        c.diags.push(
            prelude_error(
                info,
                &what,
                &n.name,
                m.definition,
                "it rewrites the name in its declaration and wherever code reads it",
            )
            .item(format!("{what} `{}`", n.name))
            .at(n.decl, n.origin)
            .hint("rename it: the prelude's names are Blender's vector and matrix type names and its lint macros"),
        );
    }
}

fn prelude_error(
    info: &crate::resolve::ResolvedInfo,
    kind: &str,
    name: &str,
    definition: &str,
    consequence: &str,
) -> Diagnostic {
    Diagnostic::error(
        Code::DuplicateName,
        &info.name,
        format!(
            "{kind} `{name}` takes the name of a macro of the Blender prelude (`#define {definition}`), which every \
             stage of `{}` starts with (it is `blender_compat`): {consequence}",
            info.name
        ),
    )
}

/// The global names of each list of interfaces (see [`interface_lists`]): block names, instance names, and the
/// members of blocks without one (an instance-named block's members are in a scope of their own).
fn interface_globals(info: &crate::resolve::ResolvedInfo) -> Vec<Vec<Named<'_>>> {
    let mut lists = Vec::new();
    for (_, list) in interface_lists(info) {
        let mut out: Vec<Named> = Vec::new();
        for it in list.iter() {
            let iface = &it.value;
            // The block's name is global too: a member or another item of the same name collides with it.
            out.push(named(
                &iface.name,
                What::Item("interface block"),
                &it.declared_in,
                it.origin,
            ));
            if !iface.instance_name.is_empty() {
                out.push(named(
                    &iface.instance_name,
                    What::Item("interface instance"),
                    &it.declared_in,
                    it.origin,
                ));
                continue;
            }
            out.extend(iface.members.iter().map(|m| member_named(it, m)));
        }
        lists.push(out);
    }
    lists
}

/// A global named like one of GLSL's built-in functions hides the function from its declaration on: a call to it
/// after that does not compile ("can't use function syntax on variable"). A warning at the item, since a stage that
/// never calls it compiles; an error where generated code calls it (a subpass input's read: `subpassLoad`, or
/// `texelFetch` where it is emulated). A define of such a name is deliberate (it replaces the function) and not
/// reported.
fn check_builtin_function_names(c: &mut Checker, names: &[Named], interfaces: &[Vec<Named>]) {
    let info = c.info;
    for n in names.iter().chain(interfaces.iter().flatten()) {
        let user_named = match n.what {
            What::Item(kind) => kind != "define",
            What::SharedEnum
            | What::ValueOf(_)
            | What::SubpassInput
            | What::Branch
            | What::StructField(..)
            | What::MemberOf(_) => true,
            _ => false,
        };
        if !user_named || !crate::glsl_names::is_builtin_function(&n.name) {
            continue;
        }
        let name = n.name.as_ref();
        let generated_call =
            !info.subpass_inputs.is_empty() && matches!(name, "subpassLoad" | "texelFetch");
        let d = if generated_call {
            Diagnostic::error(
                Code::DuplicateName,
                &info.name,
                format!(
                    "{} `{name}` hides GLSL's built-in function `{name}`, which the generated read of every subpass \
                     input of `{}` calls: the fragment stage does not compile",
                    n.what, info.name
                ),
            )
        } else {
            Diagnostic::warning(
                Code::DuplicateName,
                &info.name,
                format!(
                    "{} `{name}` hides GLSL's built-in function `{name}` in every stage of `{}`: a call `{name}(…)` \
                     after the declaration does not compile",
                    n.what, info.name
                ),
            )
        };
        c.diags.push(
            d.item(format!("{} `{name}`", n.what))
                .at(n.decl, n.origin)
                .hint(format!(
                    "rename it, so that `{name}(…)` stays the built-in function"
                )),
        );
    }
}

/// Whether `name` is a swizzle (`x`, `xy`, `rgba`, `st`, …): a macro of that name rewrites the swizzle in every
/// `v.x` after it.
fn is_swizzle(name: &str) -> bool {
    (1..=4).contains(&name.len())
        && ["xyzw", "rgba", "stpq"]
            .iter()
            .any(|set| name.chars().all(|ch| set.contains(ch)))
}

/// A name the generator derives (`BRANCH_<branch>`, `_<buffer>`, `<instance>_in`, the portable flavor's
/// `gpu_in_<instance>_<member>`, …) past the length glslang takes: each declared part was short enough, the
/// whole is "name too long". Declared names are checked where they are declared.
fn check_derived_lengths<'n, 'a: 'n>(c: &mut Checker, names: impl Iterator<Item = &'n Named<'a>>) {
    let info = c.info;
    let max = crate::glsl_names::MAX_NAME_LENGTH;
    for n in names.filter(|n| matches!(n.name, Cow::Owned(_)) && n.name.len() > max) {
        let message = format!(
            "the {} is named `{}…`, {} characters long, past the {max} glslang takes (\"name too long\")",
            n.what,
            n.name.chars().take(24).collect::<String>(),
            n.name.len()
        );
        let d = if matches!(n.what, What::Portable(..)) {
            Diagnostic::warning(Code::Translation, &info.name, message)
        } else {
            Diagnostic::error(Code::InvalidIdentifier, &info.name, message)
        };
        c.diags.push(
            d.item(n.what.to_string())
                .at(n.decl, n.origin)
                .hint("shorten the declared name it is made from"),
        );
    }
}

/// A macro or a shared type named like a layout qualifier (`location`, `binding`, `rgba8`, …): the macro rewrites
/// the qualifier in every generated `layout(…)` after it, and glslang reads a type's name there as a type; either
/// way the stage does not compile. A variable may take such a name; the geometry stage's alias macro is written
/// after every declaration.
fn check_layout_words(c: &mut Checker, macros: &[Macro], names: &[Named]) {
    let info = c.info;
    let types = names
        .iter()
        .filter(|n| matches!(n.what, What::Item("shared struct")))
        .map(|n| {
            (
                n.name.as_ref(),
                "shared struct",
                n.decl,
                n.origin,
                Written::First,
            )
        });
    for (name, kind, declared_in, origin, written) in macros.iter().copied().chain(types) {
        if written == Written::Last || !crate::glsl_names::is_layout_qualifier(name) {
            continue;
        }
        let what = if kind == "shared struct" {
            "a type"
        } else {
            "a macro"
        };
        let d = if written == Written::Portable {
            Diagnostic::warning(
                Code::Translation,
                &info.name,
                format!(
                    "{kind} `{name}` is {what} in the translations' GLSL named like the layout qualifier `{name}`, \
                     which the generated `layout(…)` declarations write: every translation of `{}` fails on it, its \
                     SPIR-V does not",
                    info.name
                ),
            )
        } else {
            Diagnostic::error(
                Code::InvalidIdentifier,
                &info.name,
                format!(
                    "{kind} `{name}` is {what} named like the layout qualifier `{name}`, which the generated \
                     `layout(…)` declarations write: glslang refuses them"
                ),
            )
        };
        c.diags.push(
            d.item(format!("{kind} `{name}`"))
                .at(declared_in, origin)
                .hint("rename it (a variable may take a layout qualifier's name; a macro or a type may not)"),
        );
    }
}

/// Macros named like a swizzle. The generated read of a subpass input is `texelFetch(…, ivec2(gl_FragCoord.xy),
/// 0).xyz`: with subpass inputs, a macro `x`, `xy` or `xyz` breaks that generated code (an error; in the portable
/// flavor only, a `translation` warning); a subpass input's own name is always its macro (an error: the stage's
/// code reads vectors through swizzles); any other breaks only code that uses the swizzle (a warning).
fn check_swizzle_macros(c: &mut Checker, macros: &[Macro]) {
    let info = c.info;
    let subpass = !info.subpass_inputs.is_empty();
    for &(name, kind, declared_in, origin, written) in macros {
        if !is_swizzle(name) {
            continue;
        }
        let breaks_generated = subpass && matches!(name, "x" | "xy" | "xyz");
        let (d, hint) = match (kind, breaks_generated, written) {
            ("subpass input", ..) | (_, true, Written::First | Written::BeforeBlocks) => (
                Diagnostic::error(
                    Code::InvalidIdentifier,
                    &info.name,
                    format!(
                        "{kind} `{name}` is a macro named like a swizzle: every `.{name}` after it (the generated \
                         reads of subpass inputs use `.xy`, `.x` and `.xyz`) becomes its text"
                    ),
                ),
                "rename it (a subpass input is read through a macro of its name)",
            ),
            (_, true, _) => (
                Diagnostic::warning(
                    Code::Translation,
                    &info.name,
                    format!(
                        "{kind} `{name}` is a macro in the translations' GLSL named like a swizzle: the generated \
                         reads of subpass inputs (`.xy`, `.x`, `.xyz`) become its text; every translation of `{}` \
                         fails on it, its SPIR-V does not",
                        info.name
                    ),
                ),
                "rename it to translate the info",
            ),
            _ => (
                Diagnostic::warning(
                    Code::InvalidIdentifier,
                    &info.name,
                    format!(
                        "{kind} `{name}` is a macro{} named like a swizzle: code that writes `.{name}` after it does \
                         not compile",
                        if written == Written::Portable {
                            " in the translations' GLSL"
                        } else {
                            ""
                        }
                    ),
                ),
                "rename it (macros are usually written in capitals)",
            ),
        };
        c.diags.push(
            d.item(format!("{kind} `{name}`"))
                .at(declared_in, origin)
                .hint(hint),
        );
    }
}

/// An item the generator writes as a macro: its name, kind, declaring info, origin and where it is written.
type Macro<'a> = (&'a str, &'a str, &'a str, Origin, Written);

/// Where a macro is written in a generated stage, against the members it could rewrite (see `check_names`).
#[derive(Clone, Copy, PartialEq)]
enum Written {
    /// Before the shared types (a define), or treated so (a shared enum, written before the structs that use it,
    /// and a branch macro).
    First,
    /// After the shared types, before the interface blocks (a subpass input's value).
    BeforeBlocks,
    /// With the resources, in the portable flavor only (a combined sampler).
    Portable,
    /// After the interface blocks (the geometry stage's alias).
    Last,
}

impl Named<'_> {
    /// A branch or its macro.
    fn is_branch(&self) -> bool {
        matches!(self.what, What::Branch | What::MacroOf(_))
    }
}

/// The indices of each name in `names`, in order.
fn all_of_each<'n>(names: &'n [Named]) -> HashMap<&'n str, Vec<usize>> {
    let mut all: HashMap<&str, Vec<usize>> = HashMap::with_capacity(names.len());
    for (i, n) in names.iter().enumerate() {
        all.entry(n.name.as_ref()).or_default().push(i);
    }
    all
}

/// Which of `earlier` (names equal to `n`'s, in order) `n` is reported against: the first in a stage `n` is in,
/// and for a name every flavor declares, the first that is not declared by the portable flavor only. A vertex input
/// and a fragment output may share a name, and a name the portable flavor alone declares is only a translation
/// warning: compared with the first of its name alone, two fragment outputs after a vertex input of their name, or
/// two items after the portable polyfill's `gpu_inverse`, were never compared with each other.
fn collision<'n, 'a>(
    earlier: impl Iterator<Item = &'n Named<'a>> + Clone,
    n: &Named,
) -> Option<&'n Named<'a>>
where
    'a: 'n,
{
    let portable = |m: &Named| matches!(m.what, What::Portable(..));
    let mut colliding = earlier.filter(|m| !in_different_stages(&m.what, &n.what));
    if portable(n) {
        return colliding.next();
    }
    colliding
        .clone()
        .find(|m| !portable(m))
        .or_else(|| colliding.next())
}

/// `again` declares the name `first` declared earlier. A branch (reported as `again`) says what it becomes.
fn report_duplicate(c: &mut Checker, first: &Named, again: &Named) {
    let (name, what, decl) = (&again.name, again.what, again.decl);
    let (w0, d0) = (first.what, first.decl);
    // A name only the portable flavor declares: the SPIR-V is fine, every translation fails (`generate` refuses
    // the portable flavor with this warning as its error).
    if matches!(first.what, What::Portable(..)) || matches!(again.what, What::Portable(..)) {
        c.diags.push(
            Diagnostic::warning(
                Code::Translation,
                &c.info.name,
                format!(
                    "`{name}` is declared twice in the translations' GLSL (the portable flavor every target starts \
                     from): as {w0} (in `{d0}`) and as {what} (in `{decl}`); every translation of `{}` fails on it, \
                     its SPIR-V does not",
                    c.info.name
                ),
            )
            .item(format!("{what} `{name}`"))
            .at(decl, again.origin)
            .related(format!("{w0} `{name}` declared in `{d0}`"), first.origin)
            .hint("rename the declared item to translate the info"),
        );
        return;
    }
    let (code, item, message, hint) = match again.what {
        What::Branch => (
            Code::Branch,
            format!("branch `{name}`"),
            format!(
                "branch `{name}` (from `{decl}`) takes a name already declared: {w0} `{name}` (from `{d0}`)"
            ),
            format!(
                "a branch becomes `const bool {name}` in GLSL: rename the branch or the other item"
            ),
        ),
        What::MacroOf(branch) => (
            Code::Branch,
            format!("branch `{branch}`"),
            format!(
                "branch `{branch}` (from `{decl}`) becomes the macro `{name}`, a name already declared: {w0} \
                 `{name}` (from `{d0}`)"
            ),
            format!(
                "a branch `{branch}` becomes `#define {name}` in GLSL: rename the branch or the other item"
            ),
        ),
        _ => {
            let say = |w: What| match w {
                What::StructField(item, of) => format!("{item} from a field of struct `{of}`"),
                w => w.to_string(),
            };
            let hint = match (w0, what) {
                (What::StructField(_, a), What::StructField(_, b)) if a == b => {
                    format!("one struct is one buffer: declare `{a}` once, for one rate")
                }
                _ => "names share one GLSL namespace: rename one of them".to_string(),
            };
            (
                Code::DuplicateName,
                format!("{what} `{name}`"),
                format!(
                    "`{name}` is declared twice: as {} (in `{d0}`) and as {} (in `{decl}`)",
                    say(w0),
                    say(what)
                ),
                hint,
            )
        }
    };
    c.diags.push(
        Diagnostic::error(code, &c.info.name, message)
            .item(item)
            .at(decl, again.origin)
            .related(format!("{w0} `{name}` declared in `{d0}`"), first.origin)
            .hint(hint),
    );
}

#[cfg(test)]
mod tests {
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
