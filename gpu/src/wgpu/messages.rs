//! The Vulkan validation layer's messages on wgpu. wgpu-hal's debug messenger writes them to the `log` crate
//! (target `wgpu_hal::vulkan::…`), not to a callback of ours, so counting them means installing a logger: the
//! process-wide [`capture`] does that once, for a tool or a test that reports them (`shader-builder render
//! --backend wgpu`, the wgpu tests). A renderer with its own logger keeps it and sees the messages there.
//!
//! ```no_run
//! shader_info_gpu::wgpu::messages::capture();
//! let ctx = shader_info_gpu::wgpu::WgpuContext::new(&shader_info_gpu::wgpu::WgpuContextOptions { validation: true, ..Default::default() })?;
//! // … use the device …
//! assert!(shader_info_gpu::wgpu::messages::captured().is_empty());
//! # Ok::<(), shader_info_gpu::wgpu::WgpuError>(())
//! ```

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once};

/// Warnings and errors wgpu-hal logged from the validation layer (every context of the process).
static MESSAGES: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct Capture;

impl log::Log for Capture {
    fn enabled(&self, m: &log::Metadata) -> bool {
        m.level() <= log::Level::Warn
    }

    fn log(&self, r: &log::Record) {
        // One record per message; the object and label lists after it start with a tab.
        let text = r.args().to_string();
        if self.enabled(r.metadata())
            && r.target().starts_with("wgpu_hal::vulkan")
            && !text.starts_with('\t')
        {
            MESSAGES
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(format!("{}: {text}", r.level()));
        }
    }

    fn flush(&self) {}
}

static CAPTURE: Capture = Capture;
static INSTALL: Once = Once::new();
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// Installs the capturing logger (once per process). False when another logger was installed first: messages
/// then go to that logger and [`captured`] stays empty.
pub fn capture() -> bool {
    INSTALL.call_once(|| {
        if log::set_logger(&CAPTURE).is_ok() {
            log::set_max_level(log::LevelFilter::Warn);
            INSTALLED.store(true, Ordering::Release);
        }
    });
    INSTALLED.load(Ordering::Acquire)
}

/// The messages captured so far (a copy; they stay for later calls).
pub fn captured() -> Vec<String> {
    MESSAGES.lock().unwrap_or_else(|p| p.into_inner()).clone()
}
