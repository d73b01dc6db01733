//! The WebGPU limits a WGSL module needs above the defaults.
//!
//! Tint compiles a module without knowing the device; whether a pipeline of it can be made is decided by the
//! device's limits. Every WebGPU implementation gives a device that asks for nothing more the specification's
//! default limits (16 sampled textures a stage, 8 storage buffers, 256 invocations a work group, …); a module past
//! one of them fails to make a pipeline on such a device (Dawn: "exceeds the maximum"), however valid its text.
//! Vulkan's minimums are larger (1,024 invocations; 16 KiB of shared memory as here), so a shader written for it
//! can pass every check and still need more. Each WGSL translation lists what its module needs above the defaults
//! (`Translation::webgpu_limits`), so that a web renderer asks for those limits when it requests its device
//! (`requiredLimits`), or learns before shipping that an adapter must offer them. The static pass writes the list
//! beside each WGSL file (`webgpu_limits` in the reflection JSON).

use std::collections::BTreeMap;

/// WebGPU's default limits that a module's text decides, by their WebGPU names: what every WebGPU device gets when
/// it asks for nothing more (Dawn refuses a pipeline past them with these very numbers).
///
/// ```
/// use shader_info_gpu::cross::webgpu_limits::DEFAULTS;
/// let invocations = DEFAULTS.iter().find(|(n, _)| *n == "maxComputeInvocationsPerWorkgroup");
/// assert_eq!(invocations, Some(&("maxComputeInvocationsPerWorkgroup", 256)));
/// ```
pub const DEFAULTS: [(&str, u64); 14] = [
    ("maxSampledTexturesPerShaderStage", 16),
    ("maxSamplersPerShaderStage", 16),
    ("maxStorageBuffersPerShaderStage", 8),
    ("maxStorageTexturesPerShaderStage", 4),
    ("maxUniformBuffersPerShaderStage", 12),
    ("maxUniformBufferBindingSize", 65_536),
    ("maxVertexAttributes", 16),
    ("maxInterStageShaderVariables", 16),
    ("maxColorAttachments", 8),
    ("maxComputeWorkgroupStorageSize", 16_384),
    ("maxComputeInvocationsPerWorkgroup", 256),
    ("maxComputeWorkgroupSizeX", 256),
    ("maxComputeWorkgroupSizeY", 256),
    ("maxComputeWorkgroupSizeZ", 64),
];

/// The limits the module's first entry point needs above [`DEFAULTS`], by name: empty where every WebGPU device
/// can make its pipeline. `info` is the module's validation.
pub(crate) fn required(
    module: &naga::Module,
    info: &naga::valid::ModuleInfo,
) -> BTreeMap<String, u64> {
    let mut need: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut at_least = |name: &'static str, n: u64| {
        let e = need.entry(name).or_insert(0);
        *e = (*e).max(n);
    };
    let Some(ep) = module.entry_points.first() else {
        return BTreeMap::new();
    };
    let uses = info.get_entry_point(0);
    let mut layouter = naga::proc::Layouter::default();
    let laid_out = layouter.update(module.to_ctx()).is_ok();
    let size = |ty: naga::Handle<naga::Type>| {
        if laid_out {
            u64::from(layouter[ty].size)
        } else {
            0
        }
    };
    let mut count: BTreeMap<&'static str, u64> = BTreeMap::new();
    let mut workgroup = 0;
    for (h, g) in module.global_variables.iter() {
        if uses[h].is_empty() {
            continue;
        }
        // A binding array counts as its length.
        let (ty, n) = match module.types[g.ty].inner {
            naga::TypeInner::BindingArray {
                base,
                size: naga::ArraySize::Constant(n),
            } => (base, u64::from(n.get())),
            _ => (g.ty, 1),
        };
        let class = match (g.space, &module.types[ty].inner) {
            (naga::AddressSpace::Uniform, _) => {
                at_least("maxUniformBufferBindingSize", size(ty));
                Some("maxUniformBuffersPerShaderStage")
            }
            (naga::AddressSpace::Storage { .. }, _) => Some("maxStorageBuffersPerShaderStage"),
            (
                _,
                naga::TypeInner::Image {
                    class: naga::ImageClass::Storage { .. },
                    ..
                },
            ) => Some("maxStorageTexturesPerShaderStage"),
            (_, naga::TypeInner::Image { .. }) => Some("maxSampledTexturesPerShaderStage"),
            (_, naga::TypeInner::Sampler { .. }) => Some("maxSamplersPerShaderStage"),
            (naga::AddressSpace::WorkGroup, _) => {
                workgroup += size(ty).next_multiple_of(16);
                None
            }
            _ => None,
        };
        if let Some(class) = class {
            *count.entry(class).or_insert(0) += n;
        }
    }
    for (class, n) in count {
        at_least(class, n);
    }
    // User-defined inputs and outputs: by location, each location below the limit.
    let locations = |binding: &Option<naga::Binding>, ty: naga::Handle<naga::Type>| -> u64 {
        let of = |b: &Option<naga::Binding>| match b {
            Some(naga::Binding::Location { location, .. }) => u64::from(*location) + 1,
            _ => 0,
        };
        match &module.types[ty].inner {
            naga::TypeInner::Struct { members, .. } if binding.is_none() => {
                members.iter().map(|m| of(&m.binding)).max().unwrap_or(0)
            }
            _ => of(binding),
        }
    };
    let inputs = ep
        .function
        .arguments
        .iter()
        .map(|a| locations(&a.binding, a.ty))
        .max()
        .unwrap_or(0);
    let outputs = ep
        .function
        .result
        .as_ref()
        .map_or(0, |r| locations(&r.binding, r.ty));
    match ep.stage {
        naga::ShaderStage::Vertex => {
            at_least("maxVertexAttributes", inputs);
            at_least("maxInterStageShaderVariables", outputs);
        }
        naga::ShaderStage::Fragment => {
            at_least("maxInterStageShaderVariables", inputs);
            at_least("maxColorAttachments", outputs);
        }
        naga::ShaderStage::Compute => {
            // Sizes set by overrides are known only at pipeline creation: not counted.
            let [x, y, z] = ep.workgroup_size.map(u64::from);
            at_least("maxComputeWorkgroupSizeX", x);
            at_least("maxComputeWorkgroupSizeY", y);
            at_least("maxComputeWorkgroupSizeZ", z);
            at_least("maxComputeInvocationsPerWorkgroup", x * y * z);
            at_least("maxComputeWorkgroupStorageSize", workgroup);
        }
        _ => {}
    }
    DEFAULTS
        .iter()
        .filter_map(|(name, default)| {
            let n = *need.get(name)?;
            (n > *default).then(|| (name.to_string(), n))
        })
        .collect()
}
