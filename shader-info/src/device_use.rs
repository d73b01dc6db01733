//! What a pipeline asks of a device, counted the way device limits count it: descriptors per stage and per layout
//! by the classes Vulkan and WebGPU limit (`maxPerStageDescriptorSamplers`, `max_samplers_per_shader_stage`, …),
//! the interface components each stage reads and writes ([`crate::InterfaceUse`]), geometry invocations and buffer
//! blocks. Derived once from a [`PipelinePlan`]; each backend only says what its device allows
//! ([`DescriptorCounts`] as limits), and one comparison per kind names what is past them.

use crate::diagnostic::{Code, Diagnostic};
use crate::info::GeometryLayout;
use crate::interfaces::{Direction, InterfaceUse, PACK_INTERFACE_HINT, PER_VERTEX_COMPONENTS};
use crate::plan::{BindingPlan, PipelinePlan};
use crate::resource::DescriptorKind;
use crate::types::Stage;
use serde::Serialize;

/// Descriptors by the classes devices limit. As a count: what a stage (or a layout) uses. As a limit: what the
/// device allows (`u32::MAX` where it sets none).
///
/// Vulkan's rules, which WebGPU's match where it has the class: a combined image sampler counts as a sampler and a
/// sampled image, a uniform texel buffer as a sampled image, a storage texel buffer as a storage image; every
/// descriptor but a plain sampler and an acceleration structure counts among the resources, and so does each color
/// attachment of the fragment stage.
///
/// ```
/// use shader_info::{DescriptorCounts, DescriptorKind};
/// let mut used = DescriptorCounts::default();
/// used.add(DescriptorKind::CombinedImageSampler, 40);
/// let limits = DescriptorCounts { samplers: 32, ..DescriptorCounts::UNLIMITED };
/// assert_eq!(used.over(&limits), vec![("samplers", 40, 32)]);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct DescriptorCounts {
    pub samplers: u32,
    pub sampled_images: u32,
    pub storage_images: u32,
    pub uniform_buffers: u32,
    pub storage_buffers: u32,
    pub input_attachments: u32,
    pub acceleration_structures: u32,
    pub resources: u32,
}

impl DescriptorCounts {
    /// Limits of a device that sets none.
    pub const UNLIMITED: DescriptorCounts = DescriptorCounts {
        samplers: u32::MAX,
        sampled_images: u32::MAX,
        storage_images: u32::MAX,
        uniform_buffers: u32::MAX,
        storage_buffers: u32::MAX,
        input_attachments: u32::MAX,
        acceleration_structures: u32::MAX,
        resources: u32::MAX,
    };

    /// Counts `n` descriptors of `kind`.
    pub fn add(&mut self, kind: DescriptorKind, n: u32) {
        use DescriptorKind as K;
        let add = |c: &mut u32| *c = c.saturating_add(n);
        match kind {
            K::CombinedImageSampler => {
                add(&mut self.samplers);
                add(&mut self.sampled_images);
            }
            K::SampledImage | K::UniformTexelBuffer => add(&mut self.sampled_images),
            K::Sampler => add(&mut self.samplers),
            K::StorageImage | K::StorageTexelBuffer => add(&mut self.storage_images),
            K::UniformBuffer => add(&mut self.uniform_buffers),
            K::StorageBuffer => add(&mut self.storage_buffers),
            K::InputAttachment => add(&mut self.input_attachments),
            K::AccelerationStructure => add(&mut self.acceleration_structures),
        }
        if !matches!(kind, K::Sampler | K::AccelerationStructure) {
            add(&mut self.resources);
        }
    }

    fn classes(&self) -> [(&'static str, u32); 8] {
        [
            ("samplers", self.samplers),
            ("sampled images", self.sampled_images),
            ("storage images", self.storage_images),
            ("uniform buffers", self.uniform_buffers),
            ("storage buffers", self.storage_buffers),
            ("input attachments", self.input_attachments),
            ("acceleration structures", self.acceleration_structures),
            ("resources", self.resources),
        ]
    }

    /// Each class past `limits`: its name, the count and the limit.
    pub fn over(&self, limits: &DescriptorCounts) -> Vec<(&'static str, u32, u32)> {
        self.classes()
            .into_iter()
            .zip(limits.classes())
            .filter(|((_, used), (_, max))| used > max)
            .map(|((name, used), (_, max))| (name, used, max))
            .collect()
    }
}

impl PipelinePlan {
    /// The descriptors `stage` can access, counted by class (see [`DescriptorCounts`]); for the fragment stage the
    /// color attachments count among the resources. Narrow the plan to the modules' use first
    /// ([`PipelinePlan::with_stage_usage`]): the layout a device checks holds the narrowed stages.
    pub fn descriptors_in(&self, stage: Stage) -> DescriptorCounts {
        let mut counts = DescriptorCounts::default();
        for (_, b) in self.bindings().filter(|(_, b)| b.stages.contains(stage)) {
            counts.add(b.kind, b.count);
        }
        if stage == Stage::Fragment {
            let attachments = self.color_targets.iter().map(|t| t.location + 1).max();
            counts.resources = counts.resources.saturating_add(attachments.unwrap_or(0));
        }
        counts
    }

    /// The descriptors of the whole layout, each binding once whatever stages see it.
    pub fn descriptors(&self) -> DescriptorCounts {
        let mut counts = DescriptorCounts::default();
        for (_, b) in self.bindings() {
            counts.add(b.kind, b.count);
        }
        counts
    }

    /// Every class of descriptor past the device's limits, per stage (`per_stage`) and for the whole layout
    /// (`per_layout`): an error naming the count, the limit and the stage. Checked before the layout is made: a
    /// driver given a layout past them is outside the specification (lavapipe allows 32 samplers and 15 uniform
    /// buffers per stage; Vulkan guarantees 16 and 12, WebGPU's defaults 16 and 12).
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("many").sampler(0, ImageType::Float2D, "tex[40]", Frequency::Pass)
    ///     .local_group_size(1).compute_source("c.comp"));
    /// let plan = PipelinePlan::new(&reg.validated("many").unwrap(), &reg);
    /// let limits = DescriptorCounts { samplers: 32, ..DescriptorCounts::UNLIMITED };
    /// let d = plan.descriptor_problems(&limits, &DescriptorCounts::UNLIMITED);
    /// assert!(d[0].message.contains("40 samplers") && d[0].message.contains("32"));
    /// ```
    pub fn descriptor_problems(
        &self,
        per_stage: &DescriptorCounts,
        per_layout: &DescriptorCounts,
    ) -> Vec<Diagnostic> {
        // Each problem names the bindings counted and sits at the largest of them, found once.
        let problem = |stage: Option<Stage>, class: &str, used: u32, max: u32| {
            let (listed, largest) = self.counted_as(stage, class);
            let message = match stage {
                Some(stage) => format!(
                    "the {stage} stage of `{}` can access {used} {class} ({listed}); this device allows {max} per stage",
                    self.key
                ),
                None => format!(
                    "the layout of `{}` has {used} {class} ({listed}); this device allows {max} in one pipeline layout",
                    self.key
                ),
            };
            let d = Diagnostic::error(Code::OutOfRange, &self.key, message).hint(
                "declare fewer or smaller descriptor arrays, or move resources to stages (or pipelines) that use them",
            );
            match largest {
                Some(b) => d
                    .item(format!("{} `{}`", b.resource.word(), b.name))
                    .at(&b.declared_in, b.origin),
                None => d,
            }
        };
        let mut out = Vec::new();
        for &stage in &self.stages {
            for (class, used, max) in self.descriptors_in(stage).over(per_stage) {
                out.push(problem(Some(stage), class, used, max));
            }
        }
        for (class, used, max) in self.descriptors().over(per_layout) {
            out.push(problem(None, class, used, max));
        }
        out
    }

    /// The bindings (seen by `stage`, or all) counted in `class`, as a diagnostic lists them, and the largest.
    fn counted_as(&self, stage: Option<Stage>, class: &str) -> (String, Option<&BindingPlan>) {
        let counted: Vec<&BindingPlan> = self
            .bindings()
            .map(|(_, b)| b)
            .filter(|b| stage.is_none_or(|s| b.stages.contains(s)))
            .filter(|b| {
                let mut one = DescriptorCounts::default();
                one.add(b.kind, 1);
                one.classes().iter().any(|&(c, n)| c == class && n > 0)
            })
            .collect();
        let names: Vec<String> = counted
            .iter()
            .map(|b| match b.count {
                1 => format!("`{}`", b.name),
                n => format!("`{}[{n}]`", b.name),
            })
            .collect();
        let listed = match names.len() {
            0 => "color attachments".to_string(),
            n if n > 6 => format!("{}, and {} more", names[..6].join(", "), n - 6),
            _ => names.join(", "),
        };
        // The first of the largest: an array past the limit alone is the one to shrink.
        let largest = counted.iter().copied().rev().max_by_key(|b| b.count);
        (listed, largest)
    }

    /// Every stage interface past `max_components(stage, direction)`, the device's components for that stage's
    /// inputs or outputs (Vulkan's `max*Components`): an error at the block that ends past them.
    pub fn interface_problems(
        &self,
        max_components: impl Fn(Stage, Direction) -> u32,
    ) -> Vec<Diagnostic> {
        self.interface_use
            .iter()
            // The whole interface is the entry without the flag; per-patch blocks alone have a limit of their own
            // (`tessellation_problems`).
            .filter(|u| !u.patch && u.components > max_components(u.stage, u.direction))
            .map(|u| {
                let dir = match u.direction {
                    Direction::In => "inputs",
                    Direction::Out => "outputs",
                };
                let max = max_components(u.stage, u.direction);
                let built_in = u.built_in;
                let with = if built_in > 0 {
                    format!(", {} components with the built-in gl_PerVertex block's {built_in}", u.components)
                } else {
                    format!(", {} components", u.components)
                };
                let mut d = Diagnostic::error(
                    Code::OutOfRange,
                    &self.key,
                    format!(
                        "the {} stage's {dir} of `{}` use {} locations{with}; this device allows {max} components ({} locations)",
                        u.stage,
                        self.key,
                        u.used,
                        max.saturating_sub(built_in) / 4
                    ),
                )
                .item(u.item.clone())
                .at(&u.declared_in, u.origin)
                .hint(PACK_INTERFACE_HINT);
                d.stage = Some(u.stage);
                d
            })
            .collect()
    }

    /// The tessellation control stage's outputs past the device's limits: its per-patch outputs
    /// (`maxTessellationControlPerPatchOutputComponents`) and all it writes for one patch, its output vertices times
    /// each vertex's components and the per-patch ones (`maxTessellationControlTotalOutputComponents`).
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// let v = StageInterfaceInfo::new("v", "").smooth(Type::Vec4, "p");
    /// let mut c = StageInterfaceInfo::new("c", "");
    /// for i in 0..15 {
    ///     c = c.smooth(Type::Vec4, format!("c{i}"));
    /// }
    /// let patch = StageInterfaceInfo::new("pt", "").smooth(Type::Vec4, "center");
    /// reg.add_info(ShaderCreateInfo::new("t").vertex_out(&v).tess_control_out(&c).tess_patch_out(&patch)
    ///     .tess_evaluation_out(&v)
    ///     .tessellation_layout(32, TessDomain::Triangles, TessSpacing::Equal, FrontFace::CounterClockwise)
    ///     .fragment_out(0, Type::Vec4, "o").vertex_source("v").tess_control_source("c")
    ///     .tess_evaluation_source("e").fragment_source("f"));
    /// let plan = PipelinePlan::new(&reg.validated("t").unwrap(), &reg);
    /// // 32 vertices of 15 locations and the block's 7 components, and one vec4 a patch: 2148 components.
    /// let d = plan.tessellation_problems(120, 2048);
    /// assert!(d[0].message.contains("2148 components"), "{}", d[0].message);
    /// assert!(plan.tessellation_problems(120, 2148).is_empty());
    /// assert!(plan.tessellation_problems(3, 4096)[0].message.contains("per-patch outputs use 4 components"));
    /// ```
    pub fn tessellation_problems(
        &self,
        max_patch_components: u32,
        max_total_components: u32,
    ) -> Vec<Diagnostic> {
        let Some(points) = self.patch_control_points else {
            return Vec::new();
        };
        tessellation_output(points, &self.interface_use)
            .over(max_patch_components, max_total_components)
            .into_iter()
            .map(|(message, hint, max, at)| {
                let mut d = Diagnostic::error(
                    Code::OutOfRange,
                    &self.key,
                    format!("{message}; this device allows {max}"),
                )
                .hint(hint);
                if let Some(u) = at {
                    d = d.item(u.item.clone()).at(&u.declared_in, u.origin);
                }
                d.stage = Some(Stage::TessControl);
                d
            })
            .collect()
    }

    /// Buffer blocks larger than one descriptor of the device spans (`maxUniformBufferRange`,
    /// `maxStorageBufferRange`): the shader would read past what is bound, whatever buffer the host gives.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("big").uniform_buf(0, "vec4", "rows[8192]", Frequency::Pass)
    ///     .local_group_size(1).compute_source("c.comp"));
    /// let plan = PipelinePlan::new(&reg.validated("big").unwrap(), &reg);
    /// let d = plan.buffer_range_problems(65536, u64::MAX);
    /// assert!(d[0].message.contains("131072 bytes") && d[0].message.contains("65536"));
    /// assert!(plan.buffer_range_problems(1 << 20, u64::MAX).is_empty());
    /// ```
    pub fn buffer_range_problems(&self, max_uniform: u64, max_storage: u64) -> Vec<Diagnostic> {
        self.bindings()
            .filter_map(|(_, b)| {
                let size = u64::from(b.min_size?);
                let (max, what, instead) = match b.kind {
                    DescriptorKind::UniformBuffer => (
                        max_uniform,
                        "uniform buffer",
                        "declare a storage_buf, which devices let span far more",
                    ),
                    DescriptorKind::StorageBuffer => {
                        (max_storage, "storage buffer", "split the block into several buffers")
                    }
                    _ => return None,
                };
                (size > max).then(|| {
                    Diagnostic::error(
                        Code::OutOfRange,
                        &self.key,
                        format!(
                            "`{}`'s block is {size} bytes; this device binds at most {max} bytes of a {what}",
                            b.name
                        ),
                    )
                    .item(format!("{} `{}`", b.resource.word(), b.name))
                    .at(&b.declared_in, b.origin)
                    .hint(instead)
                })
            })
            .collect()
    }

    /// The geometry layout past the device's limits: its invocations (`maxGeometryShaderInvocations`), and the
    /// components one invocation may emit (`maxGeometryTotalOutputComponents`: its vertices times each vertex's
    /// components, the gl_PerVertex block's counted as the validation layer counts them).
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("g").geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::TriangleStrip, 69)
    ///     .geometry_out(&StageInterfaceInfo::new("o", "").smooth(Type::Vec4, "x").smooth(Type::Vec4, "y"))
    ///     .fragment_out(0, Type::Vec4, "c").vertex_source("v").geometry_source("g").fragment_source("f"));
    /// let plan = PipelinePlan::new(&reg.validated("g").unwrap(), &reg);
    /// // 69 vertices of 2 locations and the block's 7 components: 1035 components.
    /// let d = plan.geometry_problems(32, 1024);
    /// assert!(d[0].message.contains("1035 components"), "{}", d[0].message);
    /// assert!(plan.geometry_problems(32, 1035).is_empty());
    /// ```
    pub fn geometry_problems(
        &self,
        max_invocations: u32,
        max_total_components: u32,
    ) -> Vec<Diagnostic> {
        let Some(g) = &self.geometry_layout else {
            return Vec::new();
        };
        let problem = |message: String, hint: String| {
            Diagnostic::error(Code::OutOfRange, &self.key, message)
                .item("geometry_layout")
                .at(&g.declared_in, g.origin)
                .hint(hint)
        };
        let mut out = Vec::new();
        if g.value.invocations > max_invocations {
            out.push(problem(
                format!(
                    "the geometry layout of `{}` asks for {} invocations; this device allows {max_invocations}",
                    self.key, g.value.invocations
                ),
                format!("use at most {max_invocations} invocations on this device (Vulkan guarantees 32)"),
            ));
        }
        let (per_vertex, total) = geometry_output(&g.value, &self.interface_use);
        if total > u64::from(max_total_components) {
            out.push(problem(
                format!(
                    "the geometry layout of `{}` emits up to {} vertices of {per_vertex} components (its outputs and \
                     the built-in gl_PerVertex block): {total} components; this device allows {max_total_components}",
                    self.key, g.value.max_vertices
                ),
                format!(
                    "emit at most {} vertices per invocation (geometry_layout_instanced splits the work), or pass fewer \
                     outputs",
                    max_total_components / per_vertex.max(1)
                ),
            ));
        }
        out
    }
}

/// What a tessellation control stage writes for one patch.
pub(crate) struct TessOutput<'a> {
    /// Its output vertices.
    pub control_points: u32,
    /// Components of its per-patch outputs, and the last of their blocks.
    pub patch: u32,
    pub patch_use: Option<&'a InterfaceUse>,
    /// Components of each output vertex (its blocks' and the gl_PerVertex block's), and the last of its blocks.
    pub per_vertex: u32,
    pub vertex_use: Option<&'a InterfaceUse>,
    /// All of them: `control_points × per_vertex + patch`.
    pub total: u64,
}

/// What the tessellation control stage among `uses` writes for one patch of `control_points` vertices.
pub(crate) fn tessellation_output(control_points: u32, uses: &[InterfaceUse]) -> TessOutput<'_> {
    let out = |patch: bool| {
        uses.iter().find(|u| {
            u.stage == Stage::TessControl && u.direction == Direction::Out && u.patch == patch
        })
    };
    let (patch_use, vertex_use) = (out(true), out(false));
    let patch = patch_use.map_or(0, |u| u.components);
    // The whole interface less its per-patch blocks.
    let per_vertex = vertex_use.map_or(PER_VERTEX_COMPONENTS, |u| {
        u.components.saturating_sub(patch)
    });
    TessOutput {
        control_points,
        patch,
        patch_use,
        per_vertex,
        vertex_use,
        total: u64::from(control_points) * u64::from(per_vertex) + u64::from(patch),
    }
}

impl TessOutput<'_> {
    /// What is past `max_patch` and `max_total` components, as (message, hint, the limit, the block to point at).
    pub(crate) fn over(
        &self,
        max_patch: u32,
        max_total: u32,
    ) -> Vec<(String, String, u32, Option<&InterfaceUse>)> {
        let control_points = self.control_points;
        let mut out = Vec::new();
        if self.patch > max_patch {
            out.push((
                format!(
                    "the tessellation control stage's per-patch outputs use {} components",
                    self.patch
                ),
                format!(
                    "keep per-patch outputs within {max_patch} components ({} vec4s): {PACK_INTERFACE_HINT}",
                    max_patch / 4
                ),
                max_patch,
                self.patch_use,
            ));
        }
        if self.total > u64::from(max_total) {
            out.push((
                format!(
                    "the tessellation control stage writes {control_points} vertices of {} components (its outputs \
                     and the gl_PerVertex block) and {} per-patch components: {} components a patch",
                    self.per_vertex, self.patch, self.total
                ),
                format!(
                    "output fewer vertices a patch (at most {} with these outputs), or pass fewer outputs",
                    u64::from(max_total).saturating_sub(u64::from(self.patch)) / u64::from(self.per_vertex.max(1))
                ),
                max_total,
                self.vertex_use.or(self.patch_use),
            ));
        }
        out
    }
}

/// What one geometry invocation of `layout` emits: the components of each vertex (its outputs' and the
/// gl_PerVertex block's) and of all its vertices, which devices limit (`maxGeometryTotalOutputComponents`).
pub(crate) fn geometry_output(layout: &GeometryLayout, uses: &[InterfaceUse]) -> (u32, u64) {
    let per_vertex = uses
        .iter()
        .find(|u| u.stage == Stage::Geometry && u.direction == Direction::Out)
        .map_or(PER_VERTEX_COMPONENTS, |u| u.components);
    (
        per_vertex,
        u64::from(layout.max_vertices) * u64::from(per_vertex),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::*;

    fn plan(info: ShaderCreateInfo) -> PipelinePlan {
        let mut reg = Registry::new();
        let name = info.name.clone();
        reg.add_info(info);
        PipelinePlan::new(&reg.validated(&name).unwrap(), &reg)
    }

    #[test]
    fn descriptors_count_by_the_classes_devices_limit_in_the_stages_that_see_them() {
        let p = plan(
            ShaderCreateInfo::new("d")
                .sampler(0, ImageType::Float2D, "tex[3]", Frequency::Pass)
                .uniform_buf(1, "vec4", "u", Frequency::Pass)
                .storage_buf(2, Qualifier::Read, "uint", "s[]", Frequency::Pass)
                .fragment_out(0, Type::Vec4, "a")
                .fragment_out(2, Type::Vec4, "b")
                .vertex_source("v")
                .fragment_source("f"),
        );
        let f = p.descriptors_in(Stage::Fragment);
        assert_eq!((f.samplers, f.sampled_images), (3, 3));
        assert_eq!((f.uniform_buffers, f.storage_buffers), (1, 1));
        // 5 descriptors, and color attachments 0..=2.
        assert_eq!(f.resources, 5 + 3);
        assert_eq!(p.descriptors_in(Stage::Vertex).resources, 5);
        // Narrowed to the fragment stage, the vertex stage sees none.
        let narrowed = p.with_stage_usage(|_, _| StageMask::of(&[Stage::Fragment]));
        assert_eq!(
            narrowed.descriptors_in(Stage::Vertex),
            DescriptorCounts::default()
        );
        assert_eq!(narrowed.descriptors().samplers, 3);
        let limits = DescriptorCounts {
            sampled_images: 2,
            ..DescriptorCounts::UNLIMITED
        };
        let d = narrowed.descriptor_problems(&limits, &DescriptorCounts::UNLIMITED);
        assert_eq!(d.len(), 1, "{}", render_all(&d));
        assert!(
            d[0].message.contains("3 sampled images (`tex[3]`)"),
            "{}",
            d[0].message
        );
        assert_eq!(d[0].item.as_deref(), Some("sampler `tex`"));
        assert!(d[0].origin.file.ends_with("device_use.rs"));
    }

    #[test]
    fn per_patch_blocks_are_counted_apart_from_the_per_vertex_ones() {
        let v = StageInterfaceInfo::new("v", "").smooth(Type::Vec4, "a");
        let c = StageInterfaceInfo::new("c", "")
            .smooth(Type::Vec4, "b")
            .smooth(Type::Mat2, "m");
        let patch = StageInterfaceInfo::new("pt", "").smooth(Type::Mat4, "center");
        let p = plan(
            ShaderCreateInfo::new("t")
                .vertex_out(&v)
                .tess_control_out(&c)
                .tess_patch_out(&patch)
                .tess_evaluation_out(&v)
                .tessellation_layout(
                    3,
                    TessDomain::Quads,
                    TessSpacing::Equal,
                    FrontFace::Clockwise,
                )
                .fragment_out(0, Type::Vec4, "o")
                .vertex_source("v")
                .tess_control_source("c")
                .tess_evaluation_source("e")
                .fragment_source("f"),
        );
        let of = |stage, direction, patch| {
            p.interface_use
                .iter()
                .find(|u| u.stage == stage && u.direction == direction && u.patch == patch)
                .map(|u| (u.used, u.components, u.item.as_str()))
        };
        // The whole interface: three per-vertex locations, then four per patch (the block's seven built-in components
        // with them); the per-patch blocks alone: four locations.
        for (stage, direction) in [
            (Stage::TessControl, Direction::Out),
            (Stage::TessEvaluation, Direction::In),
        ] {
            assert_eq!(
                of(stage, direction, false),
                Some((7, 28 + PER_VERTEX_COMPONENTS, "tess_patch_out `pt`"))
            );
            assert_eq!(
                of(stage, direction, true),
                Some((7, 16, "tess_patch_out `pt`"))
            );
        }
        // Every location of the interface counts against the stage's limit; the per-patch ones also against their
        // own.
        let whole = 28 + PER_VERTEX_COMPONENTS;
        assert!(p.interface_problems(|_, _| whole).is_empty());
        let d = p.interface_problems(|_, _| whole - 1);
        assert!(
            !d.is_empty() && d.iter().all(|d| d.message.contains("use 7 locations")),
            "{}",
            render_all(&d)
        );
        let d = p.tessellation_problems(15, 4096);
        assert_eq!(d.len(), 1, "{}", render_all(&d));
        assert_eq!(d[0].item.as_deref(), Some("tess_patch_out `pt`"));
        // 3 vertices of 3 locations and the block's 7 components, and 16 per patch.
        let d = p.tessellation_problems(16, 3 * 19 + 15);
        assert!(
            d[0].message.contains("3 vertices of 19 components")
                && d[0].message.contains("73 components a patch"),
            "{}",
            render_all(&d)
        );
        assert!(p.tessellation_problems(16, 73).is_empty());
    }

    #[test]
    fn interfaces_count_the_per_vertex_block_but_not_in_the_fragment_stage() {
        let out = StageInterfaceInfo::new("io", "")
            .smooth(Type::Vec4, "a")
            .smooth(Type::Mat4, "m");
        let p = plan(
            ShaderCreateInfo::new("i")
                .vertex_out(&out)
                .fragment_out(0, Type::Vec4, "c")
                .vertex_source("v")
                .fragment_source("f"),
        );
        let of = |stage, direction| {
            p.interface_use
                .iter()
                .find(|u| u.stage == stage && u.direction == direction)
                .map(|u| (u.used, u.components))
        };
        assert_eq!(
            of(Stage::Vertex, Direction::Out),
            Some((5, 20 + PER_VERTEX_COMPONENTS))
        );
        assert_eq!(of(Stage::Fragment, Direction::In), Some((5, 20)));
        let d = p.interface_problems(|stage, _| if stage == Stage::Vertex { 26 } else { 20 });
        assert_eq!(d.len(), 1, "{}", render_all(&d));
        assert!(
            d[0].message.contains("27 components") && d[0].message.contains("(4 locations)"),
            "{}",
            d[0].message
        );
        assert_eq!(d[0].item.as_deref(), Some("vertex_out `io`"));
    }
}
