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
