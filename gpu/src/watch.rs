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
use std::sync::{Arc, Mutex};
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
    /// What the watcher reported going wrong since [`Self::take_errors`] last ran.
    errors: Arc<Mutex<Vec<String>>>,
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
        let errors = Arc::new(Mutex::new(Vec::new()));
        let (said, whole) = (errors.clone(), root.clone());
        // Links are not followed: the loader and the include rules refuse a file reached through a link out of
        // the root, and a link to a folder above it (`glsl/up -> ..`) would watch the whole parent tree, the
        // cache's own writes included.
        let mut watcher = notify::RecommendedWatcher::new(
            move |res: notify::Result<notify::Event>| {
                route(res, &whole, &events_tx, &said);
            },
            notify::Config::default().with_follow_symlinks(false),
        )
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
            errors,
        })
    }

    /// What went wrong watching since the last call (a directory the system would not watch, an error reading
    /// events), each said once. A change may have gone unseen: the batch that follows such an error names the root.
    pub fn take_errors(&self) -> Vec<String> {
        std::mem::take(&mut *self.errors.lock().unwrap_or_else(|e| e.into_inner()))
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

/// Where one of the watcher's reports goes: the changed paths to the debounce thread; the root, when the kernel's
/// queue overflowed (a checkout, a generator: which files changed is lost, so everything under the root may have,
/// and a reload checks every file it read anyway) or the watcher failed (an error is kept for the next reload's
/// report: a directory the system would not watch is one whose edits nothing sees).
fn route(
    res: notify::Result<notify::Event>,
    root: &Path,
    events: &Sender<Vec<PathBuf>>,
    errors: &Mutex<Vec<String>>,
) {
    match res {
        Ok(ev) if ev.need_rescan() => {
            let _ = events.send(vec![root.to_path_buf()]);
        }
        Ok(ev) if relevant(&ev.kind) => {
            let paths: Vec<PathBuf> = ev.paths.into_iter().filter(|p| !ignored_name(p)).collect();
            if !paths.is_empty() {
                let _ = events.send(paths);
            }
        }
        Ok(_) => {}
        Err(e) => {
            errors
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(format!("the file watcher: {e}"));
            let _ = events.send(vec![root.to_path_buf()]);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::Flag;

    /// A link to a folder outside the root is not followed: an edit there is no edit of the shaders (the loader
    /// refuses files reached so), and a link to a parent (`up -> ..`) would watch the whole tree above the root.
    #[cfg(unix)]
    #[test]
    fn a_link_out_of_the_root_is_not_watched() {
        let outside = tempfile::tempdir().unwrap();
        let root = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("up")).unwrap();
        let w = ShaderWatcher::new(root.path(), Duration::from_millis(20)).unwrap();
        std::fs::write(outside.path().join("elsewhere.glsl"), "x").unwrap();
        assert_eq!(
            w.wait(Duration::from_millis(600)),
            None,
            "an edit outside the root"
        );
        std::fs::write(root.path().join("inside.glsl"), "x").unwrap();
        let batch = w
            .wait(Duration::from_secs(10))
            .expect("an edit inside the root");
        assert!(
            batch.iter().any(|p| p.ends_with("inside.glsl")),
            "{batch:?}"
        );
    }

    #[test]
    fn an_overflow_or_an_error_reloads_everything_and_the_error_is_kept() {
        let (tx, rx) = channel();
        let errors = Mutex::new(Vec::new());
        let root = Path::new("/shaders");
        // An edit: its path.
        let edit =
            notify::Event::new(EventKind::Modify(ModifyKind::Any)).add_path(root.join("a.glsl"));
        route(Ok(edit), root, &tx, &errors);
        assert_eq!(rx.try_recv(), Ok(vec![root.join("a.glsl")]));
        // The kernel's queue overflowed: no path, the rescan flag. Everything may have changed.
        let overflow = notify::Event::new(EventKind::Other).set_flag(Flag::Rescan);
        route(Ok(overflow), root, &tx, &errors);
        assert_eq!(rx.try_recv(), Ok(vec![root.to_path_buf()]));
        // A read is no change.
        route(
            Ok(notify::Event::new(EventKind::Access(AccessKind::Any))
                .add_path(root.join("a.glsl"))),
            root,
            &tx,
            &errors,
        );
        assert!(rx.try_recv().is_err());
        // An error: kept to be said, and a reload in case a change went unseen.
        route(
            Err(notify::Error::generic("inotify watch limit reached")),
            root,
            &tx,
            &errors,
        );
        assert_eq!(rx.try_recv(), Ok(vec![root.to_path_buf()]));
        let said = errors.lock().unwrap().clone();
        assert_eq!(said, ["the file watcher: inotify watch limit reached"]);
    }
}
