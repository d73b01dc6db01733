//! A tiny 5×7 bitmap font generated in code: the glyph atlas of the demo's text (`gpu_shader_text` reads
//! coverage from the red channel of an `R8_UNORM` texture).

use crate::GlyphQuad;
use glam::Vec4;

/// Glyph width and height in texels.
pub const GLYPH_W: u32 = 5;
pub const GLYPH_H: u32 = 7;
/// Each glyph sits in a cell with one empty texel on every side, so filtering never bleeds into a neighbour.
const CELL_W: u32 = GLYPH_W + 2;
const CELL_H: u32 = GLYPH_H + 2;

/// The glyphs, seven rows of five columns each (`#` is ink). Characters not listed draw nothing.
const GLYPHS: &[(char, [&str; 7])] = &[
    (
        'A',
        [
            " ### ", "#   #", "#   #", "#####", "#   #", "#   #", "#   #",
        ],
    ),
    (
        'B',
        [
            "#### ", "#   #", "#   #", "#### ", "#   #", "#   #", "#### ",
        ],
    ),
    (
        'C',
        [
            " ### ", "#   #", "#    ", "#    ", "#    ", "#   #", " ### ",
        ],
    ),
    (
        'D',
        [
            "#### ", "#   #", "#   #", "#   #", "#   #", "#   #", "#### ",
        ],
    ),
    (
        'E',
        [
            "#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#####",
        ],
    ),
    (
        'F',
        [
            "#####", "#    ", "#    ", "#### ", "#    ", "#    ", "#    ",
        ],
    ),
    (
        'G',
        [
            " ### ", "#   #", "#    ", "# ###", "#   #", "#   #", " ####",
        ],
    ),
    (
        'H',
        [
            "#   #", "#   #", "#   #", "#####", "#   #", "#   #", "#   #",
        ],
    ),
    (
        'I',
        [
            " ### ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### ",
        ],
    ),
    (
        'J',
        [
            "  ###", "   # ", "   # ", "   # ", "   # ", "#  # ", " ##  ",
        ],
    ),
    (
        'K',
        [
            "#   #", "#  # ", "# #  ", "##   ", "# #  ", "#  # ", "#   #",
        ],
    ),
    (
        'L',
        [
            "#    ", "#    ", "#    ", "#    ", "#    ", "#    ", "#####",
        ],
    ),
    (
        'M',
        [
            "#   #", "## ##", "# # #", "# # #", "#   #", "#   #", "#   #",
        ],
    ),
    (
        'N',
        [
            "#   #", "#   #", "##  #", "# # #", "#  ##", "#   #", "#   #",
        ],
    ),
    (
        'O',
        [
            " ### ", "#   #", "#   #", "#   #", "#   #", "#   #", " ### ",
        ],
    ),
    (
        'P',
        [
            "#### ", "#   #", "#   #", "#### ", "#    ", "#    ", "#    ",
        ],
    ),
    (
        'Q',
        [
            " ### ", "#   #", "#   #", "#   #", "# # #", "#  # ", " ## #",
        ],
    ),
    (
        'R',
        [
            "#### ", "#   #", "#   #", "#### ", "# #  ", "#  # ", "#   #",
        ],
    ),
    (
        'S',
        [
            " ####", "#    ", "#    ", " ### ", "    #", "    #", "#### ",
        ],
    ),
    (
        'T',
        [
            "#####", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ", "  #  ",
        ],
    ),
    (
        'U',
        [
            "#   #", "#   #", "#   #", "#   #", "#   #", "#   #", " ### ",
        ],
    ),
    (
        'V',
        [
            "#   #", "#   #", "#   #", "#   #", "#   #", " # # ", "  #  ",
        ],
    ),
    (
        'W',
        [
            "#   #", "#   #", "#   #", "# # #", "# # #", "# # #", " # # ",
        ],
    ),
    (
        'X',
        [
            "#   #", "#   #", " # # ", "  #  ", " # # ", "#   #", "#   #",
        ],
    ),
    (
        'Y',
        [
            "#   #", "#   #", " # # ", "  #  ", "  #  ", "  #  ", "  #  ",
        ],
    ),
    (
        'Z',
        [
            "#####", "    #", "   # ", "  #  ", " #   ", "#    ", "#####",
        ],
    ),
    (
        '0',
        [
            " ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### ",
        ],
    ),
    (
        '1',
        [
            "  #  ", " ##  ", "  #  ", "  #  ", "  #  ", "  #  ", " ### ",
        ],
    ),
    (
        '2',
        [
            " ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####",
        ],
    ),
    (
        '3',
        [
            "#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### ",
        ],
    ),
    (
        '4',
        [
            "   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # ",
        ],
    ),
    (
        '5',
        [
            "#####", "#    ", "#### ", "    #", "    #", "#   #", " ### ",
        ],
    ),
    (
        '6',
        [
            "  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### ",
        ],
    ),
    (
        '7',
        [
            "#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   ",
        ],
    ),
    (
        '8',
        [
            " ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### ",
        ],
    ),
    (
        '9',
        [
            " ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  ",
        ],
    ),
    (
        '-',
        [
            "     ", "     ", "     ", "#####", "     ", "     ", "     ",
        ],
    ),
    (
        '+',
        [
            "     ", "  #  ", "  #  ", "#####", "  #  ", "  #  ", "     ",
        ],
    ),
    (
        '.',
        [
            "     ", "     ", "     ", "     ", "     ", " ##  ", " ##  ",
        ],
    ),
    (
        ':',
        [
            "     ", " ##  ", " ##  ", "     ", " ##  ", " ##  ", "     ",
        ],
    ),
    (
        '/',
        [
            "     ", "    #", "   # ", "  #  ", " #   ", "#    ", "     ",
        ],
    ),
];

/// The glyph atlas: one row of cells, coverage 0 or 255 per texel (`R8_UNORM`).
#[derive(Clone, Debug)]
pub struct GlyphAtlas {
    pub width: u32,
    pub height: u32,
    pub texels: Vec<u8>,
}

impl GlyphAtlas {
    /// Rasterizes the font's glyphs into the atlas.
    pub fn new() -> GlyphAtlas {
        let width = CELL_W * GLYPHS.len() as u32;
        let height = CELL_H;
        let mut texels = vec![0u8; (width * height) as usize];
        for (i, (_, rows)) in GLYPHS.iter().enumerate() {
            for (y, row) in rows.iter().enumerate() {
                for (x, c) in row.chars().enumerate() {
                    if c == '#' {
                        let tx = i as u32 * CELL_W + 1 + x as u32;
                        let ty = 1 + y as u32;
                        texels[(ty * width + tx) as usize] = 255;
                    }
                }
            }
        }
        GlyphAtlas {
            width,
            height,
            texels,
        }
    }

    /// The normalized `(u0, v0, u1, v1)` of `c`'s glyph (case-insensitive), or `None` for characters without one.
    pub fn uv_rect(&self, c: char) -> Option<Vec4> {
        let c = c.to_ascii_uppercase();
        let i = GLYPHS.iter().position(|(g, _)| *g == c)? as u32;
        let (w, h) = (self.width as f32, self.height as f32);
        let x0 = (i * CELL_W + 1) as f32;
        Some(Vec4::new(
            x0 / w,
            1.0 / h,
            (x0 + GLYPH_W as f32) / w,
            (1 + GLYPH_H) as f32 / h,
        ))
    }

    /// Lays out `text` from the top-left corner `(x, y)` with glyphs `scale` times their texel size, one quad
    /// per visible character (spaces and unknown characters only advance).
    pub fn layout(&self, text: &str, x: f32, y: f32, scale: f32, color: Vec4) -> Vec<GlyphQuad> {
        let advance = (GLYPH_W + 1) as f32 * scale;
        text.chars()
            .enumerate()
            .filter_map(|(i, c)| {
                self.uv_rect(c).map(|uv_rect| GlyphQuad {
                    rect: Vec4::new(
                        x + i as f32 * advance,
                        y,
                        GLYPH_W as f32 * scale,
                        GLYPH_H as f32 * scale,
                    ),
                    uv_rect,
                    color,
                })
            })
            .collect()
    }
}

impl Default for GlyphAtlas {
    fn default() -> Self {
        GlyphAtlas::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_glyph_has_seven_rows_of_five() {
        for (c, rows) in GLYPHS {
            for r in rows {
                assert_eq!(r.chars().count(), 5, "glyph {c:?}");
            }
        }
    }

    #[test]
    fn the_atlas_holds_the_ink_of_each_glyph_in_its_cell() {
        let a = GlyphAtlas::new();
        // 'L' has its vertical stroke in column 0 and a full bottom row.
        let i = GLYPHS.iter().position(|(g, _)| *g == 'L').unwrap() as u32;
        let at = |x: u32, y: u32| a.texels[((1 + y) * a.width + i * CELL_W + 1 + x) as usize];
        assert_eq!(at(0, 0), 255);
        assert_eq!(at(4, 0), 0);
        assert_eq!(at(4, 6), 255);
        assert_eq!(a.layout("a b?", 0.0, 0.0, 1.0, Vec4::ONE).len(), 2);
    }
}
