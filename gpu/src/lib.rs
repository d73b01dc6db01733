//! Everything of shader-info that touches a compiler or a device.
pub mod compiler;
pub mod vk;
