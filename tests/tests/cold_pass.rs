//! A pass in a process that has compiled nothing yet builds glslang's tables on one thread while the others expand
//! and generate every module, and compiles only then (`Compiler::warm_up`): its report must be the one a pass in a
//! warm process gives, every module in its place. Its own test binary, so that its first pass is the cold one.
use gpu::builder::{BuildOptions, build};
use gpu::compiler::{Compiler, Profile};
use shader_info::{DirLoader, Registry};
use shaders as _;

/// Every module of a debug pass over the library at 4 jobs, as the report lists them: info, variant, stage and
/// the hash of its SPIR-V.
fn modules() -> Vec<(String, Option<usize>, String, u128)> {
    let root = shaders::glsl_root();
    let compiler = Compiler::new(&root).unwrap();
    let opts = BuildOptions {
        profile: Profile::Debug,
        jobs: 4,
        ..BuildOptions::default()
    };
    let report = build(
        Registry::global(),
        &compiler,
        &DirLoader::new(&root),
        &opts,
        &|_| {},
    );
    assert!(report.success(), "{}", report.render_failures());
    report
        .module_reports
        .iter()
        .map(|m| (m.info.clone(), m.variant, m.stage.clone(), m.spirv_hash))
        .collect()
}

#[test]
fn a_cold_pass_reports_what_a_warm_one_does() {
    assert!(
        !Compiler::tables_built(Profile::Debug),
        "nothing in this binary compiles before its pass"
    );
    let cold = modules();
    assert!(Compiler::tables_built(Profile::Debug));
    let warm = modules();
    assert_eq!(cold.len(), 1675);
    assert_eq!(cold, warm);
}
