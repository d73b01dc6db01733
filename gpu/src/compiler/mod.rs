//! GLSL → SPIR-V at run time: shaderc, `#include` resolution inside a root, an include-aware in-memory cache and
//! diagnostics that point at the user's files and declarations.
//!
//! ```no_run
//! use shader_info_gpu::compiler::{Compiler, Profile};
//! use shader_info::Stage;
//!
//! let compiler = Compiler::new("shaders")?;
//! let module = compiler.compile_from_file("forward.frag", Stage::Fragment, Profile::Release)?;
//! println!("{} words, {} files", module.spirv.len(), module.files.len());
//! // Unchanged files: answered from the cache without reading any file.
//! let again = compiler.compile_from_file("forward.frag", Stage::Fragment, Profile::Release)?;
//! assert_eq!(compiler.stats().hits, 1);
//! # Ok::<(), shader_info_gpu::compiler::CompileError>(())
//! ```
//!
//! Targets Vulkan 1.3 with SPIR-V 1.5 (not 1.6: Debian's glslang would write `LocalSizeId`, see TOOLCHAIN.md).

pub(crate) mod cache;
mod compiled;
pub mod diagnostics;
pub mod entry_point;
mod error;
pub(crate) mod files;
pub mod includes;
mod journal;
mod persist;

pub use cache::CacheStats;
pub use compiled::{CompiledModule, Profile, SourceFile};
pub use error::CompileError;
pub use includes::IncludeSearch;

use crate::disk_cache::DiskCache;
use cache::Cache;
use includes::{Includer, normalize, parent_dir};
use shader_info::{Code, Diagnostic, GeneratedStage, Severity, Stage};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, OnceLock};
use std::time::Instant;

/// Set once a compile of this process has built glslang's built-in tables ([`Compiler::warm_up`]), per target
/// environment: the translation profile's (Vulkan 1.1) and the others' (Vulkan 1.3).
static TABLES_BUILT: [std::sync::atomic::AtomicBool; 2] = [
    std::sync::atomic::AtomicBool::new(false),
    std::sync::atomic::AtomicBool::new(false),
];

/// A shaderc compiler held for the life of the process, so that glslang stays initialized. shaderc counts its
/// compilers and finalizes glslang, freeing its built-in tables, when the last is dropped: a process that made a
/// [`Compiler`] per pass (a test suite, a tool that rebuilds, a renderer that recreates its library) rebuilt the
/// tables on every pass, under the lock every compile takes, while [`TABLES_BUILT`] said they were built. On the
/// 16-core H200 machine such a pass took 270–285 ms against 115–121 ms with glslang kept (the library's 1,675
/// modules, 16 jobs, debug).
static GLSLANG: OnceLock<Option<shaderc::Compiler>> = OnceLock::new();

/// Keeps glslang initialized from the first [`Compiler`] on ([`GLSLANG`]).
fn keep_glslang() {
    GLSLANG.get_or_init(|| shaderc::Compiler::new().ok());
}

/// The entry of [`TABLES_BUILT`] of `profile`.
fn tables_of(profile: Profile) -> &'static std::sync::atomic::AtomicBool {
    &TABLES_BUILT[usize::from(profile == Profile::Translation)]
}

/// Bumped whenever the options below change, so keys of different option sets never meet.
const OPTIONS_VERSION: &str = "vulkan1.3/spv1.5/v1";

/// How the cache notices edited files.
///
/// ```
/// use shader_info_gpu::compiler::ChangeDetection;
/// assert_eq!(ChangeDetection::default(), ChangeDetection::Journal);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChangeDetection {
    /// A change journal (inotify on Linux) answers "did anything change?" and metadata checks run only when it
    /// says yes; elsewhere this behaves like `Metadata`.
    #[default]
    Journal,
    /// Check every dependency's metadata on every lookup (for network file systems, which inotify cannot see).
    Metadata,
}

/// The shaderc shader kind of a stage. Every stage has one; nothing is guessed from file extensions.
///
/// ```
/// use shader_info_gpu::compiler::shader_kind;
/// assert_eq!(shader_kind(shader_info::Stage::Intersection), shaderc::ShaderKind::Intersection);
/// ```
pub fn shader_kind(stage: Stage) -> shaderc::ShaderKind {
    use shaderc::ShaderKind as K;
    match stage {
        Stage::Vertex => K::Vertex,
        Stage::TessControl => K::TessControl,
        Stage::TessEvaluation => K::TessEvaluation,
        Stage::Geometry => K::Geometry,
        Stage::Fragment => K::Fragment,
        Stage::Compute => K::Compute,
        Stage::RayGen => K::RayGeneration,
        Stage::Miss => K::Miss,
        Stage::ClosestHit => K::ClosestHit,
        Stage::AnyHit => K::AnyHit,
        Stage::Intersection => K::Intersection,
        Stage::Callable => K::Callable,
    }
}

/// The runtime compiler: one per include root; `Send + Sync`, share it by reference or `Arc`.
///
/// ```no_run
/// use shader_info_gpu::compiler::{Compiler, Profile};
/// let c = Compiler::new("shaders").unwrap();
/// let m = c.compile_from_file("rt/reference_view.rgen", shader_info::Stage::RayGen, Profile::Debug);
/// if let Err(e) = m {
///     eprintln!("{e}"); // rustc-style, with the source line
/// }
/// ```
pub struct Compiler {
    shaderc: shaderc::Compiler,
    root: PathBuf,
    search: IncludeSearch,
    /// The root's files by name, for Blender's includes by name ([`shader_info::SourceLoader::find_by_name`]).
    names: shader_info::DirLoader,
    cache: Cache,
    disk: Option<Arc<DiskCache>>,
    /// Content hashes of files checked against the disk cache's manifests (shared by every unit).
    hashes: persist::FileHashes,
    /// What this build of shaderc makes of a probe shader (see [`Compiler::fingerprint`]).
    fingerprint: OnceLock<u128>,
}

/// How a [`Compiler`] finds includes, notices edits and keeps modules between processes.
///
/// ```no_run
/// use shader_info_gpu::compiler::{ChangeDetection, Compiler, CompilerOptions, IncludeSearch};
/// use shader_info_gpu::disk_cache::DiskCache;
/// let cache = DiskCache::open(DiskCache::app_dir("my-renderer").unwrap(), DiskCache::DEFAULT_LIMIT).unwrap();
/// let opts = CompilerOptions {
///     includes: IncludeSearch { include_dirs: vec!["lib".into()], strict: false },
///     change_detection: ChangeDetection::Journal,
///     disk_cache: Some(std::sync::Arc::new(cache)),
/// };
/// let c = Compiler::with_options("shaders", opts).unwrap();
/// ```
#[derive(Clone, Debug, Default)]
pub struct CompilerOptions {
    pub includes: IncludeSearch,
    pub change_detection: ChangeDetection,
    /// The persistent cache shared by processes (none: every process compiles what it uses once).
    pub disk_cache: Option<Arc<DiskCache>>,
}

/// What one compilation compiles: the text, the name it goes under, and where its relative includes start.
struct Unit<'a> {
    text: &'a str,
    name: &'a str,
    /// Root-relative directory for `#include "x"` written in the main text.
    dir: &'a str,
    /// The canonical main file, if it is a file (so a header including it back is a cycle).
    main_path: Option<PathBuf>,
    stage: Stage,
    profile: Profile,
    generated: Option<&'a GeneratedStage>,
}

impl Compiler {
    /// A compiler whose include root is `root` (it must exist).
    pub fn new(root: impl Into<PathBuf>) -> Result<Compiler, CompileError> {
        Compiler::with_options(root, CompilerOptions::default())
    }

    /// Like [`Compiler::new`], choosing how edits are noticed.
    ///
    /// ```no_run
    /// use shader_info_gpu::compiler::{ChangeDetection, Compiler};
    /// let c = Compiler::with_change_detection("/mnt/nfs/shaders", ChangeDetection::Metadata).unwrap();
    /// ```
    pub fn with_change_detection(
        root: impl Into<PathBuf>,
        detection: ChangeDetection,
    ) -> Result<Compiler, CompileError> {
        Compiler::with_options(
            root,
            CompilerOptions {
                change_detection: detection,
                ..CompilerOptions::default()
            },
        )
    }

    /// A compiler rooted at `root` with include directories, strictness and change detection chosen. Include
    /// directories are given relative to the root (an absolute path must lie inside it) and must exist.
    pub fn with_options(
        root: impl Into<PathBuf>,
        opts: CompilerOptions,
    ) -> Result<Compiler, CompileError> {
        let root = root.into();
        let shown = root.display().to_string();
        let root = std::fs::canonicalize(&root).map_err(|e| {
            CompileError::single(
                &shown,
                format!("the include root `{shown}` cannot be used: {e}"),
            )
        })?;
        if !root.is_dir() {
            return Err(CompileError::single(
                &shown,
                format!("the include root `{shown}` is not a directory"),
            ));
        }
        let mut search = opts.includes;
        for dir in &mut search.include_dirs {
            *dir = include_dir(&root, dir).map_err(|e| CompileError::single(&shown, e))?;
        }
        keep_glslang();
        let shaderc = shaderc::Compiler::new()
            .map_err(|e| CompileError::single(&shown, format!("cannot start shaderc: {e}")))?;
        Ok(Compiler {
            shaderc,
            names: shader_info::DirLoader::new(&root),
            cache: Cache::new(
                root.clone(),
                opts.change_detection == ChangeDetection::Journal,
            ),
            root,
            search,
            disk: opts.disk_cache,
            hashes: Default::default(),
            fingerprint: OnceLock::new(),
        })
    }

    /// The persistent cache, when there is one.
    pub fn disk_cache(&self) -> Option<&Arc<DiskCache>> {
        self.disk.as_ref()
    }

    /// A hash of this compiler's behaviour, part of every disk-cache key: the SPIR-V it makes of a probe shader
    /// (which changes with glslang's generator version and with the optimizer), the options version and the tool
    /// crates' versions. Computed on first use of the disk cache, and kept there by the identity of the running
    /// executable (path, size, modification time), so a warm start does not pay for glslang's first compile.
    ///
    /// ```no_run
    /// let c = shader_info_gpu::compiler::Compiler::new("shaders").unwrap();
    /// assert_eq!(c.fingerprint(), c.fingerprint()); // computed once
    /// ```
    pub fn fingerprint(&self) -> u128 {
        *self.fingerprint.get_or_init(|| {
            let exe = crate::disk_cache::executable_identity();
            let memo = match (&self.disk, &exe) {
                (Some(disk), Some(exe)) => Some((
                    disk,
                    crate::disk_cache::key_of(&[
                        exe.as_bytes(),
                        OPTIONS_VERSION.as_bytes(),
                        crate::disk_cache::TOOL_VERSIONS.as_bytes(),
                    ]),
                )),
                _ => None,
            };
            if let Some((disk, key)) = memo
                && let Some(bytes) = disk.get(crate::disk_cache::Kind::Compiler, key)
                && let Ok(words) = <[u8; 16]>::try_from(bytes.as_slice())
            {
                return u128::from_le_bytes(words);
            }
            let fingerprint = self.probe();
            if let Some((disk, key)) = memo {
                disk.put(
                    crate::disk_cache::Kind::Compiler,
                    key,
                    &fingerprint.to_le_bytes(),
                );
            }
            fingerprint
        })
    }

    fn probe(&self) -> u128 {
        const PROBE: &str = "#version 450\nlayout(location = 0) in vec4 v;\nlayout(location = 0) out vec4 o;\n\
            void main() { vec4 a = v; for (int i = 0; i < 4; i++) { a = a * a.yzwx + v; } o = a; }\n";
        let words = self
            .options(Profile::Release)
            .ok()
            .and_then(|o| {
                self.shaderc
                    .compile_into_spirv(
                        PROBE,
                        shaderc::ShaderKind::Fragment,
                        "probe",
                        "main",
                        Some(&o),
                    )
                    .ok()
            })
            .map(|a| a.as_binary_u8().to_vec())
            .unwrap_or_default();
        crate::disk_cache::key_of(&[
            &words,
            OPTIONS_VERSION.as_bytes(),
            crate::disk_cache::TOOL_VERSIONS.as_bytes(),
        ])
    }

    /// Where includes are searched.
    pub fn include_search(&self) -> &IncludeSearch {
        &self.search
    }

    /// The include root (canonical).
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Builds glslang's built-in tables for `profile` now, if no compile in this process has: glslang builds them
    /// on a process's first compile for each GLSL version and target (0.10-0.13 s on a 16-core H200 machine, 80 ms
    /// on the 2-core VM), holding a lock that every compile takes, so that a pass's threads would all wait on the first
    /// one. The static pass runs this beside its variant expansion. Only the tables of `#version 450` are built:
    /// the version of every stage but ray tracing's.
    ///
    /// ```no_run
    /// use shader_info_gpu::compiler::{Compiler, Profile};
    /// let compiler = Compiler::new("shaders")?;
    /// compiler.warm_up(Profile::Debug); // later compiles find the tables built
    /// assert!(Compiler::tables_built(Profile::Debug));
    /// # Ok::<(), shader_info_gpu::compiler::CompileError>(())
    /// ```
    pub fn warm_up(&self, profile: Profile) {
        if Self::tables_built(profile) {
            return;
        }
        if let Ok(options) = self.options(profile) {
            // The text is ours and valid: the result is not needed, only the tables its compile builds.
            let _ = self.shaderc.compile_into_spirv(
                "#version 450\nvoid main() {}\n",
                shaderc::ShaderKind::Vertex,
                "warm-up.vert",
                "main",
                Some(&options),
            );
            tables_of(profile).store(true, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// Whether a compile in this process has built glslang's tables for `profile` (see [`Compiler::warm_up`]).
    pub fn tables_built(profile: Profile) -> bool {
        tables_of(profile).load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Cache counters.
    pub fn stats(&self) -> CacheStats {
        self.cache.stats()
    }

    /// Number of cached modules.
    pub fn cached(&self) -> usize {
        self.cache.len()
    }

    /// Forgets every cached module.
    pub fn clear_cache(&self) {
        self.cache.clear()
    }

    /// Compiles the file `path` (relative to the root) as `stage`.
    ///
    /// A lookup whose file metadata is unchanged reads no file contents, the main file included.
    pub fn compile_from_file(
        &self,
        path: &str,
        stage: Stage,
        profile: Profile,
    ) -> Result<Arc<CompiledModule>, CompileError> {
        let rel = normalize("", path).map_err(|e| CompileError::single(path, e))?;
        let index = (rel.clone(), stage as u8, profile.tag());
        let generation = self.cache.journal.poll();
        if let Some(key) = self.cache.main_key(index.clone(), generation)
            && let Some(hit) = self.cache.lookup_only(key, generation)
        {
            return Ok(hit);
        }
        for dir in includes::ancestors(&self.root, &rel) {
            self.cache.journal.watch(&dir);
        }
        let (lexical, canonical) = includes::locate(&self.root, &rel)
            .map_err(|e| CompileError::single(&rel, e.message()))?;
        self.cache.journal.watch(&lexical);
        let (meta, text) = includes::read_file(&lexical, &rel, &self.cache.reads).map_err(|e| {
            let mut err = CompileError::single(&rel, e.message);
            for d in &mut err.diagnostics {
                d.line = e.line;
            }
            err
        })?;
        let unit = Unit {
            text: &text,
            name: &rel,
            dir: parent_dir(&rel),
            main_path: Some(canonical),
            stage,
            profile,
            generated: None,
        };
        let key = self.key(&unit);
        self.cache
            .remember_main(index, lexical, meta, key, generation);
        self.cache
            .get_or_compile(key, || self.compile_unit(&unit, key))
    }

    /// Compiles a generated stage of a resolved info. Errors are mapped through its source map: lines of inserted
    /// files name the file, lines of generated declarations name the info and the declaration.
    pub fn compile_generated(
        &self,
        generated: &GeneratedStage,
        profile: Profile,
    ) -> Result<Arc<CompiledModule>, CompileError> {
        // Relative includes of the generated text start where its stage source lives.
        let dir = generated.files.last().map_or("", |f| parent_dir(f));
        let unit = Unit {
            text: &generated.source,
            name: &generated.name,
            dir,
            main_path: None,
            stage: generated.stage,
            profile,
            generated: Some(generated),
        };
        let key = self.key(&unit);
        self.cache
            .get_or_compile(key, || self.compile_unit(&unit, key))
    }

    /// Compiles GLSL text given in memory under a virtual `name`; relative includes start at the root.
    pub fn compile_source(
        &self,
        source: &str,
        name: &str,
        stage: Stage,
        profile: Profile,
    ) -> Result<Arc<CompiledModule>, CompileError> {
        let unit = Unit {
            text: source,
            name,
            dir: "",
            main_path: None,
            stage,
            profile,
            generated: None,
        };
        let key = self.key(&unit);
        self.cache
            .get_or_compile(key, || self.compile_unit(&unit, key))
    }

    fn options<'a>(&self, profile: Profile) -> Result<shaderc::CompileOptions<'a>, String> {
        let mut o = shaderc::CompileOptions::new().map_err(|e| e.to_string())?;
        let (env, spirv) = match profile {
            Profile::Translation => (shaderc::EnvVersion::Vulkan1_1, shaderc::SpirvVersion::V1_3),
            _ => (shaderc::EnvVersion::Vulkan1_3, shaderc::SpirvVersion::V1_5),
        };
        o.set_target_env(shaderc::TargetEnv::Vulkan, env as u32);
        o.set_target_spirv(spirv);
        o.set_source_language(shaderc::SourceLanguage::GLSL);
        // glslang's default work-group limits (1024×1024×64) are one device's, not Vulkan's: the declaration's
        // size is checked against the real device's limits before pipeline creation, with both numbers named
        // (`PipelinePlan::work_group_problems`), so the compiler must not refuse first with its own.
        for limit in [
            shaderc::Limit::MaxComputeWorkGroupSizeX,
            shaderc::Limit::MaxComputeWorkGroupSizeY,
            shaderc::Limit::MaxComputeWorkGroupSizeZ,
        ] {
            o.set_limit(limit, i32::from(u16::MAX));
        }
        match profile {
            Profile::Debug => {
                o.set_optimization_level(shaderc::OptimizationLevel::Zero);
                o.set_generate_debug_info();
            }
            Profile::Release => o.set_optimization_level(shaderc::OptimizationLevel::Performance),
            // Unoptimized keeps every name (the translations stay readable); the translator drops what is unused.
            Profile::Translation => o.set_optimization_level(shaderc::OptimizationLevel::Zero),
        }
        Ok(o)
    }

    /// Compiles a unit, or loads it from the disk cache when that has it for the files as they are now.
    fn compile_unit(
        &self,
        unit: &Unit,
        key: u128,
    ) -> Result<(Arc<CompiledModule>, cache::Dependencies), CompileError> {
        let Some(disk) = &self.disk else {
            return self.compile_unit_now(unit).map(|(m, d, _)| (m, d));
        };
        let disk_key = crate::disk_cache::key_of(&[
            b"unit",
            &self.fingerprint().to_le_bytes(),
            &key.to_le_bytes(),
        ]);
        if let Some(loaded) =
            persist::load(disk, &self.root, disk_key, &self.hashes, &self.cache.reads)
        {
            let mut module = loaded.module;
            for f in &mut module.files {
                f.path = self.root.join(&f.name);
            }
            module.absent_includes = loaded.deps.absent.iter().map(|a| a.name.clone()).collect();
            if !loaded.warnings.is_empty() {
                module.warnings =
                    self.locate_all(unit, diagnostics::parse_messages(&loaded.warnings));
            }
            self.cache
                .disk_hits
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            // Watch what the module depends on, as a compile would have.
            for f in &loaded.deps.files {
                self.cache.journal.watch(&f.path);
            }
            return Ok((Arc::new(module), loaded.deps));
        }
        let (module, deps, warnings) = self.compile_unit_now(unit)?;
        persist::store(disk, disk_key, &module, &deps, &warnings);
        Ok((module, deps))
    }

    /// Compiles a unit with shaderc; also returns shaderc's warning text.
    fn compile_unit_now(
        &self,
        unit: &Unit,
    ) -> Result<(Arc<CompiledModule>, cache::Dependencies, String), CompileError> {
        // shaderc turns these strings into C strings and panics on an inner NUL: refuse them first.
        if unit.text.contains('\0') || unit.name.contains('\0') {
            return Err(CompileError::single(
                unit.name,
                "the source or its name contains a NUL byte",
            ));
        }
        let mut options = self
            .options(unit.profile)
            .map_err(|e| CompileError::single(unit.name, format!("cannot set up shaderc: {e}")))?;
        let journal = &self.cache.journal;
        let watch = |p: &Path| {
            journal.watch(p);
        };
        let includer = Rc::new(Includer::new(
            &self.root,
            unit.name,
            unit.dir,
            unit.main_path.clone(),
            &self.search,
            &self.cache.reads,
            &watch,
            unit.generated,
            &self.names,
        ));
        let cb = includer.clone();
        options.set_include_callback(move |req, ty, from, depth| cb.include(req, ty, from, depth));
        let started = Instant::now();
        let result = self.shaderc.compile_into_spirv(
            unit.text,
            shader_kind(unit.stage),
            unit.name,
            "main",
            Some(&options),
        );
        self.cache.add_compile_time(started.elapsed());
        // Read before written: a store on every compile would bounce the flag's cache line between the threads.
        let built = tables_of(unit.profile);
        if !built.load(std::sync::atomic::Ordering::Relaxed) {
            built.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        drop(options);
        let (files, absent) = Rc::try_unwrap(includer)
            .map(Includer::into_dependencies)
            .unwrap_or_default();
        match result {
            Ok(artifact) => {
                let warning_text = if artifact.get_num_warnings() > 0 {
                    artifact.get_warning_messages()
                } else {
                    String::new()
                };
                let warnings = if warning_text.is_empty() {
                    Vec::new()
                } else {
                    self.locate_all(unit, diagnostics::parse_messages(&warning_text))
                };
                let mut spirv = artifact.as_binary().to_vec();
                // The declared entry-point name (the generated text records it, so it is part of the key).
                if let Some(g) = unit.generated
                    && g.entry_point != "main"
                    && let Some(renamed) = entry_point::rename_entry_point(&spirv, &g.entry_point)
                {
                    spirv = renamed;
                }
                let module = CompiledModule {
                    name: unit.name.to_string(),
                    stage: unit.stage,
                    profile: unit.profile,
                    spirv,
                    files: files
                        .iter()
                        .map(|f| SourceFile {
                            name: f.name.clone(),
                            path: f.path.clone(),
                            content_hash: f.hash,
                        })
                        .collect(),
                    absent_includes: absent.iter().map(|a| a.name.clone()).collect(),
                    warnings,
                    keys: Default::default(),
                };
                Ok((
                    Arc::new(module),
                    cache::Dependencies { files, absent },
                    warning_text,
                ))
            }
            Err(e) => {
                let text = match e {
                    shaderc::Error::CompilationError(_, t) => t,
                    other => other.to_string(),
                };
                let mut diags = self.locate_all(unit, diagnostics::parse_messages(&text));
                if !diags.iter().any(|d| d.is_error()) {
                    // shaderc failed without a parsable error line: never answer with nothing.
                    let message = if text.trim().is_empty() {
                        "shaderc failed without a message".to_string()
                    } else {
                        text.trim().to_string()
                    };
                    diags.push(
                        diagnostics::compile_message(unit.name, Severity::Error, message).for_info(
                            unit.generated.map_or("", |g| &g.info),
                            unit.generated.map(|g| g.stage),
                        ),
                    );
                }
                Err(CompileError {
                    name: unit.name.to_string(),
                    diagnostics: diags,
                })
            }
        }
    }

    /// Maps file/line through the source map and captures each reported line's text. An error storm (a file that
    /// redeclares one name 50,000 times) keeps its first [`MAX_DIAGNOSTICS`] diagnostics and a count of the rest,
    /// and each file is read once for all of them.
    fn locate_all(&self, unit: &Unit, mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
        let dropped = diags.len().saturating_sub(MAX_DIAGNOSTICS);
        diags.truncate(MAX_DIAGNOSTICS);
        let mut texts: HashMap<String, Option<String>> = HashMap::new();
        let mut text_of = |name: &str| -> Option<String> {
            texts
                .entry(name.to_string())
                .or_insert_with(|| self.read_text(name))
                .clone()
        };
        for d in &mut diags {
            if let Some(g) = unit.generated {
                *d = std::mem::replace(d, Diagnostic::error(Code::Compile, "", ""))
                    .for_info(&g.info, Some(g.stage));
            }
            let file = d.file.get_or_insert_with(|| unit.name.to_string()).clone();
            let line = match d.line {
                Some(line) => line,
                // glslang reports a few errors for a whole file (the `#version` check, linking): point at the
                // directive the message is about, or at the file's first line, so every error has a place.
                None if unit.generated.is_none() => {
                    let text = if file == unit.name {
                        Some(unit.text.to_string())
                    } else {
                        text_of(&file)
                    };
                    let version = text.as_deref().and_then(|t| {
                        t.lines()
                            .position(|l| l.trim_start().starts_with("#version"))
                    });
                    let line = version
                        .filter(|_| d.message.contains("version"))
                        .map_or(1, |i| i as u32 + 1);
                    d.line = Some(line);
                    line
                }
                None => continue,
            };
            if let Some(g) = unit.generated {
                let m = g.source_map.map(&file, line);
                if m.declaration.is_some() || m.file != file || m.line != line {
                    if let Some((declared_in, item, origin)) = m.declaration {
                        d.source_line = nth_line(&g.source, line);
                        d.item = Some(item);
                        d.origin = origin;
                        d.declared_in = (declared_in != d.info).then_some(declared_in);
                    }
                    d.file = Some(m.file);
                    d.line = Some(m.line);
                }
            }
            if d.source_line.is_none() {
                let (file, line) = (d.file.clone().unwrap_or_default(), d.line.unwrap_or(line));
                // A generated stage is named `<info>.<stage>.glsl`, often its stage file's own name, and its `#line`
                // directives make the compiler report the files' lines: those are read from the file, never from the
                // generated text (a line of generated text names its declaration, above).
                let text = if file == unit.name && unit.generated.is_none() {
                    Some(unit.text.to_string())
                } else {
                    text_of(&file)
                };
                // glslang counts the `#line` directive it resumes with after a damaged last line (an unterminated
                // `#include "x`) as a line of the file: name the file's last line, where the damage is.
                let last = text.as_deref().map(|t| t.lines().count().max(1) as u32);
                let line = match last {
                    Some(last) if line > last => {
                        d.line = Some(last);
                        last
                    }
                    _ => line,
                };
                d.source_line = text.and_then(|t| nth_line(&t, line));
            }
        }
        if dropped > 0
            && let Some(last) = diags.last()
        {
            let mut more = last.clone();
            more.message = format!("… and {dropped} more diagnostics like these");
            more.source_line = None;
            diags.push(more);
        }
        diags
    }

    /// The text of the root-relative file `name`, when it is readable, UTF-8 and inside the root.
    fn read_text(&self, name: &str) -> Option<String> {
        let rel = normalize("", name).ok()?;
        let (path, _) = includes::locate(&self.root, &rel).ok()?;
        std::fs::read_to_string(path)
            .ok()
            .map(shader_info::without_bom)
    }
}

/// The most diagnostics one compile reports; the rest are counted.
pub const MAX_DIAGNOSTICS: usize = 200;

fn nth_line(text: &str, line: u32) -> Option<String> {
    text.lines()
        .nth((line as usize).checked_sub(1)?)
        .map(str::to_string)
}

impl Compiler {
    /// The cache key of a unit: hashes of everything that decides the output (not the text itself).
    fn key(&self, unit: &Unit) -> u128 {
        let mut h = xxhash_rust::xxh3::Xxh3::new();
        // Length-prefixed parts: no two different tuples hash the same byte stream.
        for part in [
            OPTIONS_VERSION.as_bytes(),
            self.search.key().as_bytes(),
            unit.stage.short_name().as_bytes(),
            &[unit.profile.tag()],
            unit.name.as_bytes(),
            unit.dir.as_bytes(),
            unit.text.as_bytes(),
        ] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part);
        }
        h.digest128()
    }
}

/// An include directory as a normalized root-relative name, or why it cannot be one.
fn include_dir(root: &Path, dir: &str) -> Result<String, String> {
    let p = Path::new(dir);
    let rel = if p.is_absolute() {
        let real = std::fs::canonicalize(p)
            .map_err(|e| format!("include directory `{dir}` cannot be used: {e}"))?;
        real.strip_prefix(root)
            .map_err(|_| {
                format!(
                    "include directory `{dir}` lies outside the shader root `{}`: includes never leave the root",
                    root.display()
                )
            })?
            .to_string_lossy()
            .replace('\\', "/")
    } else {
        normalize("", dir).map_err(|e| format!("include directory `{dir}`: {e}"))?
    };
    match includes::locate_dir(root, &rel) {
        Ok(()) => Ok(rel),
        Err(e) => Err(format!("include directory `{dir}`: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// shaderc finalizes glslang when its last compiler is dropped, and the next compile rebuilds the built-in
    /// tables that [`Compiler::tables_built`] says are built: the process keeps one compiler of its own.
    #[test]
    fn glslang_stays_initialized_after_the_last_compiler_is_dropped() {
        drop(Compiler::new(env!("CARGO_MANIFEST_DIR")).unwrap());
        assert!(GLSLANG.get().is_some_and(Option::is_some));
    }

    #[test]
    fn compiler_is_send_and_sync() {
        fn check<T: Send + Sync>() {}
        check::<Compiler>();
        check::<CompiledModule>();
        check::<CompileError>();
    }
}
