//! Sampler state declared with a sampler ([`crate::ShaderCreateInfo::sampler_with_state`]): filtering, wrapping,
//! depth comparison and anisotropy fixed by the declaration. The Vulkan backend bakes it into the descriptor-set
//! layout as an immutable sampler (the host binds only the image); wgpu, which has no immutable samplers, creates
//! the sampler from the same state when the host binds only the texture.

use crate::render_state::CompareOp;
use serde::Serialize;

/// Texel filtering.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Default)]
pub enum TexelFilter {
    Nearest,
    #[default]
    Linear,
}

/// What coordinates outside [0, 1] read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Default)]
pub enum WrapMode {
    Repeat,
    MirroredRepeat,
    #[default]
    ClampToEdge,
    /// The border color ([`SamplerState::border`]).
    ClampToBorder,
}

/// The color [`WrapMode::ClampToBorder`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Default)]
pub enum BorderColor {
    #[default]
    TransparentBlack,
    OpaqueBlack,
    OpaqueWhite,
}

/// A declared sampler: every field is a small enum or integer, so states compare, hash and order exactly (two
/// declarations of the same state share one sampler object).
///
/// ```
/// use shader_info::*;
/// let shadow = SamplerState::linear().wrap(WrapMode::ClampToBorder).compare(CompareOp::LessOrEqual);
/// let info = ShaderCreateInfo::new("lit")
///     .sampler_with_state(0, ImageType::Shadow2D, "shadow_map", Frequency::Pass, shadow)
///     .sampler_with_state(1, ImageType::Float2D, "albedo", Frequency::Batch,
///         SamplerState::linear().mipmaps(TexelFilter::Linear).wrap(WrapMode::Repeat).anisotropy(8));
/// assert_eq!(info.resources.len(), 2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SamplerState {
    /// Magnification and minification filter.
    pub filter: TexelFilter,
    /// Filtering between mip levels; `None` reads the base level only.
    pub mipmap: Option<TexelFilter>,
    /// Wrapping in u, v and w alike.
    pub wrap: WrapMode,
    pub border: BorderColor,
    /// A depth comparison (shadow samplers).
    pub compare: Option<CompareOp>,
    /// Maximum anisotropy, 1 (off) to 16.
    pub anisotropy: u8,
}

impl Default for SamplerState {
    fn default() -> Self {
        SamplerState::linear()
    }
}

impl SamplerState {
    /// Linear filtering, base level only, clamped to the edge.
    pub const fn linear() -> SamplerState {
        SamplerState {
            filter: TexelFilter::Linear,
            mipmap: None,
            wrap: WrapMode::ClampToEdge,
            border: BorderColor::TransparentBlack,
            compare: None,
            anisotropy: 1,
        }
    }

    /// Nearest filtering, base level only, clamped to the edge.
    pub const fn nearest() -> SamplerState {
        SamplerState {
            filter: TexelFilter::Nearest,
            ..SamplerState::linear()
        }
    }

    /// Filters between mip levels with `filter`.
    pub const fn mipmaps(mut self, filter: TexelFilter) -> SamplerState {
        self.mipmap = Some(filter);
        self
    }

    pub const fn wrap(mut self, wrap: WrapMode) -> SamplerState {
        self.wrap = wrap;
        self
    }

    pub const fn border(mut self, border: BorderColor) -> SamplerState {
        self.border = border;
        self
    }

    /// A comparison sampler (for shadow image types).
    pub const fn compare(mut self, op: CompareOp) -> SamplerState {
        self.compare = Some(op);
        self
    }

    /// Anisotropic filtering up to `max` (2 to 16; 1 is off).
    pub const fn anisotropy(mut self, max: u8) -> SamplerState {
        self.anisotropy = max;
        self
    }

    /// What is wrong with this state for a sampler of `image_type`, as (message, hint) pairs.
    pub fn problems(&self, image_type: crate::ImageType) -> Vec<(String, String)> {
        let mut out = Vec::new();
        if !(1..=16).contains(&self.anisotropy) {
            out.push((
                format!("anisotropy {} is outside 1 to 16", self.anisotropy),
                "use 1 (off) to 16".to_string(),
            ));
        }
        if image_type.is_buffer() {
            out.push((
                format!("{image_type:?} is a texel buffer, which is read without a sampler"),
                "declare it with `sampler(..)`, without a state".to_string(),
            ));
        }
        match (self.compare.is_some(), image_type.is_shadow()) {
            (true, false) => out.push((
                format!("a comparison sampler on {image_type:?}, which is not a shadow type"),
                "use a Shadow* image type, or drop the comparison".to_string(),
            )),
            (false, true) => out.push((
                format!("{image_type:?} is a shadow type, but the state has no comparison"),
                "add `.compare(CompareOp::LessOrEqual)` (or the test the shadow map needs)"
                    .to_string(),
            )),
            _ => {}
        }
        if self.compare.is_some() && self.anisotropy > 1 {
            out.push((
                "anisotropic filtering on a comparison sampler".to_string(),
                "drop the anisotropy: depth comparisons are not filtered anisotropically"
                    .to_string(),
            ));
        }
        // WebGPU filters anisotropically only with every filter linear, Vulkan with any: one rule for both, so a
        // state never gives two pictures.
        if self.anisotropy > 1
            && (self.filter != TexelFilter::Linear || self.mipmap != Some(TexelFilter::Linear))
        {
            out.push((
                format!(
                    "anisotropy {} with a filter that is not linear (filter {:?}, mipmaps {:?})",
                    self.anisotropy, self.filter, self.mipmap
                ),
                "filter linearly with linear mipmaps (`.mipmaps(TexelFilter::Linear)`), or drop the anisotropy"
                    .to_string(),
            ));
        }
        if matches!(image_type.component_kind(), 'i' | 'u') && self.filter == TexelFilter::Linear {
            out.push((
                format!("linear filtering of the integer texture {image_type:?}"),
                "integer textures are read with nearest filtering: use SamplerState::nearest()"
                    .to_string(),
            ));
        }
        out
    }
}
