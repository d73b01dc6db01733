//! GLSL generation: the complete source of one stage of a resolved info, in the fixed order of DESIGN.md, with a
//! source map from generated lines back to the declarations and files they came from.
//!
//! Order (never the order of builder calls):
//! 1. `#version 450` (460 for ray tracing) and extensions;
//! 2. standard defines (`GPU_SHADER`, `GPU_VULKAN`, `GPU_<STAGE>_SHADER`);
//! 3. the info's defines, then variant defines, then constants shared with Rust (`const uint N = 4u;`);
//! 4. shared enums and structs (dependencies first, each once), then typedef source files;
//! 5. resources (sampler, image, uniform_buf, storage_buf), branch constants, specialization constants, the
//!    push-constant block;
//! 6. layout declarations (local group size, geometry layout, fragment tests);
//! 7. interface declarations (vertex_in, interface blocks, fragment_out);
//! 8. the stage source's dependencies (`#pragma require(file)`), each once, dependencies first;
//! 9. the stage source.
//!
//! Every inserted file is wrapped in `#line` directives, so compiler messages name the user's file and line.

use crate::blender::{BLENDER_PRELUDE, blender_prelude_of};
use crate::diagnostic::{Code, Diagnostic};
use crate::info::*;
use crate::interfaces::{StageBlock, stage_blocks};
use crate::item::Item;
use crate::layout::{FieldType, StructLookup};
use crate::origin::Origin;
use crate::push_spill::PushConstantSpill;
use crate::registry::Registry;
use crate::render_state::FrontFace;
use crate::resolve::ResolvedInfo;
use crate::resource::{Resource, ResourceKind};
use crate::types::*;
use crate::validate::ValidatedInfo;
use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};

/// The global names [`PORTABLE_POLYFILLS`] takes: its functions and the macros that call them.
pub(crate) const PORTABLE_POLYFILL_NAMES: &[&str] = &["gpu_inverse", "inverse"];

/// GLSL the portable flavor puts before everything else: what some translation targets lack, written out. The
/// optimizer drops what a shader does not call.
const PORTABLE_POLYFILLS: &str = "\
mat2 gpu_inverse(mat2 m) {
  return mat2(m[1][1], -m[0][1], -m[1][0], m[0][0]) / determinant(m);
}
mat3 gpu_inverse(mat3 m) {
  vec3 a = m[0], b = m[1], c = m[2];
  vec3 r0 = cross(b, c), r1 = cross(c, a), r2 = cross(a, b);
  return transpose(mat3(r0, r1, r2)) / dot(a, r0);
}
mat4 gpu_inverse(mat4 m) {
  float a00 = m[0][0], a01 = m[0][1], a02 = m[0][2], a03 = m[0][3];
  float a10 = m[1][0], a11 = m[1][1], a12 = m[1][2], a13 = m[1][3];
  float a20 = m[2][0], a21 = m[2][1], a22 = m[2][2], a23 = m[2][3];
  float a30 = m[3][0], a31 = m[3][1], a32 = m[3][2], a33 = m[3][3];
  float b00 = a00 * a11 - a01 * a10, b01 = a00 * a12 - a02 * a10, b02 = a00 * a13 - a03 * a10;
  float b03 = a01 * a12 - a02 * a11, b04 = a01 * a13 - a03 * a11, b05 = a02 * a13 - a03 * a12;
  float b06 = a20 * a31 - a21 * a30, b07 = a20 * a32 - a22 * a30, b08 = a20 * a33 - a23 * a30;
  float b09 = a21 * a32 - a22 * a31, b10 = a21 * a33 - a23 * a31, b11 = a22 * a33 - a23 * a32;
  float det = b00 * b11 - b01 * b10 + b02 * b09 + b03 * b08 - b04 * b07 + b05 * b06;
  return mat4(
    a11 * b11 - a12 * b10 + a13 * b09, a02 * b10 - a01 * b11 - a03 * b09,
    a31 * b05 - a32 * b04 + a33 * b03, a22 * b04 - a21 * b05 - a23 * b03,
    a12 * b08 - a10 * b11 - a13 * b07, a00 * b11 - a02 * b08 + a03 * b07,
    a32 * b02 - a30 * b05 - a33 * b01, a20 * b05 - a22 * b02 + a23 * b01,
    a10 * b10 - a11 * b08 + a13 * b06, a01 * b08 - a00 * b10 - a03 * b06,
    a30 * b04 - a31 * b02 + a33 * b00, a21 * b02 - a20 * b04 - a23 * b00,
    a11 * b07 - a10 * b09 - a12 * b06, a00 * b09 - a01 * b07 + a02 * b06,
    a31 * b01 - a30 * b03 - a32 * b00, a20 * b03 - a21 * b01 + a22 * b00) / det;
}
#define inverse gpu_inverse
";

/// Reads shader source files by their path relative to the shader root.
pub trait SourceLoader: Sync {
    /// The file's text, or a message saying why it cannot be read.
    fn load(&self, path: &str) -> Result<String, String>;

    /// Where `path` lives on disk, when it is a file there: a later process can then tell it unchanged by its
    /// metadata instead of loading it again (the static pass's record does). `None`, the default, makes every such
    /// check a load.
    ///
    /// ```no_run
    /// use shader_info::{DirLoader, SourceLoader};
    /// let loader = DirLoader::new("shaders");
    /// assert_eq!(loader.file_path("a.glsl"), Some("shaders/a.glsl".into()));
    /// ```
    fn file_path(&self, path: &str) -> Option<PathBuf> {
        let _ = path;
        None
    }

    /// The paths of every file named `name` (its last component), for sources that name files as Blender's do:
    /// by name alone, wherever they live (`#pragma BLENDER_REQUIRE(common_view_lib.glsl)` from any folder). Empty,
    /// the default, where the loader cannot list its files.
    ///
    /// ```
    /// use shader_info::{MemoryLoader, SourceLoader};
    /// let loader = MemoryLoader::default().with("draw/common_view_lib.glsl", "");
    /// assert_eq!(loader.find_by_name("common_view_lib.glsl"), ["draw/common_view_lib.glsl"]);
    /// ```
    fn find_by_name(&self, name: &str) -> Vec<String> {
        let _ = name;
        Vec::new()
    }
}

/// Loads files from a directory. Paths that leave the directory (`..`, absolute paths) are refused.
///
/// ```no_run
/// use shader_info::{DirLoader, SourceLoader};
/// let loader = DirLoader::new("shaders/glsl");
/// let text = loader.load("common/math.glsl");
/// ```
#[derive(Clone, Debug)]
pub struct DirLoader {
    root: PathBuf,
    /// The root's real path, resolved once (each load resolves only its file).
    real_root: Option<PathBuf>,
    /// Root-relative paths by file name ([`SourceLoader::find_by_name`]), listed on the first lookup and again
    /// when a name is not found or a file found is gone (added or moved since).
    by_name: NameIndex,
}

/// Root-relative paths by file name, shared by a loader's clones.
type NameIndex = std::sync::Arc<std::sync::Mutex<Option<HashMap<String, Vec<String>>>>>;

impl DirLoader {
    /// A loader rooted at `root`.
    pub fn new(root: impl Into<PathBuf>) -> DirLoader {
        let root = root.into();
        DirLoader {
            real_root: std::fs::canonicalize(&root).ok(),
            root,
            by_name: Default::default(),
        }
    }

    /// The root directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The root joined with `path`, when `path` is written inside it (no absolute path, no `..`); symbolic links
    /// are not followed (see [`DirLoader::resolve`]).
    fn lexical(&self, path: &str) -> Result<PathBuf, String> {
        let p = Path::new(path);
        if p.components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir))
        {
            return Err(format!(
                "`{path}` leaves the shader root (absolute paths and `..` are not allowed)"
            ));
        }
        Ok(self.root.join(p))
    }

    /// The file system path of `path`, if it stays inside the root.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, String> {
        let full = self.lexical(path)?;
        // A symbolic link inside the root may point outside it: shader paths can come from file content
        // (`#pragma require`), so the real location must stay inside too.
        let root = match &self.real_root {
            Some(r) => Ok(r.clone()),
            None => std::fs::canonicalize(&self.root),
        };
        if let (Ok(real), Ok(root)) = (std::fs::canonicalize(&full), root)
            && !real.starts_with(&root)
        {
            return Err(format!(
                "`{path}` leads out of the shader root through a symbolic link"
            ));
        }
        Ok(full)
    }
}

/// Every file under `root`, by name: root-relative paths, sorted. Hidden folders are not entered and symbolic links
/// are left out (a link may lead out of the root, back into it, or name a file listed already); a tree deeper than
/// 64 folders is not walked further.
fn files_by_name(root: &Path) -> HashMap<String, Vec<String>> {
    let mut out: HashMap<String, Vec<String>> = HashMap::new();
    let mut todo = vec![(root.to_path_buf(), 0usize)];
    while let Some((dir, depth)) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(kind) = e.file_type() else { continue };
            if kind.is_dir() && !name.starts_with('.') && depth < 64 {
                todo.push((e.path(), depth + 1));
            } else if kind.is_file()
                && let Ok(rel) = e.path().strip_prefix(root)
            {
                let rel = rel.to_string_lossy().replace('\\', "/");
                out.entry(name).or_default().push(rel);
            }
        }
    }
    out.values_mut().for_each(|v| v.sort());
    out
}

impl SourceLoader for DirLoader {
    fn find_by_name(&self, name: &str) -> Vec<String> {
        let mut index = self.by_name.lock().unwrap_or_else(|e| e.into_inner());
        let found = index.as_ref().and_then(|i| i.get(name)).cloned();
        // Listed again when the name is missing or a file listed is gone (moved since).
        if let Some(found) = found
            && found.iter().all(|f| self.root.join(f).is_file())
        {
            return found;
        }
        let fresh = files_by_name(&self.root);
        let found = fresh.get(name).cloned().unwrap_or_default();
        *index = Some(fresh);
        found
    }

    // Lexical, without resolving links (a check per file on every warm start): a file whose link now leads out of
    // the root has other metadata, and its load through `resolve` is refused.
    fn file_path(&self, path: &str) -> Option<PathBuf> {
        self.lexical(path).ok()
    }

    fn load(&self, path: &str) -> Result<String, String> {
        let full = self.resolve(path)?;
        let bytes = std::fs::read(&full).map_err(|e| {
            // ELOOP ("too many levels of symbolic links"): links that point at each other.
            if e.to_string().contains("symbolic links") {
                format!("`{}` is a loop of symbolic links", full.display())
            } else {
                format!("cannot read `{}`: {e}", full.display())
            }
        })?;
        String::from_utf8(bytes).map(without_bom).map_err(|e| {
            let at = e.utf8_error().valid_up_to();
            let line = e.as_bytes()[..at].iter().filter(|b| **b == b'\n').count() + 1;
            format!(
                "`{}` is not UTF-8 text (an invalid byte on line {line}, byte {at})",
                full.display()
            )
        })
    }
}

/// `text` without the byte-order mark editors on Windows start UTF-8 files with: inserted into a generated
/// stage it would sit mid-text, where the compiler refuses it.
///
/// ```
/// assert_eq!(shader_info::without_bom("\u{FEFF}void main() {}".into()), "void main() {}");
/// ```
pub fn without_bom(text: String) -> String {
    match text.strip_prefix('\u{FEFF}') {
        Some(rest) => rest.to_string(),
        None => text,
    }
}

/// Sources held in memory, keyed by path.
#[derive(Clone, Debug, Default)]
pub struct MemoryLoader(pub HashMap<String, String>);

impl MemoryLoader {
    /// Adds a file.
    pub fn with(mut self, path: &str, text: &str) -> MemoryLoader {
        self.0.insert(path.to_string(), text.to_string());
        self
    }
}

impl SourceLoader for MemoryLoader {
    fn find_by_name(&self, name: &str) -> Vec<String> {
        let mut found: Vec<String> = self
            .0
            .keys()
            .filter(|p| p.rsplit('/').next() == Some(name))
            .cloned()
            .collect();
        found.sort();
        found
    }

    fn load(&self, path: &str) -> Result<String, String> {
        self.0
            .get(path)
            .cloned()
            .map(without_bom)
            .ok_or_else(|| format!("no source named `{path}`"))
    }
}

/// What a range of generated lines came from.
#[derive(Clone, Debug, PartialEq)]
pub enum LineOrigin {
    /// Version, extensions and standard defines.
    Preamble,
    /// A generated declaration.
    Declaration {
        declared_in: String,
        item: String,
        origin: Origin,
    },
    /// Lines copied from a file; `first_line` is the file line of the range's first line.
    File { path: String, first_line: u32 },
}

/// One range of generated lines (1-based, inclusive).
#[derive(Clone, Debug, PartialEq)]
pub struct SourceMapEntry {
    pub start: u32,
    pub end: u32,
    pub origin: LineOrigin,
}

/// Maps lines of a generated stage back to declarations and files.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct SourceMap {
    /// The name the generated text carries in `#line` directives.
    pub generated_name: String,
    pub entries: Vec<SourceMapEntry>,
}

/// A compiler location mapped back to the user's world.
#[derive(Clone, Debug, PartialEq)]
pub struct MappedLocation {
    pub file: String,
    pub line: u32,
    /// For a line of a generated declaration: (declared in, item, Rust origin).
    pub declaration: Option<(String, String, Origin)>,
}

impl SourceMap {
    fn entry_of(&self, line: u32) -> Option<&SourceMapEntry> {
        self.entries
            .iter()
            .find(|e| e.start <= line && line <= e.end)
    }

    /// The origin of generated line `line`.
    pub fn origin_of(&self, line: u32) -> Option<&LineOrigin> {
        self.entry_of(line).map(|e| &e.origin)
    }

    /// Maps a `(file, line)` a compiler reported. Lines of inserted files already name the file (the `#line`
    /// directives did that); lines of the generated text are mapped to the declaration that produced them.
    pub fn map(&self, file: &str, line: u32) -> MappedLocation {
        if file == self.generated_name
            && let Some(entry) = self.entry_of(line)
        {
            match &entry.origin {
                LineOrigin::Declaration {
                    declared_in,
                    item,
                    origin,
                } => {
                    return MappedLocation {
                        file: file.to_string(),
                        line,
                        declaration: Some((declared_in.clone(), item.clone(), *origin)),
                    };
                }
                LineOrigin::File { path, first_line } => {
                    return MappedLocation {
                        file: path.clone(),
                        line: first_line + (line - entry.start),
                        declaration: None,
                    };
                }
                LineOrigin::Preamble => {}
            }
        }
        MappedLocation {
            file: file.to_string(),
            line,
            declaration: None,
        }
    }
}

/// One generated stage.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratedStage {
    /// The info it was generated from.
    pub info: String,
    pub stage: Stage,
    /// Virtual file name of the generated text, e.g. `gpu_shader_text.vert.glsl`.
    pub name: String,
    /// The complete GLSL text.
    pub source: String,
    /// Generated lines back to declarations and files.
    /// Shared: variants that differ only in branch values keep every line where it was
    /// ([`GeneratedStage::with_branches`]), and so their map.
    pub source_map: std::sync::Arc<SourceMap>,
    /// Files inserted, in order (typedef sources, dependencies, the stage source).
    pub files: Vec<String>,
    /// The entry point's name in the compiled module (`main` unless the info names it: GLSL's own function is
    /// always `main`, and the compiler renames the SPIR-V entry point).
    pub entry_point: String,
    /// Generated under the Blender prelude: the compiler reads the `#include`s of its files as Blender does
    /// (an include of a create-info header, `…_info.hh`/`…_infos.hh`, is empty).
    pub blender: bool,
    /// Where in `source` the branch section is ([`GeneratedStage::with_branches`]).
    branches: std::ops::Range<usize>,
}

impl GeneratedStage {
    /// This stage as generated for `to`, an info that differs from `from` (the info this was generated for) only in
    /// branch values and render state: the branch section written again, everything else (and the line of every
    /// declaration) as it is. `None` where `to` differs in more, or this text is not what `from` generates.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("s").branch("FOG").compute_source("s.comp").local_group_size(8));
    /// let loader = MemoryLoader::default().with("s.comp", "void main() { if (FOG) {} }");
    /// let opts = GenerateOptions::new(&loader, &reg);
    /// let info = reg.validated("s").unwrap();
    /// let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    /// let (off, on) = (info.variant(&set, 0, &reg).unwrap(), info.variant(&set, 1, &reg).unwrap());
    /// let text = generate(&off, Stage::Compute, &opts).unwrap();
    /// let twin = text.with_branches(&off, &on).unwrap();
    /// assert_eq!(twin, generate(&on, Stage::Compute, &opts).unwrap());
    /// assert!(twin.source.contains("const bool FOG = true;"));
    /// ```
    pub fn with_branches(
        &self,
        from: &ShaderCreateInfo,
        to: &ShaderCreateInfo,
    ) -> Option<GeneratedStage> {
        if self.info != from.name || !from.same_but_branch_values_and_state(to) {
            return None;
        }
        let (old, new) = (branch_section(from), branch_section(to));
        if self.source.get(self.branches.clone()) != Some(old.as_str()) {
            return None;
        }
        let mut source = String::with_capacity(self.source.len() - old.len() + new.len());
        source.push_str(&self.source[..self.branches.start]);
        source.push_str(&new);
        source.push_str(&self.source[self.branches.end..]);
        Some(GeneratedStage {
            info: self.info.clone(),
            stage: self.stage,
            name: self.name.clone(),
            source,
            source_map: self.source_map.clone(),
            files: self.files.clone(),
            entry_point: self.entry_point.clone(),
            blender: self.blender,
            branches: self.branches.start..self.branches.start + new.len(),
        })
    }
}

/// Which GLSL the generator writes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Flavor {
    /// Vulkan GLSL: combined image samplers, interface blocks located as a whole. What the Vulkan backend runs.
    #[default]
    Vulkan,
    /// The same shader in a form every translation target can take (the input of the cross-language targets):
    /// each combined sampler split into a texture and a sampler (with a define, so `texture(name, uv)` in user code
    /// is unchanged), every interface-block member located on its own, and `inverse()` written out in GLSL (MSL and
    /// HLSL have no matrix inverse). Defines `GPU_PORTABLE`.
    Portable,
}

/// What generation needs besides the info.
///
/// ```
/// use shader_info::{Flavor, GenerateOptions, MemoryLoader, Registry};
/// let loader = MemoryLoader::default();
/// let registry = Registry::new();
/// let opts = GenerateOptions::new(&loader, &registry).flavor(Flavor::Portable);
/// assert_eq!(opts.flavor, Flavor::Portable);
/// ```
pub struct GenerateOptions<'a> {
    pub loader: &'a dyn SourceLoader,
    /// Shared structs and enums.
    pub registry: &'a Registry,
    pub flavor: Flavor,
}

impl<'a> GenerateOptions<'a> {
    /// Vulkan GLSL with sources from `loader` and shared types from `registry`.
    pub fn new(loader: &'a dyn SourceLoader, registry: &'a Registry) -> GenerateOptions<'a> {
        GenerateOptions {
            loader,
            registry,
            flavor: Flavor::Vulkan,
        }
    }

    /// The same options writing `flavor`.
    pub fn flavor(mut self, flavor: Flavor) -> GenerateOptions<'a> {
        self.flavor = flavor;
        self
    }
}

struct Emitter {
    out: String,
    line: u32,
    name: String,
    map: Vec<SourceMapEntry>,
}

impl Emitter {
    fn push(&mut self, text: &str, origin: LineOrigin) {
        let start = self.line + 1;
        if text.contains('\r') {
            for l in text.lines() {
                self.out.push_str(l);
                self.out.push('\n');
                self.line += 1;
            }
        } else if !text.is_empty() {
            // What the loop above writes, in one copy: every line ended by one newline.
            self.out.push_str(text);
            if !text.ends_with('\n') {
                self.out.push('\n');
            }
            self.line += text.bytes().filter(|&b| b == b'\n').count() as u32
                + u32::from(!text.ends_with('\n'));
        }
        if self.line >= start {
            match self.map.last_mut() {
                Some(last)
                    if last.origin == origin
                        && last.end + 1 == start
                        && !matches!(origin, LineOrigin::File { .. }) =>
                {
                    last.end = self.line
                }
                _ => self.map.push(SourceMapEntry {
                    start,
                    end: self.line,
                    origin,
                }),
            }
        }
    }

    fn decl(&mut self, text: &str, declared_in: &str, item: String, origin: Origin) {
        self.push(
            text,
            LineOrigin::Declaration {
                declared_in: declared_in.to_string(),
                item,
                origin,
            },
        );
    }

    fn file(&mut self, path: &str, text: &str) {
        self.push(&format!("#line 1 \"{path}\""), LineOrigin::Preamble);
        self.push(
            text,
            LineOrigin::File {
                path: path.to_string(),
                first_line: 1,
            },
        );
        let next = self.line + 2;
        let resume = format!("#line {next} \"{}\"", self.name);
        self.push(&resume, LineOrigin::Preamble);
    }
}

/// The name of the portable flavor's specialization constant `id` (read through a global copy named as
/// declared). Built from the id alone, in a shape translators keep as written: naga's namer rewrites names that end
/// in a digit or an underscore or hold `__`, and declared names may do all three.
///
/// ```
/// assert_eq!(shader_info::portable_spec_name(3), "gpu_spec3_value");
/// ```
pub fn portable_spec_name(id: u32) -> String {
    format!("gpu_spec{id}_value")
}

/// Generates the complete GLSL of `stage` of `info`.
///
/// ```
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(
///     ShaderCreateInfo::new("fill")
///         .push_constant(Type::Vec4, "color")
///         .fragment_out(0, Type::Vec4, "frag_color")
///         .vertex_source("fill.vert")
///         .fragment_source("fill.frag"),
/// );
/// let loader = MemoryLoader::default()
///     .with("fill.vert", "void main() { gl_Position = vec4(0.0); }")
///     .with("fill.frag", "void main() { frag_color = color; }");
/// let info = reg.validated("fill").unwrap();
/// let opts = GenerateOptions::new(&loader, &reg);
/// let frag = generate(&info, Stage::Fragment, &opts).unwrap();
/// assert!(frag.source.contains("layout(location = 0) out vec4 frag_color;"));
/// assert!(frag.source.contains("#define GPU_FRAGMENT_SHADER"));
/// ```
pub fn generate(
    info: &ValidatedInfo,
    stage: Stage,
    opts: &GenerateOptions,
) -> Result<GeneratedStage, Vec<Diagnostic>> {
    refuse_portable_collisions(info, opts.flavor)?;
    let info: &ResolvedInfo = info;
    let main_item = stage_source(info, stage)?;
    refuse_local_read(info, opts.flavor)?;
    let name = format!("{}.{}.glsl", info.name, stage.short_name());
    let mut e = Emitter {
        // Most stages of the library are 4–8 KiB with a map of a few dozen ranges: grown from nothing, the copies
        // were a fifth of generating it.
        out: String::with_capacity(8 * 1024),
        line: 0,
        name: name.clone(),
        map: Vec::with_capacity(64),
    };
    let mut diags = Vec::new();
    let mut files = Vec::new();

    // The fixed source order (DESIGN.md, seed 001); each call writes one section.
    emit_preamble(&mut e, info, stage, opts.flavor);
    emit_defines(&mut e, info);
    emit_shared_constants(&mut e, info);
    emit_shared_types(&mut e, info, opts.registry);
    emit_typedef_files(&mut e, info, opts.loader, &mut diags, &mut files);
    emit_resources(&mut e, info, stage, opts.flavor);
    emit_naga_coordinate_types(&mut e, info, opts.flavor);
    emit_subpass_values(&mut e, info, stage, opts.flavor);
    let branches_start = e.out.len();
    emit_branches(&mut e, info);
    let branches = branches_start..e.out.len();
    emit_specialization_constants(&mut e, info, opts.flavor);
    emit_push_constants(&mut e, info);
    emit_layouts(&mut e, info, stage);
    let wrapper = emit_interfaces(&mut e, info, stage, opts.flavor == Flavor::Portable);
    emit_stage_source(
        &mut e,
        info,
        main_item,
        opts.loader,
        wrapper,
        &mut diags,
        &mut files,
    );

    if !diags.is_empty() {
        return Err(diags);
    }
    Ok(GeneratedStage {
        info: info.name.clone(),
        stage,
        name: name.clone(),
        source: e.out,
        source_map: std::sync::Arc::new(SourceMap {
            generated_name: name,
            entries: e.map,
        }),
        files,
        entry_point: info.entry_point_of(stage).to_string(),
        blender: info.blender_prelude,
        branches,
    })
}

/// The declared source of `stage`, or why there is none.
fn stage_source(
    info: &ResolvedInfo,
    stage: Stage,
) -> Result<&Item<(Stage, String)>, Vec<Diagnostic>> {
    info.sources
        .iter()
        .find(|s| s.value.0 == stage)
        .ok_or_else(|| {
            vec![
                Diagnostic::error(
                    Code::UnknownStage,
                    &info.name,
                    format!("the info has no {stage} stage"),
                )
                .item(format!("stage {stage}"))
                .at(&info.name, info.origin)
                .hint(format!(
                    "its stages are: {}",
                    info.stages()
                        .iter()
                        .map(|s| s.short_name())
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
            ]
        })
}

/// Refuses the portable flavor of an info with a name that flavor declares twice (validation's `translation`
/// warnings, see `validate::names`): glslang would refuse it with an error in generated code.
fn refuse_portable_collisions(info: &ValidatedInfo, flavor: Flavor) -> Result<(), Vec<Diagnostic>> {
    if flavor != Flavor::Portable {
        return Ok(());
    }
    let collisions: Vec<Diagnostic> = info
        .warnings()
        .iter()
        .filter(|w| w.code == Code::Translation)
        .map(|w| {
            let mut e = w.clone();
            e.severity = crate::diagnostic::Severity::Error;
            e
        })
        .collect();
    if collisions.is_empty() {
        Ok(())
    } else {
        Err(collisions)
    }
}

/// Refuses an info whose subpass inputs were turned into input attachments when the portable flavor is asked for:
/// only Vulkan reads an attachment in place.
fn refuse_local_read(info: &ResolvedInfo, flavor: Flavor) -> Result<(), Vec<Diagnostic>> {
    let local_read = info
        .resources
        .iter()
        .find(|r| matches!(r.value.kind, ResourceKind::InputAttachment { .. }));
    if let (Flavor::Portable, Some(r)) = (flavor, local_read) {
        return Err(vec![
            Diagnostic::error(
                Code::Unsupported,
                &info.name,
                format!(
                    "`{}` is an input attachment read by dynamic-rendering local read, which only Vulkan has",
                    r.value.name
                ),
            )
            .item(format!("subpass_in `{}`", r.value.name))
            .at(&r.declared_in, r.origin)
            .hint("translate the info with its subpass inputs emulated (SubpassMode::Emulated, the default)"),
        ]);
    }
    Ok(())
}

/// Sections 1-2: the version and extensions, the standard defines, and the preludes of the Blender and portable
/// dialects.
fn emit_preamble(e: &mut Emitter, info: &ResolvedInfo, stage: Stage, flavor: Flavor) {
    let uses_acceleration_structure = info
        .resources
        .iter()
        .any(|r| r.value.kind == ResourceKind::AccelerationStructure);
    // Ray tracing and ray queries need GLSL 4.60; everything else is declared against 4.50.
    let version = if stage.is_ray_tracing() || uses_acceleration_structure {
        460
    } else {
        450
    };
    let mut pre = format!("#version {version}\n#extension GL_GOOGLE_include_directive : require\n");
    // A declared entry-point name is given to the module by the compiler; recorded here so that it is part of
    // what the module is keyed by.
    let entry = info.entry_point_of(stage);
    if entry != "main" {
        let _ = writeln!(pre, "// entry point: {entry}");
    }
    if stage.is_ray_tracing() {
        pre.push_str("#extension GL_EXT_ray_tracing : require\n");
    } else if uses_acceleration_structure {
        // Outside ray-tracing stages an acceleration structure is only usable through ray queries.
        pre.push_str("#extension GL_EXT_ray_query : require\n");
    }
    for ext in info.builtins.glsl_extensions(stage, &info.stages()) {
        let _ = writeln!(pre, "#extension {ext} : require");
    }
    if flavor == Flavor::Portable && stage == Stage::Fragment && !info.subpass_inputs.is_empty() {
        // The emulated subpass inputs fetch from the texture half alone (see `SubpassInput::value_define`).
        pre.push_str("#extension GL_EXT_samplerless_texture_functions : require\n");
    }
    if info.blender_prelude && stage == Stage::Vertex {
        // `gl_InstanceID` of the Blender prelude counts from the draw's first instance.
        pre.push_str("#extension GL_ARB_shader_draw_parameters : require\n");
    }
    let _ = write!(
        pre,
        "#define GPU_SHADER\n#define GPU_VULKAN\n#define {}\n",
        stage.define_name()
    );
    if info.blender_prelude {
        pre.push_str(BLENDER_PRELUDE);
        pre.push_str(&blender_prelude_of(stage));
    }
    if flavor == Flavor::Portable {
        pre.push_str("#define GPU_PORTABLE\n");
        pre.push_str(PORTABLE_POLYFILLS);
    }
    e.push(&pre, LineOrigin::Preamble);
}

/// Section 3: the info's defines.
fn emit_defines(e: &mut Emitter, info: &ResolvedInfo) {
    for d in &info.defines {
        let text = match &d.value.value {
            Some(v) => format!("#define {} {v}", d.value.name),
            None => format!("#define {}", d.value.name),
        };
        e.decl(
            &text,
            &d.declared_in,
            format!("define `{}`", d.value.name),
            d.origin,
        );
    }
}

/// Constants shared with Rust: typed, after the defines, before anything that may size an array with them.
fn emit_shared_constants(e: &mut Emitter, info: &ResolvedInfo) {
    for c in &info.constants {
        e.decl(
            &c.value.glsl(),
            &c.declared_in,
            format!("constant `{}`", c.value.name),
            c.origin,
        );
    }
}

/// Section 4, second half: the typedef files, after the shared types they may use. An entry that names a shared
/// type was written by [`emit_shared_types`].
fn emit_typedef_files(
    e: &mut Emitter,
    info: &ResolvedInfo,
    loader: &dyn SourceLoader,
    diags: &mut Vec<Diagnostic>,
    files: &mut Vec<String>,
) {
    for t in &info.typedef_sources {
        if is_type_name(&t.value) {
            continue;
        }
        match loader.load(&t.value) {
            Ok(text) => {
                if let Some(d) = text_problem(info, &t.value, &text, false, t) {
                    diags.push(d);
                }
                // An enum the rewrite refuses is reported once, by it.
                let mut enum_refused = false;
                let text = match info.blender_prelude.then(|| blender_enums(&text)) {
                    Some(Ok(Some(rewritten))) => rewritten,
                    Some(Err((line, what))) => {
                        enum_refused = true;
                        diags.push(
                            Diagnostic::error(
                                Code::Unsupported,
                                &info.name,
                                format!("typedef_source `{}`: line {line} {what}", t.value),
                            )
                            .item(format!("typedef_source `{}`", t.value))
                            .in_file(t.value.clone(), Some(line))
                            .at(&t.declared_in, t.origin)
                            .hint(
                                "write it as Blender's shared headers do (`enum eName : uint32_t {`, one value a \
                                 line, `};`), or guard it with `#ifndef GPU_SHADER` and declare it in Rust with \
                                 #[derive(ShaderEnum)]",
                            ),
                        );
                        text
                    }
                    _ => text,
                };
                if let Some((line, what)) = c_dialect_problem(&text).filter(|_| !enum_refused) {
                    diags.push(
                        Diagnostic::error(
                            Code::Unsupported,
                            &info.name,
                            format!(
                                "typedef_source `{}`: line {line} {what}, which GLSL cannot read",
                                t.value
                            ),
                        )
                        .item(format!("typedef_source `{}`", t.value))
                        .in_file(t.value.clone(), Some(line))
                        .at(&t.declared_in, t.origin)
                        .hint(
                            "declare the enum in Rust with #[derive(ShaderEnum)] (its values become GLSL constants) \
                             and name it in the info, or guard the C/C++ part with `#ifndef GPU_SHADER`; the \
                             structs and the dialect's vector types can stay, and under ShaderCreateInfo::blender_compat \
                             Blender's enums are read as Blender reads them",
                        ),
                    );
                }
                e.file(
                    &t.value,
                    &blender_source(info, &text, &t.value, files, loader),
                );
                files.push(t.value.clone());
            }
            Err(msg) => diags.push(missing(info, "typedef_source", &t.value, t, msg)),
        }
    }
}

/// The integer coordinate types the portable flavor's arrayed images need (see
/// [`ImageType::layerless_int_coordinate`]), each with the unused global that declares it.
pub(crate) fn naga_coordinate_globals(info: &ResolvedInfo) -> Vec<(&'static str, String)> {
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for r in &info.resources {
        let image_type = match &r.value.kind {
            ResourceKind::Sampler { image_type, .. } | ResourceKind::Image { image_type, .. } => {
                image_type
            }
            _ => continue,
        };
        if let Some(ty) = image_type.layerless_int_coordinate()
            && !out.iter().any(|(t, _)| *t == ty)
        {
            out.push((ty, format!("gpu_naga_{ty}")));
        }
    }
    out
}

/// Section 6, the portable flavor: naga's SPIR-V reader splits an arrayed image's integer coordinate into the
/// layer and the rest, and panics when the module has no type for the rest (it declares only the float one); an
/// unused global of each such type makes glslang declare it (naga's compaction drops the global again).
fn emit_naga_coordinate_types(e: &mut Emitter, info: &ResolvedInfo, flavor: Flavor) {
    if flavor != Flavor::Portable {
        return;
    }
    for (ty, global) in naga_coordinate_globals(info) {
        e.push(&format!("{ty} {global};"), LineOrigin::Preamble);
    }
}

/// Section 5, after the resources: each subpass input's value, a define reading the binding that carries it.
fn emit_subpass_values(e: &mut Emitter, info: &ResolvedInfo, stage: Stage, flavor: Flavor) {
    if stage != Stage::Fragment {
        return;
    }
    for it in &info.subpass_inputs {
        let s = &it.value;
        let carrier = info
            .resources
            .iter()
            .find(|r| r.value.name == s.resource_name())
            .map(|r| &r.value.kind);
        if let Some(carrier) = carrier {
            e.decl(
                &s.value_define(carrier, flavor),
                &it.declared_in,
                format!("subpass_in `{}`", s.name),
                it.origin,
            );
        }
    }
}

/// Section 5: the static branches, where specialization constants are (see the variants module). Two lines each,
/// whatever the values, so that a variant that differs only in them keeps every other line where it was
/// ([`GeneratedStage::with_branches`]).
fn emit_branches(e: &mut Emitter, info: &ShaderCreateInfo) {
    let mut text = String::new();
    for b in &info.branches {
        text.clear();
        write_branch_decl(&mut text, info, &b.value);
        e.decl(
            &text,
            &b.declared_in,
            format!("branch `{}`", b.value),
            b.origin,
        );
    }
}

/// The declaration of branch `name` with its value in `info`, written onto `out` (without `format!`: a derived
/// variant writes its section anew, and the formatting machinery was most of that).
fn write_branch_decl(out: &mut String, info: &ShaderCreateInfo, name: &str) {
    let value = info.branch_values.iter().any(|(n, v)| n == name && *v);
    // The preprocessor symbol guards code that uses a conditional resource (`#if BRANCH_SKINNING`), which a
    // folded `if` cannot: the pruned resource is not declared at all.
    for part in [
        "const bool ",
        name,
        if value { " = true;" } else { " = false;" },
        "\n#define BRANCH_",
        name,
        if value { " 1" } else { " 0" },
    ] {
        out.push_str(part);
    }
}

/// The branch section's text, as [`emit_branches`] writes it.
fn branch_section(info: &ShaderCreateInfo) -> String {
    let mut out = String::with_capacity(info.branches.iter().map(|b| 2 * b.value.len() + 40).sum());
    for b in &info.branches {
        write_branch_decl(&mut out, info, &b.value);
        out.push('\n');
    }
    out
}

/// Section 5: the specialization constants.
fn emit_specialization_constants(e: &mut Emitter, info: &ResolvedInfo, flavor: Flavor) {
    for (id, sc) in info
        .specialization_constant_ids()
        .into_iter()
        .zip(&info.specialization_constants)
    {
        let v = &sc.value;
        let text = if flavor == Flavor::Portable {
            // A global copy: glslang folds expressions of specialization constants into `OpSpecConstantOp`, which
            // translators cannot read; through a variable they stay ordinary code and the constant stays overridable.
            format!(
                "layout(constant_id = {id}) const {ty} {global} = {value};\n{ty} {name} = {global};",
                global = portable_spec_name(id),
                ty = v.ty,
                name = v.name,
                value = v.default.glsl_literal()
            )
        } else {
            format!(
                "layout(constant_id = {id}) const {} {} = {};",
                v.ty,
                v.name,
                v.default.glsl_literal()
            )
        };
        e.decl(
            &text,
            &sc.declared_in,
            format!("specialization_constant `{}`", v.name),
            sc.origin,
        );
    }
}

/// Section 5: the push-constant block, or the storage buffer it spills to.
fn emit_push_constants(e: &mut Emitter, info: &ResolvedInfo) {
    if info.push_constants.is_empty() {
        return;
    }
    let head = match PushConstantSpill::of(info) {
        Some(s) => format!(
            "layout(std430, set = {}, binding = {}) readonly buffer {} {{",
            s.set,
            s.binding,
            PushConstantSpill::NAME
        ),
        None => "layout(push_constant, std430) uniform _PushConstants {".to_string(),
    };
    e.push(&head, LineOrigin::Preamble);
    for p in &info.push_constants {
        let v = &p.value;
        let text = match v.array_size {
            Some(n) => format!("  {} {}[{n}];", v.ty, v.name),
            None => format!("  {} {};", v.ty, v.name),
        };
        e.decl(
            &text,
            &p.declared_in,
            format!("push_constant `{}`", v.name),
            p.origin,
        );
    }
    e.push("};", LineOrigin::Preamble);
}

/// Sections 8-9: the stage source's dependencies (its `#pragma require`s, in order), then the stage source, then
/// the interface wrapper that calls it, if the interfaces needed one.
fn emit_stage_source(
    e: &mut Emitter,
    info: &ResolvedInfo,
    main_item: &Item<(Stage, String)>,
    loader: &dyn SourceLoader,
    wrapper: Option<String>,
    diags: &mut Vec<Diagnostic>,
    files: &mut Vec<String>,
) {
    let (stage, main_file) = (main_item.value.0, main_item.value.1.as_str());
    match loader.load(main_file) {
        Ok(text) => {
            if let Some(d) = text_problem(info, main_file, &text, true, main_item) {
                diags.push(d);
            }
            let order = collect_requires(&text, main_file, loader, diags, info, main_item);
            if wrapper.is_some() {
                e.push(
                    &format!("#define main {PORTABLE_STAGE_MAIN}"),
                    LineOrigin::Preamble,
                );
            }
            for (path, dep_text) in &order {
                // A shared header required Blender's way is read as Blender reads it, its C enums rewritten. One the
                // rewrite cannot read is left as it is: it may sit in a block the compiler skips, and where it does
                // not, glslang says so at its line.
                let rewritten = match info.blender_prelude.then(|| blender_enums(dep_text)) {
                    Some(Ok(Some(text))) => Some(text),
                    _ => None,
                };
                let dep_text = rewritten.as_deref().unwrap_or(dep_text);
                e.file(path, &blender_source(info, dep_text, path, files, loader));
                files.push(path.clone());
            }
            e.push(&format!("#line 1 \"{main_file}\""), LineOrigin::Preamble);
            e.push(
                &blender_source(info, &text, main_file, files, loader),
                LineOrigin::File {
                    path: main_file.to_string(),
                    first_line: 1,
                },
            );
            files.push(main_file.to_string());
            if let Some(w) = &wrapper {
                let resume = e.line + 2;
                e.push(
                    &format!("#line {resume} \"{}\"", e.name),
                    LineOrigin::Preamble,
                );
                e.push(w, LineOrigin::Preamble);
            }
        }
        Err(msg) => diags.push(missing(
            info,
            &format!("{stage} source"),
            main_file,
            main_item,
            msg,
        )),
    }
}

fn missing<T>(
    info: &ResolvedInfo,
    what: &str,
    path: &str,
    it: &Item<T>,
    msg: String,
) -> Diagnostic {
    Diagnostic::error(
        Code::MissingSource,
        &info.name,
        format!("{what} `{path}`: {msg}"),
    )
    .item(format!("{what} `{path}`"))
    .at(&it.declared_in, it.origin)
    .hint(load_hint(&msg))
}

/// What to do about a file that could not be loaded, by why.
fn load_hint(msg: &str) -> &'static str {
    if msg.contains("not UTF-8") {
        "save the file as UTF-8 (GLSL sources are ASCII; comments may hold UTF-8)"
    } else if msg.contains("loop of symbolic links") {
        "point the symbolic link at a file, not back at itself"
    } else if msg.contains("leave") || msg.contains("leads out") {
        "paths are relative to the shader root and stay inside it"
    } else {
        "paths are relative to the shader root; check the file exists and the spelling"
    }
}

/// Why the text of a shader file cannot be inserted as it is: a NUL or another control character (copied into
/// the generated GLSL, where glslang stops or misreads), an empty stage source, or a `#version` line (every
/// generated stage starts with its own). `(line, message, hint)`.
fn file_text_problem(text: &str, stage_source: bool) -> Option<(u32, String, &'static str)> {
    // Most files hold neither a control character (C0, DEL, or C1: UTF-8 lead byte 0xC2) nor the word `version`:
    // one pass over the bytes tells, before the per-line reading that finds the line. It folds each chunk without
    // an early exit, so that the compiler vectorizes it.
    let odd = |b: u8| {
        (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)) || b == 0x7f || b == 0xc2
    };
    let suspect = text
        .as_bytes()
        .chunks(64)
        .any(|c| c.iter().fold(false, |any, &b| any | odd(b)))
        || text.contains("version");
    let empty = || {
        (stage_source && text.trim().is_empty()).then(|| {
            (
                1,
                "is empty".to_string(),
                "write the stage's `void main() { … }` in it",
            )
        })
    };
    if !suspect {
        return empty();
    }
    for (i, line) in text.split('\n').enumerate() {
        if let Some(c) = line
            .chars()
            .find(|c| c.is_control() && !matches!(c, '\t' | '\r' | '\u{b}' | '\u{c}'))
        {
            return Some((
                i as u32 + 1,
                format!("holds the control character U+{:04X}", c as u32),
                "remove it: GLSL sources are plain text (a NUL often means the file was saved as UTF-16)",
            ));
        }
        if line.trim_start().starts_with("#version")
            || line.trim_start().starts_with('#')
                && line.trim_start()[1..].trim_start().starts_with("version")
        {
            return Some((
                i as u32 + 1,
                "starts with its own `#version` line".to_string(),
                "remove the `#version` line (and any `#extension` the info declares): the generated stage writes them, ahead of the declarations",
            ));
        }
    }
    empty()
}

/// `a/./b//c.glsl` → `a/b/c.glsl`: one file under two spellings is one file.
fn normalize_path(path: &str) -> String {
    path.split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// The first line (1-based) of a shared header that only C or C++ can read, outside `#ifndef GPU_SHADER` /
/// `#if !defined(GPU_SHADER)` blocks, and what is there: a C enum (GLSL reserves `enum`), a `namespace`, a
/// `template`, a `using` alias.
///
/// ```
/// use shader_info::c_dialect_problem;
/// assert_eq!(c_dialect_problem("struct S { float4 a; };").map(|p| p.0), None);
/// let header = "#ifndef GPU_SHADER\nnamespace blender {\n#endif\nenum eShape : uint32_t {\n  A = 0u,\n};\n";
/// assert_eq!(c_dialect_problem(header).map(|p| p.0), Some(4));
/// ```
pub fn c_dialect_problem(text: &str) -> Option<(u32, &'static str)> {
    glsl_visible_lines(text).find_map(|(i, t)| {
        let word = t
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        let what = match word {
            "enum" => "declares a C enum",
            "namespace" => "opens a C++ namespace",
            "template" => "declares a C++ template",
            "using" => "declares a C++ alias",
            _ => return None,
        };
        Some((i as u32 + 1, what))
    })
}

/// A shared header's C enums as Blender's GLSL preprocessor rewrites them, under the Blender prelude
/// ([`crate::ShaderCreateInfo::blender_compat`]): the type becomes a macro of its underlying type and each value a
/// constant, on the lines where they were written (line numbers stay), so structs and code use both unchanged.
///
/// ```text
/// enum eShape : uint32_t {      →  #define eShape uint
///   SHAPE_A = 1u,               →  const uint SHAPE_A = 1u;
///   SHAPE_B,                    →  const uint SHAPE_B = (SHAPE_A + 1u);
/// };                            →
/// ```
///
/// `Ok(None)` when the text declares no enum GLSL reads (those inside `#ifndef GPU_SHADER` blocks stay as they
/// are); `Err((line, what))` for an enum this cannot rewrite: an `enum class` (GLSL has no scoped names) or one
/// written on a single line (the type's `#define` needs a line of its own).
///
/// ```
/// use shader_info::blender_enums;
/// let header = "enum eShape : uint32_t {\n  A = 1u,\n  B,\n};\nstruct S { eShape s; };\n";
/// let glsl = blender_enums(header).unwrap().unwrap();
/// assert_eq!(glsl, "#define eShape uint\nconst uint A = 1u;\nconst uint B = (A + 1u);\n\nstruct S { eShape s; };\n");
/// assert!(blender_enums("enum class eMode : uint32_t {\n  A = 0u,\n};\n").is_err());
/// // A comment over several lines of the body stays one comment.
/// let commented = "enum eFlag : uint32_t {\n  A = 1u, /* one,\n   * two */ B = 2u,\n  /* three\n   four */\n  C = 4u,\n};\n";
/// let glsl = blender_enums(commented).unwrap().unwrap();
/// assert_eq!(
///     glsl,
///     "#define eFlag uint\nconst uint A = 1u; /*\n*/ const uint B = 2u;\n /*\n*/ \nconst uint C = 4u;\n\n"
/// );
/// ```
pub fn blender_enums(text: &str) -> Result<Option<String>, (u32, String)> {
    // Most files (every library a Blender source includes passes here) hold no enum: not scanned line by line.
    if !text.contains("enum") {
        return Ok(None);
    }
    let visible: HashMap<usize, String> = glsl_visible_lines(text).collect();
    let starts_enum = |code: &str| {
        code.strip_prefix("enum").is_some_and(|rest| {
            rest.is_empty() || rest.starts_with(|c: char| c.is_whitespace() || c == '{')
        })
    };
    if !visible.values().any(|c| starts_enum(c)) {
        return Ok(None);
    }
    struct Body {
        ty: &'static str,
        /// The previous value's name (the next unnumbered value counts on from it); `None` before the first.
        previous: Option<String>,
        /// Whether the `{` is still to come (on a line of its own).
        open: bool,
        /// The start of a value continued on the next line (`A = (B |` before `C),`), with no top-level comma yet.
        pending: String,
    }
    let mut body: Option<Body> = None;
    let mut out = String::with_capacity(text.len());
    let mut in_comment = false;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let ending = &line[line.trim_end_matches(['\n', '\r']).len()..];
        // A rewritten line keeps the block comment it ends in open and closes the one it starts in, so the
        // comment's other lines stay comment and the code after it stays code.
        let starts_in_comment = in_comment;
        without_comments(line, &mut in_comment);
        let reopen = if in_comment { " /*" } else { "" };
        let close = if starts_in_comment { "*/ " } else { "" };
        let number = i as u32 + 1;
        let Some(code) = visible.get(&i).map(|c| c.trim()) else {
            out.push_str(line);
            continue;
        };
        // A line that is comment from end to end stays as it is.
        if body.is_some() && code.is_empty() && starts_in_comment && in_comment {
            out.push_str(line);
            continue;
        }
        let rewritten = match &mut body {
            None if starts_enum(code) => {
                let header = code["enum".len()..].trim();
                let (head, after) = match header.split_once('{') {
                    Some((h, a)) => (h.trim(), Some(a.trim())),
                    None => (header, None),
                };
                let (name, underlying) = match head.split_once(':') {
                    Some((n, t)) => (
                        n.trim(),
                        Some(t.split_whitespace().collect::<Vec<_>>().join(" ")),
                    ),
                    None => (head, None),
                };
                if name
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| w == "class" || w == "struct")
                {
                    return Err((
                        number,
                        "declares a scoped enum (`enum class`), which GLSL cannot name".into(),
                    ));
                }
                if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                    return Err((
                        number,
                        format!("declares an enum `{name}` this cannot read"),
                    ));
                }
                if after.is_some_and(|a| !a.is_empty()) {
                    return Err((
                        number,
                        format!(
                            "declares the enum `{name}` on one line; its values need lines of their own"
                        ),
                    ));
                }
                let ty = match underlying.as_deref() {
                    Some("int" | "int32_t" | "int16_t" | "int8_t" | "short" | "char") => "int",
                    Some(_) => "uint",
                    // Blender's rule: a C enum's values carry the `u` suffix.
                    None => "uint",
                };
                body = Some(Body {
                    ty,
                    previous: None,
                    open: after.is_none(),
                    pending: String::new(),
                });
                format!("#define {name} {ty}")
            }
            None => {
                out.push_str(line);
                continue;
            }
            Some(b) if b.open => {
                if code != "{" {
                    return Err((number, "expected the enum's `{` on its own line".into()));
                }
                b.open = false;
                String::new()
            }
            Some(b) => {
                let (entries, closed) = match code.split_once('}') {
                    Some((e, rest)) => {
                        if !matches!(rest.trim(), "" | ";") {
                            return Err((
                                number,
                                format!("ends an enum with `}}{rest}`; write `}};`"),
                            ));
                        }
                        (e, true)
                    }
                    None => (code, false),
                };
                let mut consts = Vec::new();
                // A value may run over several lines: what follows the line's last top-level comma waits for the
                // rest, unless the enum ends here. Its constant is written on the line where it ends.
                let joined = if b.pending.is_empty() {
                    entries.to_string()
                } else {
                    format!("{} {entries}", std::mem::take(&mut b.pending))
                };
                let mut segments: Vec<&str> = top_level_commas(&joined).collect();
                // The text after the line's last top-level comma waits for the next line only where it cannot end
                // here: a bracket still open, or an operator last (`A = (B |`). A whole value without its comma
                // (`B = 1u` before `#else`, or the last value) is written on its own line.
                let rest = match segments.last() {
                    Some(last) if !closed && continues(last) => {
                        segments.pop().unwrap_or("").trim().to_string()
                    }
                    _ => String::new(),
                };
                for entry in segments
                    .into_iter()
                    .map(str::trim)
                    .filter(|e| !e.is_empty())
                {
                    let (name, value) = match entry.split_once('=') {
                        Some((n, v)) => (n.trim(), v.trim().to_string()),
                        None => {
                            let one = if b.ty == "uint" { "1u" } else { "1" };
                            let value = match &b.previous {
                                Some(p) => format!("({p} + {one})"),
                                None => if b.ty == "uint" { "0u" } else { "0" }.to_string(),
                            };
                            (entry, value)
                        }
                    };
                    if name.is_empty()
                        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        return Err((
                            number,
                            format!("has an enum value `{entry}` this cannot read"),
                        ));
                    }
                    if bracket_depth(&value) != 0 {
                        return Err((
                            number,
                            format!("has an enum value `{entry}` whose brackets do not close"),
                        ));
                    }
                    consts.push(format!("const {} {name} = {value};", b.ty));
                    b.previous = Some(name.to_string());
                }
                b.pending = rest;
                if closed {
                    body = None;
                }
                consts.join(" ")
            }
        };
        out.push_str(close);
        out.push_str(&rewritten);
        out.push_str(reopen);
        out.push_str(ending);
    }
    match body {
        Some(_) => Err((
            text.lines().count() as u32,
            "ends inside an enum (no `};`)".into(),
        )),
        None => Ok(Some(out)),
    }
}

/// What `c` does to the count of open parentheses and brackets.
fn bracket_step(c: char) -> i32 {
    match c {
        '(' | '[' => 1,
        ')' | ']' => -1,
        _ => 0,
    }
}

/// How many of `text`'s parentheses and brackets are open at its end (negative: more closed than opened).
fn bracket_depth(text: &str) -> i32 {
    text.chars().map(bracket_step).sum()
}

/// Whether an enum entry written up to the end of a line goes on in the next: a bracket still open, or an operator
/// (or `=`) last.
fn continues(entry: &str) -> bool {
    let entry = entry.trim_end();
    bracket_depth(entry) > 0
        || entry.ends_with([
            '|', '&', '+', '-', '*', '/', '<', '>', '^', '~', '=', '(', '%',
        ])
}

/// `text` split at its commas outside parentheses and brackets: an enum value may be `max(A, 2u)`.
fn top_level_commas(text: &str) -> impl Iterator<Item = &str> {
    let mut depth = 0i32;
    text.split(move |c: char| {
        depth += bracket_step(c);
        c == ',' && depth == 0
    })
}

/// The structs a shared header defines for GLSL (`struct LightData { … }`, outside `#ifndef GPU_SHADER` blocks and
/// comments): names a buffer may take as its type, though the core does not lay them out (the compiler and
/// reflection check their use).
///
/// ```
/// use shader_info::typedef_struct_names;
/// let header = "// struct Commented {};\n#ifndef GPU_SHADER\nstruct HostOnly { int a; };\n#endif\n\
///               struct LightData {\n  vec4 color;\n};\nstruct  ObjectMatrices { mat4 model; };\n";
/// assert_eq!(typedef_struct_names(header), ["LightData", "ObjectMatrices"]);
/// ```
pub fn typedef_struct_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (_, line) in glsl_visible_lines(text) {
        let mut words = line
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty());
        while let Some(w) = words.next() {
            if w == "struct"
                && let Some(name) = words.next()
                && !out.iter().any(|n| n == name)
            {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// `line`'s code without its comments (each block comment a space), `in_comment` carrying an open `/*` from one
/// line to the next.
fn without_comments(line: &str, in_comment: &mut bool) -> String {
    let mut code = String::new();
    let mut rest = line;
    loop {
        if *in_comment {
            match rest.find("*/") {
                Some(end) => {
                    rest = &rest[end + 2..];
                    *in_comment = false;
                }
                None => return code,
            }
        } else {
            let block = rest.find("/*");
            let line_comment = rest.find("//");
            match (block, line_comment) {
                (Some(b), l) if l.is_none_or(|l| b < l) => {
                    code.push_str(&rest[..b]);
                    code.push(' ');
                    rest = &rest[b + 2..];
                    *in_comment = true;
                }
                (_, Some(l)) => {
                    code.push_str(&rest[..l]);
                    return code;
                }
                _ => {
                    code.push_str(rest);
                    return code;
                }
            }
        }
    }
}

/// The lines of a shared header GLSL reads, with their 0-based numbers and without comments: lines of
/// `#ifndef GPU_SHADER` / `#if !defined(GPU_SHADER)` blocks and preprocessor lines are left out.
fn glsl_visible_lines(text: &str) -> impl Iterator<Item = (usize, String)> + '_ {
    // Per open conditional: whether it hides its lines from GLSL, and whether it tests `GPU_SHADER` (its `#else`
    // holds the other side; any other conditional's branches may all be GLSL, as far as this can tell).
    let mut hidden: Vec<(bool, bool)> = Vec::new();
    let mut in_comment = false;
    text.lines().enumerate().filter_map(move |(i, line)| {
        let code = without_comments(line, &mut in_comment);
        let t = code.trim_start();
        if let Some(d) = t.strip_prefix('#') {
            let cond = d.split_whitespace().collect::<Vec<_>>().join(" ");
            if cond.starts_with("ifndef GPU_SHADER") || cond.starts_with("if !defined(GPU_SHADER)")
            {
                hidden.push((true, true));
            } else if cond.starts_with("ifdef GPU_SHADER")
                || cond.starts_with("if defined(GPU_SHADER)")
            {
                hidden.push((false, true));
            } else if cond.starts_with("if") {
                hidden.push((false, false));
            } else if cond.starts_with("else") || cond.starts_with("elif") {
                if let Some((h, true)) = hidden.last_mut() {
                    *h = !*h && cond.starts_with("else");
                }
            } else if cond.starts_with("endif") {
                hidden.pop();
            }
            return None;
        }
        (!hidden.iter().any(|(h, _)| *h)).then(|| (i, t.to_string()))
    })
}

impl SubpassInput {
    /// The `#define` that makes the declared name the attachment's value at this fragment, read through
    /// `carrier` (the binding [`Self::resource_name`] names). In the portable flavor the emulation fetches from
    /// the texture half of the split sampler alone: a fetch takes no sampler, and a sampler the SPIR-V still
    /// names would be bound by one translator and dropped by another.
    pub(crate) fn value_define(&self, carrier: &ResourceKind, flavor: Flavor) -> String {
        let swizzle = match self.ty.shape().1 {
            1 => ".x",
            2 => ".xy",
            3 => ".xyz",
            _ => "",
        };
        let read = match carrier {
            ResourceKind::InputAttachment { .. } => {
                format!("subpassLoad({})", self.resource_name())
            }
            _ => {
                let image = match flavor {
                    Flavor::Portable => Resource::portable_texture_name(&self.resource_name()),
                    Flavor::Vulkan => self.resource_name(),
                };
                format!("texelFetch({image}, ivec2(gl_FragCoord.xy), 0)")
            }
        };
        format!("#define {} {read}{swizzle}", self.name)
    }
}

/// A located diagnostic for a file whose text cannot be inserted (see [`file_text_problem`]).
fn text_problem<T>(
    info: &ResolvedInfo,
    file: &str,
    text: &str,
    stage_source: bool,
    it: &Item<T>,
) -> Option<Diagnostic> {
    let (line, p, hint) = file_text_problem(text, stage_source)?;
    let source_line = text.split('\n').nth(line as usize - 1).unwrap_or("");
    Some(
        Diagnostic::error(Code::UnsafeText, &info.name, format!("`{file}` {p}"))
            .item(format!("`{file}`"))
            .at(&it.declared_in, it.origin)
            .in_file(file, Some(line))
            .with_source_line(source_line.replace(|c: char| c.is_control() && c != '\t', "�"))
            .hint(hint),
    )
}

/// A source as the Blender prelude reads it: the self-includes of Blender's newer sources
/// (`#include "infos/<name>_info.hh"` or `…_infos.hh`, the C++ create-info headers the lint stubs name) and its
/// compatibility headers ([`crate::blender_empty_include`]), and the
/// includes of a file already in the text above (`inlined`: the typedef sources and required files the generator put
/// there), become empty lines; line numbers stay. Blender's `#pragma once` makes the second an empty include, and
/// glslang has no `#pragma once`: read again, the file would define its functions twice. (An include inside an
/// included file is emptied by the include callback, which sees its depth.) Other sources are unchanged.
fn blender_source<'t>(
    info: &ResolvedInfo,
    text: &'t str,
    file: &str,
    inlined: &[String],
    loader: &dyn SourceLoader,
) -> std::borrow::Cow<'t, str> {
    if !info.blender_prelude {
        return std::borrow::Cow::Borrowed(text);
    }
    let blank = |p: &str| {
        if crate::blender::blender_empty_include(&normalize_path(p)) {
            return true;
        }
        // The file the include reads, as the include callback finds it: beside the including file, else from the
        // root, else the one file of its name. Only that file's copy makes the include empty (another file of the
        // same name in another folder is read). Nothing inserted, nothing to look up.
        !inlined.is_empty()
            && match include_target(loader, file, p) {
                Some(found) => inlined.contains(&found),
                None => crate::blender::blender_file_by_name(
                    |n| loader.find_by_name(n),
                    &normalize_path(p),
                )
                .is_ok_and(|one| inlined.contains(&one)),
            }
    };
    // Each include is looked up once, and a text without one to empty is not copied.
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let empty: Vec<bool> = lines
        .iter()
        .map(|line| include_directive(line).is_some_and(blank))
        .collect();
    if !empty.contains(&true) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (line, empty) in lines.into_iter().zip(empty) {
        if empty {
            out.push_str(if line.ends_with('\n') { "\n" } else { "" });
        } else {
            out.push_str(line);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The path of a line's `#include "path"` (`#  include` too, as Blender indents directives inside `#if` blocks);
/// `None` for any other line, and for an include with anything after its path.
///
/// ```
/// use shader_info::include_directive;
/// assert_eq!(include_directive("#  include \"common/math.glsl\""), Some("common/math.glsl"));
/// assert_eq!(include_directive("#include <math.glsl>"), None);
/// assert_eq!(include_directive("// #include \"math.glsl\" was here"), None);
/// ```
pub fn include_directive(line: &str) -> Option<&str> {
    line.trim_start()
        .strip_prefix('#')?
        .trim_start()
        .strip_prefix("include")?
        .trim()
        .strip_prefix('"')?
        .strip_suffix('"')
}

/// The root-relative file an `#include "requested"` written in the file `from` reads, as the include search finds
/// it: the one beside `from`, else the one from the root; `None` where neither loads.
///
/// ```
/// use shader_info::{include_target, MemoryLoader};
/// let loader = MemoryLoader::default().with("lib/a.glsl", "").with("b.glsl", "");
/// assert_eq!(include_target(&loader, "lib/main.glsl", "a.glsl").as_deref(), Some("lib/a.glsl"));
/// assert_eq!(include_target(&loader, "lib/main.glsl", "./b.glsl").as_deref(), Some("b.glsl"));
/// assert_eq!(include_target(&loader, "lib/main.glsl", "c.glsl"), None);
/// ```
pub fn include_target(loader: &dyn SourceLoader, from: &str, requested: &str) -> Option<String> {
    let dir = from.rsplit_once('/').map_or("", |(d, _)| d);
    [
        normalize_path(&format!("{dir}/{requested}")),
        normalize_path(requested),
    ]
    .into_iter()
    .find(|c| loader.load(c).is_ok())
}

/// Collects the files `#pragma require(path)` pulls in, each once (by its normalized path), dependencies first:
/// an explicit stack, so a chain of any depth is walked without recursion (a deep one used to overflow the
/// thread's stack and abort the process), and sets for "on the path" and "done", so the walk stays linear.
fn collect_requires(
    text: &str,
    file: &str,
    loader: &dyn SourceLoader,
    diags: &mut Vec<Diagnostic>,
    info: &ResolvedInfo,
    item: &Item<(Stage, String)>,
) -> Vec<(String, String)> {
    struct Frame {
        path: String,
        text: String,
        /// Byte offset of the next line to read, and its index.
        pos: usize,
        line: usize,
        /// Inside a block comment (a require there is commented out).
        in_comment: bool,
    }
    let mut order: Vec<(String, String)> = Vec::new();
    let mut done: HashSet<String> = HashSet::new();
    let mut on_path: HashSet<String> = HashSet::from([normalize_path(file)]);
    let mut frames = vec![Frame {
        path: file.to_string(),
        text: text.to_string(),
        pos: 0,
        line: 0,
        in_comment: false,
    }];
    while let Some(top) = frames.last_mut() {
        let next_line = (top.pos <= top.text.len()).then(|| {
            let rest = &top.text[top.pos..];
            rest.split('\n').next().unwrap_or("")
        });
        let Some(line) = next_line else {
            let f = frames.pop().expect("a frame");
            let key = normalize_path(&f.path);
            on_path.remove(&key);
            if frames.is_empty() {
                break;
            }
            done.insert(key);
            order.push((f.path, f.text));
            continue;
        };
        let i = top.line;
        top.line += 1;
        top.pos += line.len() + 1;
        let raw = match require_in(line, &mut top.in_comment) {
            Require::No => continue,
            Require::Path(raw) => raw.to_string(),
            Require::Malformed(why) => {
                diags.push(
                    Diagnostic::error(
                        Code::MissingSource,
                        &info.name,
                        format!("{}:{}: this `#pragma require` is not understood: {why}", top.path, i + 1),
                    )
                    .item(line.trim().to_string())
                    .at(&item.declared_in, item.origin)
                    .in_file(top.path.clone(), Some(i as u32 + 1))
                    .with_source_line(line)
                    .hint("write `#pragma require(path/to/file.glsl)` on its own line (a comment may follow); GLSL ignores a pragma it does not know, so the file would be left out"),
                );
                continue;
            }
        };
        let (line, from, dep) = (line.to_string(), top.path.clone(), raw);
        let mut key = normalize_path(&dep);
        // Blender names required files by name alone, from any folder: a file not found by its path is looked for
        // there, and the load that answered is the one used below (each file is read once).
        let mut ambiguous = String::new();
        let mut loaded: Option<Result<String, String>> = None;
        if info.blender_prelude && !key.is_empty() && !done.contains(&key) {
            loaded = Some(match loader.load(&key) {
                Ok(text) => Ok(text),
                Err(msg) => match blender_require_path(loader, &from, &key) {
                    Ok((found, text)) => {
                        key = found;
                        text
                    }
                    Err(why) => {
                        ambiguous = why;
                        Err(msg)
                    }
                },
            });
        }
        if key.is_empty() {
            diags.push(
                Diagnostic::error(
                    Code::MissingSource,
                    &info.name,
                    format!("{from}:{}: `#pragma require` names no file", i + 1),
                )
                .item(format!("#pragma require({dep})"))
                .at(&item.declared_in, item.origin)
                .in_file(from.clone(), Some(i as u32 + 1))
                .with_source_line(line.as_str())
                .hint("write the path of the file to include, relative to the shader root: `#pragma require(common/math.glsl)`"),
            );
            continue;
        }
        if on_path.contains(&key) {
            let mut chain: Vec<&str> = frames.iter().map(|f| f.path.as_str()).collect();
            chain.push(&dep);
            diags.push(
                Diagnostic::error(
                    Code::MissingSource,
                    &info.name,
                    format!("`#pragma require` forms a cycle: {}", chain.join(" → ")),
                )
                .item(format!("{from}:{}", i + 1))
                .at(&item.declared_in, item.origin)
                .hint("remove one of the requires"),
            );
            continue;
        }
        if done.contains(&key) {
            continue;
        }
        match loaded.unwrap_or_else(|| loader.load(&key)) {
            Ok(dep_text) => {
                if let Some(d) = text_problem(info, &key, &dep_text, false, item) {
                    diags.push(d);
                }
                on_path.insert(key.clone());
                frames.push(Frame {
                    path: key,
                    text: dep_text,
                    pos: 0,
                    line: 0,
                    in_comment: false,
                });
            }
            Err(msg) => diags.push(
                Diagnostic::error(
                    Code::MissingSource,
                    &info.name,
                    format!("{from}:{}: required file `{dep}`: {msg}{ambiguous}", i + 1),
                )
                .item(format!("#pragma require({dep})"))
                .at(&item.declared_in, item.origin)
                .hint(load_hint(&msg)),
            ),
        }
    }
    order
}

/// Where a required file Blender's way (by name, from any folder) is when `key` is not a path from the root, and
/// its load: beside the file that requires it, else the one file of its name under the root. `Err` says why none
/// was taken (empty when no file has the name; the files, when several have).
fn blender_require_path(
    loader: &dyn SourceLoader,
    from: &str,
    key: &str,
) -> Result<(String, Result<String, String>), String> {
    if let Some((dir, _)) = from.rsplit_once('/') {
        let beside = normalize_path(&format!("{dir}/{key}"));
        if let Ok(text) = loader.load(&beside) {
            return Ok((beside, Ok(text)));
        }
    }
    let one = crate::blender::blender_file_by_name(|n| loader.find_by_name(n), key)?;
    let loaded = loader.load(&one);
    Ok((one, loaded))
}

/// What a line (its comments removed) says of requires.
#[derive(Debug, PartialEq)]
enum Require<'a> {
    /// Not a require (another pragma, or no pragma).
    No,
    /// `#pragma require(path)` → `path`.
    Path(&'a str),
    /// A require glslang would ignore as an unknown pragma, leaving the file out: why it is not one.
    Malformed(&'static str),
}

/// The require on `line`, unless a block comment hides it (`in_comment` carries an open `/*` from line to line).
fn require_in<'a>(line: &'a str, in_comment: &mut bool) -> Require<'a> {
    let hidden = *in_comment;
    // Most lines open no block comment: they are read as they are, with no copy (every line of every source and
    // required file passes here, for every module generated).
    if hidden || line.contains("/*") {
        let code = without_comments(line, in_comment);
        if hidden || !code.trim_start().starts_with('#') {
            return Require::No;
        }
    }
    parse_require(line)
}

/// Reads `#pragma require(path)` (or Blender's `BLENDER_REQUIRE`), spaced as the preprocessor allows (`# pragma`),
/// a comment after it or not. The path is taken as written between the parentheses (`lib//common.glsl` included).
fn parse_require(line: &str) -> Require<'_> {
    let Some(rest) = line.trim_start().strip_prefix('#') else {
        return Require::No;
    };
    let Some(rest) = rest.trim_start().strip_prefix("pragma") else {
        return Require::No;
    };
    if !rest.starts_with(char::is_whitespace) {
        return Require::No;
    }
    let rest = rest.trim_start();
    // Blender's spelling, so that ported sources keep theirs.
    let Some(rest) = rest
        .strip_prefix("require")
        .or_else(|| rest.strip_prefix("BLENDER_REQUIRE"))
    else {
        return Require::No;
    };
    if rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
        return Require::No;
    }
    let Some(inner) = rest.trim_start().strip_prefix('(') else {
        return Require::Malformed("the file's path is not in parentheses");
    };
    let Some((inner, after)) = inner.split_once(')') else {
        return Require::Malformed("the parenthesis is not closed");
    };
    let after = after.trim_start();
    if !(after.is_empty() || after.starts_with("//") || after.starts_with("/*")) {
        return Require::Malformed("text follows the closing parenthesis");
    }
    Require::Path(inner.trim().trim_matches('"'))
}

/// Section 4: the shared structs and enums the info uses (buffer types and typedef names), each once.
fn emit_shared_types(e: &mut Emitter, info: &ResolvedInfo, registry: &Registry) {
    let mut wanted: Vec<&str> = Vec::new();
    for r in &info.resources {
        if let ResourceKind::UniformBuffer { type_name }
        | ResourceKind::StorageBuffer { type_name, .. } = &r.value.kind
        {
            wanted.push(type_name);
        }
    }
    for t in &info.typedef_sources {
        if is_type_name(&t.value) {
            wanted.push(&t.value);
        }
    }
    let mut done_structs: Vec<String> = Vec::new();
    let mut done_enums: Vec<String> = Vec::new();
    // Enums first: they are plain constants that any struct or typedef file may use.
    for w in &wanted {
        emit_enum(e, registry, w, &mut done_enums);
    }
    for w in wanted {
        emit_struct(e, registry, w, &mut done_structs, &mut done_enums);
    }
}

fn emit_enum(e: &mut Emitter, registry: &Registry, name: &str, done: &mut Vec<String>) {
    if done.iter().any(|d| d == name) {
        return;
    }
    let Some(def) = registry.enum_def(name) else {
        return;
    };
    done.push(name.to_string());
    e.decl(
        &def.glsl(),
        name,
        format!("shared enum `{name}`"),
        Origin::default(),
    );
}

fn emit_struct(
    e: &mut Emitter,
    registry: &Registry,
    name: &str,
    done: &mut Vec<String>,
    done_enums: &mut Vec<String>,
) {
    if done.iter().any(|d| d == name) {
        return;
    }
    let Some(def) = registry.find_struct(name) else {
        return;
    };
    done.push(name.to_string());
    let meta = registry.struct_meta(name);
    if let Some(m) = meta {
        for en in &m.enums {
            emit_enum(e, registry, en, done_enums);
        }
    }
    for f in &def.fields {
        if let FieldType::Struct(s) = &f.ty {
            emit_struct(e, registry, s, done, done_enums);
        }
    }
    let origin = meta.map_or(Origin::default(), |m| m.origin);
    e.decl(&def.glsl(), name, format!("shared struct `{name}`"), origin);
}

/// Section 5: the resource declarations (samplers, images, uniform and storage buffers).
fn emit_resources(e: &mut Emitter, info: &ResolvedInfo, stage: Stage, flavor: Flavor) {
    // Resources come in kind order (samplers, images, uniform buffers, storage buffers), then declaration order.
    // An input attachment exists only in a fragment stage (GLSL refuses `subpassInput` elsewhere).
    let mut ordered: Vec<&Item<Resource>> = info
        .resources
        .iter()
        .filter(|r| {
            stage == Stage::Fragment
                || !matches!(r.value.kind, ResourceKind::InputAttachment { .. })
        })
        .collect();
    // Stable: within a kind, declaration order is kept.
    ordered.sort_by_key(|it| it.value.kind.order());
    let all: Vec<&Resource> = info.resources.iter().map(|r| &r.value).collect();
    for it in ordered {
        let r = &it.value;
        let text = match flavor {
            Flavor::Vulkan => r.glsl_declaration(),
            Flavor::Portable => r.portable_glsl_declaration(&all),
        };
        e.decl(
            &text,
            &it.declared_in,
            format!("{} `{}`", r.kind.word(), r.name),
            it.origin,
        );
    }
}

/// Section 6: the stage's layout declarations (local group size and shared variables, geometry and tessellation
/// layouts, early fragment tests and depth writes).
fn emit_layouts(e: &mut Emitter, info: &ResolvedInfo, stage: Stage) {
    match stage {
        Stage::Compute => {
            if let Some(it) = &info.local_group_size {
                let [x, y, z] = it.value;
                e.decl(
                    &format!(
                        "layout(local_size_x = {x}, local_size_y = {y}, local_size_z = {z}) in;"
                    ),
                    &it.declared_in,
                    "local_group_size".into(),
                    it.origin,
                );
            }
            for it in &info.shared_variables {
                e.decl(
                    &format!("shared {} {};", it.value.ty.glsl_name(), it.value.name),
                    &it.declared_in,
                    format!("shared_variable `{}`", it.value.name),
                    it.origin,
                );
            }
        }
        Stage::Geometry => {
            if let Some(it) = &info.geometry_layout {
                let g = it.value;
                let text = format!(
                    "layout({}, invocations = {}) in;\nlayout({}, max_vertices = {}) out;",
                    g.primitive_in.glsl_name(),
                    g.invocations.max(1),
                    g.primitive_out.glsl_name(),
                    g.max_vertices
                );
                e.decl(&text, &it.declared_in, "geometry_layout".into(), it.origin);
            }
        }
        Stage::TessControl | Stage::TessEvaluation => {
            if let Some(it) = &info.tessellation_layout {
                let t = it.value;
                let text = if stage == Stage::TessControl {
                    format!("layout(vertices = {}) out;", t.control_points)
                } else {
                    let winding = match t.winding {
                        FrontFace::CounterClockwise => "ccw",
                        FrontFace::Clockwise => "cw",
                    };
                    format!(
                        "layout({}, {}, {winding}) in;",
                        t.domain.glsl_name(),
                        t.spacing.glsl_name()
                    )
                };
                e.decl(
                    &text,
                    &it.declared_in,
                    "tessellation_layout".into(),
                    it.origin,
                );
            }
        }
        Stage::Fragment => {
            if let Some(it) = &info.early_fragment_test
                && it.value
            {
                e.decl(
                    "layout(early_fragment_tests) in;",
                    &it.declared_in,
                    "early_fragment_test".into(),
                    it.origin,
                );
            }
            if let Some(it) = &info.depth_write
                && let Some(l) = it.value.glsl_layout()
            {
                e.decl(
                    &format!("layout({l}) out float gl_FragDepth;"),
                    &it.declared_in,
                    "depth_write".into(),
                    it.origin,
                );
            }
        }
        // The vertex and ray-tracing stages declare no layout of their own.
        Stage::Vertex
        | Stage::RayGen
        | Stage::Miss
        | Stage::ClosestHit
        | Stage::AnyHit
        | Stage::Intersection
        | Stage::Callable => {}
    }
}

fn interface_block(block: &StageBlock, portable: bool) -> String {
    let iface = &block.item.value;
    let patch = if block.patch { "patch " } else { "" };
    let mut s = format!(
        "layout(location = {}) {patch}{} {} {{\n",
        block.location,
        block.direction.glsl(),
        iface.name
    );
    let mut loc = block.location;
    for m in &iface.members {
        let at = if portable {
            format!("layout(location = {loc}) ")
        } else {
            String::new()
        };
        // Interpolation qualifiers belong to what the rasterizer interpolates; a per-patch member has none.
        let interpolation = if block.patch {
            String::new()
        } else if portable && (m.ty.is_integer() || m.ty.is_double()) {
            // Nothing interpolates an integer or a double, and WGSL wants `flat` on every such input and output of
            // every stage, not only on the fragment stage's inputs (which validation holds to it): a smooth `int`
            // vertex output read by a tessellation stage failed the vertex stage's WGSL.
            "flat ".to_string()
        } else {
            format!("{} ", m.interpolation.glsl_name())
        };
        let _ = writeln!(s, "  {at}{interpolation}{} {};", m.ty, m.name);
        loc += m.ty.locations();
    }
    let _ = write!(s, "}}");
    if !block.instance.is_empty() {
        let array = if block.arrayed { "[]" } else { "" };
        let _ = write!(s, " {}{array}", block.instance);
    }
    s.push(';');
    s
}

/// What the portable fragment stage's `main` is renamed to when a wrapping `main` copies its inputs into their
/// instance structs first (see `emit_flat_inputs`).
pub(crate) const PORTABLE_STAGE_MAIN: &str = "gpu_stage_main";

/// The struct the portable fragment stage copies the inputs of block `block` (one with an instance name) into.
pub(crate) fn portable_input_struct_name(block: &str) -> String {
    format!("gpu_{block}_in")
}

/// The located variable of member `member` of the fragment input block with instance `instance`, in the portable
/// flavor.
pub(crate) fn portable_input_name(instance: &str, member: &str) -> String {
    format!("gpu_in_{instance}_{member}")
}

/// Declares the portable fragment stage's inputs as one located variable per member (translators take no input
/// blocks). Members of a block with an instance name are copied into a struct of that name at the start of a
/// wrapping `main`, so user code keeps writing `instance.member`; the wrapper is returned.
fn emit_flat_inputs(e: &mut Emitter, list: &[Item<StageInterfaceInfo>]) -> Option<String> {
    let mut loc = 0;
    let mut copies = String::new();
    for it in list {
        let iface = &it.value;
        let inst = &iface.instance_name;
        let mut text = String::new();
        if !inst.is_empty() {
            let ty = portable_input_struct_name(&iface.name);
            let _ = writeln!(text, "struct {ty} {{");
            for m in &iface.members {
                let _ = writeln!(text, "  {} {};", m.ty, m.name);
            }
            let _ = writeln!(text, "}};\n{ty} {inst};");
        }
        for m in &iface.members {
            let var = if inst.is_empty() {
                m.name.clone()
            } else {
                let v = portable_input_name(inst, &m.name);
                let _ = writeln!(copies, "  {inst}.{} = {v};", m.name);
                v
            };
            let _ = writeln!(
                text,
                "layout(location = {loc}) {} in {} {var};",
                m.interpolation.glsl_name(),
                m.ty
            );
            loc += m.ty.locations();
        }
        e.decl(
            text.trim_end(),
            &it.declared_in,
            format!("interface `{}`", iface.name),
            it.origin,
        );
    }
    (!copies.is_empty())
        .then(|| format!("#undef main\nvoid main() {{\n{copies}  {PORTABLE_STAGE_MAIN}();\n}}"))
}

/// Section 7: the stage's interfaces ([`stage_blocks`]); returns the wrapping `main` the portable fragment stage
/// may need.
fn emit_interfaces(
    e: &mut Emitter,
    info: &ResolvedInfo,
    stage: Stage,
    portable: bool,
) -> Option<String> {
    let mut wrapper = None;
    if stage == Stage::Vertex {
        for it in &info.vertex_inputs {
            let v = &it.value;
            e.decl(
                &format!("layout(location = {}) in {} {};", v.location, v.ty, v.name),
                &it.declared_in,
                format!("{} `{}`", v.rate.item(), v.name),
                it.origin,
            );
        }
    }
    let blocks = stage_blocks(info, stage);
    if stage == Stage::Fragment && portable {
        let inputs: Vec<Item<StageInterfaceInfo>> = blocks.iter().map(|b| b.item.clone()).collect();
        wrapper = emit_flat_inputs(e, &inputs);
    } else {
        for b in &blocks {
            e.decl(
                &interface_block(b, portable),
                &b.item.declared_in,
                format!("{} `{}`", b.list, b.item.value.name),
                b.item.origin,
            );
        }
        if stage == Stage::Geometry {
            for (alias, b) in crate::interfaces::geometry_aliases(&blocks) {
                e.decl(
                    &format!("#define {alias} {}", b.instance),
                    &b.item.declared_in,
                    format!("{} `{}`", b.list, b.item.value.name),
                    b.item.origin,
                );
            }
        }
    }
    if stage == Stage::Fragment {
        for it in &info.fragment_outputs {
            let f = &it.value;
            let index = match f.blend {
                DualBlend::None => String::new(),
                DualBlend::Src0 => ", index = 0".into(),
                DualBlend::Src1 => ", index = 1".into(),
            };
            e.decl(
                &format!(
                    "layout(location = {}{index}) out {} {};",
                    f.location, f.ty, f.name
                ),
                &it.declared_in,
                format!("fragment_out `{}`", f.name),
                it.origin,
            );
        }
    }
    wrapper
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blender_enum_value_may_run_over_several_lines() {
        let header = "enum eShape : uint32_t {\n  SQUARE = 1u,\n  CLIPPED = (SQUARE |\n             2u),\n  NEXT,\n  LAST = 8u\n};\n";
        let glsl = blender_enums(header).unwrap().unwrap();
        assert!(
            glsl.contains("const uint CLIPPED = (SQUARE | 2u);"),
            "{glsl}"
        );
        assert!(glsl.contains("const uint NEXT = (CLIPPED + 1u);"), "{glsl}");
        assert!(glsl.contains("const uint LAST = 8u;"), "{glsl}");
        assert_eq!(glsl.lines().count(), header.lines().count());
        // Still inside a value when the enum ends: refused, not left half-written.
        let open = blender_enums("enum eOpen : uint32_t {\n  A = (1u |\n};\n").unwrap_err();
        assert!(open.1.contains("brackets do not close"), "{open:?}");
        // A whole value without its comma before an `#else`: each branch keeps its own constant.
        let branches = "enum eMode : uint32_t {\n  A = 0u,\n#ifdef FAST\n  B = 1u\n#else\n  B = 2u\n#endif\n};\n";
        let glsl = blender_enums(branches).unwrap().unwrap();
        assert!(glsl.contains("const uint B = 1u;\n#else\n"), "{glsl}");
        assert!(glsl.contains("const uint B = 2u;\n#endif"), "{glsl}");
    }

    #[test]
    fn blender_enum_values_may_hold_commas_inside_parentheses() {
        let header = "enum eSize : uint32_t {\n  SMALL = 1u,\n  LARGE = max(SMALL, 2u), HUGE = min(8u, max(LARGE, 4u)),\n};\n";
        let glsl = blender_enums(header).unwrap().unwrap();
        assert!(
            glsl.contains("const uint LARGE = max(SMALL, 2u);"),
            "{glsl}"
        );
        assert!(
            glsl.contains("const uint HUGE = min(8u, max(LARGE, 4u));"),
            "{glsl}"
        );
        assert_eq!(glsl.lines().count(), header.lines().count());
    }

    /// Validation reserves the polyfills' names: every function and macro they define is listed.
    #[test]
    fn the_polyfill_names_are_every_name_the_polyfills_define() {
        let mut defined: Vec<&str> = Vec::new();
        for line in PORTABLE_POLYFILLS.lines() {
            let name = match line.strip_prefix("#define ") {
                Some(rest) => rest.split_whitespace().next(),
                // A function definition: `<type> <name>(…) {` at the start of a line.
                None if !line.starts_with(' ') && line.ends_with('{') => line
                    .split_whitespace()
                    .nth(1)
                    .and_then(|n| n.split('(').next()),
                None => None,
            };
            if let Some(n) = name.filter(|n| !defined.contains(n)) {
                defined.push(n);
            }
        }
        defined.sort_unstable();
        let mut listed = PORTABLE_POLYFILL_NAMES.to_vec();
        listed.sort_unstable();
        assert_eq!(defined, listed);
    }

    #[test]
    fn require_pragma_parses() {
        for (line, path) in [
            ("#pragma require(common/math.glsl)", "common/math.glsl"),
            ("  #pragma require(\"a.glsl\")", "a.glsl"),
            ("# pragma  require ( a.glsl )  ", "a.glsl"),
            (
                "#pragma BLENDER_REQUIRE(gpu_shader_math_lib.glsl)",
                "gpu_shader_math_lib.glsl",
            ),
        ] {
            assert_eq!(parse_require(line), Require::Path(path), "{line}");
        }
        for line in [
            "#pragma once",
            "#pragma required_by(x)",
            "#pragmarequire(x)",
            "void main() {}",
        ] {
            assert_eq!(parse_require(line), Require::No, "{line}");
        }
        for line in [
            "#pragma require common/math.glsl",
            "#pragma require(common/math.glsl",
            "#pragma require(common/math.glsl);",
        ] {
            assert!(
                matches!(parse_require(line), Require::Malformed(_)),
                "{line}"
            );
        }
        // A comment after the require is fine; one around it hides it.
        let mut open = false;
        assert_eq!(
            require_in("#pragma require(a.glsl) // saturate()", &mut open),
            Require::Path("a.glsl")
        );
        assert_eq!(
            require_in("#pragma require(a.glsl) /* x", &mut open),
            Require::Path("a.glsl")
        );
        assert!(open);
        assert_eq!(
            require_in("#pragma require(gone.glsl) */", &mut open),
            Require::No
        );
        assert_eq!(
            require_in("// #pragma require(gone.glsl)", &mut open),
            Require::No
        );
    }

    #[cfg(unix)]
    #[test]
    fn dir_loader_refuses_symlinks_out_of_the_root() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.glsl"), "x").unwrap();
        let root = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("secret.glsl"),
            root.path().join("link.glsl"),
        )
        .unwrap();
        std::fs::write(root.path().join("ok.glsl"), "y").unwrap();
        let l = DirLoader::new(root.path());
        assert!(l.load("link.glsl").unwrap_err().contains("symbolic link"));
        assert_eq!(l.load("ok.glsl").unwrap(), "y");
    }

    #[test]
    fn dir_loader_refuses_escapes() {
        let l = DirLoader::new("/tmp");
        assert!(l.resolve("../etc/passwd").is_err());
        assert!(l.resolve("/etc/passwd").is_err());
        assert!(l.resolve("a/b.glsl").is_ok());
    }

    #[test]
    fn source_map_maps_file_lines_and_declarations() {
        let mut reg = Registry::new();
        reg.add_info(
            ShaderCreateInfo::new("t")
                .push_constant(Type::Vec4, "color")
                .fragment_out(0, Type::Vec4, "o")
                .vertex_source("v.glsl")
                .fragment_source("f.glsl"),
        );
        let loader = MemoryLoader::default()
            .with("v.glsl", "void main() {}")
            .with("f.glsl", "// one\nvoid main() { o = color; }\n");
        let info = reg.validated("t").unwrap();
        let g = generate(&info, Stage::Fragment, &GenerateOptions::new(&loader, &reg)).unwrap();
        let lines: Vec<&str> = g.source.lines().collect();
        let pc = lines
            .iter()
            .position(|l| l.contains("vec4 color;"))
            .unwrap() as u32
            + 1;
        let m = g.source_map.map(&g.name, pc);
        assert_eq!(m.declaration.unwrap().1, "push_constant `color`");
        let main = lines.iter().position(|l| l.contains("o = color")).unwrap() as u32 + 1;
        let m = g.source_map.map(&g.name, main);
        assert_eq!((m.file.as_str(), m.line), ("f.glsl", 2));
    }
}
