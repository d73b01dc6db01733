//! Pipelines and reloads built off the caller's thread, so no frame waits: a renderer asks for a pipeline
//! without blocking ([`Library::poll_graphics_pipeline`]: the pipeline, or `None` while a worker builds it) and
//! skips or substitutes the draw until it is ready; an edit is rebuilt on a worker
//! ([`Library::poll_reload_in_background`]) and swapped in at a later call. Workers run the same [`Batch`] and
//! [`ReloadJob`] as the blocking calls; everything they make is merged into the library on its own thread, at
//! the next call, so a handle never changes under a frame.

use super::build::{Output, Want};
use super::reload::{ReloadJob, ReloadOutput, ReloadReport};
use super::{Backend, Library};
use shader_info::{Diagnostic, SpecValues};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::time::Instant;

/// What a worker finished.
enum Finished<B: Backend> {
    /// A build's output, and how many background reloads had been swapped in when it started.
    Build(Output<B>, u64),
    Reload {
        out: ReloadOutput<B>,
        started: Instant,
        changed_files: Vec<PathBuf>,
        watch_errors: Vec<String>,
    },
}

/// The library's background work: what is in flight and what came back.
pub(super) struct Background<B: Backend> {
    tx: Sender<Finished<B>>,
    rx: Receiver<Finished<B>>,
    /// Wants a worker is building.
    building: HashSet<Want<B::GraphicsOptions>>,
    /// Wants whose background build failed, with why: reported at their next poll, until a reload.
    failed: HashMap<Want<B::GraphicsOptions>, Vec<Diagnostic>>,
    /// Workers not yet merged (builds and the reload).
    in_flight: usize,
    reloading: bool,
    /// A finished reload's report, until the renderer polls for it.
    reloaded: Option<ReloadReport>,
    /// Background reloads swapped in so far: a build that started before the last one read older sources.
    reloads: u64,
    /// A build was merged while a background reload ran: its modules were not in that reload's job (they may
    /// predate the edit it reloads), so the next poll reloads again.
    again: bool,
}

impl<B: Backend> Background<B> {
    pub fn new() -> Background<B> {
        let (tx, rx) = channel();
        Background {
            tx,
            rx,
            building: HashSet::new(),
            failed: HashMap::new(),
            in_flight: 0,
            reloading: false,
            reloaded: None,
            reloads: 0,
            again: false,
        }
    }

    /// Forgets the builds that failed (their sources may be fixed): each is tried again at its next poll.
    pub fn forget_failures(&mut self) {
        self.failed.clear();
    }
}

impl<B: Backend> Library<B> {
    /// Background builds running or finished but not yet merged.
    pub fn background_pending(&self) -> usize {
        self.background.in_flight
    }

    /// Waits for every build and reload running in the background and merges what they made (a reload's report
    /// is then returned by the next [`Self::poll_reload_in_background`]).
    pub fn wait_background(&mut self) {
        while self.background.in_flight > 0 {
            match self.background.rx.recv() {
                Ok(done) => self.merge_finished(done),
                // The library holds a sender: the channel cannot close while it lives.
                Err(_) => break,
            }
        }
    }

    /// Merges whatever the workers have finished, without waiting.
    pub(super) fn collect_background(&mut self) {
        while self.background.in_flight > 0 {
            match self.background.rx.try_recv() {
                Ok(done) => self.merge_finished(done),
                Err(_) => break,
            }
        }
    }

    fn merge_finished(&mut self, done: Finished<B>) {
        self.background.in_flight -= 1;
        match done {
            // A build that started before a background reload swapped in read the sources that reload replaced
            // (and the watcher's batch that named them is taken): what it made is dropped, and the next poll
            // builds again from the current sources, instead of caching old code that no reload would replace.
            Finished::Build(out, reloads) if reloads != self.background.reloads => {
                for (want, _, _) in out.made {
                    self.background.building.remove(&want);
                }
            }
            Finished::Build(out, _) => {
                self.background.again |= self.background.reloading;
                for (want, outcome, _) in self.merge(out) {
                    self.background.building.remove(&want);
                    if let Err(d) = outcome {
                        self.background.failed.insert(want, d);
                    }
                }
            }
            Finished::Reload {
                out,
                started,
                changed_files,
                watch_errors,
            } => {
                self.background.reloading = false;
                self.background.reloads += 1;
                let mut report = self.swap_in(out);
                report.duration = started.elapsed();
                report.changed_files = changed_files;
                report.watch_errors = watch_errors;
                // Sources may be fixed: failed builds are tried again at their next poll.
                self.background.forget_failures();
                self.background.reloaded = Some(report);
            }
        }
    }
}

impl<B: Backend + Send + 'static> Library<B> {
    /// The graphics pipeline of `key` with `options` if it exists; otherwise starts building it on a worker and
    /// returns `None` (skip the draw or draw a substitute this frame, and ask again next frame). Never compiles
    /// or creates on the caller's thread. A build that failed is its error here, once per reload. Counts as a
    /// first use for the late counter and strict mode, like [`Self::graphics_pipeline`].
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary) -> shader_info_gpu::vk::VkResult<()> {
    /// let options = shader_info_gpu::vk::GraphicsOptions::default();
    /// match lib.poll_graphics_pipeline("gpu_shader_text", &options)? {
    ///     Some(pipeline) => { /* record the draw with `pipeline` */ }
    ///     None => { /* building on a worker: skip the draw this frame */ }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn poll_graphics_pipeline(
        &mut self,
        key: impl AsRef<str>,
        options: &B::GraphicsOptions,
    ) -> Result<Option<Arc<B::Graphics>>, B::Error> {
        let key = key.as_ref();
        self.collect_background();
        // Cached: the fetch (which also reports raised errors) costs what a blocking fetch of a cached one does.
        if self
            .graphics
            .contains_key(&(key.to_string(), options.clone()))
        {
            return self.graphics_pipeline(key, options).map(Some);
        }
        self.raised(Some(key)).map_err(B::error)?;
        self.start_build(Want::Graphics(key.to_string(), options.clone()))
            .map_err(B::error)?;
        Ok(None)
    }

    /// [`Self::poll_graphics_pipeline`] for the compute pipeline of `key` with its declared specialization
    /// defaults.
    pub fn poll_compute_pipeline(
        &mut self,
        key: impl AsRef<str>,
    ) -> Result<Option<Arc<B::Compute>>, B::Error> {
        let key = key.as_ref();
        self.collect_background();
        if self
            .compute
            .contains_key(&(key.to_string(), SpecValues::default()))
        {
            return self.compute_pipeline(key).map(Some);
        }
        self.raised(Some(key)).map_err(B::error)?;
        self.start_build(Want::Compute(key.to_string(), SpecValues::default()))
            .map_err(B::error)?;
        Ok(None)
    }

    /// Starts building `want` on a worker unless one is building it; its earlier failure is returned instead.
    fn start_build(&mut self, want: Want<B::GraphicsOptions>) -> Result<(), Vec<Diagnostic>> {
        if let Some(d) = self.background.failed.get(&want) {
            return Err(d.clone());
        }
        if self.background.building.contains(&want) {
            return Ok(());
        }
        self.count_use(want.kind(), want.key());
        self.first_use(&want)?;
        let (batch, refused) = self.batch(vec![want.clone()], false);
        if let Some((_, d)) = refused.into_iter().next() {
            return Err(d);
        }
        self.background.building.insert(want);
        self.background.in_flight += 1;
        let tx = self.background.tx.clone();
        let reloads = self.background.reloads;
        rayon::spawn(move || {
            // The batch is consumed before the send: the library gets its output only when the worker holds
            // nothing of it.
            let out = batch.run();
            let _ = tx.send(Finished::Build(out, reloads));
        });
        Ok(())
    }

    /// Starts a reload on a worker when the watcher ([`Self::watch`]) saw changes (or `force`), and returns the
    /// report of a reload that finished since the last call, its pipelines swapped in by then. Call it once per
    /// frame, before recording it: compiling and creating happen off the frame; a pipeline replaced is kept while a
    /// frame in flight may use it (on Vulkan, [`Self::set_frames_in_flight`] frames), then dropped. Each call counts
    /// one frame for that, until the renderer counts its frames itself with [`Self::begin_frame`] (a loop that
    /// calls this more often than it submits frames, twice a frame or while a minimized window submits nothing,
    /// should).
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary) -> shader_info_gpu::vk::VkResult<()> {
    /// lib.watch(std::time::Duration::from_millis(100)).expect("watch");
    /// // each frame:
    /// if let Some(report) = lib.poll_reload_in_background(false) {
    ///     println!("{}", report?);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn poll_reload_in_background(
        &mut self,
        force: bool,
    ) -> Option<Result<ReloadReport, B::Error>> {
        self.retired.polled();
        if let Err(d) = self.raised(None) {
            return Some(Err(B::error(d)));
        }
        self.collect_background();
        let changed = self.watcher.as_ref().and_then(|w| w.poll());
        if (force || changed.is_some() || self.background.again) && !self.background.reloading {
            self.background.again = false;
            let job: ReloadJob<B> = self.reload_job();
            self.background.reloading = true;
            self.background.in_flight += 1;
            let tx = self.background.tx.clone();
            let started = Instant::now();
            let changed_files = changed.unwrap_or_default();
            let watch_errors = self
                .watcher
                .as_ref()
                .map(|w| w.take_errors())
                .unwrap_or_default();
            rayon::spawn(move || {
                let out = job.run();
                let _ = tx.send(Finished::Reload {
                    out,
                    started,
                    changed_files,
                    watch_errors,
                });
            });
        }
        self.background.reloaded.take().map(Ok)
    }

    /// Drops the pipelines that reloads replaced now, after waiting for the device to be idle (a stall: call it
    /// where one does not matter, such as a loading screen); otherwise they go after the frames in flight.
    pub fn release_retired(&mut self) {
        self.backend.wait_idle();
        self.retired.clear();
    }
}
