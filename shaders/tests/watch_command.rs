//! `shader-builder watch` over a copy of the GLSL root: it compiles (and creates pipelines where Vulkan exists),
//! reports that it is watching, and prints one line for the reload an edit causes. A syntax error is reported
//! with its first diagnostic line; with a device the previous pipeline is kept; `--once` then exits non-zero.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// `shader-builder` with `args` (a watch), its stdout's lines coming through the receiver.
fn spawn(args: &[&str], stderr: Stdio) -> (std::process::Child, mpsc::Receiver<String>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_shader-builder"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = mpsc::channel::<String>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    (child, rx)
}

/// The lines until the one that says the watch started (asserted to come within two minutes), that one last.
fn until_ready(rx: &mpsc::Receiver<String>) -> Vec<String> {
    let mut lines = Vec::new();
    while let Ok(l) = rx.recv_timeout(Duration::from_secs(120)) {
        let ready = l.starts_with(shaders::watch_command::READY);
        lines.push(l);
        if ready {
            return lines;
        }
    }
    panic!("the watch never said it started: {lines:#?}");
}

#[test]
fn watch_prints_one_line_per_reload_and_keeps_the_previous_pipeline_on_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("glsl");
    copy_dir(&shaders::glsl_root(), &root);
    let root_arg = root.to_str().unwrap();
    let (mut child, rx) = spawn(
        &[
            "--root",
            root_arg,
            "watch",
            "--once",
            "--timeout",
            "120",
            "--debounce-ms",
            "100",
        ],
        Stdio::inherit(),
    );
    // Wait until it watches; then break the uniform-color fragment shader.
    let mut lines = until_ready(&rx);
    let next = |lines: &mut Vec<String>| -> Option<String> {
        let l = rx.recv_timeout(Duration::from_secs(120)).ok()?;
        lines.push(l.clone());
        Some(l)
    };
    let file = root.join("2d/uniform_color.frag.glsl");
    let source = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, source.replace("void main()", "void main() oops")).unwrap();
    let reload = next(&mut lines).unwrap_or_else(|| panic!("no reload line: {lines:#?}"));
    let status = child.wait().unwrap();
    // `--once` exits with the reload's outcome: this edit did not build.
    assert!(!status.success(), "{lines:#?}");
    assert!(
        reload.starts_with("2d/uniform_color.frag.glsl: "),
        "{reload}"
    );
    if lines[0].starts_with("device: ") {
        // With a device: the library's reload report, the broken pipeline kept with its first diagnostic line.
        assert!(reload.contains("1 kept previous"), "{reload}");
        assert!(
            reload.contains("gpu_shader_2D_uniform_color: kept previous ("),
            "{reload}"
        );
    } else {
        // Compile only: the static pass' line names the failing info.
        assert!(
            reload.contains("gpu_shader_2D_uniform_color: failed ("),
            "{reload}"
        );
    }
    eprintln!("{}", lines.join("\n"));
}

/// Ctrl-C is how a watch ends: the command returns normally, so a remote cache gets the pack of what it compiled
/// (before, the signal killed the process and every runner after it compiled the watch's modules again).
#[cfg(unix)]
#[test]
fn an_interrupted_watch_ends_cleanly_and_pushes_its_pack() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("glsl");
    copy_dir(&shaders::glsl_root(), &root);
    let remote = dir.path().join("remote");
    std::fs::create_dir(&remote).unwrap();
    let (remote_url, cache) = (
        format!("file://{}", remote.display()),
        dir.path().join("cache"),
    );
    let (child, rx) = spawn(
        &[
            "--root",
            root.to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
            "--remote-cache",
            &remote_url,
            "watch",
            "--debounce-ms",
            "100",
        ],
        Stdio::piped(),
    );
    until_ready(&rx);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{:?}\n{stderr}", out.status);
    let packs: Vec<_> = walk(&remote)
        .into_iter()
        .filter(|p| p.components().any(|c| c.as_os_str() == "pack"))
        .collect();
    assert_eq!(
        packs.len(),
        1,
        "one pack in {}: {packs:?}\n{stderr}",
        remote.display()
    );
    assert!(
        std::fs::metadata(&packs[0]).unwrap().len() > 1024,
        "{stderr}"
    );
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn a_timeout_past_the_clock_is_refused_at_the_option() {
    for value in ["1e19", "1e300"] {
        let out = Command::new(env!("CARGO_BIN_EXE_shader-builder"))
            .args(["watch", "--timeout", value])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{value}: {stderr}");
        assert!(
            stderr.contains("past what this system's clock can wait for"),
            "{value}: {stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
}

/// A debounce past a minute would hold every reload with nothing said (a huge one never ends): refused at the
/// option.
#[test]
fn a_debounce_past_a_minute_is_refused_at_the_option() {
    for value in ["60001", "18446744073709551615"] {
        let out = Command::new(env!("CARGO_BIN_EXE_shader-builder"))
            .args(["watch", "--debounce-ms", value])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{value}: {stderr}");
        assert!(stderr.contains("60000"), "{value}: {stderr}");
    }
}
