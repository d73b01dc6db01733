//! The library's infos, one module per family. Every item registers itself with `inventory` (through
//! `#[shader_info]` or `#[derive(ShaderInfo)]`); `Registry::global()` finds them in any binary that links this
//! crate.

pub mod common;
pub mod compute;
pub mod draw_2d;
pub mod draw_3d;
pub mod fullscreen;
pub mod mesh;
pub mod push;
pub mod raytrace;
pub mod structs;
