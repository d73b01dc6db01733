//! Links shaderc against Debian's/Ubuntu's system glslang and SPIRV-Tools archives when they are present.
//!
//! Why: the `shaderc` crate (with `prefer-static-linking`) finds Debian's `libshaderc_combined.a`, but on Debian
//! that archive holds only shaderc itself, not glslang or SPIRV-Tools; and Debian's `libshaderc.so` is
//! under-linked. Adding the static archives Debian ships, in dependency order, gives a working binary in seconds
//! instead of a 10-minute C++ build (see `shared/TOOLCHAIN.md`). On any other system nothing is emitted and the
//! `shaderc` crate keeps its own behaviour.
//!
//! It also records the versions of the crates whose output the shader disk cache keeps (naga's translations,
//! shaderc's modules, spirq's reflection), read from the workspace's `Cargo.lock`, so that cache keys change when
//! they do.

use std::path::{Path, PathBuf};

/// The archives, in the order the linker needs them (users before what they use).
const ARCHIVES: [&str; 9] = [
    "glslang",
    "MachineIndependent",
    "GenericCodeGen",
    "OSDependent",
    "OGLCompiler",
    "HLSL",
    "SPIRV",
    "SPIRV-Tools-opt",
    "SPIRV-Tools",
];

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo::rustc-check-cfg=cfg(gpu_glslang_lib)");
    tool_versions();
    let dir = Path::new("/usr/lib/x86_64-linux-gnu");
    let target = std::env::var("TARGET").unwrap_or_default();
    // Only for the host layout we know: a cross build must not pick up the host's archives.
    if target != "x86_64-unknown-linux-gnu" {
        return;
    }
    let present = ARCHIVES
        .iter()
        .all(|name| dir.join(format!("lib{name}.a")).is_file());
    if !present {
        return;
    }
    for name in ARCHIVES {
        println!(
            "cargo:rerun-if-changed={}",
            dir.join(format!("lib{name}.a")).display()
        );
    }
    println!("cargo:rustc-link-search=native={}", dir.display());
    // Before the archives it uses.
    if native_checkers(dir) {
        println!("cargo:rustc-link-lib=static=glslang-default-resource-limits");
    }
    for name in ARCHIVES {
        println!("cargo:rustc-link-lib=static={name}");
    }
}

/// Builds the in-process independent checkers (`native/glslang_check.cpp`: glslang and SPIRV-Tools as libraries,
/// see `shader_info_gpu::cross::check`) where Debian's glslang and SPIRV-Tools headers are present, and says so with
/// `cfg(gpu_glslang_lib)`; elsewhere the checks run the `glslangValidator` and `spirv-val` commands.
fn native_checkers(dir: &Path) -> bool {
    println!("cargo:rerun-if-changed=native/glslang_check.cpp");
    let headers = [
        "/usr/include/glslang/Public/ShaderLang.h",
        "/usr/include/glslang/Public/ResourceLimits.h",
        "/usr/include/glslang/SPIRV/GlslangToSpv.h",
        "/usr/include/spirv-tools/libspirv.hpp",
    ];
    if !headers.iter().all(|h| Path::new(h).is_file())
        || !dir.join("libglslang-default-resource-limits.a").is_file()
    {
        return false;
    }
    // The defines Debian's glslang was built with (they change which members the headers declare).
    cc::Build::new()
        .cpp(true)
        .std("c++17")
        .define("ENABLE_HLSL", "1")
        .define("ENABLE_OPT", "1")
        .opt_level(2)
        .file("native/glslang_check.cpp")
        .compile("gpu_glslang_check");
    println!("cargo:rustc-cfg=gpu_glslang_lib");
    true
}

/// Emits `SHADER_INFO_TOOL_VERSIONS`.
fn tool_versions() {
    // The lock of the build this crate is part of: found from OUT_DIR (inside the consumer's target directory)
    // first, since a registry dependency's manifest directory is in cargo's registry, far from the consumer's lock;
    // then from the manifest directory (a workspace member).
    let from = |var: &str| PathBuf::from(std::env::var(var).unwrap_or_default());
    let (out_dir, manifest_dir) = (from("OUT_DIR"), from("CARGO_MANIFEST_DIR"));
    let lock = out_dir
        .ancestors()
        .chain(manifest_dir.ancestors())
        .map(|d| d.join("Cargo.lock"))
        .find(|p| p.is_file());
    let versions = lock.as_deref().map(versions_in).unwrap_or_default();
    if let Some(lock) = &lock {
        println!("cargo:rerun-if-changed={}", lock.display());
    }
    let value = if versions.is_empty() {
        format!(
            "shader-info-gpu {}",
            std::env::var("CARGO_PKG_VERSION").unwrap_or_default()
        )
    } else {
        versions.join(";")
    };
    println!("cargo:rustc-env=SHADER_INFO_TOOL_VERSIONS={value}");
}

/// `name version` of each tool crate in the lock file.
fn versions_in(lock: &Path) -> Vec<String> {
    const TOOLS: [&str; 5] = ["naga", "shaderc", "shaderc-sys", "spirq", "shader-info-gpu"];
    let text = std::fs::read_to_string(lock).unwrap_or_default();
    let mut out = Vec::new();
    let mut name = None;
    for line in text.lines() {
        if line == "[[package]]" {
            name = None;
        } else if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"').to_string());
        } else if let (Some(v), Some(n)) = (line.strip_prefix("version = "), &name)
            && TOOLS.contains(&n.as_str())
        {
            out.push(format!("{n} {}", v.trim_matches('"')));
        }
    }
    out.sort();
    out
}
