//! A change journal over the files a cache entry depends on, so that a cache hit needs no `stat` at all.
//!
//! On Linux this is inotify, read *synchronously* on every lookup with a non-blocking `read`: the kernel queues an
//! event inside the syscall that changes the file, so a change that happened before a lookup is always seen by it
//! (no watcher thread, no delivery race). Any event bumps a generation; an entry validated at the current generation
//! is still valid. Whenever the journal cannot vouch (no inotify, a watch could not be added, queue overflow) the
//! cache falls back to validating by metadata, which is always correct on its own.
//!
//! Limitation: inotify does not see changes made by other machines on network file systems; use
//! [`super::ChangeDetection::Metadata`] there.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// The journal. `generation()` is monotonic; it changes after any change to a watched path.
pub(crate) struct ChangeJournal {
    #[cfg(target_os = "linux")]
    imp: Option<linux::Inotify>,
    generation: AtomicU64,
}

impl ChangeJournal {
    /// A journal, or one that never vouches (`enabled == false`, or no inotify on this system).
    pub(crate) fn new(enabled: bool) -> ChangeJournal {
        #[cfg(target_os = "linux")]
        let imp = if enabled { linux::Inotify::new() } else { None };
        #[cfg(not(target_os = "linux"))]
        let _ = enabled;
        ChangeJournal {
            #[cfg(target_os = "linux")]
            imp,
            generation: AtomicU64::new(0),
        }
    }

    /// True when the journal can vouch for anything.
    pub(crate) fn active(&self) -> bool {
        #[cfg(target_os = "linux")]
        return self.imp.is_some();
        #[cfg(not(target_os = "linux"))]
        false
    }

    /// The generation as of the last [`ChangeJournal::poll`], without reading pending events: a lower bound of
    /// the current one, which is all an entry needs before its files are read (see `Cache::fill`).
    pub(crate) fn last_seen(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Reads pending events and returns the current generation.
    pub(crate) fn poll(&self) -> u64 {
        #[cfg(target_os = "linux")]
        if let Some(imp) = &self.imp {
            return imp.poll(&self.generation);
        }
        self.generation.load(Ordering::Acquire)
    }

    /// Starts watching `path` (a file or a directory). False when it could not be watched.
    pub(crate) fn watch(&self, path: &Path) -> bool {
        #[cfg(target_os = "linux")]
        if let Some(imp) = &self.imp {
            return imp.watch(path);
        }
        let _ = path;
        false
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use inotify::{EventMask, WatchDescriptor, WatchMask};
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::{Mutex, RwLock};

    fn mask() -> WatchMask {
        WatchMask::MODIFY
            | WatchMask::ATTRIB
            | WatchMask::CLOSE_WRITE
            | WatchMask::CREATE
            | WatchMask::DELETE
            | WatchMask::DELETE_SELF
            | WatchMask::MOVE_SELF
            | WatchMask::MOVED_FROM
            | WatchMask::MOVED_TO
    }

    #[derive(Default)]
    struct Watches {
        by_path: HashMap<PathBuf, WatchDescriptor>,
        by_wd: HashMap<WatchDescriptor, PathBuf>,
    }

    pub(super) struct Inotify {
        /// Held while draining, so a thread that finds the queue empty because another thread is draining it waits
        /// for that thread to publish the new generation (otherwise it could miss a change that preceded it).
        events: Mutex<inotify::Inotify>,
        /// Read-locked to check a path is watched (the common case, from many threads at once).
        watches: RwLock<Watches>,
    }

    impl Inotify {
        pub(super) fn new() -> Option<Inotify> {
            Some(Inotify {
                events: Mutex::new(inotify::Inotify::init().ok()?),
                watches: RwLock::new(Watches::default()),
            })
        }

        pub(super) fn watch(&self, path: &Path) -> bool {
            if self
                .watches
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .by_path
                .contains_key(path)
            {
                return true;
            }
            let added = self
                .events
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .watches()
                .add(path, mask());
            let Ok(wd) = added else {
                return false;
            };
            let mut w = self.watches.write().unwrap_or_else(|e| e.into_inner());
            // Two paths can name one inode (links): the newer path takes the descriptor; the older one is simply
            // watched again if asked, which returns the same descriptor.
            if let Some(old) = w.by_wd.insert(wd.clone(), path.to_path_buf()) {
                w.by_path.remove(&old);
            }
            w.by_path.insert(path.to_path_buf(), wd);
            true
        }

        pub(super) fn poll(&self, generation: &AtomicU64) -> u64 {
            let mut inotify = self.events.lock().unwrap_or_else(|e| e.into_inner());
            let mut buf = [0u8; 4096];
            let mut changed = false;
            let mut gone = Vec::new();
            loop {
                match inotify.read_events(&mut buf) {
                    Ok(events) => {
                        changed = true;
                        // The watched inode is gone (deleted or replaced): watch the path again on next use.
                        gone.extend(
                            events
                                .filter(|e| e.mask.contains(EventMask::IGNORED))
                                .map(|e| e.wd),
                        );
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                    // Any other error: treat as "something changed" so nothing is trusted blindly.
                    Err(_) => {
                        changed = true;
                        break;
                    }
                }
            }
            if !gone.is_empty() {
                let mut w = self.watches.write().unwrap_or_else(|e| e.into_inner());
                for wd in gone {
                    if let Some(p) = w.by_wd.remove(&wd) {
                        w.by_path.remove(&p);
                    }
                }
            }
            if changed {
                generation.fetch_add(1, Ordering::AcqRel) + 1
            } else {
                generation.load(Ordering::Acquire)
            }
        }
    }
}
