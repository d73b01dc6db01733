//! The runtime compiler against real shaderc and real files in temporary directories.

use shader_info::Severity;
use shader_info::{
    DirLoader, Frequency, GenerateOptions, Registry, ShaderCreateInfo, Stage, Type, generate,
};
use shader_info_gpu::compiler::{
    ChangeDetection, CompileError, Compiler, CompilerOptions, IncludeSearch, Profile,
};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, SystemTime};
use tempfile::TempDir;

/// Every write gets its own modification time, in the past (older than the cache's racy window), so an edit
/// always changes the metadata even on a file system with coarse time stamps.
fn write(root: &Path, rel: &str, text: &str) {
    static TICK: AtomicU64 = AtomicU64::new(0);
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    let t = SystemTime::now() - Duration::from_secs(3600)
        + Duration::from_secs(TICK.fetch_add(1, Ordering::Relaxed));
    set_mtime(&path, t);
}

fn set_mtime(path: &Path, t: SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(t)
        .unwrap();
}

fn tree(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (p, t) in files {
        write(dir.path(), p, t);
    }
    dir
}

const FRAG_HEAD: &str = "#version 450\n#extension GL_GOOGLE_include_directive : require\n";

fn frag(body: &str) -> String {
    format!(
        "{FRAG_HEAD}{body}\nlayout(location = 0) out vec4 o;\nvoid main() {{ o = vec4(1.0); }}\n"
    )
}

fn err(r: Result<Arc<shader_info_gpu::compiler::CompiledModule>, CompileError>) -> CompileError {
    match r {
        Ok(_) => panic!("expected a compile error"),
        Err(e) => e,
    }
}

fn first_error(e: &CompileError) -> &shader_info::Diagnostic {
    e.errors().next().expect("at least one error diagnostic")
}

// ---------------------------------------------------------------------------------------------------------------
// Compiling

#[test]
fn every_stage_compiles_to_spirv_1_5() {
    let rt = "#version 460\n#extension GL_EXT_ray_tracing : require\n";
    let sources: Vec<(Stage, String)> = vec![
        (Stage::Vertex, "#version 450\nvoid main() { gl_Position = vec4(0.0); }\n".into()),
        (
            Stage::TessControl,
            "#version 450\nlayout(vertices = 3) out;\nvoid main() { gl_TessLevelOuter[0] = 1.0; }\n".into(),
        ),
        (
            Stage::TessEvaluation,
            "#version 450\nlayout(triangles) in;\nvoid main() { gl_Position = vec4(gl_TessCoord, 1.0); }\n".into(),
        ),
        (
            Stage::Geometry,
            "#version 450\nlayout(points) in;\nlayout(points, max_vertices = 1) out;\nvoid main() { EmitVertex(); }\n".into(),
        ),
        (Stage::Fragment, frag("")),
        (
            Stage::Compute,
            "#version 450\nlayout(local_size_x = 8) in;\nvoid main() {}\n".into(),
        ),
        (Stage::RayGen, format!("{rt}void main() {{}}\n")),
        (
            Stage::Miss,
            format!("{rt}layout(location = 0) rayPayloadInEXT vec3 c;\nvoid main() {{ c = vec3(0.0); }}\n"),
        ),
        (
            Stage::ClosestHit,
            format!("{rt}layout(location = 0) rayPayloadInEXT vec3 c;\nvoid main() {{ c = vec3(gl_HitTEXT); }}\n"),
        ),
        (Stage::AnyHit, format!("{rt}void main() {{ ignoreIntersectionEXT; }}\n")),
        (
            Stage::Intersection,
            format!("{rt}void main() {{ reportIntersectionEXT(0.5, 0u); }}\n"),
        ),
        (
            Stage::Callable,
            format!("{rt}layout(location = 0) callableDataInEXT float d;\nvoid main() {{ d = 1.0; }}\n"),
        ),
    ];
    assert_eq!(sources.len(), Stage::ALL.len());
    let dir = tempfile::tempdir().unwrap();
    for (stage, text) in &sources {
        write(dir.path(), &format!("s.{}", stage.short_name()), text);
    }
    let c = Compiler::new(dir.path()).unwrap();
    for (stage, _) in &sources {
        for profile in [Profile::Debug, Profile::Release] {
            let m = c
                .compile_from_file(&format!("s.{}", stage.short_name()), *stage, profile)
                .unwrap_or_else(|e| panic!("{stage:?} {profile:?}:\n{e}"));
            assert_eq!(m.spirv[0], 0x0723_0203, "SPIR-V magic");
            assert_eq!(m.spirv[1], 0x0001_0500, "SPIR-V 1.5 for {stage:?}");
            assert_eq!(m.stage, *stage);
        }
    }
    // The profile is part of the key: 24 compiles, no hits.
    assert_eq!(c.stats().misses, 24);
    assert_eq!(c.stats().hits, 0);
}

#[test]
fn the_stage_is_never_guessed_from_the_extension() {
    // A fragment shader in a `.vert` file compiles as the stage asked for; as a vertex shader it fails.
    let text = format!(
        "{FRAG_HEAD}layout(location = 0) out vec4 o;\nvoid main() {{ o = gl_FragCoord; }}\n"
    );
    let dir = tree(&[("odd.vert", &text)]);
    let c = Compiler::new(dir.path()).unwrap();
    assert!(
        c.compile_from_file("odd.vert", Stage::Fragment, Profile::Debug)
            .is_ok()
    );
    let e = err(c.compile_from_file("odd.vert", Stage::Vertex, Profile::Debug));
    assert!(!e.diagnostics.is_empty());
}

#[test]
fn debug_has_debug_info_and_release_is_optimized() {
    let dir = tree(&[("a.frag", &frag("float twice(float x) { return x * 2.0; }"))]);
    let c = Compiler::new(dir.path()).unwrap();
    let d = c
        .compile_from_file("a.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    let r = c
        .compile_from_file("a.frag", Stage::Fragment, Profile::Release)
        .unwrap();
    // OpString (opcode 7) carries the file name with debug info; the optimizer drops the unused function.
    let has_op = |words: &[u32], op: u32| {
        let mut i = 5;
        while i < words.len() {
            if words[i] & 0xffff == op {
                return true;
            }
            i += (words[i] >> 16).max(1) as usize;
        }
        false
    };
    assert!(has_op(&d.spirv, 7));
    assert!(!has_op(&r.spirv, 7));
    assert_ne!(d.spirv, r.spirv);
}

#[test]
fn root_must_exist_and_paths_stay_inside() {
    assert!(Compiler::new("/definitely/not/a/dir").is_err());
    let dir = tree(&[("a.frag", &frag(""))]);
    let c = Compiler::new(dir.path()).unwrap();
    for bad in ["../a.frag", "/etc/passwd", "sub/../../a.frag"] {
        let e = err(c.compile_from_file(bad, Stage::Fragment, Profile::Debug));
        assert!(!e.diagnostics.is_empty(), "{bad}");
    }
    let e = err(c.compile_from_file("missing.frag", Stage::Fragment, Profile::Debug));
    assert!(e.to_string().contains("cannot find `missing.frag`"), "{e}");
}

#[test]
fn nul_bytes_are_errors_not_panics() {
    let dir = tree(&[("nul.frag", "#version 450\nvoid main() {}\0\n")]);
    let c = Compiler::new(dir.path()).unwrap();
    let e = err(c.compile_from_file("nul.frag", Stage::Fragment, Profile::Debug));
    assert!(e.to_string().contains("NUL"), "{e}");
    // After a byte-order mark, the line is still counted where the NUL is (the mark was 3 bytes before it).
    std::fs::write(
        dir.path().join("bom.frag"),
        b"\xEF\xBB\xBF#version 450\n\0void main() {}\n",
    )
    .unwrap();
    let e = err(c.compile_from_file("bom.frag", Stage::Fragment, Profile::Debug));
    assert!(e.to_string().contains("NUL byte on line 2"), "{e}");
    let e = err(c.compile_source(
        "void main() {}\0",
        "mem.frag",
        Stage::Fragment,
        Profile::Debug,
    ));
    assert!(e.to_string().contains("NUL"), "{e}");
}

// ---------------------------------------------------------------------------------------------------------------
// Includes

#[test]
fn relative_includes_use_the_including_files_directory_and_standard_ones_the_root() {
    let dir = tree(&[
        (
            "sub/a.frag",
            &frag("#include \"local.glsl\"\n#include <common/c.glsl>"),
        ),
        (
            "sub/local.glsl",
            "#include \"../common/b.glsl\"\nfloat local_f() { return b_f(); }\n",
        ),
        ("common/b.glsl", "float b_f() { return 1.0; }\n"),
        ("common/c.glsl", "float c_f() { return 2.0; }\n"),
    ]);
    let c = Compiler::new(dir.path()).unwrap();
    let m = c
        .compile_from_file("sub/a.frag", Stage::Fragment, Profile::Debug)
        .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = m.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["sub/local.glsl", "common/b.glsl", "common/c.glsl"]);
}

#[test]
fn quoted_includes_search_the_including_folder_then_the_root_and_angle_ones_the_root() {
    // The shape of real shader trees: quoted includes written relative to the shader root from files in
    // subfolders, headers including headers, and a local header that shadows a root one of the same name.
    let dir = tree(&[
        (
            "common/bindings.glsl",
            "#include \"common/math.glsl\"\nfloat bind_f() { return math_f(); }\n",
        ),
        ("common/math.glsl", "float math_f() { return 1.0; }\n"),
        (
            "common/brdf.glsl",
            "#include \"common/bindings.glsl\"\nfloat brdf_f() { return bind_f(); }\n",
        ),
        ("local.glsl", "float local_f() { return 1.0; }\n"),
        ("rt/local.glsl", "float local_f() { return 2.0; }\n"),
        (
            "rt/hit.frag",
            &frag("#include \"common/brdf.glsl\"\n#include \"local.glsl\""),
        ),
        ("sub/b.frag", &frag("#include <near.glsl>")),
        ("sub/near.glsl", "float near() { return 1.0; }\n"),
    ]);
    let c = Compiler::new(dir.path()).unwrap();
    let m = c
        .compile_from_file("rt/hit.frag", Stage::Fragment, Profile::Debug)
        .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = m.files.iter().map(|f| f.name.as_str()).collect();
    // `local.glsl` is found next to the including file first.
    assert_eq!(
        names,
        [
            "common/brdf.glsl",
            "common/bindings.glsl",
            "common/math.glsl",
            "rt/local.glsl"
        ]
    );
    // `<x>` never looks next to the including file.
    let e = err(c.compile_from_file("sub/b.frag", Stage::Fragment, Profile::Debug));
    assert!(
        first_error(&e).message.contains("cannot find `near.glsl`"),
        "{e}"
    );
}

#[test]
fn strict_mode_keeps_the_no_fallback_rule() {
    let dir = tree(&[
        ("top.glsl", "float top() { return 1.0; }\n"),
        ("sub/a.frag", &frag("#include \"top.glsl\"")),
    ]);
    let strict = CompilerOptions {
        includes: IncludeSearch {
            include_dirs: vec![],
            strict: true,
        },
        ..CompilerOptions::default()
    };
    let c = Compiler::with_options(dir.path(), strict).unwrap();
    let e = err(c.compile_from_file("sub/a.frag", Stage::Fragment, Profile::Debug));
    let d = first_error(&e);
    assert_eq!((d.file.as_deref(), d.line), (Some("sub/a.frag"), Some(3)));
    assert!(d.message.contains("cannot find `top.glsl`"), "{e}");
    assert!(
        !d.message.contains("then"),
        "strict mode tries one place: {e}"
    );
    // The default search finds it at the root.
    Compiler::new(dir.path())
        .unwrap()
        .compile_from_file("sub/a.frag", Stage::Fragment, Profile::Debug)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn include_directories_are_searched_after_the_root_and_stay_inside_it() {
    let dir = tree(&[
        ("lib/include/util.glsl", "float util() { return 1.0; }\n"),
        ("a.frag", &frag("#include <util.glsl>")),
        ("sub/b.frag", &frag("#include \"util.glsl\"")),
    ]);
    let with_dirs = |dirs: &[&str]| {
        Compiler::with_options(
            dir.path(),
            CompilerOptions {
                includes: IncludeSearch {
                    include_dirs: dirs.iter().map(|d| d.to_string()).collect(),
                    strict: false,
                },
                ..CompilerOptions::default()
            },
        )
    };
    let c = with_dirs(&["lib/include"]).unwrap();
    for f in ["a.frag", "sub/b.frag"] {
        let m = c
            .compile_from_file(f, Stage::Fragment, Profile::Debug)
            .unwrap_or_else(|e| panic!("{f}: {e}"));
        assert_eq!(m.files[0].name, "lib/include/util.glsl");
    }
    let e = err(Compiler::new(dir.path()).unwrap().compile_from_file(
        "a.frag",
        Stage::Fragment,
        Profile::Debug,
    ));
    assert!(
        first_error(&e).message.contains("cannot find `util.glsl`"),
        "{e}"
    );
    // Include directories never leave the root, and must exist.
    let outside = tempfile::tempdir().unwrap();
    for bad in ["../x", outside.path().to_str().unwrap(), "missing"] {
        let e = match with_dirs(&[bad]) {
            Ok(_) => panic!("include directory `{bad}` accepted"),
            Err(e) => e.to_string(),
        };
        assert!(e.contains("include directory"), "{e}");
    }
}

#[test]
fn a_file_appearing_earlier_in_the_search_invalidates_the_cache() {
    for detection in [ChangeDetection::Journal, ChangeDetection::Metadata] {
        let dir = tree(&[
            ("common/h.glsl", "float h() { return 1.0; }\n"),
            ("rt/a.frag", &frag("#include \"common/h.glsl\"")),
        ]);
        let root = dir.path();
        let c = Compiler::with_change_detection(root, detection).unwrap();
        let first = c
            .compile_from_file("rt/a.frag", Stage::Fragment, Profile::Release)
            .unwrap();
        assert_eq!(first.files[0].name, "common/h.glsl");
        let again = c
            .compile_from_file("rt/a.frag", Stage::Fragment, Profile::Release)
            .unwrap();
        assert!(
            Arc::ptr_eq(&first, &again),
            "{detection:?}: unchanged tree is a hit"
        );
        // `rt/common/h.glsl` (a new folder and file) now shadows the root's header.
        write(root, "rt/common/h.glsl", "float h() { return 2.0; }\n");
        let after = c
            .compile_from_file("rt/a.frag", Stage::Fragment, Profile::Release)
            .unwrap();
        assert_eq!(after.files[0].name, "rt/common/h.glsl", "{detection:?}");
    }
}

#[test]
fn a_real_tree_shape_compiles_like_glslc() {
    // 6 stage files in subfolders, headers including headers with root-relative quoted includes.
    let dir = tree(&[
        (
            "common/bindings.glsl",
            "#ifndef BINDINGS\n#define BINDINGS\nlayout(set = 0, binding = 0) uniform U { vec4 tint; } u;\n#endif\n",
        ),
        (
            "common/brdf.glsl",
            "#include \"common/bindings.glsl\"\nvec3 brdf(vec3 n) { return max(n.z, 0.0) * u.tint.rgb; }\n",
        ),
        (
            "common/color/space.glsl",
            "#include \"common/brdf.glsl\"\nvec3 to_srgb(vec3 c) { return pow(c, vec3(1.0 / 2.2)); }\n",
        ),
        (
            "forward/lit.frag",
            &frag("#include \"common/color/space.glsl\""),
        ),
        (
            "forward/unlit.frag",
            &frag("#include \"common/bindings.glsl\""),
        ),
        (
            "post/tonemap.frag",
            &frag("#include \"../common/color/space.glsl\""),
        ),
        ("post/deep/blur.frag", &frag("#include <common/brdf.glsl>")),
        (
            "ui/text.frag",
            &frag("#include \"common/color/space.glsl\"\n#include \"common/bindings.glsl\""),
        ),
        (
            "compute/c.comp",
            "#version 450\n#extension GL_GOOGLE_include_directive : require\n#include \"common/bindings.glsl\"\nlayout(local_size_x = 8) in;\nvoid main() {}\n",
        ),
    ]);
    let c = Compiler::new(dir.path()).unwrap();
    let files = [
        ("forward/lit.frag", Stage::Fragment),
        ("forward/unlit.frag", Stage::Fragment),
        ("post/tonemap.frag", Stage::Fragment),
        ("post/deep/blur.frag", Stage::Fragment),
        ("ui/text.frag", Stage::Fragment),
        ("compute/c.comp", Stage::Compute),
    ];
    for (f, stage) in files {
        let ours = c
            .compile_from_file(f, stage, Profile::Release)
            .unwrap_or_else(|e| panic!("{f}: {e}"));
        let out = std::process::Command::new("glslc")
            .args([
                &format!("-fshader-stage={}", stage.short_name()),
                "--target-env=vulkan1.3",
                "--target-spv=spv1.5",
                "-O",
                "-I",
            ])
            .arg(dir.path())
            .arg(dir.path().join(f))
            .args(["-o", "-"])
            .output()
            .expect("glslc (apt-get install glslc)");
        assert!(
            out.status.success(),
            "glslc {f}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let words = shader_info_gpu::vk::spirv_from_bytes(&out.stdout).unwrap();
        assert_eq!(ours.spirv, words, "{f}: our SPIR-V differs from glslc's");
    }
}

#[test]
fn includes_cannot_leave_the_root() {
    let outer = tempfile::tempdir().unwrap();
    write(
        outer.path(),
        "secret.glsl",
        "float secret() { return 1.0; }\n",
    );
    let root = outer.path().join("root");
    std::fs::create_dir_all(root.join("sub")).unwrap();
    write(&root, "dotdot.frag", &frag("#include \"../secret.glsl\""));
    write(
        &root,
        "deep.frag",
        &frag("#include \"sub/../../secret.glsl\""),
    );
    let abs = outer.path().join("secret.glsl");
    write(
        &root,
        "abs.frag",
        &frag(&format!("#include \"{}\"", abs.display())),
    );
    write(
        &root,
        "abs_std.frag",
        &frag(&format!("#include <{}>", abs.display())),
    );
    std::os::unix::fs::symlink(&abs, root.join("link.glsl")).unwrap();
    std::os::unix::fs::symlink(outer.path(), root.join("sub/up")).unwrap();
    write(&root, "link.frag", &frag("#include \"link.glsl\""));
    write(
        &root,
        "dirlink.frag",
        &frag("#include <sub/up/secret.glsl>"),
    );
    // A symbolic link that stays inside the root is fine.
    write(&root, "inside.glsl", "float inside() { return 1.0; }\n");
    std::os::unix::fs::symlink(root.join("inside.glsl"), root.join("sub/alias.glsl")).unwrap();
    write(&root, "ok.frag", &frag("#include \"sub/alias.glsl\""));

    let c = Compiler::new(&root).unwrap();
    for (file, expect) in [
        ("dotdot.frag", "leaves the include root"),
        ("deep.frag", "leaves the include root"),
        ("abs.frag", "absolute path"),
        ("abs_std.frag", "absolute path"),
        ("link.frag", "outside the include root"),
        ("dirlink.frag", "outside the include root"),
    ] {
        let e = err(c.compile_from_file(file, Stage::Fragment, Profile::Debug));
        let d = first_error(&e);
        assert!(d.message.contains(expect), "{file}: {e}");
        assert_eq!((d.file.as_deref(), d.line), (Some(file), Some(3)), "{e}");
    }
    c.compile_from_file("ok.frag", Stage::Fragment, Profile::Debug)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_missing_include_names_the_including_file_the_line_and_the_path_tried() {
    let dir = tree(&[
        ("a.frag", &frag("#include \"common/one.glsl\"")),
        (
            "common/one.glsl",
            "// one\n// two\n#include \"gone.glsl\"\n",
        ),
    ]);
    let c = Compiler::new(dir.path()).unwrap();
    let e = err(c.compile_from_file("a.frag", Stage::Fragment, Profile::Debug));
    let d = first_error(&e);
    assert_eq!(
        (d.file.as_deref(), d.line),
        (Some("common/one.glsl"), Some(3)),
        "{e}"
    );
    let tried = dir.path().canonicalize().unwrap().join("common/gone.glsl");
    assert!(
        d.message.contains(&format!("tried `{}`", tried.display())),
        "{e}"
    );
    assert!(d.message.contains("included from `common/one.glsl`"), "{e}");
    let text = e.to_string();
    assert!(text.contains("--> common/one.glsl:3"), "{text}");
    assert!(text.contains("3 | #include \"gone.glsl\""), "{text}");
}

#[test]
fn an_include_cycle_shows_the_chain() {
    let dir = tree(&[
        ("a.frag", &frag("#include \"x/a.glsl\"")),
        ("x/a.glsl", "#include \"b.glsl\"\n"),
        ("x/b.glsl", "#include <x/c.glsl>\n"),
        ("x/c.glsl", "#include \"a.glsl\"\n"),
    ]);
    let c = Compiler::new(dir.path()).unwrap();
    let e = err(c.compile_from_file("a.frag", Stage::Fragment, Profile::Debug));
    let d = first_error(&e);
    assert!(
        d.message
            .contains("include cycle: x/a.glsl → x/b.glsl → x/c.glsl → x/a.glsl"),
        "{e}"
    );
    assert_eq!(
        (d.file.as_deref(), d.line),
        (Some("x/c.glsl"), Some(1)),
        "{e}"
    );
}

#[test]
fn a_file_is_included_once_per_compilation() {
    // No include guards: a second copy would redefine `shared_f`.
    let dir = tree(&[
        (
            "a.frag",
            &frag("#include \"shared.glsl\"\n#include \"user.glsl\"\n#include <shared.glsl>"),
        ),
        (
            "user.glsl",
            "#include \"shared.glsl\"\nfloat user_f() { return shared_f(); }\n",
        ),
        ("shared.glsl", "float shared_f() { return 1.0; }\n"),
    ]);
    let c = Compiler::new(dir.path()).unwrap();
    let m = c
        .compile_from_file("a.frag", Stage::Fragment, Profile::Debug)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.files.len(), 2);
}

// ---------------------------------------------------------------------------------------------------------------
// Diagnostics

#[test]
fn a_syntax_error_comes_out_at_exactly_its_file_and_line() {
    let dir = tree(&[
        ("main.frag", &frag("#include \"lib/math.glsl\"")),
        (
            "lib/math.glsl",
            "// math helpers\nfloat sq(float x) {\n    return x * x\n}\n",
        ),
    ]);
    let c = Compiler::new(dir.path()).unwrap();
    let e = err(c.compile_from_file("main.frag", Stage::Fragment, Profile::Debug));
    eprintln!("{e}");
    let d = first_error(&e);
    assert_eq!(d.severity, Severity::Error);
    assert_eq!(d.file.as_deref(), Some("lib/math.glsl"), "{e}");
    // glslang notices the missing `;` at the `}` on line 4.
    assert_eq!(d.line, Some(4), "{e}");
    assert_eq!(d.source_line.as_deref(), Some("}"));
    let text = e.to_string();
    assert!(
        text.contains("--> lib/math.glsl:4:1\n  |\n4 | }\n  | ^\n"),
        "{text}"
    );
    assert!(
        text.ends_with("error: could not compile `main.frag` (1 error)")
            || text.contains("could not compile `main.frag`"),
        "{text}"
    );

    // An undeclared name at a known line of the main file.
    write(
        dir.path(),
        "b.frag",
        &format!(
            "{FRAG_HEAD}layout(location = 0) out vec4 o;\nvoid main() {{\n    o = vec4(nope);\n}}\n"
        ),
    );
    let e = err(c.compile_from_file("b.frag", Stage::Fragment, Profile::Debug));
    let d = first_error(&e);
    assert_eq!(
        (d.file.as_deref(), d.line),
        (Some("b.frag"), Some(5)),
        "{e}"
    );
    assert!(
        e.to_string()
            .contains("5 |     o = vec4(nope);\n  |              ^^^^\n"),
        "{e}"
    );
}

#[test]
fn warnings_are_structured() {
    let dir = tree(&[(
        "w.frag",
        &format!(
            "{FRAG_HEAD}#extension GL_EXT_not_a_real_one : warn\nlayout(location = 0) out vec4 o;\nvoid main() {{ o = vec4(1.0); }}\n"
        ),
    )]);
    let c = Compiler::new(dir.path()).unwrap();
    let m = c
        .compile_from_file("w.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    assert_eq!(m.warnings.len(), 1, "{:?}", m.warnings);
    let w = &m.warnings[0];
    assert_eq!(
        (w.severity, w.file.as_deref(), w.line),
        (Severity::Warning, Some("w.frag"), Some(3))
    );
    assert!(w.to_string().starts_with("warning[compile]: "));
}

fn generated(reg: &Registry, root: &Path, name: &str, stage: Stage) -> shader_info::GeneratedStage {
    let loader = DirLoader::new(root);
    // One stage at a time: the infos need not be complete pipelines.
    let opts = shader_info::ValidateOptions {
        registry: reg,
        extra_type_names: &[],
        require_complete: false,
    };
    let info = shader_info::ValidatedInfo::new(reg.resolve(name).unwrap(), &opts).unwrap();
    generate(&info, stage, &GenerateOptions::new(&loader, reg)).unwrap()
}

#[test]
fn an_error_in_a_stage_file_or_its_include_shows_that_files_own_line() {
    // A generated stage is named `<info>.<stage>.glsl`, often the name of the stage file itself, and reports the
    // file's lines: the line shown must be the file's, not the generated text's line of that number (a `#define`
    // of the preamble).
    let dir = tree(&[
        (
            "in_lib.frag.glsl",
            "#include \"fx/lib.glsl\"\nvoid main()\n{\n  frag_color = shade(1.0);\n}\n",
        ),
        (
            "fx/lib.glsl",
            "vec4 shade(float x)\n{\n  return vec4(x) *;\n}\n",
        ),
        (
            "in_stage.frag.glsl",
            "void main()\n{\n  frag_color = vec4(1.0) +;\n}\n",
        ),
    ]);
    let mut reg = Registry::new();
    for name in ["in_lib", "in_stage"] {
        reg.add_info(
            ShaderCreateInfo::new(name)
                .fragment_out(0, Type::Vec4, "frag_color")
                .fragment_source(format!("{name}.frag.glsl")),
        );
    }
    let c = Compiler::new(dir.path()).unwrap();
    let g = generated(&reg, dir.path(), "in_stage", Stage::Fragment);
    assert_eq!(g.name, "in_stage.frag.glsl");
    let e = err(c.compile_generated(&g, Profile::Debug));
    let d = first_error(&e);
    assert_eq!(
        (d.file.as_deref(), d.line),
        (Some("in_stage.frag.glsl"), Some(3)),
        "{e}"
    );
    assert_eq!(
        d.source_line.as_deref(),
        Some("  frag_color = vec4(1.0) +;"),
        "{e}"
    );
    let g = generated(&reg, dir.path(), "in_lib", Stage::Fragment);
    let e = err(c.compile_generated(&g, Profile::Debug));
    let d = first_error(&e);
    assert_eq!(
        (d.file.as_deref(), d.line),
        (Some("fx/lib.glsl"), Some(3)),
        "{e}"
    );
    assert_eq!(d.source_line.as_deref(), Some("  return vec4(x) *;"), "{e}");
}

#[test]
fn files_saved_with_a_byte_order_mark_and_crlf_lines_compile() {
    // What an editor on Windows writes: a UTF-8 byte-order mark, CRLF line ends. Inserted mid-text by generation,
    // the mark was refused by the compiler ("invalid UTF-8 characters").
    let dir = tree(&[
        (
            "bom.frag.glsl",
            "\u{FEFF}#pragma once\r\n#include \"bom_lib.glsl\"\r\nvoid main()\r\n{\r\n  frag_color = tinted(vec4(1.0));\r\n}\r\n",
        ),
        (
            "bom_lib.glsl",
            "\u{FEFF}// saved by Notepad\r\nvec4 tinted(vec4 c) { return c * 0.5; }\r\n",
        ),
        (
            "plain_bom.frag",
            "\u{FEFF}#version 450\r\n#include \"bom_lib.glsl\"\r\nlayout(location = 0) out vec4 o;\r\nvoid main() { o = tinted(vec4(1.0)); }\r\n",
        ),
    ]);
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("bom")
            .fragment_out(0, Type::Vec4, "frag_color")
            .fragment_source("bom.frag.glsl"),
    );
    let c = Compiler::new(dir.path()).unwrap();
    let g = generated(&reg, dir.path(), "bom", Stage::Fragment);
    assert!(!g.source.contains('\u{FEFF}'));
    c.compile_generated(&g, Profile::Debug).unwrap();
    c.compile_from_file("plain_bom.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    // The files hash as their text: unchanged, they are hits (not edits seen on every check).
    let before = c.stats();
    c.compile_generated(&g, Profile::Debug).unwrap();
    c.compile_from_file("plain_bom.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    assert_eq!(
        (c.stats().hits, c.stats().misses),
        (before.hits + 2, before.misses)
    );
}

#[test]
fn an_error_in_a_generated_declaration_names_the_info_and_the_item() {
    let dir = tree(&[
        (
            "fx/broken.frag",
            "void main() { frag_color = vec4(1.0); }\n",
        ),
        // A user file that breaks the generated uniform block (a define in the declaration is refused earlier).
        ("fx/macros.glsl", "#define params +\n"),
    ]);
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("broken")
            .uniform_buf(0, "vec4", "params", Frequency::Pass)
            .typedef_source("fx/macros.glsl")
            .fragment_out(0, Type::Vec4, "frag_color")
            .fragment_source("fx/broken.frag"),
    );
    let g = generated(&reg, dir.path(), "broken", Stage::Fragment);
    let c = Compiler::new(dir.path()).unwrap();
    let e = err(c.compile_generated(&g, Profile::Debug));
    let d = first_error(&e);
    eprintln!("{e}");
    assert_eq!(d.info, "broken");
    assert_eq!(d.item.as_deref(), Some("uniform_buf `params`"), "{e}");
    assert!(d.origin.file.ends_with("compiler.rs"), "{}", d.origin);
    assert!(d.source_line.as_deref().unwrap().contains("vec4 params;"));
    let text = e.to_string();
    assert!(
        text.contains("= note: info: broken, stage frag, item: uniform_buf `params`"),
        "{text}"
    );
    assert!(text.contains("= note: declared at "), "{text}");
}

#[test]
fn a_define_that_breaks_a_declaration_is_traced_to_the_declaration() {
    let dir = tree(&[
        ("d.frag", "void main() { frag_color = vec4(1.0); }\n"),
        ("macros.glsl", "#define frag_color +\n"),
    ]);
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("defined")
            .typedef_source("macros.glsl")
            .fragment_out(0, Type::Vec4, "frag_color")
            .fragment_source("d.frag"),
    );
    let g = generated(&reg, dir.path(), "defined", Stage::Fragment);
    let c = Compiler::new(dir.path()).unwrap();
    let e = err(c.compile_generated(&g, Profile::Debug));
    let d = first_error(&e);
    assert_eq!(
        (d.info.as_str(), d.item.as_deref()),
        ("defined", Some("fragment_out `frag_color`")),
        "{e}"
    );
}

#[test]
fn generated_stages_map_errors_to_user_files_and_resolve_relative_includes_next_to_the_stage_source()
 {
    let dir = tree(&[
        (
            "fx/blur.frag",
            "#include \"blur_lib.glsl\"\nvoid main() {\n  frag_color = blur(1.0);\n  oops;\n}\n",
        ),
        (
            "fx/blur_lib.glsl",
            "vec4 blur(float x) { return vec4(x); }\n",
        ),
    ]);
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("blur")
            .push_constant(Type::Vec4, "tint")
            .fragment_out(0, Type::Vec4, "frag_color")
            .fragment_source("fx/blur.frag"),
    );
    let g = generated(&reg, dir.path(), "blur", Stage::Fragment);
    let c = Compiler::new(dir.path()).unwrap();
    let e = err(c.compile_generated(&g, Profile::Debug));
    let d = first_error(&e);
    assert_eq!(
        (d.file.as_deref(), d.line),
        (Some("fx/blur.frag"), Some(4)),
        "{e}"
    );
    assert!(d.item.is_none());
    assert!(e.to_string().contains("4 |   oops;"), "{e}");

    write(
        dir.path(),
        "fx/blur.frag",
        "#include \"blur_lib.glsl\"\nvoid main() {\n  frag_color = blur(1.0) * tint;\n}\n",
    );
    let g = generated(&reg, dir.path(), "blur", Stage::Fragment);
    let m = c
        .compile_generated(&g, Profile::Release)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(m.files[0].name, "fx/blur_lib.glsl");
    assert_eq!(m.name, "blur.frag.glsl");
    // Same generated text again: a hit.
    let before = c.stats();
    c.compile_generated(&g, Profile::Release).unwrap();
    assert_eq!(c.stats().hits, before.hits + 1);
}

// ---------------------------------------------------------------------------------------------------------------
// Cache

fn seed_tree() -> TempDir {
    tree(&[
        ("common/h.glsl", "float h() { return 1.0; }\n"),
        (
            "common/mid.glsl",
            "#include \"h.glsl\"\nfloat mid() { return h(); }\n",
        ),
        ("common/other.glsl", "float other() { return 3.0; }\n"),
        ("direct.frag", &frag("#include \"common/h.glsl\"")),
        ("nested.frag", &frag("#include <common/mid.glsl>")),
        ("plain.frag", &frag("#include \"common/other.glsl\"")),
    ])
}

fn compile_three(
    c: &Compiler,
) -> Vec<Result<Arc<shader_info_gpu::compiler::CompiledModule>, CompileError>> {
    ["direct.frag", "nested.frag", "plain.frag"]
        .iter()
        .map(|f| c.compile_from_file(f, Stage::Fragment, Profile::Debug))
        .collect()
}

fn seed_scenario(detection: ChangeDetection) {
    let dir = seed_tree();
    let root = dir.path();
    let c = Compiler::with_change_detection(root, detection).unwrap();
    assert!(compile_three(&c).iter().all(|r| r.is_ok()));
    assert_eq!((c.stats().misses, c.stats().hits), (3, 0));

    // Edit h.glsl: exactly the two shaders that include it (one through mid.glsl) recompile.
    write(root, "common/h.glsl", "float h() { return 2.0; }\n");
    let s0 = c.stats();
    assert!(compile_three(&c).iter().all(|r| r.is_ok()));
    let s1 = c.stats();
    assert_eq!(s1.misses - s0.misses, 2, "{s1:?}");
    assert_eq!(s1.hits - s0.hits, 1, "{s1:?}");
    assert_eq!(s1.invalidations - s0.invalidations, 2, "{s1:?}");

    // Edit a file nobody includes: nothing recompiles.
    write(root, "unrelated.glsl", "float nobody() { return 0.0; }\n");
    write(root, "unrelated.glsl", "float nobody() { return 1.0; }\n");
    assert!(compile_three(&c).iter().all(|r| r.is_ok()));
    let s2 = c.stats();
    assert_eq!((s2.misses - s1.misses, s2.hits - s1.hits), (0, 3), "{s2:?}");

    // Delete h.glsl: both dependents fail clearly, the third still hits.
    std::fs::remove_file(root.join("common/h.glsl")).unwrap();
    let r = compile_three(&c);
    let s3 = c.stats();
    let gone = root.canonicalize().unwrap().join("common/h.glsl");
    for (i, file) in [(0, "direct.frag"), (1, "common/mid.glsl")] {
        let e = r[i]
            .as_ref()
            .err()
            .unwrap_or_else(|| panic!("{file} should fail"));
        let d = first_error(e);
        assert_eq!(d.file.as_deref(), Some(file), "{e}");
        assert!(d.message.contains("cannot find"), "{e}");
        assert!(
            d.message.contains(&format!("tried `{}`", gone.display())),
            "{e}"
        );
    }
    assert!(r[2].is_ok());
    assert_eq!(s3.hits - s2.hits, 1, "{s3:?}");
    assert_eq!(s3.invalidations - s2.invalidations, 2, "{s3:?}");

    // Restore it: the failures were not cached.
    write(root, "common/h.glsl", "float h() { return 2.0; }\n");
    assert!(compile_three(&c).iter().all(|r| r.is_ok()));
}

#[test]
fn seed_scenario_with_the_change_journal() {
    seed_scenario(ChangeDetection::Journal);
}

#[test]
fn seed_scenario_with_metadata_checks_only() {
    seed_scenario(ChangeDetection::Metadata);
}

#[test]
fn a_hit_with_unchanged_metadata_reads_no_file_contents() {
    for detection in [ChangeDetection::Journal, ChangeDetection::Metadata] {
        let dir = seed_tree();
        let c = Compiler::with_change_detection(dir.path(), detection).unwrap();
        c.compile_from_file("nested.frag", Stage::Fragment, Profile::Release)
            .unwrap();
        let before = c.stats();
        assert_eq!(before.file_reads, 3, "main + mid + h");
        for _ in 0..10 {
            c.compile_from_file("nested.frag", Stage::Fragment, Profile::Release)
                .unwrap();
        }
        let after = c.stats();
        assert_eq!(after.hits - before.hits, 10);
        assert_eq!(
            after.file_reads, before.file_reads,
            "{detection:?}: no reads on a hit"
        );
        if detection == ChangeDetection::Journal {
            assert_eq!(
                after.metadata_checks, before.metadata_checks,
                "the journal vouched: no stat"
            );
        } else {
            assert_eq!(
                after.metadata_checks - before.metadata_checks,
                30,
                "main + 2 includes, 10 times"
            );
        }
    }
}

#[test]
fn new_metadata_with_identical_content_is_still_a_hit() {
    let dir = seed_tree();
    let c = Compiler::new(dir.path()).unwrap();
    c.compile_from_file("nested.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    // Touch h.glsl (and rewrite it with the same text): the content hash decides.
    write(dir.path(), "common/h.glsl", "float h() { return 1.0; }\n");
    let before = c.stats();
    c.compile_from_file("nested.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    let after = c.stats();
    assert_eq!(after.hits - before.hits, 1);
    assert_eq!(after.misses, before.misses);
    assert_eq!(
        after.file_reads - before.file_reads,
        1,
        "only h.glsl is read"
    );
    // The new metadata is remembered: the next hit reads nothing.
    c.compile_from_file("nested.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    assert_eq!(c.stats().file_reads, after.file_reads);

    // Same for the main file itself: touched, same text → no recompile.
    let t = SystemTime::now() - Duration::from_secs(100);
    set_mtime(&dir.path().join("nested.frag"), t);
    let before = c.stats();
    c.compile_from_file("nested.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    assert_eq!(c.stats().misses, before.misses);
    assert_eq!(c.stats().hits, before.hits + 1);
}

#[test]
fn a_file_replaced_with_equal_size_and_time_is_noticed() {
    let dir = seed_tree();
    let c = Compiler::with_change_detection(dir.path(), ChangeDetection::Metadata).unwrap();
    c.compile_from_file("direct.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    let h = dir.path().join("common/h.glsl");
    let old_time = std::fs::metadata(&h).unwrap().modified().unwrap();
    // Atomic save (write a new file, rename over): same length, same time stamp, new inode.
    let tmp = dir.path().join("common/h.glsl.tmp");
    std::fs::write(&tmp, "float h() { return 7.0; }\n").unwrap();
    set_mtime(&tmp, old_time);
    std::fs::rename(&tmp, &h).unwrap();
    let before = c.stats();
    c.compile_from_file("direct.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    assert_eq!(c.stats().misses - before.misses, 1);
}

#[test]
fn editing_the_main_file_recompiles_it() {
    let dir = seed_tree();
    let c = Compiler::new(dir.path()).unwrap();
    let a = c
        .compile_from_file("plain.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    write(
        dir.path(),
        "plain.frag",
        &frag("#include \"common/other.glsl\"\nfloat more() { return other(); }"),
    );
    let b = c
        .compile_from_file("plain.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    assert_eq!(c.stats().misses, 2);
    assert_ne!(a.spirv, b.spirv);
    // The old text is a different key: editing back is a hit (its includes are unchanged).
    write(
        dir.path(),
        "plain.frag",
        &frag("#include \"common/other.glsl\""),
    );
    let before = c.stats();
    c.compile_from_file("plain.frag", Stage::Fragment, Profile::Debug)
        .unwrap();
    assert_eq!(c.stats().hits, before.hits + 1);
}

#[test]
fn a_failed_compile_is_not_cached() {
    let dir = tree(&[("a.frag", &frag("#include \"later.glsl\""))]);
    let c = Compiler::new(dir.path()).unwrap();
    assert!(
        c.compile_from_file("a.frag", Stage::Fragment, Profile::Debug)
            .is_err()
    );
    write(dir.path(), "later.glsl", "float later() { return 1.0; }\n");
    c.compile_from_file("a.frag", Stage::Fragment, Profile::Debug)
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn the_same_key_compiles_once_while_others_wait() {
    let dir = seed_tree();
    let c = Compiler::new(dir.path()).unwrap();
    let n = 16;
    let barrier = Barrier::new(n);
    let modules: Vec<_> = std::thread::scope(|s| {
        let hs: Vec<_> = (0..n)
            .map(|_| {
                s.spawn(|| {
                    barrier.wait();
                    c.compile_from_file("nested.frag", Stage::Fragment, Profile::Release)
                        .unwrap()
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let s = c.stats();
    assert_eq!(s.misses, 1, "{s:?}");
    assert_eq!(s.hits, (n - 1) as u64, "{s:?}");
    assert!(modules.iter().all(|m| Arc::ptr_eq(m, &modules[0])));
}

#[test]
fn different_keys_compile_in_parallel_and_all_land_in_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let n = 8;
    for i in 0..n {
        write(
            dir.path(),
            &format!("s{i}.frag"),
            &frag(&format!("float k() {{ return {i}.0; }}")),
        );
    }
    let c = Compiler::new(dir.path()).unwrap();
    std::thread::scope(|s| {
        for i in 0..n {
            let c = &c;
            s.spawn(move || {
                c.compile_from_file(&format!("s{i}.frag"), Stage::Fragment, Profile::Debug)
                    .unwrap();
            });
        }
    });
    assert_eq!(c.stats().misses, n as u64);
    assert_eq!(c.cached(), n);
}

/// A header whose last line is an `#include` without a line break compiles (glslang resumes the includer with a
/// `#line` directive, which must not be glued to that line). Found by the source fuzzer.
#[test]
fn a_header_without_a_final_line_break_compiles() {
    let dir = tree(&[
        ("n.frag", &frag("#include \"a.glsl\"")),
        ("a.glsl", "#include \"b.glsl\""),
        ("b.glsl", "float b() { return 1.0; }"),
    ]);
    let c = Compiler::new(dir.path()).unwrap();
    c.compile_from_file("n.frag", Stage::Fragment, Profile::Debug)
        .unwrap_or_else(|e| panic!("{e}"));
}

/// Every word glslang reads as a keyword where the generator's text puts a declared name (Vulkan GLSL 450, and the
/// extensions a declaration can turn on) is refused as a name before it reaches glslang: each is tried here as a
/// variable in such a shader, which the linked glslang must refuse, and against the name rule, which must refuse it
/// too. The tile-image words are keywords of newer glslang (its scanner reserves them for every Vulkan shader)
/// that the linked one still takes: refused as names all the same, so a declaration compiles with either.
#[test]
fn the_keywords_glslang_reserves_are_refused_as_names() {
    let shaderc = shaderc::Compiler::new().unwrap();
    let mut options = shaderc::CompileOptions::new().unwrap();
    options.set_target_env(
        shaderc::TargetEnv::Vulkan,
        shaderc::EnvVersion::Vulkan1_3 as u32,
    );
    let newer = [
        "tileImageEXT",
        "attachmentEXT",
        "iattachmentEXT",
        "uattachmentEXT",
    ];
    for (word, extension) in [
        ("pervertexNV", ""),
        ("devicecoherent", ""),
        ("queuefamilycoherent", ""),
        ("workgroupcoherent", ""),
        ("subgroupcoherent", ""),
        ("shadercallcoherent", ""),
        ("nonprivate", ""),
        ("nonuniformEXT", "GL_EXT_nonuniform_qualifier"),
        ("rayPayloadEXT", "GL_EXT_ray_tracing"),
        ("hitAttributeEXT", "GL_EXT_ray_tracing"),
        ("accelerationStructureEXT", "GL_EXT_ray_tracing"),
    ] {
        let ext = if extension.is_empty() {
            String::new()
        } else {
            format!("#extension {extension} : enable\n")
        };
        let text = format!(
            "#version 450\n{ext}layout(location = 0) out vec4 o;\nvoid main() {{ float {word} = 1.0; o = vec4({word}); }}\n"
        );
        let compiled = shaderc.compile_into_spirv(
            &text,
            shaderc::ShaderKind::Fragment,
            "word.frag",
            "main",
            Some(&options),
        );
        assert!(compiled.is_err(), "glslang takes `{word}` as a name");
    }
    for word in newer.into_iter().chain([
        "pervertexNV",
        "devicecoherent",
        "queuefamilycoherent",
        "workgroupcoherent",
        "subgroupcoherent",
        "shadercallcoherent",
        "nonprivate",
        "nonuniformEXT",
    ]) {
        let mut reg = shader_info::Registry::new();
        reg.add_info(
            shader_info::ShaderCreateInfo::new("named")
                .push_constant(shader_info::Type::Float, word)
                .local_group_size(1)
                .compute_source("c.comp"),
        );
        let refused = reg.validated("named").expect_err(word);
        assert!(
            refused.iter().any(|d| d.message.contains(word)),
            "{}",
            shader_info::render_all(&refused)
        );
    }
}
