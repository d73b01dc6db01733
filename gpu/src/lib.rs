//! Everything of shader-info that touches a compiler or a device.
pub mod vk;
