//! The module every target is written from: the portable SPIR-V of one stage parsed and validated by naga once,
//! with what the declaration says of it (the plan, the block layouts) and what each target cannot express.

use super::{naga_stage, spec, validate};
use crate::flow::Flow;
use naga::valid::ModuleInfo;
use shader_info::{
    BlockLayout, Code, ConstValue, DescriptorKind, Diagnostic, PipelineKind, PipelinePlan,
    SpecConstantPlan, SpecValues, Stage, Target, ValidatedInfo,
};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// A module parsed for translation: the portable SPIR-V of one stage of one validated info (or variant), as naga
/// IR, with the plan its bindings come from.
pub struct Portable {
    /// `name` or `name#v<index>`.
    pub key: String,
    pub info: String,
    pub variant: Option<String>,
    pub stage: Stage,
    pub plan: PipelinePlan,
    /// The portable SPIR-V (what a target's independent check may compile against).
    pub spirv: Vec<u32>,
    /// The declared std140/std430 layout of each buffer block, by (set, binding).
    pub(super) blocks: Vec<(u32, u32, BlockLayout)>,
    pub(super) module: naga::Module,
    pub(super) module_info: ModuleInfo,
    /// The clip space the module was read in (naga flips y for [`crate::flow::ClipSpace::Vulkan`]).
    pub(super) clip_space: crate::flow::ClipSpace,
}

/// The reason, when naga refused the portable module for something valid in Vulkan that the portable targets
/// cannot express (a limit of the targets, not a bug): found by the declaration fuzzer.
pub(super) fn portable_limit(d: &[Diagnostic]) -> Option<String> {
    let said = |s: &str| d.iter().any(|d| d.message.contains(s));
    if said("`@builtin(position)`") {
        // Valid Vulkan with rasterization off or transform feedback.
        Some("the vertex stage never writes gl_Position: WGSL, MSL, HLSL and GLSL vertex stages must output a position".into())
    } else if said("cannot be used for user-defined entry point inputs or outputs") {
        Some("a stage input or output is a matrix (or another non-vector type): naga's entry points take scalars and \
              vectors only; declare the columns as separate vector inputs"
            .into())
    } else if said("unsupported matrix stride") {
        // std140 pads a 2-row matrix's columns to 16 bytes (a `mat2`, `mat3x2`, `mat4x2` in a uniform block);
        // naga's SPIR-V reader takes only the natural stride.
        Some("a uniform block holds a matrix with two rows (mat2, mat3x2, mat4x2), whose std140 column stride of 16 \
              bytes naga cannot read: declare it as vec4 columns, or put it in a storage buffer (std430)"
            .into())
    } else if said("Workgroup size is out of range") {
        Some("the work-group size is past what naga's targets accept on an axis (WebGPU devices allow 256 by default)".into())
    } else {
        None
    }
}

/// What no target can take from this info and stage, found from the declaration before any translator runs.
pub fn unsupported_everywhere(
    info: &ValidatedInfo,
    plan: &PipelinePlan,
    stage: Stage,
) -> Vec<String> {
    let mut out = Vec::new();
    if stage.is_ray_tracing() || plan.kind == PipelineKind::RayTracing {
        out.push(format!(
            "ray tracing ({stage} stage): WGSL, MSL, HLSL and OpenGL translation through naga has no ray-tracing stages"
        ));
    } else if naga_stage(stage).is_none() {
        out.push(format!(
            "the {stage} stage: naga reads no geometry or tessellation stages"
        ));
    }
    for (set, b) in plan.bindings() {
        match b.kind {
            DescriptorKind::UniformTexelBuffer | DescriptorKind::StorageTexelBuffer => out.push(format!(
                "texel buffer `{}` (set {set}, binding {}): naga reads no texel buffers; use a storage buffer",
                b.name, b.binding
            )),
            // An array even of one (`name[1]`, `name[N]` with N = 1): naga's SPIR-V reader takes no arrays of images.
            DescriptorKind::CombinedImageSampler | DescriptorKind::StorageImage
                if b.count > 1 || declared_array(info, &b.name) =>
            {
                out.push(format!(
                    "array of {} textures `{}` (set {set}, binding {}): binding arrays are not portable; declare one texture per binding",
                    b.count, b.name, b.binding
                ))
            }
            // Declared outside ray tracing, it is a ray query: glslang declares the capability even unused.
            DescriptorKind::AccelerationStructure if plan.kind != PipelineKind::RayTracing => out.push(format!(
                "acceleration structure `{}` (set {set}, binding {}): a ray query, which naga's SPIR-V reader does \
                 not take (SPV_KHR_ray_query)",
                b.name, b.binding
            )),
            DescriptorKind::UniformBuffer
            | DescriptorKind::StorageBuffer
            | DescriptorKind::SampledImage
            | DescriptorKind::Sampler
            | DescriptorKind::CombinedImageSampler
            | DescriptorKind::StorageImage
            | DescriptorKind::InputAttachment
            | DescriptorKind::AccelerationStructure => {}
        }
    }
    out
}

/// Whether `info` declares the resource `name` (without its suffix) as an array.
fn declared_array(info: &ValidatedInfo, name: &str) -> bool {
    info.resources.iter().any(|r| {
        r.value
            .split_name()
            .is_ok_and(|(base, size)| base == name && size != shader_info::ArraySize::Single)
    })
}

/// Storage buffers get the access the declaration gives them. glslang writes `readonly` as a decoration on each
/// block member, which naga's SPIR-V reader does not take from members, so a read-only buffer would come out
/// writable: a UAV (`u`) in HLSL where the map says an SRV (`t`), `read_write` in WGSL where a vertex stage may not
/// have one.
fn declared_access(module: &mut naga::Module, plan: &PipelinePlan) {
    for (_, g) in module.global_variables.iter_mut() {
        let (Some(rb), naga::AddressSpace::Storage { access }) = (&g.binding, &mut g.space) else {
            continue;
        };
        if let Some(b) = plan.targets.at(rb.group, rb.binding)
            && !b.writable
        {
            *access = naga::StorageAccess::LOAD;
        }
    }
}

/// Buffer blocks get the names they were declared with. The generated GLSL declares blocks without an instance
/// name (their members read as plain names there), so the SPIR-V's variables are nameless and naga would call
/// them `unnamed`, `unnamed_1`, … in every target: `cbuffer unnamed_1 : register(b0)` where the GLSL says
/// `view`. The resource's declared name comes from the plan, by binding; the push-constant block, which has no
/// declared name, gets OpenGL's uniform name ([`shader_info::GL_PUSH_CONSTANT_UNIFORM`]) so that every target
/// calls it the same. These are only the names naga starts from: its namer still makes each one unique and keeps
/// it off the target's keywords (a block named `sampler`, two blocks of one name).
fn declared_names(module: &mut naga::Module, plan: &PipelinePlan) {
    for (_, g) in module.global_variables.iter_mut() {
        if g.name.as_deref().is_some_and(|n| !n.is_empty()) {
            continue;
        }
        let declared = match (&g.binding, g.space) {
            (Some(rb), _) => plan
                .targets
                .at(rb.group, rb.binding)
                .map(|b| b.name.clone()),
            (None, naga::AddressSpace::Immediate) => {
                Some(shader_info::GL_PUSH_CONSTANT_UNIFORM.to_string())
            }
            (None, _) => None,
        };
        if declared.is_some() {
            g.name = declared;
        }
    }
}

impl Portable {
    /// Generates the portable GLSL of `stage` of `info`, compiles it for translation and parses it with naga.
    pub fn new(
        flow: &Flow,
        info: &ValidatedInfo,
        stage: Stage,
    ) -> Result<Portable, Vec<Diagnostic>> {
        let plan = flow.plan(info);
        let (_, module) = flow.portable(info, stage)?;
        let fail = |message: String, code: Code| {
            let mut d = Diagnostic::error(code, &info.name, message).stage(stage);
            if let Some(v) = info.variant_label() {
                d = d.variant(v);
            }
            vec![d]
        };
        let opts = naga::front::spv::Options {
            adjust_coordinate_space: flow.clip_space == crate::flow::ClipSpace::Vulkan,
            strict_capabilities: false,
            block_ctx_dump_prefix: None,
        };
        let words = module.spirv.clone();
        let parsed = catch_unwind(AssertUnwindSafe(|| {
            naga::front::spv::Frontend::new(words.iter().copied(), &opts).parse()
        }))
        .map_err(|_| {
            fail(
                format!(
                    "naga panicked reading the portable SPIR-V of `{}` ({stage}): a bug in naga",
                    info.key()
                ),
                Code::Internal,
            )
        })?
        .map_err(|e| {
            fail(
                format!("naga cannot read the portable SPIR-V: {e}"),
                Code::Translation,
            )
        })?;
        let mut parsed = parsed;
        // Unoptimized SPIR-V keeps what the stage never calls (the portable polyfills among it).
        naga::compact::compact(&mut parsed, naga::compact::KeepUnused::No);
        declared_access(&mut parsed, &plan);
        declared_names(&mut parsed, &plan);
        let module_info = validate(&parsed).map_err(|e| {
            fail(
                format!("naga rejects the portable module: {e}"),
                Code::Translation,
            )
        })?;
        let blocks = info
            .resources
            .iter()
            .filter_map(|r| {
                let layout = r.value.block_layout(flow.registry)?.ok()?;
                Some((r.value.set(), r.value.binding, layout))
            })
            .collect();
        Ok(Portable {
            key: info.key(),
            blocks,
            info: info.name.clone(),
            variant: info.variant_label().map(str::to_string),
            stage,
            plan,
            spirv: module.spirv.clone(),
            module: parsed,
            module_info,
            clip_space: flow.clip_space,
        })
    }

    pub(super) fn diagnostic(&self, target: Target, code: Code, message: String) -> Diagnostic {
        let mut d = Diagnostic::error(code, &self.info, message)
            .stage(self.stage)
            .item(format!("target {target}"));
        if let Some(v) = &self.variant {
            d = d.variant(v.clone());
        }
        d
    }

    /// The writable storage buffers and textures of a vertex stage, which WebGPU does not allow there (the module is
    /// compacted: every global left is used).
    fn vertex_storage_writes(&self) -> Vec<String> {
        use naga::{AddressSpace, ImageClass, StorageAccess, TypeInner};
        self.module
            .global_variables
            .iter()
            .filter(|(_, g)| {
                let buffer = matches!(g.space, AddressSpace::Storage { access } if access.contains(StorageAccess::STORE));
                let texture = matches!(
                    self.module.types[g.ty].inner,
                    TypeInner::Image { class: ImageClass::Storage { access, .. }, .. } if access.contains(StorageAccess::STORE)
                );
                buffer || texture
            })
            .map(|(_, g)| {
                format!(
                    "writable storage `{}` in the vertex stage (WebGPU allows no writable storage buffer or texture in \
                     vertex stages): write it from a compute pass",
                    g.name.as_deref().unwrap_or("?")
                )
            })
            .collect()
    }

    /// What the module uses that `target` cannot express (from the naga module: built-ins, types, functions).
    pub fn unsupported_on(&self, target: Target) -> Vec<String> {
        use naga::{Binding, BuiltIn, TypeInner};
        let mut out = Vec::new();
        let builtins = self.module.entry_points.iter().flat_map(|ep| {
            let args = ep.function.arguments.iter().map(|a| (&a.binding, a.ty));
            let result = ep.function.result.iter().map(|r| (&r.binding, r.ty));
            args.chain(result).flat_map(|(binding, ty)| {
                let mut v: Vec<BuiltIn> = Vec::new();
                if let Some(Binding::BuiltIn(b)) = binding {
                    v.push(*b);
                }
                if let TypeInner::Struct { members, .. } = &self.module.types[ty].inner {
                    v.extend(members.iter().filter_map(|m| match m.binding {
                        Some(Binding::BuiltIn(b)) => Some(b),
                        _ => None,
                    }));
                }
                v
            })
        });
        let builtins: Vec<BuiltIn> = builtins.collect();
        let noperspective = self.module.entry_points.iter().any(|ep| {
            let args = ep.function.arguments.iter().map(|a| (&a.binding, a.ty));
            let result = ep.function.result.iter().map(|r| (&r.binding, r.ty));
            args.chain(result).any(|(binding, ty)| {
                let linear = |b: &Option<Binding>| {
                    matches!(
                        b,
                        Some(Binding::Location {
                            interpolation: Some(naga::Interpolation::Linear),
                            ..
                        })
                    )
                };
                linear(binding)
                    || matches!(&self.module.types[ty].inner, TypeInner::Struct { members, .. }
                        if members.iter().any(|m| linear(&m.binding)))
            })
        });
        let has = |b: BuiltIn| builtins.contains(&b);
        let no_point_size = |api: &str| {
            format!(
                "gl_PointSize ({api} has no point size): draw points as quads expanded in the vertex stage"
            )
        };
        let no_point_coord = |api: &str| format!("gl_PointCoord ({api} has no point sprites)");
        match target {
            Target::Wgsl => {
                if has(BuiltIn::PointSize) {
                    out.push(no_point_size("WebGPU"));
                }
                if has(BuiltIn::BaseInstance) {
                    out.push(
                        "the draw's base instance (WebGPU has none: `instance_index` counts from the draw's first \
                         instance, so OpenGL's `gl_InstanceID` is not expressible; pass the first instance in a \
                         push constant and subtract it)"
                            .to_string(),
                    );
                }
                if has(BuiltIn::PointCoord) {
                    out.push(no_point_coord("WebGPU"));
                }
                out.extend(self.strides_wgsl_cannot_write());
                out.extend(self.offsets_wgsl_cannot_write());
                if self.stage == Stage::Vertex {
                    out.extend(self.vertex_storage_writes());
                }
            }
            Target::Hlsl => {
                if has(BuiltIn::PointSize) {
                    out.push(no_point_size("Direct3D"));
                }
                if has(BuiltIn::PointCoord) {
                    out.push(no_point_coord("Direct3D"));
                }
            }
            Target::Gles => {
                if noperspective {
                    out.push(
                        "noperspective interpolation (OpenGL ES has none): interpolate w-scaled values and divide in the fragment stage"
                            .to_string(),
                    );
                }
            }
            Target::Msl | Target::Gl => {}
        }
        let has_f64 = self.module.types.iter().any(|(_, t)| match t.inner {
            TypeInner::Scalar(s)
            | TypeInner::Vector { scalar: s, .. }
            | TypeInner::Matrix { scalar: s, .. } => {
                s.kind == naga::ScalarKind::Float && s.width == 8
            }
            _ => false,
        });
        if has_f64 && matches!(target, Target::Wgsl | Target::Msl | Target::Gles) {
            out.push(format!("64-bit floats ({target} has no `double`)"));
        }
        out
    }

    /// Arrays laid out with a stride other than their element's own (std140 pads the elements of an array of
    /// scalars or two-component vectors to 16 bytes). A WGSL array's stride is always its element's size rounded
    /// to its alignment and naga's WGSL writer does not wrap such elements, so the text it writes puts them 4 or 8
    /// bytes apart, which the uniform address space refuses and which is not the declared layout (found by the
    /// random layout corpus, `tests/tests/layout_corpus.rs`).
    fn strides_wgsl_cannot_write(&self) -> Option<String> {
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(self.module.to_ctx()).ok()?;
        self.module.types.iter().find_map(|(_, t)| match t.inner {
            naga::TypeInner::Array { base, stride, .. } if stride != layouter[base].to_stride() => {
                Some(format!(
                    "an array with a stride of {stride} bytes where its elements take {} (std140 pads the \
                     elements of an array of scalars or two-component vectors to 16 bytes): WGSL arrays cannot \
                     take an explicit stride; declare vec4 elements, or use a storage buffer (std430)",
                    layouter[base].to_stride()
                ))
            }
            _ => None,
        })
    }

    /// Struct members at an offset WGSL's layout rules do not give them. naga's WGSL writer writes no `@align` or
    /// `@size`, so each member lands at its natural WGSL offset; where the declaration put it further (std140
    /// aligns a struct member to 16 bytes, so a small struct after a `vec3` sits at 32 where WGSL puts it at 28),
    /// the text would have another layout — which the uniform address space refuses (found by the random layout
    /// corpus).
    fn offsets_wgsl_cannot_write(&self) -> Option<String> {
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(self.module.to_ctx()).ok()?;
        self.module.types.iter().find_map(|(_, t)| {
            let naga::TypeInner::Struct { members, .. } = &t.inner else {
                return None;
            };
            let mut end = 0;
            for m in members {
                let natural = layouter[m.ty].alignment.round_up(end);
                // An array whose stride WGSL cannot write has its own reason (`strides_wgsl_cannot_write`).
                let odd_stride = matches!(self.module.types[m.ty].inner,
                    naga::TypeInner::Array { base, stride, .. } if stride != layouter[base].to_stride());
                if m.offset != natural && !odd_stride {
                    return Some(format!(
                        "member `{}` of `{}` at byte {} where WGSL's layout rules put it at {natural} (std140 \
                         aligns a struct member to 16 bytes): WGSL text without explicit offsets cannot hold that \
                         layout; make the member before it end on a 16-byte boundary, or use a storage buffer \
                         (std430)",
                        m.name.as_deref().unwrap_or("?"),
                        t.name.as_deref().unwrap_or("?"),
                        m.offset
                    ));
                }
                end = m.offset + layouter[m.ty].size;
            }
            None
        })
    }

    /// The specialization constants the module still uses (the translator drops the others), in id order.
    pub fn used_spec_constants(&self) -> Vec<&SpecConstantPlan> {
        self.plan
            .specialization_constants
            .iter()
            .filter(|c| {
                self.module
                    .overrides
                    .iter()
                    .any(|(_, o)| o.id == Some(c.id as u16))
            })
            .collect()
    }

    /// The key a translation is cached by: the portable module, the target, and for the targets that bake
    /// specialization constants (HLSL, OpenGL) their values. An error for values the declaration does not take.
    ///
    /// ```no_run
    /// # fn f(p: &shader_info_gpu::cross::Portable) {
    /// use shader_info_gpu::cross::Target;
    /// use shader_info::SpecValues;
    /// let a = p.cache_key(Target::Hlsl, &SpecValues::default().set("N", 1u32)).unwrap();
    /// let b = p.cache_key(Target::Hlsl, &SpecValues::default().set("N", 2u32)).unwrap();
    /// assert_ne!(a, b); // baked: one translation per value
    /// # }
    /// ```
    pub fn cache_key(&self, target: Target, values: &SpecValues) -> Result<u128, String> {
        let resolved = values.resolve(&self.plan.specialization_constants)?;
        let mut bytes: Vec<u8> = bytemuck::cast_slice::<u32, u8>(&self.spirv).to_vec();
        bytes.extend_from_slice(target.name().as_bytes());
        // What else decides the text: the translator's and this library's versions, the clip space the module
        // was read in, and the binding map (a declared sampler state is in it, not in the SPIR-V).
        bytes.extend_from_slice(crate::disk_cache::TOOL_VERSIONS.as_bytes());
        bytes.extend_from_slice(&super::persist::OUTPUT_REVISION.to_le_bytes());
        bytes
            .extend_from_slice(format!("{:?} {:?}", self.clip_space, self.plan.targets).as_bytes());
        if !spec::pipeline_time(target) {
            for c in self.used_spec_constants() {
                if let Some((_, v)) = resolved.iter().find(|(d, _)| d.id == c.id) {
                    bytes.extend_from_slice(&c.id.to_le_bytes());
                    bytes.extend_from_slice(&v.to_bits().to_le_bytes());
                }
            }
        }
        Ok(xxhash_rust::xxh3::xxh3_128(&bytes))
    }

    /// The module with the used constants' `values` folded in (for the targets that bake them), and how they
    /// were applied.
    #[allow(clippy::type_complexity)]
    pub(super) fn with_constants(
        &self,
        values: &[(&SpecConstantPlan, ConstValue)],
    ) -> Result<
        (
            std::borrow::Cow<'_, naga::Module>,
            std::borrow::Cow<'_, ModuleInfo>,
        ),
        String,
    > {
        let mut constants = naga::back::PipelineConstants::default();
        for c in self.used_spec_constants() {
            if let Some((_, v)) = values.iter().find(|(d, _)| d.id == c.id) {
                let value = match *v {
                    ConstValue::Bool(b) => f64::from(u8::from(b)),
                    ConstValue::Int(i) => f64::from(i),
                    ConstValue::Uint(u) => f64::from(u),
                    ConstValue::Float(f) => f64::from(f),
                };
                constants.insert(c.id.to_string(), value);
            }
        }
        naga::back::pipeline_constants::process_overrides(
            &self.module,
            &self.module_info,
            None,
            &constants,
        )
        .map_err(|e| format!("cannot apply the specialization constants: {e}"))
    }

    /// The naga module (for checks).
    pub fn module(&self) -> &naga::Module {
        &self.module
    }

    /// The declared layout of the buffer block at (set, binding).
    pub fn block_layout(&self, set: u32, binding: u32) -> Option<&BlockLayout> {
        self.blocks
            .iter()
            .find(|(s, b, _)| *s == set && *b == binding)
            .map(|(_, _, l)| l)
    }
}
