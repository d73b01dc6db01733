//! `#include` resolution for one compilation.
//!
//! Rules (seed 000, tightened by issue 4):
//! - `#include "x"` resolves against the directory of the including file, `#include <x>` against the root, and a
//!   failed `"x"` is never retried as `<x>` (shaderc retries it; we answer the retry with the first error).
//! - Every resolved path stays inside the root: absolute paths, `..` that climbs above the root, and symbolic links
//!   that lead out of it are refused. This is a security boundary: include paths can come from content.
//! - A cycle is an error showing the chain; a file already included in this compilation is included as empty text.

use super::cache::{FileMeta, FileRecord, content_hash};
use shaderc::{IncludeType, ResolvedInclude};
use std::cell::RefCell;
use std::collections::HashSet;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The lexical, root-relative form of `base/requested` with `/` separators, or why it is refused.
///
/// ```
/// # use gpu::compiler::includes::normalize;
/// assert_eq!(normalize("sub", "../common/h.glsl").unwrap(), "common/h.glsl");
/// assert!(normalize("", "../outside.glsl").is_err());
/// assert!(normalize("", "/etc/passwd").is_err());
/// ```
pub fn normalize(base: &str, requested: &str) -> Result<String, String> {
    let req = Path::new(requested);
    if req.has_root() || req.is_absolute() || requested.starts_with(['/', '\\']) {
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

/// The directory part of a root-relative name (`""` for a file at the root).
pub(crate) fn parent_dir(name: &str) -> &str {
    name.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Resolves `rel` (already normalized) under `root` (canonical): the lexical path, the canonical path, or why not.
pub(crate) fn locate(root: &Path, rel: &str) -> Result<(PathBuf, PathBuf), String> {
    let lexical = root.join(rel);
    let canonical = match std::fs::canonicalize(&lexical) {
        Ok(c) => c,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "cannot find `{rel}` (tried `{}`)",
                lexical.display()
            ));
        }
        Err(e) => {
            return Err(format!(
                "cannot open `{rel}` (`{}`): {e}",
                lexical.display()
            ));
        }
    };
    if !canonical.starts_with(root) {
        return Err(format!(
            "`{rel}` resolves to `{}`, outside the include root `{}` (through a symbolic link)",
            canonical.display(),
            root.display()
        ));
    }
    if !canonical.is_file() {
        return Err(format!("`{rel}` is not a file"));
    }
    Ok((lexical, canonical))
}

/// Reads a located file: its metadata (taken first, so a write during the read shows as changed metadata later)
/// and its text. Counts the read in `reads`.
pub(crate) fn read_file(
    path: &Path,
    name: &str,
    reads: &AtomicU64,
) -> Result<(FileMeta, String), String> {
    let meta = FileMeta::of(path).map_err(|e| format!("cannot read `{name}`: {e}"))?;
    reads.fetch_add(1, Ordering::Relaxed);
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read `{name}`: {e}"))?;
    if text.contains('\0') {
        return Err(format!("`{name}` contains a NUL byte; it is not GLSL text"));
    }
    Ok((meta, text))
}

struct State {
    /// Canonical paths of the include chain; `stack[0]` is the main file (`None` when it is virtual).
    stack: Vec<(String, Option<PathBuf>)>,
    seen: HashSet<PathBuf>,
    files: Vec<FileRecord>,
    /// A failed `"x"` request (requested, requester, message): shaderc's retry as `<x>` must fail the same way.
    failed_relative: Option<(String, String, String)>,
}

/// The include callback's state for one compilation.
pub(crate) struct Includer<'a> {
    root: &'a Path,
    /// The name the main text is compiled under, and the root-relative directory its relative includes use.
    main_name: &'a str,
    main_dir: &'a str,
    reads: &'a AtomicU64,
    /// Called with every lexical directory and file path before the file is read (the change watcher).
    before_read: &'a (dyn Fn(&Path) + 'a),
    state: RefCell<State>,
}

impl<'a> Includer<'a> {
    pub(crate) fn new(
        root: &'a Path,
        main_name: &'a str,
        main_dir: &'a str,
        main_path: Option<PathBuf>,
        reads: &'a AtomicU64,
        before_read: &'a (dyn Fn(&Path) + 'a),
    ) -> Includer<'a> {
        let seen = main_path.iter().cloned().collect();
        Includer {
            root,
            main_name,
            main_dir,
            reads,
            before_read,
            state: RefCell::new(State {
                stack: vec![(main_name.to_string(), main_path)],
                seen,
                files: Vec::new(),
                failed_relative: None,
            }),
        }
    }

    /// The files resolved so far, in first-include order.
    pub(crate) fn into_files(self) -> Vec<FileRecord> {
        self.state.into_inner().files
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
        let result = self.resolve(&mut st, requested, ty, requester, depth);
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
        let base = match ty {
            IncludeType::Standard => "",
            // The main text's own directory; any other requester is a root-relative name we handed out or a
            // `#line` name of a generated stage (also root-relative).
            IncludeType::Relative if requester == self.main_name => self.main_dir,
            IncludeType::Relative => parent_dir(requester),
        };
        let rel =
            normalize(base, requested).map_err(|e| format!("{e} (included from `{requester}`)"))?;
        for dir in ancestors(self.root, &rel) {
            (self.before_read)(&dir);
        }
        let (lexical, canonical) =
            locate(self.root, &rel).map_err(|e| format!("{e}, included from `{requester}`"))?;
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
        if !st.seen.insert(canonical.clone()) {
            // Included before in this compilation: once is enough (an implicit include guard).
            return Ok(ResolvedInclude {
                resolved_name: rel,
                content: String::new(),
            });
        }
        (self.before_read)(&lexical);
        let (meta, content) = read_file(&lexical, &rel, self.reads)?;
        st.files.push(FileRecord {
            name: rel.clone(),
            path: lexical,
            hash: content_hash(content.as_bytes()),
            meta,
        });
        Ok(ResolvedInclude {
            resolved_name: rel,
            content,
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
