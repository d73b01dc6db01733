//! Cross-crate integration tests live in `tests/`.

pub mod expansion;
pub mod glslang;
pub mod layout_corpus;
