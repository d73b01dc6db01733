//! Subpass inputs ([`ShaderCreateInfo::subpass_in`]): a fragment reads the color attachment an earlier draw wrote,
//! at its own pixel. One declaration, two ways to read it, chosen per device ([`SubpassMode`]):
//!
//! - **Emulated** (every device and every translation target): resolution derives a sampled image,
//!   `<name>_input`, at set 0 after every declared binding, read with `texelFetch` at `gl_FragCoord`. The pass
//!   that wrote the attachment must have ended, and the host binds the attachment's image there.
//! - **Local read** (Vulkan with `VK_KHR_dynamic_rendering_local_read`): [`ValidatedInfo::with_subpass_mode`]
//!   turns that same binding into an input attachment read with `subpassLoad`, inside the rendering that writes the
//!   attachment, after a by-region barrier: no pass break, no round trip through memory on tiled GPUs.
//!
//! The binding, its set and its name are the same in both, so a host switches modes by how it binds and
//! synchronizes, never by renumbering.

use crate::diagnostic::{Code, Diagnostic};
use crate::resource::ResourceKind;
use crate::validate::ValidatedInfo;

/// How a pipeline reads its subpass inputs.
///
/// ```
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(
///     ShaderCreateInfo::new("composite")
///         .subpass_in(0, Type::Vec4, "scene_color")
///         .fragment_out(0, Type::Vec4, "frag_color")
///         .vertex_source("fullscreen.vert.glsl")
///         .fragment_source("composite.frag.glsl"),
/// );
/// let info = reg.validated("composite").unwrap();
/// let local = info.with_subpass_mode(SubpassMode::LocalRead).unwrap();
/// let carrier = &local.resources[0].value;
/// assert_eq!(carrier.name, "scene_color_input");
/// assert_eq!(carrier.descriptor_kind(), DescriptorKind::InputAttachment);
/// assert_eq!(carrier.binding, info.resources[0].value.binding);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SubpassMode {
    /// A sampled image read after the writing pass ended: every device, every target.
    #[default]
    Emulated,
    /// An input attachment read inside the writing rendering (`VK_KHR_dynamic_rendering_local_read`).
    LocalRead,
}

impl ValidatedInfo {
    /// The info with its subpass inputs read in `mode`. [`SubpassMode::Emulated`] is the info as validated;
    /// [`SubpassMode::LocalRead`] turns each emulating texture into an input attachment at the same binding.
    ///
    /// Local read reads an attachment of the rendering the fragment itself writes to, so each input needs a
    /// `fragment_out` at its location holding the same kind of value (float, int or uint); an info without one
    /// is refused here, naming the input and what to declare, before anything compiles.
    pub fn with_subpass_mode(&self, mode: SubpassMode) -> Result<ValidatedInfo, Vec<Diagnostic>> {
        if mode == SubpassMode::Emulated || self.subpass_inputs.is_empty() {
            return Ok(self.clone());
        }
        let mut errors = Vec::new();
        let info = self.resolved();
        for it in &info.subpass_inputs {
            let s = &it.value;
            let error = |message: String, hint: String| {
                let d = Diagnostic::error(Code::IncompleteInfo, &info.name, message)
                    .item(format!("subpass_in `{}`", s.name))
                    .at(&it.declared_in, it.origin)
                    .hint(hint);
                match self.variant_label() {
                    Some(v) => d.variant(v),
                    None => d,
                }
            };
            match info
                .fragment_outputs
                .iter()
                .find(|o| o.value.location == s.index)
            {
                None => errors.push(error(
                    format!(
                        "with local read, subpass input `{}` reads color attachment {} of the rendering the fragment \
                         draws into, but the info declares no fragment output at location {}",
                        s.name, s.index, s.index
                    ),
                    format!(
                        "declare `.fragment_out({}, <the attachment's type>, \"...\")`, with \
                         `.color_writes({}, ColorWrites::NONE)` if this draw must not write it; or read it emulated \
                         (SubpassMode::Emulated) after the pass that writes it",
                        s.index, s.index
                    ),
                )),
                Some(o) if o.value.ty.scalar() != s.ty.scalar() => errors.push(error(
                    format!(
                        "subpass input `{}` reads attachment {} as `{}`, but fragment output `{}` declares it `{}`",
                        s.name, s.index, s.ty, o.value.name, o.value.ty
                    ),
                    "declare the input with the attachment's scalar type (float, int or uint)".into(),
                )),
                Some(_) => {}
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        let mut out = self.clone();
        *out.resolved_mut() = info.with_changes(|info| {
            for s in &info.subpass_inputs {
                let carrier = info
                    .resources
                    .iter_mut()
                    .find(|r| r.value.name == s.value.resource_name());
                if let Some(r) = carrier {
                    r.value.kind = ResourceKind::InputAttachment {
                        index: s.value.index,
                        image_type: s.value.image_type(),
                    };
                }
            }
        });
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Frequency, ImageType, Registry, ShaderCreateInfo, Type};

    fn validated(info: ShaderCreateInfo) -> ValidatedInfo {
        let name = info.name.clone();
        let mut reg = Registry::new();
        reg.add_info(info.vertex_source("a.vert").fragment_source("a.frag"));
        reg.validated(&name).unwrap()
    }

    #[test]
    fn local_read_keeps_the_binding_and_needs_the_attachment_in_the_rendering() {
        let info = validated(
            ShaderCreateInfo::new("reads_two")
                .sampler(0, ImageType::Float2D, "lut", Frequency::Pass)
                .subpass_in(0, Type::Vec4, "color")
                .subpass_in(1, Type::UVec2, "ids")
                .fragment_out(0, Type::Vec4, "out_color")
                .fragment_out(1, Type::UVec4, "out_ids"),
        );
        let local = info.with_subpass_mode(SubpassMode::LocalRead).unwrap();
        let kinds: Vec<(String, u32, ResourceKind)> = local
            .resources
            .iter()
            .map(|r| (r.value.name.clone(), r.value.binding, r.value.kind.clone()))
            .collect();
        assert_eq!(kinds[1].1, 1);
        assert_eq!(
            kinds[1].2,
            ResourceKind::InputAttachment {
                index: 0,
                image_type: ImageType::Float2D
            }
        );
        assert_eq!(
            kinds[2].2,
            ResourceKind::InputAttachment {
                index: 1,
                image_type: ImageType::Uint2D
            }
        );
        assert!(
            matches!(kinds[0].2, ResourceKind::Sampler { .. }),
            "{kinds:?}"
        );
        assert_eq!(
            info.with_subpass_mode(SubpassMode::Emulated)
                .unwrap()
                .resources,
            info.resources
        );

        let missing = validated(
            ShaderCreateInfo::new("reads_unwritten")
                .subpass_in(2, Type::Vec4, "gbuffer")
                .subpass_in(0, Type::IVec4, "as_int")
                .fragment_out(0, Type::Vec4, "out_color"),
        );
        let errors = missing
            .with_subpass_mode(SubpassMode::LocalRead)
            .unwrap_err();
        let text = crate::render_all(&errors);
        assert_eq!(errors.len(), 2, "{text}");
        assert!(text.contains("no fragment output at location 2"), "{text}");
        assert!(
            text.contains(".color_writes(2, ColorWrites::NONE)"),
            "{text}"
        );
        assert!(text.contains("reads attachment 0 as `ivec4`"), "{text}");
        assert!(errors.iter().all(|d| {
            d.item
                .as_deref()
                .is_some_and(|i| i.starts_with("subpass_in"))
        }));
        // The emulation reads any texture, so it needs neither.
        assert!(missing.with_subpass_mode(SubpassMode::Emulated).is_ok());
    }
}
