//! `shader-builder compare`: the check the README runs between the ash and the wgpu frame exits non-zero when
//! more pixels differ than allowed (it printed the count and exited 0 whatever the frames were).

use shaders::demo::Frame;
use std::process::Command;

fn png(dir: &std::path::Path, name: &str, rgba: Vec<u8>) -> std::path::PathBuf {
    let path = dir.join(name);
    Frame {
        width: 2,
        height: 2,
        rgba,
    }
    .write_png(&path)
    .unwrap();
    path
}

fn compare(a: &std::path::Path, b: &std::path::Path, extra: &[&str]) -> bool {
    Command::new(env!("CARGO_BIN_EXE_shader-builder"))
        .arg("--no-cache")
        .arg("compare")
        .arg(a)
        .arg(b)
        .args(extra)
        .status()
        .unwrap()
        .success()
}

#[test]
fn compare_fails_when_more_pixels_differ_than_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let black = png(dir.path(), "black.png", [0, 0, 0, 255].repeat(4));
    let near = png(dir.path(), "near.png", [1, 1, 1, 255].repeat(4));
    let mut one_white = [0, 0, 0, 255].repeat(4);
    one_white[..3].copy_from_slice(&[255, 255, 255]);
    let one = png(dir.path(), "one.png", one_white);
    assert!(compare(&black, &near, &[]), "within the tolerance of 2");
    assert!(!compare(&black, &one, &[]), "one pixel of four differs");
    assert!(compare(&black, &one, &["--max-differing", "25"]));
    assert!(
        !compare(&black, &one, &["--max-differing", "101"]),
        "not a percentage"
    );
}

/// A PNG of `width` × `height` (8-bit RGBA) whose header is all there is: a few bytes that claim any size.
fn png_header_only(path: &std::path::Path, width: u32, height: u32) {
    fn crc(bytes: &[u8]) -> u32 {
        let mut c = !0u32;
        for b in bytes {
            c ^= u32::from(*b);
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xEDB8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
    fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
        out.extend((data.len() as u32).to_be_bytes());
        let start = out.len();
        out.extend(kind);
        out.extend(data);
        let sum = crc(&out[start..]);
        out.extend(sum.to_be_bytes());
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = Vec::new();
    ihdr.extend(width.to_be_bytes());
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 6, 0, 0, 0]);
    chunk(&mut out, b"IHDR", &ihdr);
    // An empty zlib stream.
    chunk(
        &mut out,
        b"IDAT",
        &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01],
    );
    chunk(&mut out, b"IEND", &[]);
    std::fs::write(path, out).unwrap();
}

#[test]
fn a_png_claiming_a_huge_size_is_refused_not_an_abort() {
    let dir = tempfile::tempdir().unwrap();
    let ok = png(dir.path(), "ok.png", [0, 0, 0, 255].repeat(4));
    for (w, h) in [(16_000_000, 2_000_000_000), (100_000, 100_000), (16385, 1)] {
        let huge = dir.path().join("huge.png");
        png_header_only(&huge, w, h);
        let out = Command::new(env!("CARGO_BIN_EXE_shader-builder"))
            .args(["--no-cache", "compare"])
            .arg(&huge)
            .arg(&ok)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{w}×{h}: {stderr}");
        assert!(
            stderr.contains(&format!("the image is {w}×{h}"))
                && stderr.contains("up to 16384×16384"),
            "{w}×{h}: {stderr}"
        );
    }
}
