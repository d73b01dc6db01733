//! Property tests of the std140/std430 layout engine: invariants that must hold for any struct, whatever the
//! exact rules say. The exact numbers are proven against glslang by `tests/tests/layout_differential.rs`.

use proptest::prelude::*;
use shader_info::{
    BlockLayout, Field, FieldArray, FieldType, Rules, StructDef, StructMap, Type, layout_fields,
};

/// A struct shape before names are given to it.
#[derive(Clone, Debug)]
enum Node {
    Value(Type),
    Struct(Vec<Member>),
}

#[derive(Clone, Debug)]
struct Member {
    node: Node,
    array: Option<u32>,
}

fn member(node: impl Strategy<Value = Node>) -> impl Strategy<Value = Member> {
    (node, prop::option::weighted(0.3, 1u32..5)).prop_map(|(node, array)| Member { node, array })
}

/// Structs nested up to three deep, every `Type` as a leaf, arrays at any level.
fn node() -> impl Strategy<Value = Node> {
    let leaf = (0..Type::ALL.len()).prop_map(|i| Node::Value(Type::ALL[i]));
    leaf.prop_recursive(3, 32, 5, |inner| {
        prop::collection::vec(member(inner), 1..5).prop_map(Node::Struct)
    })
}

/// A block body and whether its last member is a runtime array.
fn block() -> impl Strategy<Value = (Vec<Member>, bool)> {
    (prop::collection::vec(member(node()), 1..8), any::<bool>())
}

/// Names the shape: every nested struct becomes a `StructDef` in `structs`.
fn fields(members: &[Member], structs: &mut StructMap) -> Vec<Field> {
    members
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let ty = match &m.node {
                Node::Value(t) => FieldType::Value(*t),
                Node::Struct(inner) => {
                    let fs = fields(inner, structs);
                    let name = format!("T{}", structs.0.len());
                    structs.insert(StructDef {
                        name: name.clone(),
                        fields: fs,
                    });
                    FieldType::Struct(name)
                }
            };
            Field {
                name: format!("m{i}"),
                ty,
                array: m.array.map_or(FieldArray::None, FieldArray::Fixed),
            }
        })
        .collect()
}

fn build(members: &[Member], runtime: bool) -> (Vec<Field>, StructMap) {
    let mut structs = StructMap::default();
    let mut fs = fields(members, &mut structs);
    if runtime {
        fs.last_mut().unwrap().array = FieldArray::Runtime;
    }
    (fs, structs)
}

/// Invariants of one layout and, recursively, of every nested struct layout in it.
fn check_invariants(l: &BlockLayout, rules: Rules) -> Result<(), TestCaseError> {
    prop_assert!(l.align.is_power_of_two(), "block align {}", l.align);
    if rules == Rules::Std140 {
        prop_assert_eq!(l.align % 16, 0, "std140 structs align to 16");
    }
    for pair in l.members.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        prop_assert!(
            a.offset < b.offset,
            "{} at {} not before {} at {}",
            a.name,
            a.offset,
            b.name,
            b.offset
        );
        prop_assert!(
            a.offset + a.size <= b.offset,
            "{} overlaps {}",
            a.name,
            b.name
        );
    }
    for m in &l.members {
        prop_assert!(m.align.is_power_of_two(), "{} align {}", m.name, m.align);
        prop_assert_eq!(m.offset % m.align, 0, "{} misaligned", &m.name);
        prop_assert!(
            m.align <= l.align,
            "{} align {} > block align {}",
            m.name,
            m.align,
            l.align
        );
        prop_assert!(m.size > 0, "{} has size 0", &m.name);
        match m.array {
            FieldArray::None => prop_assert_eq!(m.array_stride, None),
            FieldArray::Fixed(_) | FieldArray::Runtime => {
                let stride = m.array_stride.expect("arrays have a stride");
                let n = if let FieldArray::Fixed(n) = m.array {
                    n
                } else {
                    1
                };
                prop_assert_eq!(m.size, stride * n, "{} size", &m.name);
                prop_assert_eq!(
                    stride % m.align,
                    0,
                    "{} stride {} vs align {}",
                    &m.name,
                    stride,
                    m.align
                );
                if rules == Rules::Std140 {
                    prop_assert_eq!(stride % 16, 0, "std140 array stride of {}", &m.name);
                }
            }
        }
        if let FieldType::Value(t) = &m.ty {
            prop_assert_eq!(m.matrix_stride.is_some(), t.is_matrix(), "{}", &m.name);
            if let Some(ms) = m.matrix_stride {
                let (cols, _) = t.shape();
                prop_assert_eq!(ms * cols, t.size(rules), "{} matrix size", &m.name);
                if rules == Rules::Std140 {
                    prop_assert_eq!(ms % 16, 0, "std140 matrix stride of {}", &m.name);
                }
            }
        }
        if let Some(n) = &m.nested {
            let elem = m.array_stride.unwrap_or(m.size);
            prop_assert!(
                n.size <= elem,
                "{} element {} > stride {}",
                m.name,
                n.size,
                elem
            );
            check_invariants(n, rules)?;
        }
    }
    let last = l.members.last().expect("non-empty");
    prop_assert_eq!(
        l.end,
        last.offset + last.size,
        "end is just past the last member"
    );
    prop_assert!(l.end <= l.size, "end {} > size {}", l.end, l.size);
    prop_assert_eq!(
        l.size % l.align,
        0,
        "size {} not a multiple of align {}",
        l.size,
        l.align
    );
    prop_assert!(
        l.size - l.end < l.align,
        "tail padding {} >= align {}",
        l.size - l.end,
        l.align
    );
    Ok(())
}

/// std140 only ever adds padding to std430: member by member, at every level.
fn check_std140_dominates(l140: &BlockLayout, l430: &BlockLayout) -> Result<(), TestCaseError> {
    prop_assert_eq!(l140.members.len(), l430.members.len());
    prop_assert!(
        l430.size <= l140.size,
        "std430 size {} > std140 {}",
        l430.size,
        l140.size
    );
    prop_assert!(l430.end <= l140.end);
    prop_assert!(l430.align <= l140.align);
    for (a, b) in l140.members.iter().zip(&l430.members) {
        prop_assert!(
            a.offset >= b.offset,
            "{}: std140 offset {} < std430 {}",
            a.name,
            a.offset,
            b.offset
        );
        prop_assert!(
            a.size >= b.size,
            "{}: std140 size {} < std430 {}",
            a.name,
            a.size,
            b.size
        );
        if let (Some(x), Some(y)) = (&a.nested, &b.nested) {
            check_std140_dominates(x, y)?;
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn layouts_satisfy_invariants((members, runtime) in block()) {
        let (fs, structs) = build(&members, runtime);
        for rules in [Rules::Std140, Rules::Std430] {
            let l = layout_fields(&fs, rules, &structs, &mut vec![]).expect("well-formed input");
            check_invariants(&l, rules)?;
        }
    }

    #[test]
    fn std140_never_smaller_than_std430((members, runtime) in block()) {
        let (fs, structs) = build(&members, runtime);
        let l140 = layout_fields(&fs, Rules::Std140, &structs, &mut vec![]).unwrap();
        let l430 = layout_fields(&fs, Rules::Std430, &structs, &mut vec![]).unwrap();
        check_std140_dominates(&l140, &l430)?;
    }

    /// A struct laid out as a member has the size and alignment of its own layout, so the engine agrees with
    /// itself whether it meets a struct inline or through `StructDef::layout`.
    #[test]
    fn nested_layout_equals_standalone_layout((members, _) in block()) {
        let (fs, structs) = build(&members, false);
        for rules in [Rules::Std140, Rules::Std430] {
            let l = layout_fields(&fs, rules, &structs, &mut vec![]).unwrap();
            for (m, f) in l.members.iter().zip(&fs) {
                if let FieldType::Struct(name) = &f.ty {
                    let alone = structs.0[name].layout(rules, &structs).unwrap();
                    prop_assert_eq!(m.nested.as_deref(), Some(&alone));
                    prop_assert_eq!(m.align, if m.array_stride.is_some() && rules == Rules::Std140 {
                        alone.align.next_multiple_of(16)
                    } else {
                        alone.align
                    });
                }
            }
        }
    }
}

/// The property checks must be able to fail: a layout with a misaligned member is rejected.
#[test]
fn invariant_check_rejects_a_broken_layout() {
    let fs = vec![Field::new(Type::Float, "a"), Field::new(Type::Vec4, "b")];
    let mut l = layout_fields(&fs, Rules::Std430, &StructMap::default(), &mut vec![]).unwrap();
    assert!(check_invariants(&l, Rules::Std430).is_ok());
    l.members[1].offset = 8;
    l.end = 24;
    l.size = 32;
    assert!(check_invariants(&l, Rules::Std430).is_err());
}
