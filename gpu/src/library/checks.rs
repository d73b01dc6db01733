//! The checks every backend needs before it creates a pipeline, written once: the pipeline kind, the work group
//! against the device's limits, and a pass's attachments against the declaration and its render state. Each
//! problem is a diagnostic naming the info and what to do; the driver never sees a pipeline that fails one. Also
//! the wording of a binding check both backends make in their own flags (a buffer's usage).

use super::backend::{Attachments, DeviceLimits, FormatClass};
use shader_info::{Code, Diagnostic, PipelineKind, PipelinePlan, RenderState};

/// The fetch a renderer called, for the message when the key is of another kind.
fn fetch_of(kind: PipelineKind) -> &'static str {
    match kind {
        PipelineKind::Graphics => "graphics_pipeline",
        PipelineKind::Compute => "compute_pipeline",
        PipelineKind::RayTracing => "ray_tracing_pipeline",
    }
}

/// `plan` asked for as a pipeline of `wanted` kind: an error naming the kind it is and the call that fetches it.
///
/// ```
/// use shader_info_gpu::library::checks::kind_problems;
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("c").local_group_size(1).compute_source("c.comp"));
/// let plan = PipelinePlan::new(&reg.validated("c").unwrap(), &reg);
/// let d = kind_problems(&plan, PipelineKind::Graphics);
/// assert_eq!(d[0].code, Code::MixedPipelineKinds);
/// assert!(d[0].hint.as_deref().unwrap().contains("compute_pipeline"));
/// ```
pub fn kind_problems(plan: &PipelinePlan, wanted: PipelineKind) -> Vec<Diagnostic> {
    if plan.kind == wanted {
        return Vec::new();
    }
    vec![
        Diagnostic::error(
            Code::MixedPipelineKinds,
            &plan.key,
            format!(
                "`{}` is a {:?} info, not a {wanted:?} one",
                plan.key, plan.kind
            ),
        )
        .hint(format!("fetch it with {}", fetch_of(plan.kind))),
    ]
}

/// The work group and shared memory of a compute plan against the device's limits.
pub fn compute_problems(plan: &PipelinePlan, limits: &DeviceLimits) -> Vec<Diagnostic> {
    let mut out = plan.work_group_problems(
        limits.max_work_group_size,
        limits.max_work_group_invocations,
    );
    out.extend(plan.shared_memory_problems(limits.max_shared_memory));
    out
}

/// The stage interfaces, the geometry and tessellation outputs and the buffer blocks of `plan` against the device's
/// limits (past what Vulkan guarantees, validation only warns: the device decides).
pub fn stage_problems(plan: &PipelinePlan, limits: &DeviceLimits) -> Vec<Diagnostic> {
    let mut out = plan.interface_problems(|stage, dir| limits.interface_components.of(stage, dir));
    out.extend(plan.geometry_problems(
        limits.max_geometry_invocations,
        limits.max_geometry_total_output_components,
    ));
    out.extend(plan.tessellation_problems(
        limits.max_tess_patch_output_components,
        limits.max_tess_total_output_components,
    ));
    out.extend(plan.buffer_range_problems(
        limits.max_uniform_buffer_range,
        limits.max_storage_buffer_range,
    ));
    out
}

/// The descriptors of `plan`'s layout against the device's limits, per stage and in all. Narrow the plan to the
/// modules' use first: the layout holds the narrowed stages.
pub fn descriptor_problems(plan: &PipelinePlan, limits: &DeviceLimits) -> Vec<Diagnostic> {
    plan.descriptor_problems(&limits.per_stage_descriptors, &limits.layout_descriptors)
}

/// What a pass's attachments lack for `plan` drawn with `state`: a depth aspect for a depth test, a stencil
/// aspect for a stencil test, an attachment at every location an output writes (of the output's class: an
/// integer output cannot write a float attachment, nor the reverse), no blending into an integer attachment, no
/// more locations than the device has, and a sample count of 1 for subpass inputs read in place.
///
/// ```
/// use shader_info_gpu::library::{Attachments, FormatClass, checks::attachment_problems};
/// use shader_info::*;
/// let mut reg = Registry::new();
/// reg.add_info(ShaderCreateInfo::new("d").fragment_out(0, Type::Vec4, "c")
///     .depth(DepthState::test_write(CompareOp::Less)).vertex_source("v").fragment_source("f"));
/// let plan = PipelinePlan::new(&reg.validated("d").unwrap(), &reg);
/// let state = plan.render_state.clone().unwrap();
/// let no_depth = Attachments { colors: vec![Some(FormatClass::Float)], samples: 1, ..Default::default() };
/// let d = attachment_problems(&plan, &state, &no_depth, 8);
/// assert!(d[0].message.contains("no depth attachment"));
/// ```
pub fn attachment_problems(
    plan: &PipelinePlan,
    state: &RenderState,
    attachments: &Attachments,
    max_color_attachments: u32,
) -> Vec<Diagnostic> {
    let key = &plan.key;
    let mut out = Vec::new();
    let problem = |message: String, hint: &str| {
        Diagnostic::error(Code::RenderState, key, message).hint(hint.to_string())
    };
    if state.depth.is_some() && !attachments.depth {
        out.push(problem(
            format!("`{key}` declares a depth test, but the pipeline has no depth attachment"),
            "set `GraphicsOptions::depth_format`, or override the state for a pass without depth",
        ));
    }
    if state.stencil.is_some() && !attachments.stencil {
        out.push(problem(
            format!("`{key}` declares a stencil test, but the depth attachment has no stencil"),
            "use a depth format with stencil (D24_UNORM_S8_UINT, D32_SFLOAT_S8_UINT, Depth24PlusStencil8)",
        ));
    }
    for o in &plan.color_targets {
        let item = format!("fragment_out `{}`", o.name);
        if o.location >= max_color_attachments {
            out.push(
                problem(
                    format!(
                        "`{}` writes location {}, but the device has {max_color_attachments} color attachments",
                        o.name, o.location
                    ),
                    "use a lower location",
                )
                .item(item),
            );
            continue;
        }
        let wants = FormatClass::of_output(o.scalar);
        match attachments.colors.get(o.location as usize).copied().flatten() {
            None => out.push(
                problem(
                    format!(
                        "`{}` writes location {}, but the pipeline has no color attachment there",
                        o.name, o.location
                    ),
                    "give the location a format in the graphics options",
                )
                .item(item),
            ),
            Some(class) if class != wants => out.push(
                problem(
                    format!(
                        "`{}` is a {:?} output, but the attachment at location {} has a {class:?} format",
                        o.name, wants, o.location
                    ),
                    "give the location a format of the output's class (or declare the output's type to match)",
                )
                .item(item),
            ),
            Some(class) => {
                if class != FormatClass::Float && state.blend_at(o.location) != shader_info::Blend::Opaque
                {
                    out.push(
                        problem(
                            format!(
                                "`{}` blends into location {}, whose {class:?} format cannot blend",
                                o.name, o.location
                            ),
                            "blend only float (or normalized) attachments",
                        )
                        .item(item),
                    );
                }
            }
        }
    }
    if !plan.input_attachments().is_empty() && attachments.samples > 1 {
        for (name, _) in plan.input_attachments() {
            out.push(
                problem(
                    format!(
                        "`{name}` would read a multisampled attachment ({} samples), one sample per fragment",
                        attachments.samples
                    ),
                    "read subpass inputs from single-sampled attachments (resolve first)",
                )
                .item(format!("subpass input `{name}`")),
            );
        }
    }
    out
}

/// The item a render state given whole (`GraphicsOptions::state`) is reported at.
pub const STATE_OVERRIDE: &str = "GraphicsOptions::state (replacing the declared render state)";

/// Color-format overrides at locations the device has no attachment for: checked before the attachment list is
/// made, which has an entry per location up to the highest override (`u32::MAX` would be billions of entries).
///
/// ```
/// use shader_info_gpu::library::checks::color_override_problems;
/// assert!(color_override_problems("k", [0, 7], 8).is_empty());
/// let d = color_override_problems("k", [8], 8);
/// assert!(d[0].message.contains("location 8"), "{}", d[0].message);
/// ```
pub fn color_override_problems(
    key: &str,
    locations: impl IntoIterator<Item = u32>,
    max_color_attachments: u32,
) -> Vec<Diagnostic> {
    locations
        .into_iter()
        .filter(|l| *l >= max_color_attachments)
        .map(|l| {
            Diagnostic::error(
                Code::RenderState,
                key,
                format!(
                    "a color format is given for location {l}, but the device has {max_color_attachments} color \
                     attachments (locations 0 to {})",
                    max_color_attachments.saturating_sub(1)
                ),
            )
            .item("GraphicsOptions::color_format_overrides")
            .hint("give formats only for locations the pass has attachments at")
        })
        .collect()
}

/// The error for a buffer bound to `binding` without the usage its descriptor needs, in each backend's own usage
/// flags: `has` is what the buffer was made with, `[uniform, storage]` the flag each buffer kind needs, `contains`
/// the flags' test. Undefined behaviour to bind on Vulkan, a refusal naming the buffer's label (not the binding)
/// on wgpu. `None` when it has the usage, or `binding` is no buffer.
pub fn buffer_usage_problem<U: std::fmt::Debug + Copy>(
    plan_key: &str,
    binding: &shader_info::BindingPlan,
    has: U,
    [uniform, storage]: [U; 2],
    contains: impl Fn(U, U) -> bool,
) -> Option<Diagnostic> {
    let needed = match binding.kind {
        shader_info::DescriptorKind::UniformBuffer => uniform,
        shader_info::DescriptorKind::StorageBuffer => storage,
        _ => return None,
    };
    (!contains(has, needed)).then(|| {
        Diagnostic::error(
            Code::HostMismatch,
            plan_key,
            format!(
                "`{}` is a {:?}, but the buffer bound was made with the usage {has:?}, without {needed:?}",
                binding.name, binding.kind
            ),
        )
        .item(format!("resource `{}`", binding.name))
        .at(&binding.declared_in, binding.origin)
        .hint(format!("make the buffer with {needed:?}"))
    })
}
