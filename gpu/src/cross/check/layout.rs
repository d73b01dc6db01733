//! The member offsets, array strides and matrix strides each side reports of a buffer block — the declaration, a
//! naga module laid out by a target's rules, SPIR-V reflected from a checker's output — by member path, and their
//! comparison: the part of every check that is about std140/std430 layouts.

use crate::reflect::ReflectedMember;
use naga::proc::Layouter;
use shader_info::{BlockLayout, FieldArray, MemberLayout};
use std::collections::BTreeMap;

/// A member offset (or stride) one side reports, by member path (`view.camera_position`, `lights[].color`).
pub(crate) type Offsets = BTreeMap<String, (u32, Option<u32>, Option<u32>)>;

/// The declaration's offsets, array strides and matrix strides of every member of `layout`, by path.
pub(crate) fn declared_offsets(layout: &BlockLayout) -> Offsets {
    fn walk(members: &[MemberLayout], base: u32, prefix: &str, out: &mut Offsets) {
        for m in members {
            let path = if prefix.is_empty() {
                m.name.clone()
            } else {
                format!("{prefix}.{}", m.name)
            };
            out.insert(
                path.clone(),
                (base + m.offset, m.array_stride, m.matrix_stride),
            );
            if let Some(n) = &m.nested {
                let p = if m.array == FieldArray::None {
                    path
                } else {
                    format!("{path}[]")
                };
                walk(&n.members, 0, &p, out);
            }
        }
    }
    let mut out = Offsets::new();
    walk(&layout.members, 0, "", &mut out);
    out
}

/// The declaration as glslang's GL reflection reports it: every member by its path with the array brackets dropped
/// (`lights.color`), at its offset from the start of the block — of the first element, through every array — with
/// its array stride. glslang names the first element of an array of structs `lights[0]` or, inside a top-level
/// array, `lights`; both drop to one path, and members of later elements are not compared (their offsets follow
/// from the first and the stride).
pub(crate) fn declared_gl_offsets(layout: &BlockLayout) -> BTreeMap<String, (u32, Option<u32>)> {
    fn walk(
        members: &[MemberLayout],
        base: u32,
        prefix: &str,
        out: &mut BTreeMap<String, (u32, Option<u32>)>,
    ) {
        for m in members {
            let path = if prefix.is_empty() {
                m.name.clone()
            } else {
                format!("{prefix}.{}", m.name)
            };
            out.insert(path.clone(), (base + m.offset, m.array_stride));
            if let Some(n) = &m.nested {
                walk(&n.members, base + m.offset, &path, out);
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(&layout.members, 0, "", &mut out);
    out
}

/// The offsets of a naga struct type (laid out by naga from the target language's own rules), by path; names come
/// from the declaration, matched by position (translators may rename members).
pub(crate) fn naga_offsets(
    module: &naga::Module,
    layouter: &Layouter,
    ty: naga::Handle<naga::Type>,
    declared: &[MemberLayout],
    prefix: &str,
    out: &mut Offsets,
) {
    use naga::TypeInner;
    let TypeInner::Struct { members, .. } = &module.types[ty].inner else {
        return;
    };
    for (m, d) in members.iter().zip(declared) {
        let path = if prefix.is_empty() {
            d.name.clone()
        } else {
            format!("{prefix}.{}", d.name)
        };
        let (array_stride, element) = match module.types[m.ty].inner {
            TypeInner::Array { base, stride, .. } => (Some(stride), base),
            _ => (None, m.ty),
        };
        let matrix_stride = match module.types[element].inner {
            TypeInner::Matrix { rows, scalar, .. } => {
                let align = match rows {
                    naga::VectorSize::Bi => 2,
                    _ => 4,
                };
                Some(align * u32::from(scalar.width))
            }
            _ => None,
        };
        out.insert(path.clone(), (m.offset, array_stride, matrix_stride));
        if let Some(nested) = &d.nested {
            let p = if d.array == FieldArray::None {
                path
            } else {
                format!("{path}[]")
            };
            naga_offsets(module, layouter, element, &nested.members, &p, out);
        }
    }
    let _ = layouter;
}

/// The differences between two sets of offsets, for the messages of `what`.
pub(crate) fn compare_offsets(
    what: &str,
    declared: &Offsets,
    actual: &Offsets,
    out: &mut Vec<String>,
) {
    for (path, (offset, array_stride, matrix_stride)) in declared {
        let Some((a_offset, a_array, a_matrix)) = actual.get(path) else {
            continue;
        };
        if offset != a_offset {
            out.push(format!(
                "{what}: member `{path}` is at offset {a_offset} in the translation but at {offset} in the declaration"
            ));
        }
        if array_stride.is_some() && a_array.is_some() && array_stride != a_array {
            out.push(format!(
                "{what}: member `{path}` has array stride {} in the translation but {} in the declaration",
                a_array.unwrap_or(0),
                array_stride.unwrap_or(0)
            ));
        }
        if matrix_stride.is_some() && a_matrix.is_some() && matrix_stride != a_matrix {
            out.push(format!(
                "{what}: matrix `{path}` has column stride {} in the translation but {} in the declaration",
                a_matrix.unwrap_or(0),
                matrix_stride.unwrap_or(0)
            ));
        }
    }
}

/// The offsets reflected from SPIR-V members (named by the declaration, matched by position).
pub(crate) fn reflected_offsets(
    members: &[ReflectedMember],
    declared: &[MemberLayout],
    prefix: &str,
    out: &mut Offsets,
) {
    // Members are paired in order (translators rename them), leaving out the padding members a translator adds to
    // keep the declared offsets (naga's HLSL `_pad1_0`, `_end_pad_0`): paired with declared members, they shifted
    // every pair after them.
    let members = members
        .iter()
        .filter(|m| !m.name.as_deref().is_some_and(is_padding));
    for (m, d) in members.zip(declared) {
        let path = if prefix.is_empty() {
            d.name.clone()
        } else {
            format!("{prefix}.{}", d.name)
        };
        out.insert(path.clone(), (m.offset, m.array_stride, m.matrix_stride));
        if let Some(nested) = &d.nested {
            let p = if d.array == FieldArray::None {
                path
            } else {
                format!("{path}[]")
            };
            reflected_offsets(&m.members, &nested.members, &p, out);
        }
    }
}

/// Whether a member name is one a translator wrote as padding: naga's `_pad<N>_<M>` and `_end_pad_<M>` (a declared
/// member of such a name ends in `_` there, since naga suffixes names that end in a digit).
fn is_padding(name: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(rest) = name.strip_prefix("_end_pad_") {
        return digits(rest);
    }
    name.strip_prefix("_pad")
        .and_then(|rest| rest.split_once('_'))
        .is_some_and(|(a, b)| digits(a) && digits(b))
}

#[cfg(test)]
mod tests {
    #[test]
    fn only_nagas_padding_names_are_padding() {
        for name in ["_pad1_0", "_pad12_3", "_end_pad_0"] {
            assert!(super::is_padding(name), "{name}");
        }
        for name in [
            "_pad0",
            "_pad0_",
            "_pad1_2_",
            "_end_pad_",
            "pad1_0",
            "_padding",
        ] {
            assert!(!super::is_padding(name), "{name}");
        }
    }
}
