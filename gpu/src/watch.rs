//! File watching for hot reload: watches the shader directory (not single files, so editors that save by
//! write-temp-then-rename, truncate-then-write, or delete-and-recreate are all seen), ignores reads and metadata,
//! and debounces bursts of events into one "these files changed" batch.
//!
//! The watcher only reports; the owner of a shader library reloads on its own thread (see
//! [`crate::vk::ShaderLibrary::poll_reload`]), so GPU objects never change behind a frame's back. It knows nothing of
//! any device: the Vulkan library, the wgpu library and the command line's `watch` all use it.

/// The watcher could not be started.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct WatchError(String);
use notify::event::{AccessKind, AccessMode, EventKind, ModifyKind};
use notify::{RecursiveMode, Watcher};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::thread::JoinHandle;
use std::time::Duration;

/// Watches a directory tree and reports debounced batches of changed paths.
///
/// ```no_run
/// use shader_info_gpu::watch::ShaderWatcher;
/// use std::time::Duration;
/// let w = ShaderWatcher::new("shaders/glsl", Duration::from_millis(100))?;
/// if let Some(changed) = w.wait(Duration::from_secs(1)) {
///     println!("changed: {changed:?}");
/// }
/// # Ok::<(), shader_info_gpu::watch::WatchError>(())
/// ```
pub struct ShaderWatcher {
    // Dropped first (see Drop): closing the event channel ends the debounce thread.
    watcher: Option<notify::RecommendedWatcher>,
    batches: Receiver<Vec<PathBuf>>,
    thread: Option<JoinHandle<()>>,
    root: PathBuf,
}

/// True for events that can change what a shader compiles to. Reads (inotify `OPEN`, which the reload itself
/// causes) and metadata changes are ignored, or every reload would trigger the next.
fn relevant(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        _ => true,
    }
}

/// Editor droppings that never hold shader source (vim swap files, emacs locks and backups).
fn ignored_name(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name.ends_with('~')
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.starts_with(".#")
        || name == "4913"
}

impl ShaderWatcher {
    /// Watches `root` recursively; a batch is reported once no relevant event arrived for `debounce`.
    pub fn new(root: impl Into<PathBuf>, debounce: Duration) -> Result<ShaderWatcher, WatchError> {
        let root = root.into();
        let (events_tx, events_rx) = channel::<Vec<PathBuf>>();
        let (batch_tx, batches) = channel::<Vec<PathBuf>>();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            if let Ok(ev) = res
                && relevant(&ev.kind)
            {
                let paths: Vec<PathBuf> =
                    ev.paths.into_iter().filter(|p| !ignored_name(p)).collect();
                if !paths.is_empty() {
                    let _ = events_tx.send(paths);
                }
            }
        })
        .map_err(|e| WatchError(format!("cannot start the file watcher: {e}")))?;
        watcher
            .watch(&root, RecursiveMode::Recursive)
            .map_err(|e| WatchError(format!("cannot watch {}: {e}", root.display())))?;
        let thread = std::thread::Builder::new()
            .name("shader-watch".into())
            .spawn(move || debounce_loop(events_rx, batch_tx, debounce))
            .map_err(|e| WatchError(format!("cannot start the watch thread: {e}")))?;
        Ok(ShaderWatcher {
            watcher: Some(watcher),
            batches,
            thread: Some(thread),
            root,
        })
    }

    /// The watched directory.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Every change reported since the last call, merged, or `None`. Never blocks.
    pub fn poll(&self) -> Option<Vec<PathBuf>> {
        let mut all = BTreeSet::new();
        while let Ok(b) = self.batches.try_recv() {
            all.extend(b);
        }
        (!all.is_empty()).then(|| all.into_iter().collect())
    }

    /// Waits up to `timeout` for a batch (then also takes any batches already queued behind it).
    pub fn wait(&self, timeout: Duration) -> Option<Vec<PathBuf>> {
        let first = self.batches.recv_timeout(timeout).ok()?;
        let mut all: BTreeSet<PathBuf> = first.into_iter().collect();
        if let Some(more) = self.poll() {
            all.extend(more);
        }
        Some(all.into_iter().collect())
    }
}

fn debounce_loop(events: Receiver<Vec<PathBuf>>, batches: Sender<Vec<PathBuf>>, quiet: Duration) {
    // Block for the first event of a burst, then extend the burst until `quiet` passes without an event.
    while let Ok(first) = events.recv() {
        let mut batch: BTreeSet<PathBuf> = first.into_iter().collect();
        loop {
            match events.recv_timeout(quiet) {
                Ok(more) => batch.extend(more),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        if batches.send(batch.into_iter().collect()).is_err() {
            return;
        }
    }
}

impl Drop for ShaderWatcher {
    fn drop(&mut self) {
        // Dropping the notify watcher drops its event handler and with it the sender, which ends the thread.
        self.watcher = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
