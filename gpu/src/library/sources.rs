//! What a shader library reads, shared by the Vulkan and wgpu libraries: the registry, the shader root, the
//! compiler (and its cache), and the validated infos and variant tables, each computed once per key.

use super::build::Base;
use crate::compiler::{Compiler, CompilerOptions, Profile};
use crate::flow::{ClipSpace, Flow, parse_variant_key};
use shader_info::{
    Code, Diagnostic, DirLoader, Registry, Stage, SubpassMode, ValidatedInfo, VariantSet,
};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// How to build a shader library ([`crate::vk::ShaderLibrary`], or the wgpu one).
pub struct LibraryOptions {
    /// The directory stage sources are loaded from (and watched).
    pub shader_root: PathBuf,
    /// Default `Release`: no debug info, so an edit that does not change the code (a comment, moved lines) gives
    /// identical SPIR-V and rebuilds nothing.
    pub profile: Profile,
    /// Include directories, strictness and change detection of the compiler.
    pub compiler: CompilerOptions,
    /// How pipelines read subpass inputs. Default `None`: the device's own choice
    /// ([`crate::vk::VkContext::subpass_mode`]: local read where supported); the wgpu library always emulates.
    pub subpass: Option<SubpassMode>,
    /// The clip-space convention the sources are written in. Default [`ClipSpace::Vulkan`]: the WGSL, MSL and
    /// HLSL translations (the wgpu backend's modules among them) flip y so every backend draws the same picture;
    /// [`ClipSpace::Source`] keeps the position as written, for sources written for wgpu's y-up clip space.
    pub clip_space: ClipSpace,
}

impl LibraryOptions {
    /// Options with sources under `shader_root` and the defaults for the rest.
    ///
    /// ```
    /// let opts = shader_info_gpu::library::LibraryOptions::new("shaders/glsl");
    /// assert_eq!(opts.profile, shader_info_gpu::compiler::Profile::Release);
    /// ```
    pub fn new(shader_root: impl Into<PathBuf>) -> LibraryOptions {
        LibraryOptions {
            shader_root: shader_root.into(),
            profile: Profile::Release,
            compiler: CompilerOptions::default(),
            subpass: None,
            clip_space: ClipSpace::Vulkan,
        }
    }
}

/// The registry, loader and compiler of a library, with its validated infos and variant tables.
pub(crate) struct Sources {
    /// The registry, loader and compiler, shared with background builds.
    pub base: Arc<Base>,
    /// How the library's pipelines read subpass inputs.
    pub subpass: SubpassMode,
    variant_sets: HashMap<String, Arc<VariantSet>>,
    /// Validated infos by key (info name or variant key), as declared (subpass inputs emulated). Validation reads
    /// sources too (the builtins the code uses, the structs of typedef headers), so a reload forgets them
    /// ([`Sources::forget_validated`]).
    validated: HashMap<String, Arc<ValidatedInfo>>,
    /// The same in the library's subpass mode, when that is not the declared one.
    in_mode: HashMap<String, Arc<ValidatedInfo>>,
    /// Stages the backend and its device cannot run: an info with one of them is served by its twin.
    pub unrunnable: Vec<Stage>,
}

impl Sources {
    /// Sources whose pipelines read subpass inputs in `subpass` (the backend decides; `opts.subpass` is ignored).
    pub fn new(
        registry: Registry,
        opts: LibraryOptions,
        subpass: SubpassMode,
    ) -> Result<Sources, Vec<Diagnostic>> {
        let compiler =
            Compiler::with_options(&opts.shader_root, opts.compiler).map_err(|e| e.diagnostics)?;
        Ok(Sources {
            base: Arc::new(Base {
                registry,
                loader: DirLoader::new(opts.shader_root),
                compiler,
                profile: opts.profile,
                memos: Default::default(),
                clip_space: opts.clip_space,
            }),
            subpass,
            variant_sets: HashMap::new(),
            validated: HashMap::new(),
            in_mode: HashMap::new(),
            unrunnable: Vec::new(),
        })
    }

    pub fn flow(&self) -> Flow<'_> {
        self.base.flow()
    }

    /// Resolves and validates a key (an info name, or `name#v<index>`) in the library's subpass mode: what its
    /// modules and plans are made from. Cached per key.
    pub fn validated(&mut self, key: &str) -> Result<Arc<ValidatedInfo>, Vec<Diagnostic>> {
        let declared = self.declared(key)?;
        if self.subpass == SubpassMode::Emulated || declared.subpass_inputs.is_empty() {
            return Ok(declared);
        }
        if let Some(info) = self.in_mode.get(key) {
            return Ok(info.clone());
        }
        let info = Arc::new(declared.with_subpass_mode(self.subpass)?);
        self.in_mode.insert(key.to_string(), info.clone());
        Ok(info)
    }

    /// Resolves and validates a key as declared (variants are derived from this form). Cached per key.
    fn declared(&mut self, key: &str) -> Result<Arc<ValidatedInfo>, Vec<Diagnostic>> {
        if let Some(info) = self.validated.get(key) {
            return Ok(info.clone());
        }
        let info = match parse_variant_key(key) {
            None => {
                let info = self.flow().validated(key)?;
                // An info with a stage the backend cannot run is served by its twin.
                match &info.twin {
                    Some(twin) if info.stages().iter().any(|s| self.unrunnable.contains(s)) => {
                        // The twin as declared, never its own twin (two infos naming each other stay finite).
                        let twin = Arc::new(self.flow().validated(&twin.value)?);
                        self.validated.insert(key.to_string(), twin.clone());
                        return Ok(twin);
                    }
                    _ => info,
                }
            }
            Some((base, index)) => {
                let base_info = self.declared(base)?;
                // The variant table is computed once per info (2^branches permutations), not once per lookup.
                let set = self.variants(base)?;
                let variant = base_info.variant(&set, index, &self.base.registry)?;
                self.flow().with_found_builtins(variant)
            }
        };
        let info = Arc::new(info);
        self.validated.insert(key.to_string(), info.clone());
        Ok(info)
    }

    /// Forgets the validated infos: a reload validates again against the sources as they are now (a builtin the
    /// edited code starts to use, a struct a header gains). Variant tables stay: they read only declarations.
    pub fn forget_validated(&mut self) {
        self.validated.clear();
        self.in_mode.clear();
    }

    /// The variant table of an info with static branches. Computed once per info.
    pub fn variants(&mut self, info_name: &str) -> Result<Arc<VariantSet>, Vec<Diagnostic>> {
        if let Some(v) = self.variant_sets.get(info_name) {
            return Ok(v.clone());
        }
        // A variant's key names one permutation already: choosing branches on it would build a variant of a
        // variant, whose values replace the ones its key chose, silently.
        if let Some((base, _)) = parse_variant_key(info_name) {
            return Err(vec![
                Diagnostic::error(
                    Code::Branch,
                    base,
                    format!(
                        "`{info_name}` is a variant of `{base}`, not an info: its branches are already chosen"
                    ),
                )
                .hint(format!("choose the branches on the info: pass `{base}`")),
            ]);
        }
        let info = self.declared(info_name)?;
        let set = Arc::new(self.flow().variants(&info)?);
        self.variant_sets.insert(info_name.to_string(), set.clone());
        Ok(set)
    }

    /// The key of the unique variant a permutation folds into.
    pub fn variant_key(
        &mut self,
        info_name: &str,
        permutation: u64,
    ) -> Result<String, Vec<Diagnostic>> {
        let set = self.variants(info_name)?;
        let index = set.lookup(permutation).map_err(|e| {
            vec![
                Diagnostic::error(Code::Branch, info_name, e.to_string())
                    .hint("pass a permutation of the info's declared branches"),
            ]
        })?;
        Ok(format!("{info_name}#v{index}"))
    }
}
