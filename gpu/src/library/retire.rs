//! Pipelines the library replaced (by a reload, a background build or a better link) while a submitted frame may
//! still use them. On Vulkan a pipeline must outlive every command buffer that uses it, and the library does not
//! see the renderer's submissions: a replaced pipeline is kept for the frames the renderer records ahead of the
//! GPU, counted by the once-per-frame [`Library::poll_reload_in_background`] (or by [`Library::begin_frame`], where
//! the renderer says when its frames begin), then dropped. Kept until the device
//! was idle instead, a session that reloads in the background for hours held every pipeline it ever replaced.
//! wgpu keeps an object alive while submitted work uses it ([`Backend::TRACKS_GPU_USE`]): there a replaced
//! pipeline is dropped at once.

use super::{Backend, Library};
use std::sync::Arc;

/// How many frames a renderer records ahead of the GPU unless told otherwise
/// ([`Library::set_frames_in_flight`]): double and triple buffering both fit.
pub const DEFAULT_FRAMES_IN_FLIGHT: u32 = 3;

/// A replaced pipeline, held only to be dropped later.
// Never read: holding the `Arc` is the point.
#[allow(dead_code)]
enum Retired<B: Backend> {
    Graphics(Arc<B::Graphics>),
    Compute(Arc<B::Compute>),
    RayTracing(Arc<B::RayTracing>),
}

/// The retired pipelines, each with the frame it was retired in.
pub(super) struct Retirement<B: Backend> {
    held: Vec<(u64, Retired<B>)>,
    /// Frames begun so far (calls of `poll_reload_in_background`, or of `begin_frame` once there was one).
    frame: u64,
    frames_in_flight: u32,
    /// The renderer says when a frame begins ([`Library::begin_frame`]): polls no longer count frames.
    explicit: bool,
}

impl<B: Backend> Default for Retirement<B> {
    fn default() -> Self {
        Retirement {
            held: Vec::new(),
            frame: 0,
            frames_in_flight: DEFAULT_FRAMES_IN_FLIGHT,
            explicit: false,
        }
    }
}

impl<B: Backend> Retirement<B> {
    fn hold(&mut self, r: Retired<B>) {
        if !B::TRACKS_GPU_USE {
            self.held.push((self.frame, r));
        }
    }

    pub(super) fn graphics(&mut self, p: Arc<B::Graphics>) {
        self.hold(Retired::Graphics(p));
    }

    pub(super) fn compute(&mut self, p: Arc<B::Compute>) {
        self.hold(Retired::Compute(p));
    }

    pub(super) fn ray_tracing(&mut self, p: Arc<B::RayTracing>) {
        self.hold(Retired::RayTracing(p));
    }

    /// A new frame begins: what was retired more than `frames_in_flight` frames ago is dropped. A pipeline retired
    /// during frame `f` may be in that frame's commands; when frame `f + n + 1` begins with `n` frames in flight,
    /// the renderer has waited for frame `f`.
    fn next_frame(&mut self) {
        self.frame += 1;
        let (now, n) = (self.frame, u64::from(self.frames_in_flight));
        self.held.retain(|(at, _)| now - at <= n);
    }

    /// A poll of the background reload: a frame, unless the renderer counts its frames itself.
    pub(super) fn polled(&mut self) {
        if !self.explicit {
            self.next_frame();
        }
    }

    /// Drops them all: the caller waited for the device to be idle.
    pub(super) fn clear(&mut self) {
        self.held.clear();
    }
}

impl<B: Backend> Library<B> {
    /// Sets how many frames the renderer records before waiting for the GPU (default
    /// [`DEFAULT_FRAMES_IN_FLIGHT`]): a pipeline the library replaces is dropped that many frames after the frame it
    /// was replaced in, frames counted by [`Self::begin_frame`] once the renderer calls it, else by the calls of
    /// [`Self::poll_reload_in_background`] (one per frame). A renderer that records more frames ahead than this must
    /// say so, or a pipeline may be destroyed while the GPU uses it.
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary) {
    /// lib.set_frames_in_flight(2);
    /// # }
    /// ```
    pub fn set_frames_in_flight(&mut self, frames: u32) {
        self.retired.frames_in_flight = frames;
    }

    /// Says that the renderer begins recording a frame it will submit. Until the first call, each
    /// [`Self::poll_reload_in_background`] counts a frame; from then on only this does, so a loop that polls more
    /// than once a frame, or polls while a minimized window submits nothing, keeps a replaced pipeline exactly for
    /// the [`Self::set_frames_in_flight`] frames that may still use it.
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary) {
    /// // each frame, after waiting for the fence of the frame this one reuses the resources of:
    /// lib.begin_frame();
    /// let _report = lib.poll_reload_in_background(false);
    /// # }
    /// ```
    pub fn begin_frame(&mut self) {
        // The first call only takes over the count: the polls so far counted the frames up to this one, and this
        // one too if it was polled before; counting it again would drop a pipeline a frame early.
        if self.retired.explicit {
            self.retired.next_frame();
        } else {
            self.retired.explicit = true;
        }
    }

    /// How many replaced pipelines the library holds until no frame in flight can use them (none on a backend
    /// that tracks the GPU's use itself, such as wgpu).
    pub fn retired_count(&self) -> usize {
        self.retired.held.len()
    }
}
