//! Links shaderc against Debian's/Ubuntu's system glslang and SPIRV-Tools archives when they are present.
//!
//! Why: the `shaderc` crate (with `prefer-static-linking`) finds Debian's `libshaderc_combined.a`, but on Debian
//! that archive holds only shaderc itself, not glslang or SPIRV-Tools; and Debian's `libshaderc.so` is
//! under-linked. Adding the static archives Debian ships, in dependency order, gives a working binary in seconds
//! instead of a 10-minute C++ build (see `shared/TOOLCHAIN.md`). On any other system nothing is emitted and the
//! `shaderc` crate keeps its own behaviour.

use std::path::Path;

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
    for name in ARCHIVES {
        println!("cargo:rustc-link-lib=static={name}");
    }
}
