//! Snapshots of the real library, in naga's manner (declarations in, generated text out, reviewed as a diff): for
//! every compilable info, its pipeline plan and the generated GLSL of each stage; and the rendered diagnostics of a
//! set of broken declarations. A change to the generator, the plan or the diagnostics shows up here.
//!
//! Update after a deliberate change: `INSTA_UPDATE=always cargo test -p tests --test library_snapshots`, then
//! review the diff.

use gpu::compiler::{Compiler, Profile};
use gpu::flow::Flow;
use shader_info::*;
use shaders as _;
use std::fmt::Write as _;

fn snapshot_of(flow: &Flow, info: &ValidatedInfo) -> String {
    let plan = flow.plan(info);
    let mut s = format!(
        "// plan\n{}\n",
        serde_json::to_string_pretty(&plan).expect("plans serialize")
    );
    for stage in info.stages() {
        let g = flow
            .generate(info, stage)
            .unwrap_or_else(|d| panic!("{}", render_all(&d)));
        let _ = write!(s, "\n// {stage}\n{}", g.source);
    }
    s
}

#[test]
fn every_compilable_info_its_plan_and_its_generated_stages() {
    let registry = Registry::global();
    let root = shaders::glsl_root();
    let loader = DirLoader::new(&root);
    let compiler = Compiler::new(&root).unwrap();
    let flow = Flow::new(registry, &loader, &compiler, Profile::Release);
    let mut count = 0;
    for info in registry.infos().filter(|i| i.do_static_compilation) {
        let v = flow
            .validated(&info.name)
            .unwrap_or_else(|d| panic!("{}", render_all(&d)));
        insta::assert_snapshot!(info.name.clone(), snapshot_of(&flow, &v));
        count += 1;
    }
    assert!(count >= 30, "{count} infos");
    // Two variants of the ubershader: every branch off, and the one the demo draws.
    let mesh = flow.validated("gpu_shader_mesh").unwrap();
    let set = flow.variants(&mesh).unwrap();
    for on in [&[][..], &["SKINNING", "VERTEX_COLOR"][..]] {
        let values: Vec<(&str, bool)> = on.iter().map(|b| (*b, true)).collect();
        let index = set.lookup(set.bits_of(&values).unwrap()).unwrap();
        let v = mesh.variant(&set, index, registry).unwrap();
        insta::assert_snapshot!(format!("gpu_shader_mesh.v{index}"), snapshot_of(&flow, &v));
    }
}

#[test]
fn rendered_diagnostics_of_broken_declarations() {
    let mut reg = Registry::shared_types_from_inventory();
    let graphics = |name: &str| {
        ShaderCreateInfo::new(name)
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("v.glsl")
            .fragment_source("f.glsl")
            .do_static_compilation(true)
    };
    reg.add_info(
        graphics("broken_bindings")
            .sampler(0, ImageType::Float2D, "albedo", Frequency::Batch)
            .uniform_buf(0, "ViewData", "view", Frequency::Batch)
            .push_constant(Type::Mat4, "a")
            .push_constant(Type::Mat4, "b")
            // Past what a spilled block may hold (blocks over 128 bytes are spilled and only warned about).
            .push_constant_array(Type::Vec4, "c", 4096),
    );
    reg.add_info(
        graphics("broken_interface")
            .vertex_out(&StageInterfaceInfo::new("iface", "").smooth(Type::Uint, "id"))
            .vertex_in(15, Type::Mat4, "m"),
    );
    reg.add_info(graphics("broken_names").define("gl_Thing").branch("2fast"));
    reg.add_info(
        ShaderCreateInfo::new("broken_kinds")
            .compute_source("c.glsl")
            .do_static_compilation(true),
    );
    let mut text = String::new();
    for name in [
        "broken_bindings",
        "broken_interface",
        "broken_names",
        "broken_kinds",
    ] {
        let d = reg.validated(name).unwrap_err();
        let _ = writeln!(text, "// {name}\n{}", render_all(&d));
    }
    // Rust origins are this file's lines: keep the snapshot stable when lines move.
    let text = text
        .lines()
        .map(|l| match l.find("library_snapshots.rs:") {
            Some(i) => {
                let end = l[i..]
                    .find(|c: char| c == ')' || c.is_whitespace())
                    .map_or(l.len(), |e| i + e);
                format!("{}library_snapshots.rs:LINE{}", &l[..i], &l[end..])
            }
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("broken_declarations", text);
}
