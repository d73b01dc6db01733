//! What a compilation produces: the module, the files it read, its warnings, and the profile it was built with.

use shader_info::{Diagnostic, Stage};
use std::path::PathBuf;

/// How to compile.
///
/// ```
/// use shader_info_gpu::compiler::Profile;
/// assert_ne!(Profile::Debug, Profile::Release);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// No optimisation and debug info (OpLine/OpString for every file): for RenderDoc and readable SPIR-V.
    Debug,
    /// Performance optimisation, no debug info.
    Release,
    /// The input of the cross-language targets: performance optimisation, no debug info, and SPIR-V 1.3 (Vulkan
    /// 1.1), whose code every translator reads (1.4 and later add `OpCopyLogical`, which naga cannot).
    Translation,
}

impl Profile {
    pub(crate) fn tag(self) -> u8 {
        match self {
            Profile::Debug => 0,
            Profile::Release => 1,
            Profile::Translation => 2,
        }
    }
}

/// A file a module was compiled from (an include; the main file of `compile_from_file` is named by the key).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// Path relative to the include root, `/`-separated.
    pub name: String,
    /// The root joined with `name`.
    pub path: PathBuf,
    /// xxh3-128 of the content that was compiled.
    pub content_hash: u128,
}

/// A compiled SPIR-V module.
#[derive(Clone, Debug, PartialEq)]
pub struct CompiledModule {
    /// The name it was compiled under (root-relative path, or a generated stage's virtual name).
    pub name: String,
    pub stage: Stage,
    pub profile: Profile,
    pub spirv: Vec<u32>,
    /// Every file `#include` resolved during compilation, in first-include order.
    pub files: Vec<SourceFile>,
    /// Root-relative paths an include search looked at and found empty before the file it took: a file created at
    /// one of them changes the module (a watcher or a build system watches these too).
    pub absent_includes: Vec<String>,
    /// Warnings, mapped like errors.
    pub warnings: Vec<Diagnostic>,
}
