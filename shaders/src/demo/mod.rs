//! The demo frame of `shader-builder render`: one frame that uses many of the library's shaders, described once as
//! data ([`passes`]) and executed by each backend: [`vk`] (`ash`) and, with the `wgpu` feature, `wgpu`.
//!
//! 1. Compute: `gpu_compute_pattern` writes a procedural image, `gpu_compute_blur_horizontal` and
//!    `gpu_compute_blur_vertical` blur a copy of it.
//! 2. 3D: `gpu_shader_forward_lit` draws cubes and spheres (generated in [`scene`]) with [`crate::ViewData`] into
//!    a linear HDR target with depth.
//! 3. Display: `gpu_shader_fullscreen_tonemap` maps the HDR target into an sRGB image, then 2D shapes go on top:
//!    the sharp and the blurred pattern through `gpu_shader_2D_image`, `gpu_shader_2D_image_color` and
//!    `gpu_shader_2D_image_rect_color`; bars, a hexagon, a triangle and dots through
//!    `gpu_shader_2D_uniform_color`, `gpu_shader_2D_flat_color`, `gpu_shader_2D_smooth_color` and
//!    `gpu_shader_2D_point_quad_round` (points expanded to quads: WebGPU has no point size); text through
//!    `gpu_shader_text` with the glyph atlas of [`font`].
//!
//! 2D content is laid out in a virtual 1280 × 720 canvas stretched over the frame, so every size shows the same
//! picture. Nothing depends on time or the device: two devices, or two backends, produce the same picture up to
//! rounding.
//!
//! ```no_run
//! use gpu::vk::{ContextOptions, LibraryOptions, ShaderLibrary, VkContext};
//! use shaders as _;
//! let ctx = VkContext::new(&ContextOptions::default())?;
//! let mut lib = ShaderLibrary::new(&ctx, shader_info::Registry::global().clone(),
//!                                  LibraryOptions::new(shaders::glsl_root()))?;
//! let frame = shaders::demo::render_frame(&mut lib, 640, 360)?;
//! println!("{} distinct colors", frame.distinct_colors());
//! # Ok::<(), gpu::vk::VkError>(())
//! ```

pub mod font;
pub mod passes;
#[cfg(feature = "cli")]
pub mod run;
pub mod scene;
pub mod vk;
#[cfg(feature = "wgpu")]
pub mod wgpu;

use glam::Vec2;
pub use vk::render_frame;

/// Width and height of the virtual canvas the 2D content is laid out in.
pub const CANVAS: Vec2 = Vec2::new(1280.0, 720.0);
/// Side of the square procedural image of the compute pass, in texels.
pub const PATTERN_SIZE: u32 = 256;

/// A rendered frame: RGBA8, sRGB-encoded, row-major, top row first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub rgba: Vec<u8>,
}

impl Frame {
    /// The pixel at `(x, y)`.
    ///
    /// # Panics
    /// When `(x, y)` is outside the frame.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        assert!(
            x < self.width && y < self.height,
            "({x}, {y}) is outside the frame"
        );
        let i = ((y * self.width + x) * 4) as usize;
        [
            self.rgba[i],
            self.rgba[i + 1],
            self.rgba[i + 2],
            self.rgba[i + 3],
        ]
    }

    /// Number of distinct RGBA values in the frame.
    pub fn distinct_colors(&self) -> usize {
        let mut set = std::collections::HashSet::new();
        for p in self.rgba.chunks_exact(4) {
            set.insert([p[0], p[1], p[2], p[3]]);
        }
        set.len()
    }

    /// Writes the frame as an 8-bit RGBA PNG (creating the parent directory).
    #[cfg(feature = "cli")]
    pub fn write_png(&self, path: impl AsRef<std::path::Path>) -> Result<(), String> {
        let path = path.as_ref();
        let fail = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
        }
        // Encoded in memory, then put in place whole: a full disk or a crash mid-write keeps the last frame.
        let mut bytes = Vec::new();
        let mut encoder = png::Encoder::new(&mut bytes, self.width, self.height);
        encoder.set_color(png::ColorType::Rgba);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
        let mut writer = encoder.write_header().map_err(|e| fail(&e))?;
        writer.write_image_data(&self.rgba).map_err(|e| fail(&e))?;
        writer.finish().map_err(|e| fail(&e))?;
        if path.exists() && !path.is_file() {
            // A device or pipe (`/dev/stdout`): written to, not replaced.
            return std::fs::write(path, &bytes).map_err(|e| fail(&e));
        }
        gpu::cache_file::write_atomic(path, &bytes).map_err(|e| fail(&e))?;
        // The temporary file it was is private to its owner; a frame is an ordinary file.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o644))
                .map_err(|e| fail(&e))?;
        }
        Ok(())
    }

    /// Reads an 8-bit RGBA or RGB PNG.
    #[cfg(feature = "cli")]
    pub fn read_png(path: impl AsRef<std::path::Path>) -> Result<Frame, String> {
        let path = path.as_ref();
        let fail = |e: &dyn std::fmt::Display| format!("cannot read {}: {e}", path.display());
        let file = std::fs::File::open(path).map_err(|e| fail(&e))?;
        let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().map_err(|e| fail(&e))?;
        // The header's size decides the buffer: a few bytes can claim terabytes (an abort, not an error).
        let (width, height) = (reader.info().width, reader.info().height);
        if width > MAX_SIDE || height > MAX_SIDE {
            return Err(fail(&format!(
                "the image is {width}×{height}; frames are compared up to {MAX_SIDE}×{MAX_SIDE}, the largest \
                 `render --size` makes"
            )));
        }
        let mut buf = vec![0u8; reader.output_buffer_size()];
        let info = reader.next_frame(&mut buf).map_err(|e| fail(&e))?;
        buf.truncate(info.buffer_size());
        let rgba = match (info.color_type, info.bit_depth) {
            (png::ColorType::Rgba, png::BitDepth::Eight) => buf,
            (png::ColorType::Rgb, png::BitDepth::Eight) => buf
                .chunks_exact(3)
                .flat_map(|p| [p[0], p[1], p[2], 255])
                .collect(),
            (color, depth) => {
                return Err(fail(&format!(
                    "it is a {depth:?}-bit {color:?} PNG; compare reads 8-bit RGB or RGBA images (`render` \
                     writes those): convert it first"
                )));
            }
        };
        Ok(Frame {
            width: info.width,
            height: info.height,
            rgba,
        })
    }

    /// Per-channel absolute differences to `other` (same size): `(max, mean, share of pixels that differ by
    /// more than `tolerance` in any channel)`.
    pub fn difference(&self, other: &Frame, tolerance: u8) -> Result<(u8, f64, f64), String> {
        if (self.width, self.height) != (other.width, other.height) {
            return Err(format!(
                "sizes differ: {}x{} and {}x{}",
                self.width, self.height, other.width, other.height
            ));
        }
        let mut max = 0u8;
        let mut sum = 0u64;
        let mut differing = 0usize;
        for (a, b) in self.rgba.chunks_exact(4).zip(other.rgba.chunks_exact(4)) {
            let d = (0..4).map(|c| a[c].abs_diff(b[c])).max().unwrap_or(0);
            sum += (0..4).map(|c| a[c].abs_diff(b[c]) as u64).sum::<u64>();
            max = max.max(d);
            differing += (d > tolerance) as usize;
        }
        let pixels = (self.width as usize * self.height as usize).max(1);
        Ok((
            max,
            sum as f64 / (pixels * 4) as f64,
            differing as f64 / pixels as f64,
        ))
    }
}

/// The longest side of a frame the demo renders or `compare` reads.
pub const MAX_SIDE: u32 = 16384;

/// Parses `WIDTHxHEIGHT` (e.g. `1280x720`), each between 1 and [`MAX_SIDE`].
///
/// ```
/// assert_eq!(shaders::demo::parse_size("640x360"), Ok((640, 360)));
/// assert!(shaders::demo::parse_size("640").is_err());
/// assert!(shaders::demo::parse_size("0x10").is_err());
/// ```
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad =
        || format!("`{s}` is not a size: write WIDTHxHEIGHT, e.g. 1280x720, each 1..={MAX_SIDE}");
    let (w, h) = s.trim().split_once(['x', 'X']).ok_or_else(bad)?;
    let w: u32 = w.trim().parse().map_err(|_| bad())?;
    let h: u32 = h.trim().parse().map_err(|_| bad())?;
    if !(1..=MAX_SIDE).contains(&w) || !(1..=MAX_SIDE).contains(&h) {
        return Err(bad());
    }
    Ok((w, h))
}
