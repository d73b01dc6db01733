//! Every target from the library: the same checked text the static pass writes, for a host in another language (a
//! C++ engine, a browser) or for debugging against the GLSL. The wgpu backend makes its modules from the same
//! call.

use super::{Backend, Library};
use crate::cross::{CrossOptions, Target, Translation, Verdict, translate_module};
use crate::flow::Flow;
use shader_info::{Code, Diagnostic, SpecValues, Stage, ValidatedInfo};

/// The checked translation of `stage` of `info` to `target`, or why there is none (what the target cannot
/// express is a [`Code::Unsupported`] error with the reason).
pub fn checked_translation(
    flow: &Flow<'_>,
    info: &ValidatedInfo,
    stage: Stage,
    target: Target,
) -> Result<Translation, Vec<Diagnostic>> {
    let key = info.key();
    let opts = CrossOptions {
        targets: vec![target],
        check: true,
        values: SpecValues::default(),
    };
    match translate_module(flow, info, stage, &opts)
        .pop()
        .map(|(_, v)| v)
    {
        Some(Verdict::Translated(t)) => Ok(t),
        Some(Verdict::Failed(d)) => Err(d),
        Some(other) => Err(vec![
            Diagnostic::error(
                Code::Unsupported,
                &key,
                format!(
                    "`{key}` has no {target:?} translation: {}",
                    other.lines(target).join("; ")
                ),
            )
            .stage(stage)
            .hint("use a backend or target that can express it, or declare a variant that can"),
        ]),
        None => Err(vec![
            Diagnostic::error(
                Code::Internal,
                &key,
                format!("the cross pass returned no verdict for `{key}` ({stage})"),
            )
            .hint("report it as a bug"),
        ]),
    }
}

impl<B: Backend> Library<B> {
    /// The checked translation of `stage` of `key` to `target` (WGSL, MSL, HLSL, GL, ES): the text the static
    /// pass writes, with its entry point, binding map and required extensions.
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary) -> shader_info_gpu::vk::VkResult<()> {
    /// use shader_info_gpu::cross::Target;
    /// let hlsl = lib.translation("gpu_shader_2D_image", shader_info::Stage::Fragment, Target::Hlsl)?;
    /// println!("{}", hlsl.text);
    /// # Ok(()) }
    /// ```
    pub fn translation(
        &mut self,
        key: impl AsRef<str>,
        stage: Stage,
        target: Target,
    ) -> Result<Translation, B::Error> {
        let info = self.validated(key.as_ref())?;
        checked_translation(&self.flow(), &info, stage, target).map_err(B::error)
    }
}
