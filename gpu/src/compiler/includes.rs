//! `#include` resolution for one compilation.
//!
//! Rules (C preprocessors', glslc's and shaderc's own; see [`IncludeSearch`]):
//! - `#include "x"` searches the directory of the including file, then the root, then the configured include
//!   directories; `#include <x>` searches the root, then the include directories. The first file found wins.
//!   [`IncludeSearch::strict`] keeps seed 000's rule instead: `"x"` only next to the including file, `<x>` only
//!   from the root. A failed search is never retried by shaderc's own `"x"` → `<x>` fallback (we answer that retry
//!   with the first error, so the message names every place tried).
//! - Every resolved path stays inside the root: absolute paths, `..` that climbs above the root, and symbolic links
//!   that lead out of it are refused. This is a security boundary: include paths can come from content. Include
//!   directories are themselves root-relative.
//! - A cycle is an error showing the chain; a file already included in this compilation is included as empty text.
//! - Every candidate that did not exist is recorded: a file created there later would be found first, so the
//!   cache treats its appearance as a change (see `cache.rs`).

use super::files::{FileMeta, FileRecord, content_hash};
use shaderc::{IncludeType, ResolvedInclude};
use std::cell::RefCell;
use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The lexical, root-relative form of `base/requested` with `/` separators, or why it is refused.
///
/// ```
/// # use shader_info_gpu::compiler::includes::normalize;
/// assert_eq!(normalize("sub", "../common/h.glsl").unwrap(), "common/h.glsl");
/// assert!(normalize("", "../outside.glsl").is_err());
/// assert!(normalize("", "/etc/passwd").is_err());
/// ```
pub fn normalize(base: &str, requested: &str) -> Result<String, String> {
    let req = Path::new(requested);
    if is_absolute(requested) {
        return Err(format!(
            "`{requested}` is an absolute path; includes must be relative to the include root"
        ));
    }
    let mut parts: Vec<String> = Vec::new();
    for c in Path::new(base).components().chain(req.components()) {
        match c {
            Component::Normal(s) => parts.push(s.to_string_lossy().into_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                if parts.pop().is_none() {
                    return Err(format!("`{requested}` leaves the include root"));
                }
            }
            Component::RootDir | Component::Prefix(_) => {
                return Err(format!("`{requested}` leaves the include root"));
            }
        }
    }
    if parts.is_empty() {
        return Err(format!("`{requested}` does not name a file"));
    }
    Ok(parts.join("/"))
}

/// Where `#include` looks, besides the including file's directory.
///
/// ```
/// use shader_info_gpu::compiler::IncludeSearch;
/// let search = IncludeSearch { include_dirs: vec!["third_party/include".into()], strict: false };
/// assert_eq!(IncludeSearch::default().include_dirs.len(), 0);
/// # let _ = search;
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct IncludeSearch {
    /// Root-relative directories searched after the root, in order (glslc's `-I`). They must lie inside the root.
    pub include_dirs: Vec<String>,
    /// Seed 000's rule: `"x"` only next to the including file, `<x>` only from the root, no search path.
    pub strict: bool,
}

impl IncludeSearch {
    /// The root-relative directories a request is looked up in, in order (no duplicates).
    fn bases<'a>(&'a self, relative_to: Option<&'a str>) -> Vec<&'a str> {
        let mut out: Vec<&str> = Vec::new();
        let mut add = |d: &'a str| {
            if !out.contains(&d) {
                out.push(d);
            }
        };
        if let Some(dir) = relative_to {
            add(dir);
        }
        if !self.strict || relative_to.is_none() {
            add("");
        }
        if !self.strict {
            for d in &self.include_dirs {
                add(d);
            }
        }
        out
    }

    /// Text for cache keys: two searches that can resolve a request differently never share a key.
    pub(crate) fn key(&self) -> String {
        format!(
            "strict={};dirs={}",
            self.strict,
            self.include_dirs.join("\n")
        )
    }
}

/// True for `/x`, `\\x` and whatever the platform calls absolute: never relative to any base.
fn is_absolute(requested: &str) -> bool {
    let p = Path::new(requested);
    p.has_root() || p.is_absolute() || requested.starts_with(['/', '\\'])
}

/// The directory part of a root-relative name (`""` for a file at the root).
pub(crate) fn parent_dir(name: &str) -> &str {
    name.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Why a root-relative name could not be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LocateError {
    /// Nothing (or a directory) is there: a search goes on to the next place.
    Missing(String),
    /// Something is there but may not be used (it leads out of the root, or cannot be opened): an error, never
    /// skipped, so content cannot make a search silently pick another file.
    Refused(String),
}

impl LocateError {
    pub(crate) fn message(self) -> String {
        match self {
            LocateError::Missing(m) | LocateError::Refused(m) => m,
        }
    }
}

/// Resolves `rel` (already normalized) under `root` (canonical): the lexical path, the canonical path, or why not.
pub(crate) fn locate(root: &Path, rel: &str) -> Result<(PathBuf, PathBuf), LocateError> {
    let lexical = root.join(rel);
    let canonical = match std::fs::canonicalize(&lexical) {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(LocateError::Missing(format!(
                "cannot find `{rel}` (tried `{}`)",
                lexical.display()
            )));
        }
        Err(e) => {
            return Err(LocateError::Refused(format!(
                "cannot open `{rel}` (`{}`): {e}",
                lexical.display()
            )));
        }
    };
    if !canonical.starts_with(root) {
        return Err(LocateError::Refused(format!(
            "`{rel}` resolves to `{}`, outside the include root `{}` (through a symbolic link)",
            canonical.display(),
            root.display()
        )));
    }
    if !canonical.is_file() {
        return Err(LocateError::Missing(format!("`{rel}` is not a file")));
    }
    Ok((lexical, canonical))
}

/// Checks that the root-relative `rel` is a directory inside the root (symbolic links included).
pub(crate) fn locate_dir(root: &Path, rel: &str) -> Result<(), String> {
    let real = std::fs::canonicalize(root.join(rel))
        .map_err(|e| format!("`{}`: {e}", root.join(rel).display()))?;
    if !real.starts_with(root) {
        return Err(format!(
            "`{rel}` leads out of the shader root `{}`",
            root.display()
        ));
    }
    if !real.is_dir() {
        return Err(format!("`{rel}` is not a directory"));
    }
    Ok(())
}

/// The deepest existing directory on the way from the root to `rel`'s file: watching it sees the file (or a
/// directory leading to it) appear.
pub(crate) fn deepest_existing_dir(root: &Path, rel: &str) -> PathBuf {
    ancestors(root, rel)
        .into_iter()
        .rev()
        .find(|d| d.is_dir())
        .unwrap_or_else(|| root.to_path_buf())
}

/// A candidate path a search found empty: if a file appears there, the compilation would change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Absent {
    /// Root-relative name.
    pub name: String,
}

/// Reads a located file: its metadata (taken first, so a write during the read shows as changed metadata later)
/// and its text. Counts the read in `reads`.
pub(crate) fn read_file(
    path: &Path,
    name: &str,
    reads: &AtomicU64,
) -> Result<(FileMeta, String), ReadError> {
    let fail = |message: String, line: Option<u32>| ReadError { message, line };
    let meta = FileMeta::of(path).map_err(|e| fail(format!("cannot read `{name}`: {e}"), None))?;
    reads.fetch_add(1, Ordering::Relaxed);
    let bytes =
        std::fs::read(path).map_err(|e| fail(format!("cannot read `{name}`: {e}"), None))?;
    // Name the line, so that a damaged file is found where it is damaged.
    let line_of = |at: usize| (bytes[..at].iter().filter(|b| **b == b'\n').count() + 1) as u32;
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => shader_info::without_bom(t.to_string()),
        Err(e) => {
            let line = line_of(e.valid_up_to());
            return Err(fail(
                format!("`{name}` is not UTF-8 text: an invalid byte on line {line}"),
                Some(line),
            ));
        }
    };
    if let Some(at) = text.find('\0') {
        // Counted in the text, not the bytes: a byte-order mark was taken off its start.
        let line = (text[..at].matches('\n').count() + 1) as u32;
        return Err(fail(
            format!("`{name}` contains a NUL byte on line {line}; it is not GLSL text"),
            Some(line),
        ));
    }
    Ok((meta, text))
}

/// Why a file could not be read as GLSL text, and on which line when the damage has one.
#[derive(Debug)]
pub(crate) struct ReadError {
    pub message: String,
    pub line: Option<u32>,
}

struct State {
    /// Canonical paths of the include chain; `stack[0]` is the main file (`None` when it is virtual).
    stack: Vec<(String, Option<PathBuf>)>,
    seen: HashSet<PathBuf>,
    files: Vec<FileRecord>,
    absent: Vec<Absent>,
    /// A failed `"x"` request (requested, requester, message): shaderc's retry as `<x>` must fail the same way.
    failed_relative: Option<(String, String, String)>,
    /// The last search found no file (rather than refusing one, or a cycle): only then is a name looked for
    /// Blender's way.
    not_found: bool,
}

/// The include callback's state for one compilation.
pub(crate) struct Includer<'a> {
    root: &'a Path,
    /// The name the main text is compiled under, and the root-relative directory its relative includes use.
    main_name: &'a str,
    main_dir: &'a str,
    search: &'a IncludeSearch,
    reads: &'a AtomicU64,
    /// Called with every lexical directory and file path before the file is read (the change watcher).
    before_read: &'a (dyn Fn(&Path) + 'a),
    /// Root-relative names of the files the generator put in the main text (typedef sources, required files, the
    /// stage source). Under the Blender prelude, a library's `#include` of one (an include inside an included file)
    /// is empty, as Blender's `#pragma once` makes it: the library is included from the stage source, after the
    /// generator's copies. (shaderc names the main text, not the file a `#line` names, as the requester of an
    /// include written in it, so where in the text a first-level include sits is not known here: the generator,
    /// which knows, empties those that follow its copy.)
    inlined: &'a [String],
    /// Read as Blender reads includes: a create-info or compatibility header ([`shader_info::blender_empty_include`])
    /// is empty, and a file not
    /// found where the search looks is the one file of its name under the root (Blender names files by name alone).
    blender: bool,
    names: &'a shader_info::DirLoader,
    state: RefCell<State>,
}

impl<'a> Includer<'a> {
    // Each argument is a borrow the includer holds for one compile; a struct of them would repeat these fields.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        root: &'a Path,
        main_name: &'a str,
        main_dir: &'a str,
        main_path: Option<PathBuf>,
        search: &'a IncludeSearch,
        reads: &'a AtomicU64,
        before_read: &'a (dyn Fn(&Path) + 'a),
        generated: Option<&'a shader_info::GeneratedStage>,
        names: &'a shader_info::DirLoader,
    ) -> Includer<'a> {
        let seen = main_path.iter().cloned().collect();
        Includer {
            root,
            main_name,
            main_dir,
            search,
            reads,
            before_read,
            inlined: generated.map_or(&[], |g| g.files.as_slice()),
            blender: generated.is_some_and(|g| g.blender),
            names,
            state: RefCell::new(State {
                stack: vec![(main_name.to_string(), main_path)],
                seen,
                files: Vec::new(),
                absent: Vec::new(),
                failed_relative: None,
                not_found: false,
            }),
        }
    }

    /// The files resolved, in first-include order, and the candidates found empty on the way.
    pub(crate) fn into_dependencies(self) -> (Vec<FileRecord>, Vec<Absent>) {
        let st = self.state.into_inner();
        (st.files, st.absent)
    }

    /// shaderc's include callback.
    pub(crate) fn include(
        &self,
        requested: &str,
        ty: IncludeType,
        requester: &str,
        depth: usize,
    ) -> Result<ResolvedInclude, String> {
        let mut st = self.state.borrow_mut();
        let pending = st.failed_relative.take();
        if ty == IncludeType::Standard
            && let Some((req, from, msg)) = pending
            && req == requested
            && from == requester
        {
            return Err(msg);
        }
        // Blender's newer sources include their create-info header for its C++ linter; the info is the declaration.
        if self.blender && shader_info::blender_empty_include(requested) {
            return Ok(ResolvedInclude {
                resolved_name: requested.to_string(),
                content: String::new(),
            });
        }
        let mut result = self.resolve(&mut st, requested, ty, requester, depth);
        if let (Err(msg), true) = (&mut result, self.blender && st.not_found) {
            // As `#pragma BLENDER_REQUIRE` names it: `./common/lib.glsl` is `common/lib.glsl`.
            let key = normalize("", requested).unwrap_or_else(|_| requested.to_string());
            let find = |n: &str| shader_info::SourceLoader::find_by_name(self.names, n);
            match shader_info::blender_file_by_name(find, &key) {
                Ok(one) => {
                    result = self.resolve(&mut st, &one, IncludeType::Standard, requester, depth)
                }
                Err(why) => msg.push_str(&why),
            }
        }
        if let (Err(msg), IncludeType::Relative) = (&result, ty) {
            st.failed_relative = Some((requested.to_string(), requester.to_string(), msg.clone()));
        }
        result
    }

    fn resolve(
        &self,
        st: &mut State,
        requested: &str,
        ty: IncludeType,
        requester: &str,
        depth: usize,
    ) -> Result<ResolvedInclude, String> {
        let relative_to = match ty {
            IncludeType::Standard => None,
            // The main text's own directory; any other requester is a root-relative name we handed out or a
            // `#line` name of a generated stage (also root-relative).
            IncludeType::Relative if requester == self.main_name => Some(self.main_dir),
            IncludeType::Relative => Some(parent_dir(requester)),
        };
        let (rel, lexical, canonical) = self.search(st, requested, relative_to, requester)?;
        // shaderc's depth counts the main file as 0; keep the chain of the current include only.
        st.stack.truncate(depth.max(1));
        if let Some(pos) = st
            .stack
            .iter()
            .position(|(_, p)| p.as_deref() == Some(canonical.as_path()))
        {
            let mut chain: Vec<&str> = st.stack[pos..].iter().map(|(n, _)| n.as_str()).collect();
            chain.push(&rel);
            return Err(format!("include cycle: {}", chain.join(" → ")));
        }
        st.stack.push((rel.clone(), Some(canonical.clone())));
        let inlined = || {
            self.blender
                && depth >= 2
                && self
                    .inlined
                    .iter()
                    .any(|f| normalize("", f).is_ok_and(|f| f == rel))
        };
        if !st.seen.insert(canonical.clone()) || inlined() {
            // Included before in this compilation: once is enough (an implicit include guard).
            return Ok(ResolvedInclude {
                resolved_name: rel,
                content: String::new(),
            });
        }
        (self.before_read)(&lexical);
        let (meta, content) = read_file(&lexical, &rel, self.reads).map_err(|e| e.message)?;
        st.files.push(FileRecord {
            name: rel.clone(),
            path: lexical,
            hash: content_hash(content.as_bytes()),
            meta,
        });
        // A shared header included by a Blender source is read as Blender reads it, its C enums rewritten. One the
        // rewrite cannot read is left as it is: it may sit in a block the compiler skips (`#ifdef __cplusplus`),
        // and where it does not, glslang says so at its line.
        let content = match self.blender.then(|| shader_info::blender_enums(&content)) {
            Some(Ok(Some(rewritten))) => rewritten,
            _ => content,
        };
        // glslang resumes the including file with a `#line` directive right after the content: a header whose
        // last line has no line break would glue that directive onto it (found by `tests/fuzz_sources.rs`).
        let content = if content.is_empty() || content.ends_with('\n') {
            content
        } else {
            content + "\n"
        };
        Ok(ResolvedInclude {
            resolved_name: rel,
            content,
        })
    }

    /// The first candidate of the search that holds a file: its root-relative name, lexical and canonical paths.
    /// Empty candidates are recorded in `st.absent`; a candidate that exists but is refused stops the search.
    fn search(
        &self,
        st: &mut State,
        requested: &str,
        relative_to: Option<&str>,
        requester: &str,
    ) -> Result<(String, PathBuf, PathBuf), String> {
        st.not_found = false;
        let mut tried: Vec<String> = Vec::new();
        let mut escaped: Option<String> = None;
        for base in self.search.bases(relative_to) {
            let rel = match normalize(base, requested) {
                Ok(rel) => rel,
                // An absolute path is refused whatever the base; `..` above the root only from this base.
                Err(e) if is_absolute(requested) => {
                    return Err(format!("{e} (included from `{requester}`)"));
                }
                Err(e) => {
                    escaped.get_or_insert(e);
                    continue;
                }
            };
            for dir in ancestors(self.root, &rel) {
                (self.before_read)(&dir);
            }
            match locate(self.root, &rel) {
                Ok((lexical, canonical)) => return Ok((rel, lexical, canonical)),
                Err(LocateError::Missing(_)) => {
                    tried.push(format!("`{}`", self.root.join(&rel).display()));
                    if !st.absent.iter().any(|a| a.name == rel) {
                        st.absent.push(Absent { name: rel });
                    }
                }
                Err(LocateError::Refused(m)) => {
                    return Err(format!("{m}, included from `{requester}`"));
                }
            }
        }
        st.not_found = !tried.is_empty() || escaped.is_none();
        Err(match (escaped, tried.is_empty()) {
            (Some(e), true) => format!("{e} (included from `{requester}`)"),
            _ => format!(
                "cannot find `{requested}` (tried {}), included from `{requester}`",
                tried.join(", then ")
            ),
        })
    }
}

/// The root and every directory between it and `rel`'s file.
pub(crate) fn ancestors(root: &Path, rel: &str) -> Vec<PathBuf> {
    let mut out = vec![root.to_path_buf()];
    let mut cur = root.to_path_buf();
    let dir = parent_dir(rel);
    if !dir.is_empty() {
        for part in dir.split('/') {
            cur.push(part);
            out.push(cur.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_rules() {
        assert_eq!(normalize("a/b", "c.glsl").unwrap(), "a/b/c.glsl");
        assert_eq!(normalize("a/b", "./../c.glsl").unwrap(), "a/c.glsl");
        assert!(normalize("a", "../../c.glsl").is_err());
        assert!(normalize("", "/abs.glsl").is_err());
        assert!(normalize("", "..").is_err());
        assert_eq!(parent_dir("x.glsl"), "");
        assert_eq!(parent_dir("a/b/x.glsl"), "a/b");
    }
}
