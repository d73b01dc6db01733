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
    use std::collections::HashMap;
    use std::ffi::CString;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
    use std::os::unix::ffi::OsStrExt;
    use std::path::{Path, PathBuf};
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicU64, Ordering};

    const MASK: u32 = libc::IN_MODIFY
        | libc::IN_ATTRIB
        | libc::IN_CLOSE_WRITE
        | libc::IN_CREATE
        | libc::IN_DELETE
        | libc::IN_DELETE_SELF
        | libc::IN_MOVE_SELF
        | libc::IN_MOVED_FROM
        | libc::IN_MOVED_TO;

    #[derive(Default)]
    struct Watches {
        by_path: HashMap<PathBuf, i32>,
        by_wd: HashMap<i32, PathBuf>,
    }

    pub(super) struct Inotify {
        fd: OwnedFd,
        /// Held while draining, so a thread that finds the queue empty because another thread is draining it waits
        /// for that thread to publish the new generation (otherwise it could miss a change that preceded it).
        watches: Mutex<Watches>,
    }

    impl Inotify {
        pub(super) fn new() -> Option<Inotify> {
            // SAFETY: inotify_init1 takes flags only and returns a new descriptor or -1.
            let fd = unsafe { libc::inotify_init1(libc::IN_NONBLOCK | libc::IN_CLOEXEC) };
            if fd < 0 {
                return None;
            }
            // SAFETY: `fd` is a freshly created descriptor that nothing else owns.
            let fd = unsafe { OwnedFd::from_raw_fd(fd) };
            Some(Inotify {
                fd,
                watches: Mutex::new(Watches::default()),
            })
        }

        pub(super) fn watch(&self, path: &Path) -> bool {
            let mut w = self.watches.lock().unwrap_or_else(|e| e.into_inner());
            if w.by_path.contains_key(path) {
                return true;
            }
            let Ok(c) = CString::new(path.as_os_str().as_bytes()) else {
                return false;
            };
            // SAFETY: `fd` is our inotify descriptor and `c` a NUL-terminated path that outlives the call.
            let wd = unsafe { libc::inotify_add_watch(self.fd.as_raw_fd(), c.as_ptr(), MASK) };
            if wd < 0 {
                return false;
            }
            // Two paths can name one inode (links): the newer path takes the descriptor; the older one is simply
            // watched again if asked, which returns the same descriptor.
            if let Some(old) = w.by_wd.insert(wd, path.to_path_buf()) {
                w.by_path.remove(&old);
            }
            w.by_path.insert(path.to_path_buf(), wd);
            true
        }

        pub(super) fn poll(&self, generation: &AtomicU64) -> u64 {
            let mut w = self.watches.lock().unwrap_or_else(|e| e.into_inner());
            // Aligned for `inotify_event` (an i32 followed by u32s).
            let mut buf = [0u64; 512];
            let mut changed = false;
            loop {
                // SAFETY: `buf` is valid for writes of its full byte length for the duration of the call.
                let n = unsafe {
                    libc::read(
                        self.fd.as_raw_fd(),
                        buf.as_mut_ptr().cast(),
                        std::mem::size_of_val(&buf),
                    )
                };
                if n <= 0 {
                    // EAGAIN: drained. Any other error: treat as "something changed" so nothing is trusted blindly.
                    if n < 0
                        && std::io::Error::last_os_error().kind() != std::io::ErrorKind::WouldBlock
                    {
                        changed = true;
                    }
                    break;
                }
                changed = true;
                let bytes = n as usize;
                let base = buf.as_ptr().cast::<u8>();
                let mut off = 0;
                let head = std::mem::size_of::<libc::inotify_event>();
                while off + head <= bytes {
                    // SAFETY: the kernel wrote whole events into `buf[..bytes]`; `off` is at an event start.
                    let ev: libc::inotify_event =
                        unsafe { std::ptr::read_unaligned(base.add(off).cast()) };
                    if ev.mask & libc::IN_IGNORED != 0
                        && let Some(p) = w.by_wd.remove(&ev.wd)
                    {
                        // The watched inode is gone (deleted or replaced): watch the path again on next use.
                        w.by_path.remove(&p);
                    }
                    off += head + ev.len as usize;
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
