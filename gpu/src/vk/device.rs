//! The headless Vulkan context: loader, instance (Vulkan 1.3), optional validation with a counting messenger,
//! physical-device choice, and a device with one graphics+compute queue.

use super::{VkError, VkResult};
use ash::vk;
use shader_info::SubpassMode;
use std::ffi::{CStr, CString, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// `VK_EXT_graphics_pipeline_library` and the extension it needs (ash names no constant for either).
const GRAPHICS_PIPELINE_LIBRARY: &CStr = c"VK_EXT_graphics_pipeline_library";
const PIPELINE_LIBRARY: &CStr = c"VK_KHR_pipeline_library";

/// How to create a [`VkContext`].
///
/// ```
/// use shader_info_gpu::vk::ContextOptions;
/// let opts = ContextOptions { validation: true, ..ContextOptions::default() };
/// assert!(opts.validation);
/// ```
#[derive(Clone, Debug)]
pub struct ContextOptions {
    /// Load the Khronos validation layer and count its warnings and errors. Default: on in debug builds, or when
    /// `SHADER_INFO_VALIDATION=1`; `SHADER_INFO_VALIDATION=0` turns it off.
    pub validation: bool,
    /// Pick the physical device whose name contains this text (case-insensitive). Default: the
    /// `SHADER_INFO_DEVICE` environment variable; when unset, a real GPU first and a CPU driver (lavapipe) last.
    pub device_name: Option<String>,
    /// The application name given to the driver.
    pub app_name: String,
}

impl Default for ContextOptions {
    fn default() -> Self {
        let validation = match std::env::var("SHADER_INFO_VALIDATION").as_deref() {
            Ok("0") | Ok("false") => false,
            Ok(_) => true,
            Err(_) => cfg!(debug_assertions),
        };
        ContextOptions {
            validation,
            device_name: std::env::var("SHADER_INFO_DEVICE")
                .ok()
                .filter(|s| !s.is_empty()),
            app_name: "shader-info".into(),
        }
    }
}

/// One warning or error reported by the validation layer (or another layer/driver through debug utils).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValidationMessage {
    pub severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    /// The VUID or message id name, when the layer gave one.
    pub id_name: String,
    pub text: String,
}

impl std::fmt::Display for ValidationMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{:?}] {}: {}", self.severity, self.id_name, self.text)
    }
}

/// What the messenger callback writes into. Boxed so its address stays fixed while the messenger lives.
#[derive(Default)]
struct MessengerState {
    count: AtomicUsize,
    messages: Mutex<Vec<ValidationMessage>>,
}

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user: *mut c_void,
) -> vk::Bool32 {
    // Only warnings and errors are counted: INFO/VERBOSE is ~100 loader lines per run (TOOLCHAIN.md).
    if !severity.intersects(
        vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
            | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
    ) || user.is_null()
    {
        return vk::FALSE;
    }
    // SAFETY: `user` is the `MessengerState` box the context created and keeps alive until after the messenger is
    // destroyed; `data`, when not null, is valid for the duration of this callback (Vulkan spec).
    let (state, text, id_name) = unsafe {
        let state = &*(user as *const MessengerState);
        let (text, id) = match data.as_ref() {
            Some(d) => (
                d.message_as_c_str()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
                d.message_id_name_as_c_str()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            ),
            None => (String::new(), String::new()),
        };
        (state, text, id)
    };
    state.count.fetch_add(1, Ordering::SeqCst);
    if let Ok(mut m) = state.messages.lock() {
        m.push(ValidationMessage {
            severity,
            id_name,
            text,
        });
    }
    vk::FALSE
}

struct Debug {
    loader: ash::ext::debug_utils::Instance,
    messenger: vk::DebugUtilsMessengerEXT,
}

struct Inner {
    // Field order does not matter for destruction: `Drop for Inner` destroys in the right order explicitly.
    _entry: ash::Entry,
    instance: ash::Instance,
    debug: Option<Debug>,
    state: Box<MessengerState>,
    physical: vk::PhysicalDevice,
    properties: vk::PhysicalDeviceProperties,
    memory: vk::PhysicalDeviceMemoryProperties,
    device: ash::Device,
    queue_family: u32,
    queue: Mutex<vk::Queue>,
    device_name: String,
    ray_tracing: Option<RayTracingSupport>,
    subgroup: SubgroupSupport,
    /// The core features enabled at device creation.
    features: vk::PhysicalDeviceFeatures,
    /// Enabled features outside the core struct, by Vulkan name (`shaderOutputLayer`, …).
    optional: Vec<&'static str>,
    /// Every pipeline of this device is created through it; it can be saved and loaded
    /// ([`super::pipeline_cache`]).
    pipeline_cache: vk::PipelineCache,
}

/// Ray-tracing facts of a device that has `VK_KHR_ray_tracing_pipeline` (enabled at device creation).
#[derive(Clone, Copy, Debug)]
pub struct RayTracingSupport {
    pub shader_group_handle_size: u32,
    pub shader_group_handle_alignment: u32,
    pub shader_group_base_alignment: u32,
    pub max_ray_recursion_depth: u32,
    /// `maxPerStageDescriptorAccelerationStructures` and `maxDescriptorSetAccelerationStructures`.
    pub max_per_stage_acceleration_structures: u32,
    pub max_set_acceleration_structures: u32,
}

/// What the device's subgroups can do (`VkPhysicalDeviceSubgroupProperties`, core in Vulkan 1.1): a module using
/// subgroup operations is checked against it before its pipeline is created.
#[derive(Clone, Copy, Debug)]
pub struct SubgroupSupport {
    /// Invocations per subgroup.
    pub size: u32,
    /// The stages subgroup operations may be used in.
    pub stages: vk::ShaderStageFlags,
    /// The classes of operations supported, as `VkSubgroupFeatureFlags` bits (see
    /// [`crate::reflect::SubgroupOps`]).
    pub operations: vk::SubgroupFeatureFlags,
}

impl Drop for Inner {
    fn drop(&mut self) {
        // SAFETY: every object created from this device holds a `VkContext` clone, so when the last one is gone
        // nothing else refers to the device; waiting for idle makes sure no submitted work still uses it. The
        // messenger is destroyed before the instance and before its user-data box (dropped after this body).
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device
                .destroy_pipeline_cache(self.pipeline_cache, None);
            self.device.destroy_device(None);
            if let Some(d) = self.debug.take() {
                d.loader.destroy_debug_utils_messenger(d.messenger, None);
            }
            self.instance.destroy_instance(None);
        }
    }
}

/// A headless Vulkan 1.3 device with one graphics+compute queue. Cheap to clone (an `Arc`); every object created
/// from it keeps a clone, so the device is destroyed last.
///
/// ```no_run
/// use shader_info_gpu::vk::{ContextOptions, VkContext};
/// let ctx = VkContext::new(&ContextOptions { validation: true, ..Default::default() })?;
/// // … create pipelines, render …
/// assert_eq!(ctx.validation_count(), 0, "{:#?}", ctx.validation_messages());
/// # Ok::<(), shader_info_gpu::vk::VkError>(())
/// ```
#[derive(Clone)]
pub struct VkContext {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for VkContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VkContext")
            .field("device", &self.inner.device_name)
            .field("validation", &self.inner.debug.is_some())
            .finish()
    }
}

fn device_type_rank(t: vk::PhysicalDeviceType) -> u32 {
    // A real GPU first; lavapipe (CPU) is the fallback.
    match t {
        vk::PhysicalDeviceType::DISCRETE_GPU => 0,
        vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
        vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
        vk::PhysicalDeviceType::CPU => 3,
        _ => 4,
    }
}

struct Candidate {
    physical: vk::PhysicalDevice,
    properties: vk::PhysicalDeviceProperties,
    name: String,
    queue_family: u32,
    ray_tracing: bool,
}

const RT_EXTENSIONS: [&CStr; 3] = [
    ash::khr::ray_tracing_pipeline::NAME,
    ash::khr::acceleration_structure::NAME,
    ash::khr::deferred_host_operations::NAME,
];

impl VkContext {
    /// Loads Vulkan, creates the instance and picks and opens a device.
    ///
    /// Fails with [`VkError::NoVulkan`] (saying what to install) when there is no loader or no driver.
    pub fn new(opts: &ContextOptions) -> VkResult<VkContext> {
        // SAFETY: loading the system loader library runs its initialisers; libvulkan is designed to be loaded this
        // way and we keep the `Entry` (and with it the library) alive for as long as the instance lives.
        let entry = unsafe { ash::Entry::load() }.map_err(|e| VkError::NoVulkan {
            reason: format!("cannot load the Vulkan loader (libvulkan.so.1): {e}"),
        })?;
        let layer_version = validation_layer_version(&entry, opts)?;
        let state = Box::<MessengerState>::default();
        let (instance, mut guard) = create_instance(&entry, opts, &state)?;
        let chosen = choose_device(&instance, opts.device_name.as_deref())?;
        // The validation layer's own header version: an extension newer than it is not validated (the layer says
        // so and reports its structures as unknown), so a validated context leaves such extensions off.
        let layer_knows = |header: u32| layer_version.is_none_or(|v| v >= header);
        let enabled = Enabled::probe(&instance, &chosen, layer_knows);
        let (device, queue) = enabled.create_device(&instance, &chosen)?;
        // SAFETY: a plain create call on the new device; the create info borrows nothing.
        let pipeline_cache = match unsafe {
            device.create_pipeline_cache(&vk::PipelineCacheCreateInfo::default(), None)
        } {
            Ok(c) => c,
            Err(e) => {
                // SAFETY: nothing was created from the device yet.
                unsafe { device.destroy_device(None) };
                return Err(VkError::call("vkCreatePipelineCache")(e));
            }
        };
        // SAFETY: `chosen.physical` was enumerated from this instance.
        let memory = unsafe { instance.get_physical_device_memory_properties(chosen.physical) };
        let ray_tracing = chosen
            .ray_tracing
            .then(|| ray_tracing_support(&instance, chosen.physical));
        let subgroup = subgroup_support(&instance, chosen.physical);
        let debug = guard.debug.take();
        guard.instance = None;
        Ok(VkContext {
            inner: Arc::new(Inner {
                _entry: entry,
                instance,
                debug,
                state,
                physical: chosen.physical,
                properties: chosen.properties,
                memory,
                device,
                queue_family: chosen.queue_family,
                queue: Mutex::new(queue),
                device_name: chosen.name,
                ray_tracing,
                subgroup,
                features: enabled.core,
                optional: enabled.optional,
                pipeline_cache,
            }),
        })
    }

    /// The device's pipeline cache: the library creates every pipeline through it, so pipelines a previous run
    /// saved ([`super::pipeline_cache::save`]) and this one loaded are created warm.
    pub fn pipeline_cache(&self) -> vk::PipelineCache {
        self.inner.pipeline_cache
    }

    /// The logical device, for raw `ash` calls.
    pub fn device(&self) -> &ash::Device {
        &self.inner.device
    }

    /// The instance, for raw `ash` calls and extension loaders.
    pub fn instance(&self) -> &ash::Instance {
        &self.inner.instance
    }

    /// The chosen physical device.
    pub fn physical_device(&self) -> vk::PhysicalDevice {
        self.inner.physical
    }

    /// Its properties (limits, type, name).
    pub fn properties(&self) -> &vk::PhysicalDeviceProperties {
        &self.inner.properties
    }

    /// Whether an optional feature a pipeline's state may need is enabled on this device, by its Vulkan name
    /// (`wideLines`, `fillModeNonSolid`, `depthBiasClamp`, `dualSrcBlend`, `independentBlend`, `geometryShader`,
    /// `tessellationShader`, `multiViewport`, `shaderClipDistance`, `samplerAnisotropy`, for code and resources
    /// `fragmentStoresAndAtomics`, `vertexPipelineStoresAndAtomics`, `imageCubeArray`, `shaderFloat64`,
    /// `shaderInt64`, `shaderInt16`, `shaderStorageImageMultisample`, `shaderStorageImageExtendedFormats`,
    /// `sampleRateShading`, `shaderImageGatherExtended`, `shaderCullDistance`, for declared builtins
    /// `shaderOutputLayer`, `shaderOutputViewportIndex`, `fragmentShaderBarycentric`, `shaderDrawParameters` and
    /// `dynamicRenderingLocalRead`; any other name: false).
    pub fn feature_enabled(&self, name: &str) -> bool {
        let f = &self.inner.features;
        let v = match name {
            "wideLines" => f.wide_lines,
            "fillModeNonSolid" => f.fill_mode_non_solid,
            "depthBiasClamp" => f.depth_bias_clamp,
            "dualSrcBlend" => f.dual_src_blend,
            "independentBlend" => f.independent_blend,
            "geometryShader" => f.geometry_shader,
            "tessellationShader" => f.tessellation_shader,
            "multiViewport" => f.multi_viewport,
            "shaderClipDistance" => f.shader_clip_distance,
            "shaderTessellationAndGeometryPointSize" => {
                f.shader_tessellation_and_geometry_point_size
            }
            "samplerAnisotropy" => f.sampler_anisotropy,
            "fragmentStoresAndAtomics" => f.fragment_stores_and_atomics,
            "vertexPipelineStoresAndAtomics" => f.vertex_pipeline_stores_and_atomics,
            "imageCubeArray" => f.image_cube_array,
            "shaderFloat64" => f.shader_float64,
            "shaderInt64" => f.shader_int64,
            "shaderInt16" => f.shader_int16,
            "shaderStorageImageMultisample" => f.shader_storage_image_multisample,
            "shaderStorageImageExtendedFormats" => f.shader_storage_image_extended_formats,
            "sampleRateShading" => f.sample_rate_shading,
            "shaderImageGatherExtended" => f.shader_image_gather_extended,
            "shaderCullDistance" => f.shader_cull_distance,
            other => vk::Bool32::from(self.inner.optional.contains(&other)),
        };
        v == vk::TRUE
    }

    /// How this device reads subpass inputs: [`SubpassMode::LocalRead`] where `VK_KHR_dynamic_rendering_local_read`
    /// is supported (it is then enabled), else [`SubpassMode::Emulated`]. With validation on, the extension is
    /// enabled only when the validation layer is recent enough to validate it (header 1.3.276). A
    /// [`super::ShaderLibrary`] builds its pipelines in this mode unless told otherwise.
    ///
    /// ```no_run
    /// let Some(ctx) = shader_info_gpu::vk::testing::test_context() else { return };
    /// println!("{} reads subpass inputs {:?}", ctx.device_name(), ctx.subpass_mode());
    /// ```
    pub fn subpass_mode(&self) -> SubpassMode {
        if self.feature_enabled("dynamicRenderingLocalRead") {
            SubpassMode::LocalRead
        } else {
            SubpassMode::Emulated
        }
    }

    /// The device name, e.g. `llvmpipe (LLVM 15.0.6, 256 bits)` or `NVIDIA H200`.
    pub fn device_name(&self) -> &str {
        &self.inner.device_name
    }

    /// True when the device is a CPU implementation (lavapipe).
    pub fn is_cpu(&self) -> bool {
        self.inner.properties.device_type == vk::PhysicalDeviceType::CPU
    }

    /// The queue family of the context's one queue: graphics and compute.
    pub fn queue_family(&self) -> u32 {
        self.inner.queue_family
    }

    /// Ray-tracing facts, when the device supports `VK_KHR_ray_tracing_pipeline` (enabled then).
    pub fn ray_tracing(&self) -> Option<RayTracingSupport> {
        self.inner.ray_tracing
    }

    /// What the device's subgroups support.
    pub fn subgroup(&self) -> SubgroupSupport {
        self.inner.subgroup
    }

    /// True when validation is on.
    pub fn validation_enabled(&self) -> bool {
        self.inner.debug.is_some()
    }

    /// Number of warnings and errors reported so far.
    pub fn validation_count(&self) -> usize {
        self.inner.state.count.load(Ordering::SeqCst)
    }

    /// The warnings and errors reported so far, in order.
    pub fn validation_messages(&self) -> Vec<ValidationMessage> {
        self.inner
            .state
            .messages
            .lock()
            .map(|m| m.clone())
            .unwrap_or_default()
    }

    /// A memory type index with `flags` among those `type_bits` allows.
    pub fn memory_type(&self, type_bits: u32, flags: vk::MemoryPropertyFlags) -> Option<u32> {
        let m = &self.inner.memory;
        (0..m.memory_type_count).find(|&i| {
            type_bits & (1 << i) != 0 && m.memory_types[i as usize].property_flags.contains(flags)
        })
    }

    /// Waits until the device has finished all work.
    pub fn wait_idle(&self) -> VkResult<()> {
        // SAFETY: the queue lock is held so no submission races the wait (vkDeviceWaitIdle needs every queue
        // externally synchronized).
        let _q = self.inner.queue.lock().unwrap_or_else(|p| p.into_inner());
        unsafe { self.inner.device.device_wait_idle() }.map_err(VkError::call("vkDeviceWaitIdle"))
    }

    /// Records commands with `record`, submits them and waits for them to finish. Meant for setup, tests and
    /// tools, not for frame loops (it creates and destroys a command pool and a fence each call).
    ///
    /// ```no_run
    /// # let ctx = shader_info_gpu::vk::VkContext::new(&Default::default())?;
    /// ctx.submit_and_wait(|device, cmd| {
    ///     // SAFETY (example): `cmd` is in the recording state for the duration of the closure.
    ///     unsafe { device.cmd_dispatch(cmd, 1, 1, 1) };
    /// })?;
    /// # Ok::<(), shader_info_gpu::vk::VkError>(())
    /// ```
    pub fn submit_and_wait(
        &self,
        record: impl FnOnce(&ash::Device, vk::CommandBuffer),
    ) -> VkResult<()> {
        let d = &self.inner.device;
        // SAFETY: the pool, command buffer and fence are created, used and destroyed inside this function; the
        // queue is externally synchronized by its mutex; we wait on the fence before destroying anything.
        unsafe {
            let pool = d
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default()
                        .queue_family_index(self.inner.queue_family)
                        .flags(vk::CommandPoolCreateFlags::TRANSIENT),
                    None,
                )
                .map_err(VkError::call("vkCreateCommandPool"))?;
            let result = (|| {
                let cmd = d
                    .allocate_command_buffers(
                        &vk::CommandBufferAllocateInfo::default()
                            .command_pool(pool)
                            .level(vk::CommandBufferLevel::PRIMARY)
                            .command_buffer_count(1),
                    )
                    .map_err(VkError::call("vkAllocateCommandBuffers"))?[0];
                d.begin_command_buffer(
                    cmd,
                    &vk::CommandBufferBeginInfo::default()
                        .flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT),
                )
                .map_err(VkError::call("vkBeginCommandBuffer"))?;
                record(d, cmd);
                d.end_command_buffer(cmd)
                    .map_err(VkError::call("vkEndCommandBuffer"))?;
                let fence = d
                    .create_fence(&vk::FenceCreateInfo::default(), None)
                    .map_err(VkError::call("vkCreateFence"))?;
                let cmd_info = [vk::CommandBufferSubmitInfo::default().command_buffer(cmd)];
                let submit = [vk::SubmitInfo2::default().command_buffer_infos(&cmd_info)];
                let submitted = {
                    let q = self.inner.queue.lock().unwrap_or_else(|p| p.into_inner());
                    d.queue_submit2(*q, &submit, fence)
                };
                let waited = submitted
                    .map_err(VkError::call("vkQueueSubmit2"))
                    .and_then(|_| {
                        d.wait_for_fences(&[fence], true, u64::MAX)
                            .map_err(VkError::call("vkWaitForFences"))
                    });
                d.destroy_fence(fence, None);
                waited
            })();
            d.destroy_command_pool(pool, None);
            result
        }
    }
}

/// The validation layer's spec version when `opts` asks for validation (an error when it is not installed).
fn validation_layer_version(entry: &ash::Entry, opts: &ContextOptions) -> VkResult<Option<u32>> {
    if !opts.validation {
        return Ok(None);
    }
    // SAFETY: plain enumeration call on a loaded entry.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }
        .map_err(VkError::call("vkEnumerateInstanceLayerProperties"))?;
    layers
        .iter()
        .find(|l| l.layer_name_as_c_str().ok() == Some(VALIDATION_LAYER))
        .map(|l| Some(l.spec_version))
        .ok_or(VkError::NoValidationLayer)
}

/// The messenger that counts validation warnings and errors into `state`.
fn messenger_info(state: &MessengerState) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
    vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(
            vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
        )
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
        )
        .pfn_user_callback(Some(debug_callback))
        .user_data(state as *const MessengerState as *mut c_void)
}

/// An instance (and its messenger) that is destroyed on drop unless disarmed: what `VkContext::new` made so far
/// when a later step fails.
struct InstanceGuard {
    instance: Option<ash::Instance>,
    debug: Option<Debug>,
}

impl Drop for InstanceGuard {
    fn drop(&mut self) {
        // SAFETY: nothing else was created from the instance when the guard is still armed.
        unsafe {
            if let Some(d) = self.debug.take() {
                d.loader.destroy_debug_utils_messenger(d.messenger, None);
            }
            if let Some(i) = self.instance.take() {
                i.destroy_instance(None);
            }
        }
    }
}

/// The Vulkan 1.3 instance, with the validation layer and a messenger writing into `state` when asked for, and
/// the guard that destroys both if a later step fails.
fn create_instance(
    entry: &ash::Entry,
    opts: &ContextOptions,
    state: &MessengerState,
) -> VkResult<(ash::Instance, InstanceGuard)> {
    let app_name = CString::new(opts.app_name.replace('\0', "")).unwrap_or_default();
    let app = vk::ApplicationInfo::default()
        .application_name(&app_name)
        .engine_name(c"shader-info")
        .api_version(vk::API_VERSION_1_3);
    let mut layer_ptrs = Vec::new();
    let mut ext_ptrs = Vec::new();
    if opts.validation {
        layer_ptrs.push(VALIDATION_LAYER.as_ptr());
        ext_ptrs.push(ash::ext::debug_utils::NAME.as_ptr());
    }
    let mut chained = messenger_info(state);
    let mut create = vk::InstanceCreateInfo::default()
        .application_info(&app)
        .enabled_layer_names(&layer_ptrs)
        .enabled_extension_names(&ext_ptrs);
    if opts.validation {
        // Chained so that instance creation and destruction are validated too.
        create = create.push_next(&mut chained);
    }
    // SAFETY: every pointer in `create` refers to locals that outlive the call.
    let instance = unsafe { entry.create_instance(&create, None) }.map_err(|e| match e {
        vk::Result::ERROR_INCOMPATIBLE_DRIVER | vk::Result::ERROR_INITIALIZATION_FAILED => {
            VkError::NoVulkan {
                reason: format!("the loader found no Vulkan 1.3 driver ({e})"),
            }
        }
        e => VkError::Call {
            call: "vkCreateInstance",
            result: e,
        },
    })?;
    let mut guard = InstanceGuard {
        instance: Some(instance.clone()),
        debug: None,
    };
    if opts.validation {
        let loader = ash::ext::debug_utils::Instance::new(entry, &instance);
        // SAFETY: the info points at `state`, which the context keeps alive past the messenger.
        let messenger =
            unsafe { loader.create_debug_utils_messenger(&messenger_info(state), None) }
                .map_err(VkError::call("vkCreateDebugUtilsMessengerEXT"))?;
        guard.debug = Some(Debug { loader, messenger });
    }
    Ok((instance, guard))
}

/// What the context enables on its device: the core features render state and builtins may need, and the
/// optional features and extensions (each where the device supports it), probed once.
struct Enabled {
    core: vk::PhysicalDeviceFeatures,
    /// Names of the optional features enabled, for [`VkContext::feature_enabled`].
    optional: Vec<&'static str>,
    maintenance4: bool,
    draw_parameters: bool,
    output_layer: bool,
    output_viewport_index: bool,
    barycentric: bool,
    local_read: bool,
    graphics_pipeline_library: bool,
}

impl Enabled {
    fn probe(
        instance: &ash::Instance,
        chosen: &Candidate,
        layer_knows: impl Fn(u32) -> bool,
    ) -> Enabled {
        // SAFETY: plain query on a physical device of this instance.
        let supported = unsafe { instance.get_physical_device_features(chosen.physical) };
        let on = |f: vk::Bool32| f == vk::TRUE;
        // Render state may need these (declared state is checked against them before a pipeline is created);
        // `gl_ClipDistance` (the mesh ubershader's clip plane) needs `shaderClipDistance`
        // (VUID-VkShaderModuleCreateInfo-pCode-01091).
        let core = vk::PhysicalDeviceFeatures::default()
            .shader_clip_distance(on(supported.shader_clip_distance))
            .geometry_shader(on(supported.geometry_shader))
            .tessellation_shader(on(supported.tessellation_shader))
            .wide_lines(on(supported.wide_lines))
            .fill_mode_non_solid(on(supported.fill_mode_non_solid))
            .depth_bias_clamp(on(supported.depth_bias_clamp))
            .dual_src_blend(on(supported.dual_src_blend))
            .independent_blend(on(supported.independent_blend))
            .multi_viewport(on(supported.multi_viewport))
            .shader_tessellation_and_geometry_point_size(on(
                supported.shader_tessellation_and_geometry_point_size
            ))
            .sampler_anisotropy(on(supported.sampler_anisotropy))
            // What declared resources and the code may need beyond that (each checked per module where the
            // device lacks it, `vk::library`'s feature check): writes to storage buffers and images outside
            // compute (order-independent transparency, picking, counters), cube-map arrays, doubles, 64- and
            // 16-bit integers, multisampled and extended-format storage images, per-sample shading, gather
            // offsets, dynamically indexed descriptor arrays, cull distances.
            .fragment_stores_and_atomics(on(supported.fragment_stores_and_atomics))
            .vertex_pipeline_stores_and_atomics(on(supported.vertex_pipeline_stores_and_atomics))
            .image_cube_array(on(supported.image_cube_array))
            .shader_float64(on(supported.shader_float64))
            .shader_int64(on(supported.shader_int64))
            .shader_int16(on(supported.shader_int16))
            .shader_storage_image_multisample(on(supported.shader_storage_image_multisample))
            .shader_storage_image_extended_formats(on(
                supported.shader_storage_image_extended_formats
            ))
            .sample_rate_shading(on(supported.sample_rate_shading))
            .shader_image_gather_extended(on(supported.shader_image_gather_extended))
            .shader_cull_distance(on(supported.shader_cull_distance))
            .shader_sampled_image_array_dynamic_indexing(on(
                supported.shader_sampled_image_array_dynamic_indexing
            ))
            .shader_storage_image_array_dynamic_indexing(on(
                supported.shader_storage_image_array_dynamic_indexing
            ))
            .shader_uniform_buffer_array_dynamic_indexing(on(
                supported.shader_uniform_buffer_array_dynamic_indexing
            ))
            .shader_storage_buffer_array_dynamic_indexing(on(
                supported.shader_storage_buffer_array_dynamic_indexing
            ));
        // SAFETY: plain query on a physical device of this instance.
        let extensions = unsafe { instance.enumerate_device_extension_properties(chosen.physical) }
            .unwrap_or_default();
        let has_ext = |name: &CStr| {
            extensions
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(name))
        };
        let has_barycentric_ext = has_ext(ash::khr::fragment_shader_barycentric::NAME);
        // VK_KHR_dynamic_rendering_local_read came with header 1.3.276.
        let has_local_read_ext = has_ext(ash::khr::dynamic_rendering_local_read::NAME)
            && layer_knows(vk::make_api_version(0, 1, 3, 276));
        let has_gpl_ext = has_ext(GRAPHICS_PIPELINE_LIBRARY) && has_ext(PIPELINE_LIBRARY);
        let mut s11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut s12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut s13 = vk::PhysicalDeviceVulkan13Features::default();
        let mut sgpl = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default();
        let mut sbary = vk::PhysicalDeviceFragmentShaderBarycentricFeaturesKHR::default();
        let mut slocal = vk::PhysicalDeviceDynamicRenderingLocalReadFeaturesKHR::default();
        {
            let mut query = vk::PhysicalDeviceFeatures2::default()
                .push_next(&mut s11)
                .push_next(&mut s12)
                .push_next(&mut s13);
            if has_barycentric_ext {
                query = query.push_next(&mut sbary);
            }
            if has_local_read_ext {
                query = query.push_next(&mut slocal);
            }
            if has_gpl_ext {
                query = query.push_next(&mut sgpl);
            }
            // SAFETY: the output chain points at locals alive for the call.
            unsafe { instance.get_physical_device_features2(chosen.physical, &mut query) };
        }
        let enabled = Enabled {
            core,
            optional: Vec::new(),
            // A variant that reads fewer of the stage interface's components than the previous stage writes (a
            // depth-only permutation of an ubershader) is valid Vulkan; maintenance4 is what makes that
            // interface matching relaxed rather than a performance warning per pipeline.
            maintenance4: on(s13.maintenance4),
            // `gl_BaseInstance` (the Blender prelude's `gl_InstanceID`) and the other draw parameters.
            draw_parameters: on(s11.shader_draw_parameters),
            output_layer: on(s12.shader_output_layer),
            output_viewport_index: on(s12.shader_output_viewport_index),
            barycentric: has_barycentric_ext && on(sbary.fragment_shader_barycentric),
            // Subpass inputs read inside the rendering that writes them (`SubpassMode::LocalRead`).
            local_read: has_local_read_ext && on(slocal.dynamic_rendering_local_read),
            // Pipelines linked from parts created ahead (fast link on first use).
            graphics_pipeline_library: has_gpl_ext && on(sgpl.graphics_pipeline_library),
        };
        let names = [
            (enabled.maintenance4, "maintenance4"),
            (enabled.draw_parameters, "shaderDrawParameters"),
            (enabled.output_layer, "shaderOutputLayer"),
            (enabled.output_viewport_index, "shaderOutputViewportIndex"),
            (enabled.barycentric, "fragmentShaderBarycentric"),
            (enabled.local_read, "dynamicRenderingLocalRead"),
            (enabled.graphics_pipeline_library, "graphicsPipelineLibrary"),
        ];
        Enabled {
            optional: names
                .iter()
                .filter(|(on, _)| *on)
                .map(|(_, n)| *n)
                .collect(),
            ..enabled
        }
    }

    /// The device with one graphics+compute queue and these features enabled.
    fn create_device(
        &self,
        instance: &ash::Instance,
        chosen: &Candidate,
    ) -> VkResult<(ash::Device, vk::Queue)> {
        let priorities = [1.0f32];
        let queue_info = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(chosen.queue_family)
            .queue_priorities(&priorities)];
        let mut f11 = vk::PhysicalDeviceVulkan11Features::default()
            .shader_draw_parameters(self.draw_parameters);
        let mut f12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_output_layer(self.output_layer)
            .shader_output_viewport_index(self.output_viewport_index)
            .buffer_device_address(chosen.ray_tracing);
        let mut f13 = vk::PhysicalDeviceVulkan13Features::default()
            .dynamic_rendering(true)
            .synchronization2(true)
            .maintenance4(self.maintenance4);
        let mut rt_features =
            vk::PhysicalDeviceRayTracingPipelineFeaturesKHR::default().ray_tracing_pipeline(true);
        let mut as_features = vk::PhysicalDeviceAccelerationStructureFeaturesKHR::default()
            .acceleration_structure(true);
        let mut bary_features = vk::PhysicalDeviceFragmentShaderBarycentricFeaturesKHR::default()
            .fragment_shader_barycentric(true);
        let mut local_read_features =
            vk::PhysicalDeviceDynamicRenderingLocalReadFeaturesKHR::default()
                .dynamic_rendering_local_read(true);
        let mut gpl_features = vk::PhysicalDeviceGraphicsPipelineLibraryFeaturesEXT::default()
            .graphics_pipeline_library(true);
        let mut dev_exts: Vec<*const i8> = Vec::new();
        if chosen.ray_tracing {
            dev_exts.extend(RT_EXTENSIONS.iter().map(|e| e.as_ptr()));
        }
        if self.barycentric {
            dev_exts.push(ash::khr::fragment_shader_barycentric::NAME.as_ptr());
        }
        if self.local_read {
            dev_exts.push(ash::khr::dynamic_rendering_local_read::NAME.as_ptr());
        }
        if self.graphics_pipeline_library {
            dev_exts.push(GRAPHICS_PIPELINE_LIBRARY.as_ptr());
            dev_exts.push(PIPELINE_LIBRARY.as_ptr());
        }
        let mut dci = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queue_info)
            .enabled_extension_names(&dev_exts)
            .enabled_features(&self.core)
            .push_next(&mut f13)
            .push_next(&mut f12)
            .push_next(&mut f11);
        if chosen.ray_tracing {
            dci = dci.push_next(&mut rt_features).push_next(&mut as_features);
        }
        if self.barycentric {
            dci = dci.push_next(&mut bary_features);
        }
        if self.local_read {
            dci = dci.push_next(&mut local_read_features);
        }
        if self.graphics_pipeline_library {
            dci = dci.push_next(&mut gpl_features);
        }
        // SAFETY: the create info and its chain point at locals alive for the call; the features were checked
        // to be supported by `choose_device` and `Enabled::probe`.
        let device = unsafe { instance.create_device(chosen.physical, &dci, None) }
            .map_err(VkError::call("vkCreateDevice"))?;
        // SAFETY: family and index 0 were requested in `queue_info`.
        let queue = unsafe { device.get_device_queue(chosen.queue_family, 0) };
        Ok((device, queue))
    }
}

fn ray_tracing_support(
    instance: &ash::Instance,
    physical: vk::PhysicalDevice,
) -> RayTracingSupport {
    let mut rt = vk::PhysicalDeviceRayTracingPipelinePropertiesKHR::default();
    // The ray-tracing pipeline extension requires the acceleration-structure one: its properties are there too.
    let mut accel = vk::PhysicalDeviceAccelerationStructurePropertiesKHR::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default()
        .push_next(&mut rt)
        .push_next(&mut accel);
    // SAFETY: plain query into a properly chained output struct.
    unsafe { instance.get_physical_device_properties2(physical, &mut p2) };
    RayTracingSupport {
        shader_group_handle_size: rt.shader_group_handle_size,
        shader_group_handle_alignment: rt.shader_group_handle_alignment,
        shader_group_base_alignment: rt.shader_group_base_alignment,
        max_ray_recursion_depth: rt.max_ray_recursion_depth,
        max_per_stage_acceleration_structures: accel
            .max_per_stage_descriptor_acceleration_structures,
        max_set_acceleration_structures: accel.max_descriptor_set_acceleration_structures,
    }
}

fn subgroup_support(instance: &ash::Instance, physical: vk::PhysicalDevice) -> SubgroupSupport {
    let mut sg = vk::PhysicalDeviceSubgroupProperties::default();
    let mut p2 = vk::PhysicalDeviceProperties2::default().push_next(&mut sg);
    // SAFETY: plain query into a properly chained output struct.
    unsafe { instance.get_physical_device_properties2(physical, &mut p2) };
    SubgroupSupport {
        size: sg.subgroup_size,
        stages: sg.supported_stages,
        operations: sg.supported_operations,
    }
}

fn choose_device(instance: &ash::Instance, wanted: Option<&str>) -> VkResult<Candidate> {
    // SAFETY: plain enumeration on a live instance.
    let physicals = unsafe { instance.enumerate_physical_devices() }
        .map_err(VkError::call("vkEnumeratePhysicalDevices"))?;
    if physicals.is_empty() {
        return Err(VkError::NoVulkan {
            reason: "the loader found no Vulkan driver (no physical device)".into(),
        });
    }
    let mut candidates = Vec::new();
    let mut rejected = Vec::new();
    for p in physicals {
        // SAFETY: `p` comes from this instance; the queries write into owned structs.
        let (props, families, f13, exts) = unsafe {
            let props = instance.get_physical_device_properties(p);
            let families = instance.get_physical_device_queue_family_properties(p);
            let mut f13 = vk::PhysicalDeviceVulkan13Features::default();
            let mut f2 = vk::PhysicalDeviceFeatures2::default().push_next(&mut f13);
            if props.api_version >= vk::API_VERSION_1_1 {
                instance.get_physical_device_features2(p, &mut f2);
            }
            let f13 = (f13.dynamic_rendering, f13.synchronization2);
            let exts = instance
                .enumerate_device_extension_properties(p)
                .unwrap_or_default();
            (props, families, f13, exts)
        };
        let name = props
            .device_name_as_c_str()
            .map(|c| c.to_string_lossy().into_owned())
            .unwrap_or_else(|_| "<unnamed>".into());
        let family = families.iter().position(|f| {
            f.queue_flags
                .contains(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE)
        });
        let why = if props.api_version < vk::API_VERSION_1_3 {
            Some("Vulkan 1.3 not supported")
        } else if f13 != (vk::TRUE, vk::TRUE) {
            Some("no dynamic rendering / synchronization2")
        } else if family.is_none() {
            Some("no graphics+compute queue")
        } else {
            None
        };
        if let Some(why) = why {
            rejected.push(format!("{name}: {why}"));
            candidates.push((None, name));
            continue;
        }
        let has = |n: &CStr| {
            exts.iter()
                .any(|e| e.extension_name_as_c_str().ok() == Some(n))
        };
        let ray_tracing = RT_EXTENSIONS.iter().all(|n| has(n));
        candidates.push((
            Some(Candidate {
                physical: p,
                properties: props,
                name: name.clone(),
                queue_family: family.unwrap_or(0) as u32,
                ray_tracing,
            }),
            name,
        ));
    }
    if let Some(w) = wanted {
        let lw = w.to_lowercase();
        let available: Vec<String> = candidates.iter().map(|(_, n)| n.clone()).collect();
        return match candidates
            .into_iter()
            .find(|(_, n)| n.to_lowercase().contains(&lw))
        {
            Some((Some(c), _)) => Ok(c),
            Some((None, n)) => Err(VkError::NoSuitableDevice {
                detail: rejected
                    .into_iter()
                    .find(|r| r.starts_with(&n))
                    .unwrap_or(n),
            }),
            None => Err(VkError::DeviceNotFound {
                wanted: w.to_string(),
                available,
            }),
        };
    }
    candidates
        .into_iter()
        .filter_map(|(c, _)| c)
        .min_by_key(|c| device_type_rank(c.properties.device_type))
        .ok_or_else(|| VkError::NoSuitableDevice {
            detail: rejected.join("; "),
        })
}
