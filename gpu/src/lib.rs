//! Everything of shader-info that touches a compiler or a device.
pub mod builder;
pub mod cache_file;
pub mod compiler;
pub mod cross;
pub mod disk_cache;
pub mod flow;
pub mod library;
pub mod reflect;
#[cfg(feature = "remote-cache")]
pub mod remote_cache;
pub mod vk;
pub mod watch;
#[cfg(feature = "wgpu")]
pub mod wgpu;
