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
    /// A file to start wgpu's pipeline cache from (where the adapter has [`::wgpu::Features::PIPELINE_CACHE`]);
    /// [`WgpuContext::save_pipeline_cache`] writes it back. A damaged file is refused (see
    /// [`WgpuContext::pipeline_cache_status`]) and the cache starts empty.
    pub pipeline_cache: Option<std::path::PathBuf>,
    /// At most this many bytes of immediates, below the adapter's own limit: `Some(64)` is what browsers' WebGPU
    /// (Dawn) allows, so blocks past it take the storage-buffer path here as they would there. `None`: the
    /// adapter's limit.
    pub max_immediate_size: Option<u32>,
}

impl Default for WgpuContextOptions {
    fn default() -> Self {
        WgpuContextOptions {
            fallback_adapter: false,
            validation: cfg!(debug_assertions),
            immediates: true,
            pipeline_cache: None,
            max_immediate_size: None,
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
    uncaptured: Arc<Mutex<Uncaptured>>,
    /// wgpu's pipeline cache, when asked for and the adapter has one, with the file it came from.
    pipeline_cache: Option<(Arc<::wgpu::PipelineCache>, std::path::PathBuf)>,
    pipeline_cache_status: String,
}

/// How many of the latest uncaptured errors a context keeps: a renderer that makes the same mistake every frame
/// would otherwise grow the list for as long as it runs.
pub const KEPT_ERRORS: usize = 256;

/// The errors wgpu raised outside error scopes: the latest [`KEPT_ERRORS`], and how many came in all.
#[derive(Default)]
struct Uncaptured {
    total: u64,
    kept: std::collections::VecDeque<String>,
}

/// Optional features the library uses when the adapter has them: each widens what a declaration may ask for.
fn wanted_features(immediates: bool) -> ::wgpu::Features {
    use ::wgpu::Features as F;
    let mut f = F::DUAL_SOURCE_BLENDING
        | F::PIPELINE_CACHE
        | F::POLYGON_MODE_LINE
        | F::POLYGON_MODE_POINT
        | F::TEXTURE_ADAPTER_SPECIFIC_FORMAT_FEATURES
        | F::FLOAT32_FILTERABLE
        | F::VERTEX_WRITABLE_STORAGE
        | F::CLIP_DISTANCES
        | F::ADDRESS_MODE_CLAMP_TO_BORDER;
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
        let (device, queue) = pollster::block_on(
            adapter.request_device(&::wgpu::DeviceDescriptor {
                label: Some("shader-info"),
                required_features: features,
                // Everything the adapter offers: a declaration is checked against the real limits, not the defaults.
                required_limits: ::wgpu::Limits {
                    max_immediate_size: opts
                        .max_immediate_size
                        .map_or(adapter.limits().max_immediate_size, |cap| {
                            cap.min(adapter.limits().max_immediate_size)
                        }),
                    ..adapter.limits()
                },
                experimental_features: ::wgpu::ExperimentalFeatures::disabled(),
                memory_hints: ::wgpu::MemoryHints::Performance,
                trace: ::wgpu::Trace::Off,
            }),
        )
        .map_err(|e| WgpuError::Device(format!("cannot create the device: {e}")))?;
        let uncaptured = Arc::new(Mutex::new(Uncaptured::default()));
        let sink = uncaptured.clone();
        device.on_uncaptured_error(Arc::new(move |e: ::wgpu::Error| {
            let mut u = sink.lock().unwrap_or_else(|p| p.into_inner());
            u.total += 1;
            if u.kept.len() == KEPT_ERRORS {
                u.kept.pop_front();
            }
            u.kept.push_back(e.to_string());
        }));
        let (pipeline_cache, pipeline_cache_status) = match &opts.pipeline_cache {
            None => (None, "no pipeline cache asked for".to_string()),
            Some(_) if !device.features().contains(::wgpu::Features::PIPELINE_CACHE) => {
                (None, "the adapter has no pipeline cache".to_string())
            }
            Some(file) => {
                // As on Vulkan: the bytes go to the driver, so another user's file is not read.
                let read = match crate::cache_file::foreign_owner(file) {
                    Some(why) => Err(std::io::Error::other(why)),
                    None => std::fs::read(file),
                };
                let (data, status) = match &read {
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        (None, format!("cold: {} does not exist yet", file.display()))
                    }
                    Err(e) => (None, format!("cold, refused {}: {e}", file.display())),
                    Ok(bytes) => match crate::cache_file::unwrap(bytes) {
                        Ok(p) => (
                            Some(p),
                            format!("warm: {} bytes from {}", p.len(), file.display()),
                        ),
                        Err(why) => (None, format!("cold, refused {}: {why}", file.display())),
                    },
                };
                // SAFETY: `data` is what `PipelineCache::get_data` returned in an earlier run, unchanged: the
                // container's checksum proves it; wgpu checks its own header (adapter, driver, version) and,
                // with `fallback`, starts empty when the data is not for this device.
                let cache = unsafe {
                    device.create_pipeline_cache(&::wgpu::PipelineCacheDescriptor {
                        label: Some("shader-info"),
                        data,
                        fallback: true,
                    })
                };
                (Some((Arc::new(cache), file.clone())), status)
            }
        };
        Ok(WgpuContext {
            device,
            queue,
            adapter,
            uncaptured,
            pipeline_cache,
            pipeline_cache_status,
        })
    }

    /// The pipeline cache every pipeline of the library is created through, if there is one.
    pub fn pipeline_cache(&self) -> Option<&::wgpu::PipelineCache> {
        self.pipeline_cache.as_ref().map(|(c, _)| c.as_ref())
    }

    /// What became of [`WgpuContextOptions::pipeline_cache`]: warm from the file, cold, or refused with the reason.
    pub fn pipeline_cache_status(&self) -> &str {
        &self.pipeline_cache_status
    }

    /// Writes the pipeline cache back to its file, atomically; the bytes written, or `None` without a cache.
    pub fn save_pipeline_cache(&self) -> WgpuResult<Option<usize>> {
        let Some((cache, file)) = &self.pipeline_cache else {
            return Ok(None);
        };
        let Some(data) = cache.get_data() else {
            return Ok(None);
        };
        let bytes = crate::cache_file::wrap(&data);
        crate::cache_file::write_atomic(file, &bytes)
            .map_err(|e| WgpuError::Device(format!("cannot write {}: {e}", file.display())))?;
        Ok(Some(bytes.len()))
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

    /// Errors wgpu raised outside any error scope so far (the latest [`KEPT_ERRORS`]).
    pub fn uncaptured_errors(&self) -> Vec<String> {
        self.uncaptured_errors_since(0).1
    }

    /// The uncaptured errors after the first `seen` ever raised: how many were raised in all (the `seen` of the
    /// next call), and the new ones still kept, oldest first. Only the new ones are copied, so a caller that asks
    /// every frame pays for what is new.
    ///
    /// ```no_run
    /// # let ctx = shader_info_gpu::wgpu::WgpuContext::new(&Default::default())?;
    /// let (mut seen, _) = ctx.uncaptured_errors_since(0);
    /// // … a frame later:
    /// let (total, new) = ctx.uncaptured_errors_since(seen);
    /// seen = total;
    /// # Ok::<(), shader_info_gpu::wgpu::WgpuError>(())
    /// ```
    pub fn uncaptured_errors_since(&self, seen: u64) -> (u64, Vec<String>) {
        let u = self.uncaptured.lock().unwrap_or_else(|p| p.into_inner());
        let first_kept = u.total - u.kept.len() as u64;
        let skip = seen.saturating_sub(first_kept).min(u.kept.len() as u64) as usize;
        (u.total, u.kept.iter().skip(skip).cloned().collect())
    }

    /// Runs `f` inside error scopes of every kind (validation, out of memory, internal): what wgpu refuses in it is
    /// an error naming `what`, not an
    /// uncaptured error (wgpu reports validation errors asynchronously, so a renderer that wants them at the call
    /// site needs a scope).
    ///
    /// ```no_run
    /// # let ctx = shader_info_gpu::wgpu::WgpuContext::new(&Default::default())?;
    /// let encoder = ctx.checked("the frame", || ctx.device.create_command_encoder(&Default::default()))?;
    /// # Ok::<(), shader_info_gpu::wgpu::WgpuError>(())
    /// ```
    pub fn checked<T>(&self, what: &str, f: impl FnOnce() -> T) -> WgpuResult<T> {
        let scope = ErrorScopes::push(&self.device);
        let out = f();
        match scope.pop() {
            None => Ok(out),
            Some(e) => Err(WgpuError::Device(format!("{what} was refused: {e}"))),
        }
    }

    /// Copies `buffer` (created with `COPY_SRC`) to the host, after the work submitted so far.
    ///
    /// ```no_run
    /// # fn f(ctx: &shader_info_gpu::wgpu::WgpuContext, buffer: &shader_info_gpu::wgpu::raw::Buffer) -> shader_info_gpu::wgpu::WgpuResult<()> {
    /// let bytes = ctx.read_buffer(buffer)?;
    /// # Ok(()) }
    /// ```
    pub fn read_buffer(&self, buffer: &::wgpu::Buffer) -> WgpuResult<Vec<u8>> {
        // A copy wgpu refuses would leave the staging buffer zeroed: a read-back of zeros, never an error.
        if !buffer.usage().contains(::wgpu::BufferUsages::COPY_SRC)
            || !buffer.size().is_multiple_of(::wgpu::COPY_BUFFER_ALIGNMENT)
        {
            return Err(WgpuError::Device(format!(
                "cannot read back a buffer of {} bytes with usage {:?}: it needs COPY_SRC and a size that is a \
                 multiple of {}",
                buffer.size(),
                buffer.usage(),
                ::wgpu::COPY_BUFFER_ALIGNMENT
            )));
        }
        let staging = self.staging(buffer.size());
        self.checked("reading back a buffer", || {
            let mut enc = self.device.create_command_encoder(&Default::default());
            enc.copy_buffer_to_buffer(buffer, 0, &staging, 0, buffer.size());
            self.queue.submit([enc.finish()]);
        })?;
        self.map(&staging)
    }

    /// Copies mip level 0, layer 0 of a 2D `texture` (created with `COPY_SRC`, an uncompressed color format) to
    /// the host, rows tightly packed, after the work submitted so far: a screenshot or a test's read-back.
    pub fn read_texture(&self, texture: &::wgpu::Texture) -> WgpuResult<Vec<u8>> {
        let format = texture.format();
        let texel = format
            .block_copy_size(None)
            .filter(|_| format.block_dimensions() == (1, 1))
            .ok_or_else(|| WgpuError::Device(format!("cannot read back a {format:?} texture")))?;
        if !texture.usage().contains(::wgpu::TextureUsages::COPY_SRC)
            || texture.sample_count() != 1
            || texture.dimension() != ::wgpu::TextureDimension::D2
        {
            return Err(WgpuError::Device(format!(
                "cannot read back a {:?} texture of {} samples with usage {:?}: it needs COPY_SRC, one sample and two \
                 dimensions",
                texture.dimension(),
                texture.sample_count(),
                texture.usage()
            )));
        }
        let size = texture.size();
        let row = size.width * texel;
        // Rows of a texture-to-buffer copy are 256-byte aligned.
        let padded = row.next_multiple_of(::wgpu::COPY_BYTES_PER_ROW_ALIGNMENT);
        let staging = self.staging(padded as u64 * size.height as u64);
        let mut enc = self.device.create_command_encoder(&Default::default());
        let layout = ::wgpu::TexelCopyBufferLayout {
            offset: 0,
            bytes_per_row: Some(padded),
            rows_per_image: None,
        };
        let destination = ::wgpu::TexelCopyBufferInfo {
            buffer: &staging,
            layout,
        };
        let extent = ::wgpu::Extent3d {
            depth_or_array_layers: 1,
            ..size
        };
        self.checked("reading back a texture", || {
            enc.copy_texture_to_buffer(texture.as_image_copy(), destination, extent);
            self.queue.submit([enc.finish()]);
        })?;
        let bytes = self.map(&staging)?;
        Ok(bytes
            .chunks_exact(padded as usize)
            .flat_map(|r| &r[..row as usize])
            .copied()
            .collect())
    }

    fn staging(&self, size: u64) -> ::wgpu::Buffer {
        self.device.create_buffer(&::wgpu::BufferDescriptor {
            label: Some("read back"),
            size,
            usage: ::wgpu::BufferUsages::MAP_READ | ::wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Maps a `MAP_READ` buffer, waiting for the device, and copies it out.
    fn map(&self, staging: &::wgpu::Buffer) -> WgpuResult<Vec<u8>> {
        let (sender, receiver) = std::sync::mpsc::channel();
        staging
            .slice(..)
            .map_async(::wgpu::MapMode::Read, move |r| drop(sender.send(r)));
        self.wait_idle();
        let fail =
            |e: &dyn std::fmt::Display| WgpuError::Device(format!("reading back a buffer: {e}"));
        receiver
            .recv()
            .map_err(|e| fail(&e))?
            .map_err(|e| fail(&e))?;
        let bytes = staging
            .slice(..)
            .get_mapped_range()
            .map_err(|e| fail(&e))?
            .to_vec();
        staging.unmap();
        Ok(bytes)
    }

    /// Waits until the queue's work is done.
    pub fn wait_idle(&self) {
        let _ = self.device.poll(::wgpu::PollType::wait_indefinitely());
    }
}

/// Error scopes of every kind wgpu reports: validation, out of memory and internal (a pipeline the backend below
/// wgpu fails to link is an internal error, and one caught by a validation scope only would come back as a valid
/// handle to an invalid pipeline — which a reload would put in place of a working one).
pub(crate) struct ErrorScopes {
    internal: ::wgpu::ErrorScopeGuard,
    memory: ::wgpu::ErrorScopeGuard,
    validation: ::wgpu::ErrorScopeGuard,
}

impl ErrorScopes {
    /// Opens the three scopes on `device` (on this thread: wgpu's scopes are per thread).
    pub(crate) fn push(device: &::wgpu::Device) -> ErrorScopes {
        let internal = device.push_error_scope(::wgpu::ErrorFilter::Internal);
        let memory = device.push_error_scope(::wgpu::ErrorFilter::OutOfMemory);
        let validation = device.push_error_scope(::wgpu::ErrorFilter::Validation);
        ErrorScopes {
            internal,
            memory,
            validation,
        }
    }

    /// Closes them, innermost first: the first error any of them caught.
    pub(crate) fn pop(self) -> Option<::wgpu::Error> {
        let validation = pollster::block_on(self.validation.pop());
        let memory = pollster::block_on(self.memory.pop());
        let internal = pollster::block_on(self.internal.pop());
        validation.or(memory).or(internal)
    }
}
