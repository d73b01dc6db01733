//! The wgpu instance, adapter, device and queue, with the optional features the library maps declarations to.

use super::error::{WgpuError, WgpuResult};
use std::sync::{Arc, Mutex};

/// How to open a [`WgpuContext`].
#[derive(Clone, Debug)]
pub struct WgpuContextOptions {
    /// Prefer a software adapter (lavapipe), as the tests do.
    pub fallback_adapter: bool,
    /// Turn on wgpu's instance validation and the Khronos validation layer (its messages go to the `log` crate,
    /// target `wgpu_hal::vulkan::instance`).
    pub validation: bool,
    /// Use wgpu immediates for push constants where the adapter has them; `false` forces the storage-buffer
    /// path (see [`super::PushConstants`]).
    pub immediates: bool,
}

impl Default for WgpuContextOptions {
    fn default() -> Self {
        WgpuContextOptions {
            fallback_adapter: false,
            validation: cfg!(debug_assertions),
            immediates: true,
        }
    }
}

/// A wgpu device on the Vulkan backend. Cheap to clone.
#[derive(Clone)]
pub struct WgpuContext {
    pub device: ::wgpu::Device,
    pub queue: ::wgpu::Queue,
    pub adapter: ::wgpu::Adapter,
    /// Errors wgpu raised outside any error scope (a renderer's own misuse shows up here).
    uncaptured: Arc<Mutex<Vec<String>>>,
}

/// Optional features the library uses when the adapter has them: each widens what a declaration may ask for.
fn wanted_features(immediates: bool) -> ::wgpu::Features {
    use ::wgpu::Features as F;
    let mut f = F::DUAL_SOURCE_BLENDING
        | F::POLYGON_MODE_LINE
        | F::POLYGON_MODE_POINT
        | F::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES
        | F::FLOAT32_FILTERABLE
        | F::VERTEX_WRITABLE_STORAGE
        | F::CLIP_DISTANCES;
    if immediates {
        f |= F::IMMEDIATES;
    }
    f
}

impl WgpuContext {
    /// Opens the first suitable Vulkan adapter (a software one first with `fallback_adapter`).
    ///
    /// # Errors
    /// [`WgpuError::Device`] when there is no adapter or the device cannot be created.
    pub fn new(opts: &WgpuContextOptions) -> WgpuResult<WgpuContext> {
        let mut desc = ::wgpu::InstanceDescriptor::new_without_display_handle();
        desc.backends = ::wgpu::Backends::VULKAN;
        desc.flags = if opts.validation {
            ::wgpu::InstanceFlags::DEBUG | ::wgpu::InstanceFlags::VALIDATION
        } else {
            ::wgpu::InstanceFlags::empty()
        };
        let instance = ::wgpu::Instance::new(desc);
        let adapter =
            pollster::block_on(instance.request_adapter(&::wgpu::RequestAdapterOptions {
                power_preference: ::wgpu::PowerPreference::HighPerformance,
                force_fallback_adapter: opts.fallback_adapter,
                compatible_surface: None,
                apply_limit_buckets: false,
            }))
            .map_err(|e| WgpuError::Device(format!("no Vulkan adapter: {e}")))?;
        let features = adapter.features() & wanted_features(opts.immediates);
        let (device, queue) =
            pollster::block_on(adapter.request_device(&::wgpu::DeviceDescriptor {
                label: Some("shader-info"),
                required_features: features,
                // Everything the adapter offers: a declaration is checked against the real limits, not the defaults.
                required_limits: adapter.limits(),
                experimental_features: ::wgpu::ExperimentalFeatures::disabled(),
                memory_hints: ::wgpu::MemoryHints::Performance,
                trace: ::wgpu::Trace::Off,
            }))
            .map_err(|e| WgpuError::Device(format!("cannot create the device: {e}")))?;
        let uncaptured = Arc::new(Mutex::new(Vec::new()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: ::wgpu::Error| {
            sink.lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(e.to_string());
        }));
        Ok(WgpuContext {
            device,
            queue,
            adapter,
            uncaptured,
        })
    }

    /// The adapter's name (`llvmpipe (LLVM …)` on lavapipe).
    pub fn device_name(&self) -> String {
        self.adapter.get_info().name
    }

    /// Whether push constants are wgpu immediates here (else the storage-buffer path).
    pub fn has_immediates(&self) -> bool {
        self.device
            .features()
            .contains(::wgpu::Features::IMMEDIATES)
    }

    /// Errors wgpu raised outside any error scope so far.
    pub fn uncaptured_errors(&self) -> Vec<String> {
        self.uncaptured
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Runs `f` inside a validation error scope: what wgpu refuses in it is an error naming `what`, not an
    /// uncaptured error (wgpu reports validation errors asynchronously, so a renderer that wants them at the call
    /// site needs a scope).
    ///
    /// ```no_run
    /// # let ctx = gpu::wgpu::WgpuContext::new(&Default::default())?;
    /// let encoder = ctx.checked("the frame", || ctx.device.create_command_encoder(&Default::default()))?;
    /// # Ok::<(), gpu::wgpu::WgpuError>(())
    /// ```
    pub fn checked<T>(&self, what: &str, f: impl FnOnce() -> T) -> WgpuResult<T> {
        let scope = self
            .device
            .push_error_scope(::wgpu::ErrorFilter::Validation);
        let out = f();
        match pollster::block_on(scope.pop()) {
            None => Ok(out),
            Some(e) => Err(WgpuError::Device(format!("{what} was refused: {e}"))),
        }
    }

    /// Waits until the queue's work is done.
    pub fn wait_idle(&self) {
        let _ = self.device.poll(::wgpu::PollType::wait_indefinitely());
    }
}
