//! Every shared struct of the registry, checked three ways: the layout engine against glslang's reflection and
//! SPIR-V decorations (as a std140 uniform block and as a std430 storage block), and the engine against the Rust
//! twin's field offsets and size where the struct has one.

use shader_info::{
    BlockLayout, FieldType, Registry, Rules, StructDef, StructLookup, StructMap, Type,
    layout_fields,
};
use std::collections::BTreeSet;
use std::fmt::Write as _;
use tests::glslang;

// Registrations exist only in binaries that link the crate that makes them (inventory).
use shaders as _;

/// The registry's structs with shared-enum fields replaced by `uint`, which is what an enum is in GLSL (a
/// `#define` of `uint`), so the layout engine and glslang both see plain types.
fn glsl_structs(reg: &Registry) -> StructMap {
    let mut m = StructMap::default();
    for def in reg.structs() {
        let mut def = def.clone();
        for f in &mut def.fields {
            if matches!(&f.ty, FieldType::Struct(n) if reg.enum_def(n).is_some()) {
                f.ty = FieldType::Value(Type::Uint);
            }
        }
        m.insert(def);
    }
    m
}

/// Appends `name` and, first, every struct it uses, each once (GLSL needs a struct defined before its use).
fn define(name: &str, structs: &StructMap, done: &mut BTreeSet<String>, out: &mut String) {
    if done.contains(name) {
        return;
    }
    let Some(def) = structs.find_struct(name) else {
        return; // an unknown name makes the engine fail, which is reported with its own message
    };
    done.insert(name.to_string());
    for f in &def.fields {
        if let FieldType::Struct(n) = &f.ty {
            define(n, structs, done, out);
        }
    }
    out.push_str(&def.glsl());
}

/// Block names for a struct under each rule set; the `_140`/`_430` suffix cannot collide with a struct name
/// because struct names are checked against each other, not against these.
fn block_name(def: &StructDef, rules: Rules) -> String {
    format!("Blk_{}_{}", def.name, &rules.glsl_name()[3..])
}

/// One compute shader that declares every struct and, for each, a std140 uniform block and a std430 storage block
/// whose members are the struct's fields, each block touched once so that reflection lists all its members.
fn shader(defs: &[&StructDef], structs: &StructMap) -> String {
    let mut s = String::from("#version 450\nlayout(local_size_x = 1) in;\n");
    let mut done = BTreeSet::new();
    for d in defs {
        define(&d.name, structs, &mut done, &mut s);
    }
    let mut uses = String::new();
    let mut binding = 0;
    for d in defs {
        for (rules, kind) in [(Rules::Std140, "uniform"), (Rules::Std430, "buffer")] {
            let name = block_name(d, rules);
            let inst = name.to_lowercase();
            let _ = writeln!(
                s,
                "layout({rules}, set = 0, binding = {binding}) {kind} {name} {{"
            );
            for f in &d.fields {
                let _ = writeln!(s, "  {}", f.glsl_decl());
            }
            let _ = writeln!(s, "}} {inst};");
            binding += 1;
            // Arrays and structs can be copied whole; `.length()`-free, so runtime arrays are never touched.
            if let Some(f) = d.fields.first() {
                let dims = match f.array {
                    shader_info::FieldArray::Fixed(n) => format!("[{n}]"),
                    _ => String::new(),
                };
                let _ = writeln!(
                    uses,
                    "  {{ {} tmp{dims} = {inst}.{}; }}",
                    f.ty.glsl_name(),
                    f.name
                );
            }
        }
    }
    s.push_str("void main() {\n");
    s.push_str(&uses);
    s.push_str("}\n");
    s
}

/// The Rust twin must match the engine under at least one rule set: its field offsets, and a size that is the
/// GLSL struct's size under that rule set (so arrays of it have the GPU's stride). Returns the matching rules.
fn rust_twin_matches(
    layouts: &[(Rules, BlockLayout)],
    rust_offsets: &[u32],
    rust_size: u32,
) -> Vec<Rules> {
    layouts
        .iter()
        .filter(|(_, l)| {
            let offsets: Vec<u32> = l.members.iter().map(|m| m.offset).collect();
            offsets == rust_offsets && l.size == rust_size
        })
        .map(|(r, _)| *r)
        .collect()
}

/// Checks every struct of `reg`; returns (one line per struct checked, failure reports).
fn check_registry(reg: &Registry) -> (Vec<String>, Vec<String>) {
    let structs = glsl_structs(reg);
    let defs: Vec<&StructDef> = reg
        .structs()
        .filter_map(|d| structs.find_struct(&d.name))
        .collect();
    if defs.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let src = shader(&defs, &structs);
    let out = match glslang::compile_and_reflect(&src, "comp") {
        Ok(o) => o,
        Err(e) => {
            return (
                Vec::new(),
                vec![format!("glslang rejected the shared structs: {e}\n{src}")],
            );
        }
    };
    let mut reports = Vec::new();
    let mut checked = Vec::new();
    for d in &defs {
        let mut layouts = Vec::new();
        for rules in [Rules::Std140, Rules::Std430] {
            let block = block_name(d, rules);
            let l = match layout_fields(&d.fields, rules, &structs, &mut vec![d.name.clone()]) {
                Ok(l) => l,
                Err(e) => {
                    reports.push(format!("{} ({rules}): the engine fails: {e}", d.name));
                    continue;
                }
            };
            let c = glslang::check_block_layout(&out, &block, rules, &l);
            if !c.errors.is_empty() {
                reports.push(format!(
                    "{} ({rules}) differs from glslang:\n  {}\n{}",
                    d.name,
                    c.errors.join("\n  "),
                    d.glsl()
                ));
            }
            // As a block the tail padding is not counted; as a struct (an array element, a Rust twin) it is.
            let as_struct = d.layout(rules, &structs).expect("laid out above");
            layouts.push((rules, as_struct));
        }
        let meta = reg.struct_meta(&d.name).cloned().unwrap_or_default();
        if meta.rust_offsets.is_empty() {
            checked.push(format!("{}: glslang only (no Rust twin)", d.name));
            continue;
        }
        let matching = rust_twin_matches(&layouts, &meta.rust_offsets, meta.rust_size);
        // The derive records the layouts it proved: the Rust twin must match every one of them.
        let unmatched: Vec<&Rules> = meta
            .rules
            .iter()
            .filter(|r| !matching.contains(r))
            .collect();
        if !unmatched.is_empty() {
            reports.push(format!(
                "{}: the Rust twin is declared for {:?} but does not match {:?}",
                d.name, meta.rules, unmatched
            ));
        }
        if matching.is_empty() {
            let engine: Vec<String> = layouts
                .iter()
                .map(|(r, l)| {
                    let o: Vec<u32> = l.members.iter().map(|m| m.offset).collect();
                    format!("{r}: offsets {o:?}, size {}", l.size)
                })
                .collect();
            reports.push(format!(
                "{}: the Rust twin (offsets {:?}, size {}) matches neither layout: {}",
                d.name,
                meta.rust_offsets,
                meta.rust_size,
                engine.join("; ")
            ));
        }
        let rules: Vec<&str> = matching.iter().map(|r| r.glsl_name()).collect();
        checked.push(format!(
            "{}: glslang, and its Rust twin matches {}",
            d.name,
            if rules.is_empty() {
                "nothing".to_string()
            } else {
                rules.join(" + ")
            }
        ));
    }
    (checked, reports)
}

#[test]
fn shared_structs_match_glslang_and_their_rust_twins() {
    let reg = Registry::global();
    let (checked, reports) = check_registry(reg);
    // The `shaders` crate declares its shared structs with `#[derive(ShaderStruct)]`: an empty registry means the
    // crate was not linked or the derive stopped registering, and nothing would be checked.
    assert!(
        !checked.is_empty() || !reports.is_empty(),
        "the registry holds no shared structs"
    );
    assert!(reg.structs().all(|d| {
        reg.struct_meta(&d.name)
            .is_some_and(|m| !m.rules.is_empty())
    }));
    println!(
        "shared structs: {} checked against glslang (std140 + std430):\n  {}",
        checked.len(),
        checked.join("\n  ")
    );
    assert!(reports.is_empty(), "{}", reports.join("\n\n"));
}

/// The check itself, on a hand-made registry: it must compile nested structs and enums, and catch a wrong
/// Rust twin.
#[test]
fn checker_works_on_a_hand_made_registry() {
    use shader_info::{EnumDef, Field};
    let mut reg = Registry::new();
    reg.add_enum(EnumDef {
        name: "LightKind".into(),
        values: vec![("LIGHT_POINT".into(), 0), ("LIGHT_SPOT".into(), 1)],
    });
    reg.add_struct(
        StructDef::new("Light")
            .field(Field::new(Type::Vec3, "position"))
            .field(Field::structure("LightKind", "kind"))
            .field(Field::new(Type::Mat3, "basis")),
    );
    reg.add_struct(
        StructDef::new("Lights")
            .field(Field::new(Type::Uint, "count"))
            .field(Field::structure("Light", "lights").array(3))
            .field(Field::new(Type::Vec2, "scale")),
    );
    let (checked, reports) = check_registry(&reg);
    assert_eq!(reports, Vec::<String>::new());
    assert_eq!(checked.len(), 2, "{checked:?}");

    let structs = glsl_structs(&reg);
    let light = structs.find_struct("Light").unwrap();
    let layouts: Vec<(Rules, BlockLayout)> = [Rules::Std140, Rules::Std430]
        .into_iter()
        .map(|r| (r, light.layout(r, &structs).unwrap()))
        .collect();
    // vec3 at 0, the enum (a uint) packs into the vec3's tail at 12, mat3 columns at 16: the same in both rules.
    assert_eq!(
        rust_twin_matches(&layouts, &[0, 12, 16], 64),
        vec![Rules::Std140, Rules::Std430]
    );
    assert!(rust_twin_matches(&layouts, &[0, 16, 32], 80).is_empty());
    assert!(rust_twin_matches(&layouts, &[0, 12, 16], 60).is_empty());
}
