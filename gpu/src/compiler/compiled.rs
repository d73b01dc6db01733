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
    /// [`CompiledModule::spirv_key`] and [`CompiledModule::reflection_key`], hashed on first use.
    pub(crate) keys: ModuleKeys,
}

impl CompiledModule {
    /// [`crate::flow::spirv_key`] of the words, hashed once per module: every job of the static pass that shares
    /// a unit (744 of the library's 1,675) and every pass that finds the module cached hashed it again. The words
    /// are read as they are at the first call; a clone hashes its own.
    pub fn spirv_key(&self) -> u128 {
        self.keys().0
    }

    /// [`crate::reflect::reflection_key`] of the words (what reflection reads: the module without its debug
    /// instructions), hashed once per module like [`CompiledModule::spirv_key`].
    pub(crate) fn reflection_key(&self) -> u128 {
        self.keys().1
    }

    fn keys(&self) -> (u128, u128) {
        *self.keys.0.get_or_init(|| {
            (
                crate::flow::spirv_key(&self.spirv),
                crate::reflect::reflection_key(&self.spirv),
            )
        })
    }
}

/// Keys of a module's words: not part of its value (equal modules have equal keys), and not cloned, so that a
/// clone whose words are changed hashes its own.
#[derive(Default)]
pub(crate) struct ModuleKeys(std::sync::OnceLock<(u128, u128)>);

impl Clone for ModuleKeys {
    fn clone(&self) -> ModuleKeys {
        ModuleKeys::default()
    }
}

impl PartialEq for ModuleKeys {
    fn eq(&self, _: &ModuleKeys) -> bool {
        true
    }
}

impl std::fmt::Debug for ModuleKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ModuleKeys")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_words_hashes_and_a_changed_clone_hashes_its_own() {
        let module = CompiledModule {
            name: "m".into(),
            stage: Stage::Compute,
            profile: Profile::Debug,
            spirv: vec![0x0723_0203, 0x0001_0500, 0, 4, 0],
            files: Vec::new(),
            absent_includes: Vec::new(),
            warnings: Vec::new(),
            keys: ModuleKeys::default(),
        };
        assert_eq!(module.spirv_key(), crate::flow::spirv_key(&module.spirv));
        assert_eq!(
            module.reflection_key(),
            crate::reflect::reflection_key(&module.spirv)
        );
        let mut changed = module.clone();
        assert_eq!(changed, module);
        changed.spirv[3] = 5;
        assert_eq!(changed.spirv_key(), crate::flow::spirv_key(&changed.spirv));
        assert_ne!(changed.spirv_key(), module.spirv_key());
    }
}
