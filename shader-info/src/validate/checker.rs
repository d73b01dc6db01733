//! What one validation run reads and where it reports: the info, the options, and the diagnostics found so far.

use crate::diagnostic::{Code, Diagnostic};
use crate::item::Item;
use crate::layout::StructLookup;
use crate::registry::Registry;
use crate::resolve::ResolvedInfo;
use crate::types::Type;

/// What validation needs besides the info.
pub struct ValidateOptions<'a> {
    /// Shared structs (buffer types, their Rust twins).
    pub registry: &'a Registry,
    /// Struct names declared in typedef source files (which the core does not parse).
    pub extra_type_names: &'a [String],
    /// Check that the info is complete enough to compile (on for compilable infos).
    pub require_complete: bool,
}

pub(super) struct Checker<'a> {
    pub(super) info: &'a ResolvedInfo,
    pub(super) opts: &'a ValidateOptions<'a>,
    pub(super) diags: Vec<Diagnostic>,
}

impl Checker<'_> {
    pub(super) fn err<T>(
        &mut self,
        code: Code,
        item: String,
        it: &Item<T>,
        message: String,
        hint: impl Into<String>,
    ) {
        self.diags.push(
            Diagnostic::error(code, &self.info.name, message)
                .item(item)
                .at(&it.declared_in, it.origin)
                .hint(hint),
        );
    }

    pub(super) fn ident<T>(&mut self, what: &str, name: &str, it: &Item<T>) {
        if let Some(p) = crate::glsl_names::identifier_problem(name) {
            self.err(
                Code::InvalidIdentifier,
                format!("{what} `{name}`"),
                it,
                p,
                "rename it to a plain GLSL identifier",
            );
        }
    }

    pub(super) fn known_type(&self, name: &str) -> bool {
        Type::from_glsl_name(name).is_some()
            || self.opts.registry.find_struct(name).is_some()
            || self.opts.registry.enum_def(name).is_some()
            || self.opts.extra_type_names.iter().any(|n| n == name)
    }
}
