//! Vertex inputs, fragment outputs and the interfaces between stages.

use super::checker::Checker;
use crate::diagnostic::{Code, Diagnostic};
use crate::info::*;
use crate::interfaces::{interface_lists, stage_blocks};
use crate::item::Item;
use crate::limits::{MAX_FRAGMENT_OUTPUTS, MAX_VERTEX_ATTRIBUTES};
use crate::origin::Origin;
use crate::types::*;
use crate::vertex::{HostField, VertexFormat, VertexInput, VertexRate, short_name};
use std::collections::HashMap;

pub(super) fn check_vertex_inputs(c: &mut Checker) {
    let info = c.info;
    let mut used: Vec<(u64, u64, &Item<VertexInput>)> = Vec::new();
    for it in &info.vertex_inputs {
        let v = &it.value;
        let item = v.rate.item();
        c.ident(item, &v.name, it);
        if let Some(problem) = v.format.and_then(|f| f.problem_with(v.ty)) {
            c.err(
                Code::UnknownType,
                format!("{item} `{}`", v.name),
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
                format!("{item} `{}`", v.name),
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
                format!("{item} `{}`", v.name),
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
                    format!("{item} `{}`", v.name),
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
    check_struct_buffers(c);
}

/// A rate whose inputs were declared from a host struct ([`ShaderCreateInfo::vertex_struct`]) reads its buffer with
/// that struct's layout: an input of the rate from elsewhere (a `vertex_in` beside it, a second struct, a
/// variant's input) has no place in it.
fn check_struct_buffers(c: &mut Checker) {
    let info = c.info;
    for rate in [VertexRate::Vertex, VertexRate::Instance] {
        let of_rate = || info.vertex_inputs.iter().filter(|it| it.value.rate == rate);
        let Some(host) = of_rate().find_map(|it| it.value.host) else {
            continue;
        };
        let (item, step) = (rate.item(), rate.step());
        let owner = short_name(host.struct_name);
        for it in of_rate() {
            let v = &it.value;
            let message = match v.host {
                Some(h) if h.struct_name == host.struct_name => continue,
                Some(h) => format!(
                    "{item} `{}` is a field of `{}`, but the per-{step} buffer is `{owner}` (declared first): one \
                     struct is one buffer",
                    v.name,
                    short_name(h.struct_name)
                ),
                None => format!(
                    "{item} `{}` is declared beside struct `{owner}`, whose fields are the per-{step} buffer: the \
                     pipeline would have no place in it to read `{}` from",
                    v.name, v.name
                ),
            };
            c.err(
                Code::Layout,
                format!("{item} `{}`", v.name),
                it,
                message,
                format!("add the input as a field of `{owner}`, or declare every per-{step} input without it"),
            );
        }
        check_struct_layout(c, rate, host);
    }
}

/// The struct's fields as the pipeline will read them: each inside the struct's size (its stride) and apart from
/// the others, and the struct declared once. The derive lays fields out as Rust does; a hand-written
/// `ShaderVertex`, or a `VertexAttribute` whose format is larger than its type, can claim bytes the value does not
/// have, which no API's layout rule refuses (they see offsets and a stride, not the struct).
fn check_struct_layout(c: &mut Checker, rate: VertexRate, host: HostField) {
    let info = c.info;
    let (item, step) = (rate.item(), rate.step());
    let owner = short_name(host.struct_name);
    let mut fields: Vec<(u32, u32, &Item<VertexInput>)> = info
        .vertex_inputs
        .iter()
        .filter(|it| {
            it.value.rate == rate
                && it
                    .value
                    .host
                    .is_some_and(|h| h.struct_name == host.struct_name)
        })
        .filter_map(|it| {
            let v = &it.value;
            let (columns, rows) = v.ty.shape();
            let format = v.format.or_else(|| VertexFormat::of(v.ty.scalar(), rows))?;
            let offset = v.host?.offset;
            Some((offset, columns * format.size(), it))
        })
        .collect();
    fields.sort_by_key(|&(offset, ..)| offset);
    if let Some(w) = fields
        .windows(2)
        .find(|w| w[0].2.value.name == w[1].2.value.name)
    {
        c.err(
            Code::Layout,
            format!("{item} `{}`", w[1].2.value.name),
            w[1].2,
            format!(
                "struct `{owner}` is declared twice for the per-{step} buffer (its field `{}` at locations {} and {})",
                w[0].2.value.name,
                w[0].2.value.location.min(w[1].2.value.location),
                w[0].2.value.location.max(w[1].2.value.location)
            ),
            format!("declare `{owner}` once: one struct is one buffer"),
        );
        return;
    }
    if host.stride == 0 {
        if let Some(&(_, _, first)) = fields.first() {
            c.err(
                Code::Layout,
                format!("{item} `{}`", first.value.name),
                first,
                format!(
                    "struct `{owner}` says it is 0 bytes (ShaderVertex::STRIDE): every {step} would read the \
                     first one's bytes"
                ),
                "derive ShaderVertex, or give STRIDE as size_of the struct",
            );
        }
        return;
    }
    for (i, &(offset, size, it)) in fields.iter().enumerate() {
        let name = &it.value.name;
        let end = u64::from(offset) + u64::from(size);
        let message = if end > u64::from(host.stride) {
            format!(
                "field `{name}` is read as bytes {offset}..{end} of struct `{owner}`, past its {} bytes: the \
                 pipeline would read the rest from the next {step}",
                host.stride
            )
        } else if let Some(&(next, _, other)) = fields
            .get(i + 1)
            .filter(|&&(next, ..)| u64::from(next) < end)
        {
            format!(
                "field `{name}` is read as bytes {offset}..{end} of struct `{owner}`, over field `{}` at byte {next}",
                other.value.name
            )
        } else {
            continue;
        };
        c.err(
            Code::Layout,
            format!("{item} `{name}`"),
            it,
            message,
            "a field's format (its type's VertexAttribute::FORMAT, times its COLUMNS) must take no more bytes than \
             the field: give the type a format of its size",
        );
    }
}

pub(super) fn check_fragment_outputs(c: &mut Checker) {
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
    check_dual_source(c);
}

/// Dual-source blending takes both sources, of one type, and no other output: naga's validator (so every
/// translation) refuses either source alone, two types, and another output beside them; and Vulkan devices blend
/// one attachment with two sources (`maxFragmentDualSrcAttachments` is 1 on most).
fn check_dual_source(c: &mut Checker) {
    let outputs = &c.info.fragment_outputs;
    let source = |b: DualBlend| outputs.iter().find(|it| it.value.blend == b);
    let (src0, src1) = (source(DualBlend::Src0), source(DualBlend::Src1));
    let problem: Option<(&Item<FragmentOutput>, String, &str)> = match (src0, src1) {
        (None, None) => None,
        (Some(one), None) | (None, Some(one)) => Some((
            one,
            format!("dual-source output `{}` has no other source", one.value.name),
            "declare both DualBlend::Src0 and DualBlend::Src1 at location 0, or neither",
        )),
        (Some(a), Some(b)) if a.value.ty != b.value.ty => Some((
            b,
            format!(
                "the dual-source outputs `{}` ({}) and `{}` ({}) have two types",
                a.value.name, a.value.ty, b.value.name, b.value.ty
            ),
            "give both sources one type",
        )),
        (Some(a), Some(_)) => outputs
            .iter()
            .find(|it| it.value.blend == DualBlend::None)
            .map(|other| {
                (
                    other,
                    format!(
                        "fragment output `{}` beside the dual-source outputs (`{}` …): dual-source blending writes one \
                         attachment",
                        other.value.name, a.value.name
                    ),
                    "draw the other attachments in another pass, or blend without a second source",
                )
            }),
    };
    if let Some((it, message, hint)) = problem {
        c.err(
            Code::FragmentOutputCollision,
            format!("fragment_out `{}`", it.value.name),
            it,
            message,
            hint,
        );
    }
}

pub(super) fn check_interfaces(c: &mut Checker) {
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

/// The interfaces each stage declares ([`stage_blocks`]) must make a chain: the stage before the fragment stage
/// writes what it reads, items have their stage, both tessellation stages come together, and no two blocks of
/// one stage share an instance name.
pub(super) fn check_stage_interfaces(c: &mut Checker, stages: &[Stage], origin: Origin) {
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
        check_block_globals(c, stage, &blocks);
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

/// The names the interface blocks of one stage put at its global scope, across the lists they come from: each
/// block's name, and its instance name or, without one, its members, must differ from every other block's (two
/// instance names are reported by the caller; two block names are fine in two interfaces and checked below); and
/// one interface (`in` or `out`, patch or not) takes a block name once. Each list was checked on its own, so an
/// instance name in `vertex_out` and a member named like it in `geometry_out`'s nameless block, both global in the
/// geometry stage, passed validation and failed in glslang.
fn check_block_globals(c: &mut Checker, stage: Stage, blocks: &[crate::interfaces::StageBlock]) {
    #[derive(Clone, Copy, PartialEq)]
    enum Global {
        Block,
        Instance,
        Member,
    }
    let info = c.info;
    let mut seen: HashMap<&str, Vec<(usize, Global, String)>> = HashMap::new();
    for (i, b) in blocks.iter().enumerate() {
        let iface = &b.item.value;
        let mut globals = vec![(
            iface.name.as_str(),
            Global::Block,
            format!("block name of {} `{}`", b.list, iface.name),
            b.item.origin,
        )];
        if b.instance.is_empty() {
            globals.extend(iface.members.iter().map(|m| {
                let what = format!("member `{}` of {} `{}`", m.name, b.list, iface.name);
                (m.name.as_str(), Global::Member, what, m.origin)
            }));
        } else {
            let what = format!("instance name of {} `{}`", b.list, iface.name);
            globals.push((b.instance.as_str(), Global::Instance, what, b.item.origin));
        }
        for (name, kind, what, origin) in globals {
            let earlier = seen.entry(name).or_default();
            // A block's own names are checked with its list.
            let first = earlier
                .iter()
                .find(|(j, k, _)| *j != i && (*k != kind || kind == Global::Member));
            if let Some((j, _, first)) = first {
                let f = &blocks[*j].item;
                c.diags.push(
                    Diagnostic::error(
                        Code::DuplicateName,
                        &info.name,
                        format!(
                            "the {stage} stage declares `{name}` twice at global scope: as the {first} and as the \
                             {what}"
                        ),
                    )
                    .item(format!("{} `{}`", b.list, iface.name))
                    .at(&b.item.declared_in, origin)
                    .related(format!("the {first}, declared in `{}`", f.declared_in), f.origin)
                    .hint("rename one of them, or give the block without an instance name one"),
                );
            }
            earlier.push((i, kind, what));
        }
    }
    for (i, b) in blocks.iter().enumerate() {
        let name = &b.item.value.name;
        if let Some(first) = blocks[..i]
            .iter()
            .find(|f| f.direction == b.direction && &f.item.value.name == name)
        {
            c.diags.push(
                Diagnostic::error(
                    Code::DuplicateName,
                    &info.name,
                    format!(
                        "the {stage} stage declares two {} blocks named `{name}`: from {} and from {}; one interface \
                         takes a block name once",
                        b.direction.glsl(), first.list, b.list
                    ),
                )
                .item(format!("{} `{name}`", b.list))
                .at(&b.item.declared_in, b.item.origin)
                .related(format!("{} `{name}` declared in `{}`", first.list, first.item.declared_in), first.item.origin)
                .hint("give one of the interfaces another block name"),
            );
        }
    }
}
