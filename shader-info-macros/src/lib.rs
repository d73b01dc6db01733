//! Procedural macros for `shader-info`. Use them through the re-exports in `shader_info`.
