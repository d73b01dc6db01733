//! Where a push-constant block too big for push constants goes: [`PushConstantSpill`].

use crate::info::ShaderCreateInfo;
use crate::layout::BlockLayout;
use crate::limits::MAX_PUSH_CONSTANT_BYTES;
use crate::targets::PUSH_CONSTANT_SPACE;
use serde::Serialize;

/// A push-constant block over the 128 bytes every Vulkan device takes, spilled (as Blender's backends do) to a
/// read-only storage buffer with the same std430 layout at [`PushConstantSpill::PLACE`]: the same bytes the host
/// would push, so the host code does not change — the backends' push calls (`PipelineLayout::push`, wgpu's
/// `Layouts::push`) write the buffer and bind it. A storage buffer rather than a uniform buffer because std430
/// offsets are valid there on every target (a uniform block would need std140 or the scalar-layout extension, and
/// WGSL's uniform rules reject std430 arrays). The plan lists it as a binding named [`PushConstantSpill::NAME`], so
/// layouts, binding maps and the reflection check see it like any declared buffer.
///
/// ```
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("wide")
///     .push_constant(Type::Mat4, "model")
///     .push_constant(Type::Mat4, "view")
///     .push_constant(Type::Mat4, "projection")
///     .local_group_size(1)
///     .compute_source("x.comp"));
/// let plan = PipelinePlan::new(&reg.validated("wide").unwrap(), &reg);
/// let pc = plan.push_constants.as_ref().unwrap();
/// assert_eq!((pc.size, pc.spill), (192, Some(PushConstantSpill { set: 3, binding: 0 })));
/// assert!(plan.bindings().any(|(set, b)| set == 3 && b.name == PushConstantSpill::NAME));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PushConstantSpill {
    pub set: u32,
    pub binding: u32,
}

impl PushConstantSpill {
    /// Set and binding of a spilled block: one past the frequency sets (the HLSL space and the wgpu group of push
    /// constants too), binding 0.
    pub const PLACE: (u32, u32) = (PUSH_CONSTANT_SPACE, 0);
    /// The binding's name in the plan and the block's name in the generated GLSL.
    pub const NAME: &'static str = "_PushConstants";

    /// The spill of `info`'s push constants, when their std430 block is over 128 bytes.
    pub fn of(info: &ShaderCreateInfo) -> Option<PushConstantSpill> {
        Self::of_layout(&info.push_constant_layout()?.ok()?)
    }

    /// The spill of a push-constant block laid out as `layout` (for a caller that has the layout already).
    ///
    /// ```
    /// use shader_info::{PushConstantSpill, ShaderCreateInfo, Type};
    /// let info = ShaderCreateInfo::new("big").push_constant(Type::Mat4, "a").push_constant(Type::Mat4, "b")
    ///     .push_constant(Type::Mat4, "c");
    /// let layout = info.push_constant_layout().unwrap().unwrap();
    /// assert_eq!(PushConstantSpill::of_layout(&layout), PushConstantSpill::of(&info));
    /// assert!(PushConstantSpill::of_layout(&layout).is_some()); // 192 bytes
    /// ```
    pub fn of_layout(layout: &BlockLayout) -> Option<PushConstantSpill> {
        (layout.end > MAX_PUSH_CONSTANT_BYTES).then_some(PushConstantSpill {
            set: Self::PLACE.0,
            binding: Self::PLACE.1,
        })
    }
}
