//! The shader library's contract: enough compilable infos, the names renderers look up, every info resolving and
//! validating, and every stage of every compilable info generating and compiling with `glslangValidator` (an
//! independent compiler, so this test does not depend on the `gpu` crate's compiler).

use shader_info::*;
use shaders as _;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Names that renderers and other crates look up; each must be a compilable info.
const REQUIRED_COMPILABLE: &[&str] = &[
    "gpu_shader_2D_uniform_color",
    "gpu_shader_3D_flat_color",
    "gpu_shader_3D_smooth_color",
    "gpu_shader_2D_image",
    "gpu_shader_2D_image_color",
    "gpu_shader_text",
    "gpu_shader_2D_point_round",
    "gpu_shader_3D_polyline",
    "gpu_shader_fullscreen_tonemap",
    "gpu_shader_3D_depth_only",
    "gpu_shader_forward_lit",
    "gpu_shader_skybox",
    "gpu_compute_blur_horizontal",
    "gpu_compute_blur_vertical",
    "gpu_compute_prefix_sum",
    "gpu_compute_histogram",
    "gpu_compute_downsample",
    "gpu_compute_particles",
    "gpu_compute_cull",
    "gpu_raytrace_lit",
    "gpu_raytrace_barycentric",
];

/// Building blocks reused through `additional_info`; each must exist and must not be compilable on its own.
const REQUIRED_BUILDING_BLOCKS: &[&str] = &[
    "gpu_compute_blur",
    "gpu_srgb_to_framebuffer_space",
    "gpu_view_uniforms",
    "gpu_mvp",
    "gpu_modelmat",
    "gpu_fullscreen",
];

fn registry() -> &'static Registry {
    Registry::global()
}

/// The library's infos: those declared in this crate's sources (other linked crates may register their own).
fn library_infos() -> Vec<&'static ShaderCreateInfo> {
    registry()
        .infos()
        .filter(|i| i.origin.file.replace('\\', "/").contains("src/infos/"))
        .collect()
}

fn validate_opts(require_complete: bool) -> ValidateOptions<'static> {
    ValidateOptions {
        registry: registry(),
        extra_type_names: &[],
        require_complete,
    }
}

#[test]
fn the_library_has_the_required_infos() {
    assert!(
        registry().problems().is_empty(),
        "{}",
        render_all(registry().problems())
    );
    let infos = library_infos();
    let compilable: Vec<&str> = infos
        .iter()
        .filter(|i| i.do_static_compilation)
        .map(|i| i.name.as_str())
        .collect();
    assert!(
        compilable.len() >= 25,
        "only {} compilable infos: {compilable:?}",
        compilable.len()
    );
    for name in REQUIRED_COMPILABLE {
        assert!(
            compilable.contains(name),
            "missing compilable info `{name}`"
        );
    }
    for name in REQUIRED_BUILDING_BLOCKS {
        let info = registry()
            .info(name)
            .unwrap_or_else(|| panic!("missing building block `{name}`"));
        assert!(
            !info.do_static_compilation,
            "`{name}` should be a building block"
        );
    }
    let ray_tracing = infos
        .iter()
        .filter(|i| i.do_static_compilation && i.name.starts_with("gpu_raytrace_"))
        .count();
    assert!(ray_tracing >= 1);
}

#[test]
fn every_info_resolves_and_validates() {
    let mut failures = Vec::new();
    for info in library_infos() {
        match registry().resolve(&info.name) {
            Ok(resolved) => {
                let diags = validate(&resolved, &validate_opts(info.do_static_compilation));
                // The warnings the library accepts: the prefix sum and the histogram use 256-wide groups (past
                // Vulkan's guaranteed 128, within every device's limits; checked at pipeline creation), and the
                // widget's push block is spilled (on purpose: it shows the spill in the demo).
                let accepted = |d: &shader_info::Diagnostic| {
                    d.severity == shader_info::Severity::Warning
                        && match d.code {
                            shader_info::Code::WorkGroupSize => {
                                ["gpu_compute_prefix_sum", "gpu_compute_histogram"]
                                    .contains(&d.info.as_str())
                            }
                            shader_info::Code::PushConstantTooLarge => {
                                d.info == "gpu_shader_2D_widget_base"
                            }
                            _ => false,
                        }
                };
                let unexpected: Vec<_> = diags.into_iter().filter(|d| !accepted(d)).collect();
                if !unexpected.is_empty() {
                    failures.push(render_all(&unexpected));
                }
            }
            Err(diags) => failures.push(render_all(&diags)),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Compiles one generated stage; the error text names the user's file and line thanks to the `#line` map.
///
/// `#include "relative"` in a stage source is relative to that source's directory (the project compiler's rule);
/// glslangValidator resolves it against the real file's directory and then the `-I` directories, so the stage
/// source's directory is passed as a second `-I` after the root.
fn glslang(
    source: &str,
    name: &str,
    stage: Stage,
    source_dir: &Path,
    dir: &Path,
) -> Result<(), String> {
    let file = dir.join(format!("{name}.{}", stage.short_name()));
    std::fs::write(&file, source).map_err(|e| e.to_string())?;
    let out = Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.3", "-o"])
        .arg(dir.join(format!("{name}.{}.spv", stage.short_name())))
        .arg(format!("-I{}", shaders::glsl_root().display()))
        .arg(format!("-I{}", source_dir.display()))
        .arg(&file)
        .output()
        .map_err(|e| format!("cannot run glslangValidator (install glslang-tools): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[test]
fn every_stage_of_every_compilable_info_generates_and_compiles() {
    let loader = DirLoader::new(shaders::glsl_root());
    let opts = GenerateOptions::new(&loader, registry());
    let tmp = tempfile::tempdir().expect("temporary directory");
    let mut jobs = Vec::new();
    let mut failures = Vec::new();
    for info in library_infos()
        .into_iter()
        .filter(|i| i.do_static_compilation)
    {
        let resolved = match registry().validated(&info.name) {
            Ok(r) => r,
            Err(d) => {
                failures.push(render_all(&d));
                continue;
            }
        };
        assert!(!resolved.stages().is_empty(), "{} has no stage", info.name);
        for stage in resolved.stages() {
            match generate(&resolved, stage, &opts) {
                Ok(g) => {
                    let main = resolved
                        .source(stage)
                        .expect("a generated stage has a source");
                    let source_dir = shaders::glsl_root()
                        .join(main)
                        .parent()
                        .map(Path::to_path_buf);
                    jobs.push((
                        info.name.clone(),
                        stage,
                        source_dir.unwrap_or_default(),
                        g.source,
                    ));
                }
                Err(d) => failures.push(render_all(&d)),
            }
        }
    }
    // glslangValidator runs as a process per stage; two threads keep a two-core machine busy.
    let (a, b) = jobs.split_at(jobs.len() / 2);
    let compile_all = |part: &[(String, Stage, PathBuf, String)]| -> Vec<String> {
        part.iter()
            .filter_map(|(name, stage, source_dir, src)| {
                glslang(src, name, *stage, source_dir, tmp.path())
                    .err()
                    .map(|e| format!("{name} {stage}:\n{e}"))
            })
            .collect()
    };
    let (fa, fb) = std::thread::scope(|s| {
        let ha = s.spawn(|| compile_all(a));
        let fb = compile_all(b);
        (ha.join().expect("compile thread"), fb)
    });
    failures.extend(fa);
    failures.extend(fb);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(jobs.len() >= 50, "only {} stages", jobs.len());
}

#[test]
fn shared_structs_are_registered_with_their_rust_layouts() {
    use shaders::infos::structs::*;
    let cases: [(&str, Rules, usize); 6] = [
        ("ViewData", Rules::Std140, size_of::<ViewData>()),
        ("GlyphQuad", Rules::Std430, size_of::<GlyphQuad>()),
        ("PolylinePoint", Rules::Std430, size_of::<PolylinePoint>()),
        ("Particle", Rules::Std430, size_of::<Particle>()),
        ("CullObject", Rules::Std430, size_of::<CullObject>()),
        (
            "DrawIndexedIndirectCommand",
            Rules::Std430,
            size_of::<DrawIndexedIndirectCommand>(),
        ),
    ];
    for (name, rules, rust_size) in cases {
        let def = registry()
            .find_struct(name)
            .unwrap_or_else(|| panic!("`{name}` is not registered"));
        let layout = def.layout(rules, registry()).expect("layout");
        assert_eq!(layout.size as usize, rust_size, "{name} size under {rules}");
    }
    // The indirect command must be exactly Vulkan's struct: 5 tightly packed 32-bit fields.
    let cmd = registry()
        .find_struct("DrawIndexedIndirectCommand")
        .unwrap()
        .layout(Rules::Std430, registry())
        .unwrap();
    let offsets: Vec<u32> = cmd.members.iter().map(|m| m.offset).collect();
    assert_eq!(offsets, [0, 4, 8, 12, 16]);
}

#[test]
fn derive_style_push_constant_structs_are_the_whole_block() {
    use shaders::infos::compute::*;
    use shaders::infos::fullscreen::FullscreenTonemap;
    // (info, Rust struct size): the resolved block (own members plus any from additional_info) must fit the struct
    // and must not grow past it, or uploading the struct would leave members unset.
    let cases = [
        (
            "gpu_shader_fullscreen_tonemap",
            size_of::<FullscreenTonemap>(),
        ),
        ("gpu_compute_pattern", size_of::<ComputePattern>()),
        ("gpu_compute_prefix_sum", size_of::<ComputePrefixSum>()),
        ("gpu_compute_histogram", size_of::<ComputeHistogram>()),
        ("gpu_compute_particles", size_of::<ComputeParticles>()),
        ("gpu_compute_cull", size_of::<ComputeCull>()),
    ];
    for (name, rust_size) in cases {
        let resolved = registry().resolve(name).unwrap();
        let own = registry().info(name).unwrap();
        assert_eq!(
            resolved.push_constants.len(),
            own.push_constants.len(),
            "{name}: additional_info adds push constants the struct does not hold"
        );
        let layout = resolved.push_constant_layout().unwrap().unwrap();
        assert!(
            layout.end as usize <= rust_size,
            "{name}: {} > {rust_size}",
            layout.end
        );
    }
}

#[test]
fn typed_push_blocks_are_their_infos_blocks() {
    let problems = shaders::infos::push::typed_block_problems(registry());
    assert!(problems.is_empty(), "{}", render_all(&problems));
}
