//! The mesh ubershader's variants: permutation and unique counts, and a lookup table that agrees with the
//! specialize function for every permutation. (Compiling and cross-checking every unique variant is part of the
//! `shader_builder` target, which builds the whole library.)

use shader_info::*;
use shaders::infos::mesh::{MESH_BRANCHES, specialize_mesh};

fn mesh_set() -> (ResolvedInfo, VariantSet) {
    let info = Registry::global()
        .resolve("gpu_shader_mesh")
        .expect("the mesh shader resolves");
    let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).expect("enumerates");
    (info, set)
}

/// The render state a variant carries, as the pipeline sees it.
fn state_of(v: &Variant) -> RenderState {
    RenderState::from_items(
        &v.state
            .iter()
            .map(|s| Item {
                value: *s,
                declared_in: String::new(),
                origin: Origin::default(),
            })
            .collect::<Vec<_>>(),
    )
}

/// What makes a variant's modules: everything but its render state.
type ModuleIdentity<'a> = (
    u64,
    &'a Vec<(String, String)>,
    &'a Vec<(Stage, String)>,
    &'a Vec<VertexInput>,
);

fn modules_of(v: &Variant) -> ModuleIdentity<'_> {
    (v.bits, &v.defines, &v.sources, &v.vertex_inputs)
}

#[test]
fn mesh_permutation_and_unique_counts() {
    let (_, set) = mesh_set();
    assert_eq!(set.branches, MESH_BRANCHES);
    assert_eq!(set.permutations(), 8192);
    // The folding rules cut 8192 permutations to 808 unique (modules, render state) pairs (2048 permutations
    // are never used: skinned and instanced at once). They need only 436 distinct sets of modules: a
    // double-sided surface differs only in culling, a transparent one only in blending and depth writes.
    assert_eq!(set.variants.len(), 808);
    let modules: std::collections::HashSet<_> = set.variants.iter().map(modules_of).collect();
    assert_eq!(modules.len(), 436);
    assert_eq!(set.table.iter().filter(|i| **i == u32::MAX).count(), 2048);
}

#[test]
fn transparent_variants_blend_and_share_the_opaque_modules() {
    let (_, set) = mesh_set();
    let transparent = set.bits_of(&[("TRANSPARENT", true)]).unwrap();
    let mut blended = 0;
    for bits in 0..set.permutations() as u64 {
        if bits & transparent == 0 {
            continue;
        }
        let (Ok(t), Ok(o)) = (set.lookup(bits), set.lookup(bits & !transparent)) else {
            continue;
        };
        let (t, o) = (&set.variants[t], &set.variants[o]);
        assert_eq!(modules_of(t), modules_of(o), "{}", set.describe(bits));
        let (ts, os) = (state_of(t), state_of(o));
        let cut_out_or_depth =
            o.value("FOLIAGE", &set.branches) || o.value("DEPTH_ONLY", &set.branches);
        if cut_out_or_depth {
            // Foliage is cut out, and a depth pass ignores transparency: the opaque variant itself.
            assert_eq!(t, o, "{}", set.describe(bits));
            continue;
        }
        blended += 1;
        assert_eq!(ts.blend_at(0), Blend::Alpha, "{}", set.describe(bits));
        assert_eq!(os.blend_at(0), Blend::Opaque, "{}", set.describe(bits));
        let depth = ts.depth.expect("a transparent surface still tests depth");
        assert!(!depth.write, "{}", set.describe(bits));
        assert!(os.depth.is_none_or(|d| d.write));
        // Everything else (culling of a double-sided surface) is the opaque variant's.
        assert_eq!(ts.cull, os.cull, "{}", set.describe(bits));
    }
    assert!(blended > 0);
}

#[test]
fn lookup_returns_what_specialize_folded_for_every_permutation() {
    let (_, set) = mesh_set();
    for bits in 0..set.permutations() as u64 {
        // Run the specialize rules by hand on the named values and compare with the table's variant.
        let named: Vec<(&str, bool)> = MESH_BRANCHES
            .iter()
            .enumerate()
            .map(|(i, n)| (*n, bits & (1 << i) != 0))
            .collect();
        assert_eq!(set.bits_of(&named).unwrap(), bits);
        let skinned_instanced = named[1].1 && named[2].1;
        match set.lookup(bits) {
            Ok(i) => {
                assert!(
                    !skinned_instanced,
                    "{} should be never used",
                    set.describe(bits)
                );
                let v = &set.variants[i];
                let get = |n: &str| v.value(n, &set.branches);
                if get("DEPTH_ONLY") {
                    assert!(
                        !get("FOG") && !get("NORMAL_MAP") && !get("EMISSIVE"),
                        "{}",
                        set.describe(bits)
                    );
                    // The depth-only (shadow) technique carries its own state: no color, slope-scaled bias.
                    let state = state_of(v);
                    assert_eq!(state.color_writes_at(0), ColorWrites::NONE);
                    assert!(state.depth_bias.is_some_and(|b| b.slope > 0.0));
                    assert!(
                        v.sources
                            .iter()
                            .any(|(s, f)| *s == Stage::Fragment && f.contains("depth"))
                    );
                }
                if get("SKINNING") {
                    assert!(!get("FOLIAGE"));
                }
                if get("FOLIAGE") {
                    assert!(get("ALPHA_TEST") && (get("DOUBLE_SIDED") || get("DEPTH_ONLY")));
                }
                // Branches the rules never touch keep the requested value.
                for keep in ["INSTANCING", "CLIP_PLANE", "SKINNING", "DEPTH_ONLY"] {
                    let requested = named.iter().find(|(n, _)| *n == keep).unwrap().1;
                    assert_eq!(get(keep), requested, "{keep} in {}", set.describe(bits));
                }
            }
            Err(e) => {
                assert!(skinned_instanced, "{e}");
                assert!(matches!(e, VariantError::NeverUsed { .. }));
            }
        }
    }
    assert!(matches!(
        set.lookup(1 << 13),
        Err(VariantError::OutOfRange { .. })
    ));
}

#[test]
fn specialize_is_the_registered_function() {
    let (info, _) = mesh_set();
    assert_eq!(
        info.specialize.as_ref().map(|s| s.value),
        Some(SpecializeFn(specialize_mesh))
    );
}

#[test]
fn a_variant_changes_only_constants_and_sources_not_the_glsl_source_files() {
    let (info, set) = mesh_set();
    let reg = Registry::global();
    let loader = DirLoader::new(shaders::glsl_root());
    let opts = GenerateOptions::new(&loader, reg);
    let fog = set.lookup(set.bits_of(&[("FOG", true)]).unwrap()).unwrap();
    let plain = set.lookup(0).unwrap();
    let info = reg.validated(&info.name).unwrap();
    let a = generate(
        &info.variant(&set, fog, reg).unwrap(),
        Stage::Fragment,
        &opts,
    )
    .unwrap();
    let b = generate(
        &info.variant(&set, plain, reg).unwrap(),
        Stage::Fragment,
        &opts,
    )
    .unwrap();
    assert!(
        a.source.contains("const bool FOG = true;") && b.source.contains("const bool FOG = false;")
    );
    let strip = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("const bool ") && !l.starts_with("#define BRANCH_"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        strip(&a.source),
        strip(&b.source),
        "only the branch constants (and their preprocessor symbols) differ"
    );
}

#[test]
fn a_branch_can_become_a_specialization_constant_without_touching_the_source() {
    use gpu::compiler::{Compiler, Profile};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("flag.comp.glsl"),
        "void main() { data[gl_GlobalInvocationID.x] = FAST_PATH ? 1u : 2u; }\n",
    )
    .unwrap();
    let base = |name: &str| {
        ShaderCreateInfo::new(name)
            .storage_buf(0, Qualifier::Write, "uint", "data[]", Frequency::Pass)
            .local_group_size(64)
            .compute_source("flag.comp.glsl")
    };
    let mut reg = Registry::new();
    reg.add_info(base("as_branch").branch("FAST_PATH"));
    reg.add_info(base("as_constant").specialization_constant(Type::Bool, "FAST_PATH", false));
    let compiler = Compiler::new(dir.path()).unwrap();
    let loader = DirLoader::new(dir.path());
    let opts = GenerateOptions::new(&loader, &reg);

    let branch = reg.validated("as_branch").unwrap();
    let set = enumerate_variants(&branch, DEFAULT_BRANCH_LIMIT).unwrap();
    assert_eq!(set.variants.len(), 2, "two static variants, two modules");
    for i in 0..set.variants.len() {
        let g = generate(
            &branch.variant(&set, i, &reg).unwrap(),
            Stage::Compute,
            &opts,
        )
        .unwrap();
        compiler.compile_generated(&g, Profile::Release).unwrap();
    }

    let constant = reg.validated("as_constant").unwrap();
    let g = generate(&constant, Stage::Compute, &opts).unwrap();
    assert!(
        g.source
            .contains("layout(constant_id = 0) const bool FAST_PATH = false;"),
        "{}",
        g.source
    );
    let module = compiler.compile_generated(&g, Profile::Release).unwrap();
    let reflection = gpu::reflect::reflect(&module.spirv).unwrap();
    assert_eq!(
        reflection.specialization_constants.len(),
        1,
        "one module, the value chosen per pipeline"
    );
    assert_eq!(reflection.specialization_constants[0].0, 0);
}

#[test]
fn branch_twins_group_the_variants_that_differ_in_branch_values_and_state_only() {
    let (info, set) = mesh_set();
    let groups = set.branch_twins(&info);
    // The depth-only variants read another fragment source; every other difference is a branch value or state.
    assert_eq!(groups.len(), 2);
    let mut seen: Vec<usize> = groups.iter().flatten().copied().collect();
    seen.sort_unstable();
    assert_eq!(seen, (0..set.variants.len()).collect::<Vec<_>>());
    for g in &groups {
        assert!(g.windows(2).all(|w| w[0] < w[1]), "{g:?}");
        for &i in &g[1..] {
            assert_eq!(set.variants[g[0]].sources, set.variants[i].sources);
        }
    }
    assert_ne!(
        set.variants[groups[0][0]].sources,
        set.variants[groups[1][0]].sources
    );
}

#[test]
fn a_branch_twin_is_the_variant_validated_in_full() {
    let registry = Registry::global();
    let info = registry.validated("gpu_shader_mesh").unwrap();
    let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    let mut derived = 0;
    let groups = set.branch_twins(&info);
    for g in &groups {
        let lead = info.variant(&set, g[0], registry).unwrap();
        for &i in &g[1..] {
            let twin = info.branch_twin(&set, i, &lead).unwrap().unwrap();
            assert_eq!(
                twin,
                info.variant(&set, i, registry).unwrap(),
                "variant {i}"
            );
            derived += 1;
        }
    }
    assert_eq!(derived, 808 - 2);
    // A variant of another group (another fragment source) is no twin: it is validated alone.
    let a = info.variant(&set, 0, registry).unwrap();
    assert_eq!(info.branch_twin(&set, groups[1][0], &a), None);
}

/// A registry with one info `skinned`: branches `SKINNING` and `FOG`, the storage buffer `bones` (set 1, binding 2)
/// declared only where `SKINNING` holds, stage sources `a.vert` and `a.frag`.
fn skinned_registry() -> Registry {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("skinned")
            .branch("SKINNING")
            .branch("FOG")
            .resources_if(Condition::branch("SKINNING"), |i| {
                i.storage_buf(2, Qualifier::Read, "mat4", "bones[]", Frequency::Batch)
            })
            .fragment_out(0, Type::Vec4, "color")
            .vertex_source("a.vert")
            .fragment_source("a.frag"),
    );
    reg
}

/// Variants whose branches pick other conditional resources are no twins: what they declare differs, and so does
/// what validation checks.
#[test]
fn variants_with_other_conditional_resources_are_not_branch_twins() {
    let reg = skinned_registry();
    let info = reg.validated("skinned").unwrap();
    let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    let skinned = |i: usize| set.variants[i].value("SKINNING", &set.branches);
    let groups = set.branch_twins(&info);
    assert_eq!(groups.len(), 2, "{groups:?}");
    for g in &groups {
        assert!(g.iter().all(|&i| skinned(i) == skinned(g[0])), "{g:?}");
        let lead = info.variant(&set, g[0], &reg).unwrap();
        for &i in &g[1..] {
            assert_eq!(
                info.branch_twin(&set, i, &lead).unwrap(),
                info.variant(&set, i, &reg)
            );
        }
    }
    // Across the groups the resources differ: derived from the other group's variant, none is a twin.
    let (a, b) = (groups[0][0], groups[1][0]);
    let lead = info.variant(&set, a, &reg).unwrap();
    assert_eq!(info.branch_twin(&set, b, &lead), None);
}

fn wrong_state(v: &mut VariantBuilder) {
    // Writes to an output the info does not declare: only this state is wrong, and only in the twin.
    if v.get("WRONG") {
        v.state(StateItem::ColorWrites(3, ColorWrites::ALL));
        v.set("WRONG", false);
    }
}

/// A registry with one info `name`: branch `branch`, folded by `fold` into two variants that differ only in render
/// state; stage sources `a.vert` and `a.frag`.
fn with_twins(name: &str, branch: &str, fold: fn(&mut VariantBuilder)) -> Registry {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new(name)
            .branch(branch)
            .specialize(fold)
            .fragment_out(0, Type::Vec4, "color")
            .vertex_source("a.vert")
            .fragment_source("a.frag"),
    );
    reg
}

#[test]
fn a_branch_twin_with_wrong_state_fails_as_validated_in_full() {
    let reg = with_twins("twins", "WRONG", wrong_state);
    let info = reg.validated("twins").unwrap();
    let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    assert_eq!(set.branch_twins(&info), vec![vec![0, 1]]);
    let lead = info.variant(&set, 0, &reg).unwrap();
    let full = info.variant(&set, 1, &reg).unwrap_err();
    assert_eq!(full[0].code, Code::RenderState, "{}", render_all(&full));
    assert_eq!(info.branch_twin(&set, 1, &lead).unwrap().unwrap_err(), full);
}

/// The static pass's expansion (validated and generated per group of branch twins) gives every variant as
/// validating and generating it alone does, builtins found in its text included.
#[test]
fn the_flow_expands_every_variant_as_one_at_a_time() {
    use gpu::compiler::{Compiler, Profile};
    use gpu::flow::Flow;
    let root = shaders::glsl_root();
    let (compiler, loader) = (Compiler::new(&root).unwrap(), DirLoader::new(&root));
    let flow = Flow::new(Registry::global(), &loader, &compiler, Profile::Debug);
    let info = flow.validated("gpu_shader_mesh").unwrap();
    let (set, variants) = flow
        .expand_generated(&info)
        .unwrap()
        .expect("the mesh has branches");
    assert_eq!(variants.len(), set.variants.len());
    let texts = tests::expansion::matches_each_variant_alone(&flow, "gpu_shader_mesh", &variants)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(texts, 2 * 808, "every stage's text expanded");
}

fn blend_twin(v: &mut VariantBuilder) {
    if v.get("BLEND") {
        v.state(StateItem::Blend(Blend::Alpha));
        v.set("BLEND", false);
    }
}

/// A twin takes the builtins found in the text it shares with its group's first variant (clip distances here,
/// written by the vertex stage and not declared).
#[test]
fn a_branch_twin_takes_the_builtins_found_in_the_shared_text() {
    use gpu::compiler::{Compiler, Profile};
    use gpu::flow::Flow;
    let reg = with_twins("clipped", "BLEND", blend_twin);
    let loader = MemoryLoader::default()
        .with(
            "a.vert",
            "void main() { gl_Position = vec4(0.0); gl_ClipDistance[0] = 1.0; }",
        )
        .with("a.frag", "void main() { color = vec4(1.0); }");
    let dir = tempfile::tempdir().unwrap();
    let compiler = Compiler::new(dir.path()).unwrap();
    let flow = Flow::new(&reg, &loader, &compiler, Profile::Debug);
    let info = flow.validated("clipped").unwrap();
    let (set, variants) = flow.expand(&info).unwrap().unwrap();
    assert_eq!(set.branch_twins(&info), vec![vec![0, 1]]);
    for (i, v) in variants.into_iter().enumerate() {
        let v = v.unwrap();
        assert!(
            v.builtins.contains(BuiltinBits::CLIP_DISTANCES),
            "variant {i}"
        );
        assert_eq!(v, flow.validated_key(&format!("clipped#v{i}")).unwrap());
    }
}

/// `(info, stage, variant)` of each module of a pass, in report order.
type Modules = Vec<(String, String, Option<usize>)>;

/// What the pass gives, module by module and failure by failure: its modules, and each failure rendered.
fn pass_outcome(
    registry: &Registry,
    root: &std::path::Path,
    shard: Option<gpu::builder::Shard>,
) -> (Modules, Vec<String>) {
    use gpu::builder::{BuildOptions, build};
    let compiler = gpu::compiler::Compiler::new(root).unwrap();
    let opts = BuildOptions {
        shard,
        ..BuildOptions::default()
    };
    let report = build(registry, &compiler, &DirLoader::new(root), &opts, &|_| {});
    let modules = report
        .module_reports
        .iter()
        .map(|m| (m.info.clone(), m.stage.clone(), m.variant))
        .collect();
    // In the report's order: validation failures first (registry order), then those of variants.
    let failures: Vec<String> = report
        .failed
        .iter()
        .map(|f| format!("{} {:?}: {}", f.info, f.stage, render_all(&f.diagnostics)))
        .collect();
    (modules, failures)
}

/// Builds glslang's tables in this process, whichever test compiled first: a cold process's pass expands everything
/// while they are built, and does not take the path a warm process (every pass after the first) takes.
fn warm(root: &std::path::Path) {
    use gpu::compiler::{Compiler, Profile};
    Compiler::new(root).unwrap().warm_up(Profile::Debug);
    assert!(Compiler::tables_built(Profile::Debug));
}

/// A warm process's pass validates, expands and compiles each info in one task (those with branches first); a
/// sharded part validates and expands every info first. One part of one is the whole pass: the same modules in the
/// same order, the same failures in the same order (an info that fails its validation, and a variant that fails its
/// own).
#[test]
fn the_pass_and_its_one_part_agree_module_by_module() {
    let whole = Some(gpu::builder::Shard { index: 0, count: 1 });
    let root = shaders::glsl_root();
    warm(&root);
    let (modules, failures) = pass_outcome(Registry::global(), &root, None);
    assert!(failures.is_empty(), "{failures:?}");
    assert_eq!(modules.len(), 1675);
    assert_eq!(
        (modules, failures),
        pass_outcome(Registry::global(), &root, whole)
    );

    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("a.vert"),
        "void main() { gl_Position = vec4(0.0); }\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("a.frag"),
        "void main() { color = vec4(1.0); }\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    let info = |name: &str| {
        ShaderCreateInfo::new(name)
            .fragment_out(0, Type::Vec4, "color")
            .vertex_source("a.vert")
            .fragment_source("a.frag")
            .do_static_compilation(true)
    };
    reg.add_info(info("twins").branch("WRONG").specialize(wrong_state));
    reg.add_info(info("plain"));
    reg.add_info(info("zz_broken").additional_info("no_such_info"));
    let (modules, failures) = pass_outcome(&reg, dir.path(), None);
    assert_eq!(failures.len(), 2, "{failures:?}");
    // The info that fails validation is reported first, though it comes last in the registry.
    assert!(failures[0].starts_with("zz_broken"), "{failures:?}");
    assert!(
        failures[1].contains("variant 1"),
        "the wrong twin fails: {failures:?}"
    );
    // In the registry's order (by name), whichever thread ran what.
    assert_eq!(
        modules,
        [
            ("plain", "vert", None),
            ("plain", "frag", None),
            ("twins", "vert", Some(0)),
            ("twins", "frag", Some(0))
        ]
        .map(|(i, s, v)| (i.to_string(), s.to_string(), v))
    );
    assert_eq!((modules, failures), pass_outcome(&reg, dir.path(), whole));
}

/// Passes run at once in one thread pool, from threads of their own and from the pool's own threads, each give the
/// whole pass.
#[test]
fn passes_at_once_in_one_pool_each_give_the_whole_pass() {
    let root = shaders::glsl_root();
    warm(&root);
    let alone = pass_outcome(Registry::global(), &root, None);
    let (a, b) = std::thread::scope(|s| {
        let a = s.spawn(|| pass_outcome(Registry::global(), &root, None));
        let b = s.spawn(|| pass_outcome(Registry::global(), &root, None));
        (a.join().unwrap(), b.join().unwrap())
    });
    assert_eq!(a, alone);
    assert_eq!(b, alone);
    let (c, d) = rayon::join(
        || pass_outcome(Registry::global(), &root, None),
        || pass_outcome(Registry::global(), &root, None),
    );
    assert_eq!(c, alone);
    assert_eq!(d, alone);
}

fn clipped_by_constant(v: &mut VariantBuilder) {
    // A boolean compilation constant that conditions a resource, turned on by a branch: its variants' resources
    // follow the constant, not only the branches.
    if v.get("CLIP") {
        v.set_constant("USE_CLIP", true);
        v.set("CLIP", false);
    }
}

/// The pass's expansion of an info whose resources follow branches and a boolean constant gives every variant, and
/// the text of each of its stages, as validating and generating it alone does: twins are derived only where the
/// resources are the same.
#[test]
fn conditional_resources_expand_as_each_variant_alone() {
    use gpu::compiler::{Compiler, Profile};
    use gpu::flow::Flow;
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("conditioned")
            .branch("SKINNING")
            .branch("FOG")
            .branch("CLIP")
            .compilation_constant("USE_CLIP", false)
            .specialize(clipped_by_constant)
            .resources_if(Condition::branch("SKINNING"), |i| {
                i.storage_buf(2, Qualifier::Read, "mat4", "bones[]", Frequency::Batch)
            })
            .resources_if(Condition::branch("USE_CLIP"), |i| {
                i.uniform_buf(3, "vec4", "clip_plane", Frequency::Batch)
            })
            .fragment_out(0, Type::Vec4, "color")
            .vertex_source("a.vert")
            .fragment_source("a.frag"),
    );
    let loader = MemoryLoader::default()
        .with(
            "a.vert",
            "void main() {\n#if BRANCH_SKINNING\n  gl_Position = bones[0][0];\n#else\n  gl_Position = vec4(0.0);\n#endif\n  if (FOG) { gl_Position.x += 1.0; }\n}",
        )
        .with(
            "a.frag",
            "void main() { color = USE_CLIP ? vec4(1.0) : vec4(0.0); }",
        );
    let dir = tempfile::tempdir().unwrap();
    let compiler = Compiler::new(dir.path()).unwrap();
    let flow = Flow::new(&reg, &loader, &compiler, Profile::Debug);
    let info = flow.validated("conditioned").unwrap();
    let (set, variants) = flow.expand_generated(&info).unwrap().unwrap();
    assert_eq!(
        set.variants.len(),
        8,
        "SKINNING × FOG × USE_CLIP (CLIP folded into it)"
    );
    // By skinning and clip plane: each group's variants differ in FOG only.
    let groups = set.branch_twins(&info);
    assert_eq!(groups.len(), 4, "{groups:?}");
    assert!(groups.iter().all(|g| g.len() == 2), "{groups:?}");
    let texts = tests::expansion::matches_each_variant_alone(&flow, "conditioned", &variants)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(texts, 2 * 8, "every stage's text expanded");
}

/// A module's check against its declaration is done once per declaration (variants that differ only in branch
/// values share it), never handed to a variant that declares something else: the skinned variant's module checks
/// clean against its own declaration, and checked against the unskinned variant's after that, still finds the
/// binding that variant does not declare.
#[test]
fn a_module_checked_against_one_variant_is_checked_again_against_another() {
    use gpu::compiler::{Compiler, Profile};
    use gpu::flow::Flow;
    let reg = skinned_registry();
    let loader = MemoryLoader::default()
        .with(
            "a.vert",
            "void main() {\n#if BRANCH_SKINNING\n  gl_Position = bones[0][0];\n#else\n  gl_Position = vec4(0.0);\n#endif\n}",
        )
        .with("a.frag", "void main() { color = vec4(FOG ? 1.0 : 0.0); }");
    let dir = tempfile::tempdir().unwrap();
    let compiler = Compiler::new(dir.path()).unwrap();
    let flow = Flow::new(&reg, &loader, &compiler, Profile::Debug);
    let info = flow.validated("skinned").unwrap();
    let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    let index = |skinning: bool, fog: bool| {
        set.lookup(
            set.bits_of(&[("SKINNING", skinning), ("FOG", fog)])
                .unwrap(),
        )
        .unwrap()
    };
    let variant = |i: usize| flow.with_found_builtins(info.variant(&set, i, &reg).unwrap());
    let skinned = variant(index(true, false));
    let skinned_fog = info
        .branch_twin(&set, index(true, true), &skinned)
        .unwrap()
        .unwrap();
    let plain = variant(index(false, false));
    assert_eq!(skinned_fog.code_id(), skinned.code_id());
    assert_ne!(plain.code_id(), skinned.code_id());
    let checked = flow.compile(&skinned, Stage::Vertex).unwrap();
    let generated = &checked.generated;
    flow.check(&skinned, generated, &checked.module.spirv)
        .unwrap();
    flow.check(&skinned_fog, generated, &checked.module.spirv)
        .unwrap();
    let errors = flow
        .check(&plain, generated, &checked.module.spirv)
        .unwrap_err();
    assert!(
        errors.iter().any(|d| d.message.contains("set 1 binding 2")),
        "{}",
        render_all(&errors)
    );
}

fn spec_keep(_: &mut VariantBuilder) {}
fn spec_fold(v: &mut VariantBuilder) {
    if v.get("B0") {
        v.set("B1", false);
    }
}
fn spec_constant(v: &mut VariantBuilder) {
    if v.get("B0") {
        v.set_constant("K", true);
        v.set("B0", false);
    }
}
fn spec_source(v: &mut VariantBuilder) {
    if v.get("B1") {
        v.source(Stage::Fragment, "alt.frag");
    }
}
fn spec_state(v: &mut VariantBuilder) {
    if v.get("B2") {
        v.state(StateItem::Blend(Blend::Alpha));
        v.set("B2", false);
    }
}
fn spec_define(v: &mut VariantBuilder) {
    if v.get("B3") {
        v.define("EXTRA", "1");
    }
}
const SPECIALIZERS: [fn(&mut VariantBuilder); 6] = [
    spec_keep,
    spec_fold,
    spec_constant,
    spec_source,
    spec_state,
    spec_define,
];

/// A condition over the four branches and the boolean constant `K`, from a seed of small numbers.
fn condition_of(seed: &[u8]) -> Condition {
    let name = |n: u8| Condition::branch(["B0", "B1", "B2", "B3", "K"][usize::from(n % 5)]);
    match seed {
        [] => name(0),
        [a] => name(*a),
        [a, b, ..] if a % 3 == 0 => name(*a).and(name(*b)),
        [a, b, ..] if a % 3 == 1 => name(*a).or(name(*b).not()),
        [a, ..] => name(*a).not(),
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
    /// Random ubershaders of four branches (conditional resources on branches and a boolean constant, folds,
    /// constants a variant sets, swapped sources, render state, defines): the pass's expansion gives every
    /// variant, and the text of each of its stages, as validating and generating it alone does.
    #[test]
    fn random_ubershaders_expand_as_each_variant_alone(
        conditions in proptest::collection::vec(proptest::collection::vec(0u8..15, 0..3), 0..4),
        specializers in proptest::collection::vec(0usize..SPECIALIZERS.len(), 1..3),
    ) {
        use gpu::compiler::{Compiler, Profile};
        use gpu::flow::Flow;
        // The specialize function is a plain `fn`, run on the pool's threads: the picks are read from a static.
        static PICKS: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());
        fn combined(v: &mut VariantBuilder) {
            let picks = PICKS.lock().unwrap_or_else(|e| e.into_inner()).clone();
            for i in picks {
                SPECIALIZERS[i](v);
            }
        }
        *PICKS.lock().unwrap_or_else(|e| e.into_inner()) = specializers.clone();
        let mut info = ShaderCreateInfo::new("uber")
            .branch("B0")
            .branch("B1")
            .branch("B2")
            .branch("B3")
            .compilation_constant("K", false)
            .specialize(combined)
            .fragment_out(0, Type::Vec4, "color")
            .vertex_source("a.vert")
            .fragment_source("a.frag");
        for (i, seed) in conditions.iter().enumerate() {
            let binding = 2 + i as u32;
            info = info.resources_if(condition_of(seed), move |i| {
                i.uniform_buf(binding, "vec4", format!("params{binding}"), Frequency::Batch)
            });
        }
        let mut reg = Registry::new();
        reg.add_info(info);
        let loader = MemoryLoader::default()
            .with("a.vert", "void main() { gl_Position = vec4(B0 ? 1.0 : 0.0); }")
            .with("a.frag", "void main() { color = vec4(K ? 1.0 : 0.0); }")
            .with("alt.frag", "void main() { color = vec4(1.0); }");
        let dir = tempfile::tempdir().unwrap();
        let compiler = Compiler::new(dir.path()).unwrap();
        let flow = Flow::new(&reg, &loader, &compiler, Profile::Debug);
        let info = flow.validated("uber").unwrap();
        let (set, variants) = flow.expand_generated(&info).unwrap().unwrap();
        proptest::prop_assert_eq!(variants.len(), set.variants.len());
        // The picked folds ran (on whichever thread enumerated the permutations).
        if specializers.first() == Some(&1) {
            proptest::prop_assert!(set.variants.len() < 16);
        }
        if specializers.contains(&3) {
            proptest::prop_assert!(set.variants.iter().any(|v| !v.sources.is_empty()));
        }
        let texts = tests::expansion::matches_each_variant_alone(&flow, "uber", &variants);
        // Every stage of every valid variant compared (a variant the specialize function made invalid is refused
        // alike both ways).
        let valid = variants.iter().filter(|v| v.is_ok()).count();
        proptest::prop_assert_eq!(texts, Ok(2 * valid));
    }
}
