//! Tint, Dawn's WGSL compiler, as the independent check of WGSL: the npm package `webgpu` (Dawn for node) on its
//! null backend, driven through `tint-check.mjs` (beside this file, so it ships with the crate). One node process serves the whole pass (started at the
//! first WGSL module, fed one module a line); identical WGSL text gets its verdict once.
//!
//! Where the package is: `SHADER_INFO_TINT=<dir>` (the folder holding `node_modules/webgpu`), else `.tools/webgpu`
//! in the current directory or any folder above it (where `scripts/install-deps.sh` puts it). Without it the check
//! is skipped, unless `SHADER_INFO_REQUIRE_TINT=1` (CI), which makes a missing Tint a failure of every WGSL module.

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// How long one module may take: Tint answers in milliseconds; Dawn for node can also hang instead of crashing
/// (seen after thousands of modules), and a check must not wait for ever.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);
/// Modules one process checks before a fresh one takes over: Dawn for node failed (a futex error, or a hang)
/// somewhere past 1,000 modules in one process, and a start costs a fraction of a second.
const MODULES_PER_PROCESS: u64 = 500;

/// The variable naming the folder that holds `node_modules/webgpu`.
pub const TINT_ENV: &str = "SHADER_INFO_TINT";
/// `1`: a missing Tint fails every WGSL check instead of skipping it.
pub const REQUIRE_TINT_ENV: &str = "SHADER_INFO_REQUIRE_TINT";

const SCRIPT: &str = include_str!("tint-check.mjs");

struct Server {
    child: Child,
    stdin: ChildStdin,
    /// Tint's output lines, read by a thread of their own so that an answer can be waited for with a timeout;
    /// closed when the process ends.
    lines: Receiver<String>,
    next_id: u64,
    /// The immediate bytes Dawn's device takes (`maxImmediateSize`).
    max_immediate_size: u32,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The state of the one Tint process: running, or why there is none.
static SERVER: OnceLock<Result<Mutex<Server>, String>> = OnceLock::new();
/// Verdicts by WGSL text: identical text, identical verdict.
static VERDICTS: OnceLock<Mutex<HashMap<u128, Result<(), String>>>> = OnceLock::new();

/// The folder holding `node_modules/webgpu`, if there is one.
pub fn package_dir() -> Option<PathBuf> {
    let has = |d: &Path| d.join("node_modules/webgpu/index.js").is_file();
    if let Some(d) = std::env::var_os(TINT_ENV) {
        let d = PathBuf::from(d);
        return has(&d).then_some(d);
    }
    let cwd = std::env::current_dir().ok()?;
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    cwd.ancestors()
        .chain(manifest.ancestors())
        .map(|a| a.join(".tools/webgpu"))
        .find(|d| has(d))
}

pub(crate) fn required() -> bool {
    std::env::var(REQUIRE_TINT_ENV).as_deref() == Ok("1")
}

fn start() -> Result<Server, String> {
    let dir = package_dir().ok_or_else(|| {
        format!(
            "the npm package `webgpu` is not installed (bash scripts/install-deps.sh puts it in .tools/webgpu; or set {TINT_ENV})"
        )
    })?;
    // The script goes on the command line, not in a file: the server lives in a static that is never dropped, so a
    // temporary script file was left behind by every process that checked WGSL (thousands in a test run's /tmp).
    let mut cmd = Command::new("node");
    cmd.args(["--input-type=module", "--eval", SCRIPT, "--"])
        .arg(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    // Dawn prints errors without a runtime folder.
    if std::env::var_os("XDG_RUNTIME_DIR").is_none()
        && let Some(runtime) = private_runtime_dir()
    {
        cmd.env("XDG_RUNTIME_DIR", runtime);
    }
    let mut child = cmd
        .spawn()
        .map_err(|e| format!("cannot run node (Tint's host): {e}"))?;
    let stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
    let (tx, lines) = channel();
    std::thread::spawn(move || {
        for line in stdout.lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    // Every way out but success ends the process and reaps it: a restart after a failed start leaves nothing.
    let fail = |mut child: Child, why: String| {
        let _ = child.kill();
        let _ = child.wait();
        Err(why)
    };
    let first = match lines.recv_timeout(ANSWER_TIMEOUT) {
        Ok(l) => l,
        Err(e) => return fail(child, format!("Tint did not start: {e}")),
    };
    let ready: serde_json::Value = match serde_json::from_str(&first) {
        Ok(v) => v,
        Err(_) => return fail(child, format!("Tint did not start: `{}`", first.trim())),
    };
    if ready["ready"] != serde_json::Value::Bool(true) {
        return fail(child, format!("Tint did not start: {}", ready["error"]));
    }
    Ok(Server {
        child,
        stdin,
        lines,
        next_id: 0,
        max_immediate_size: ready["maxImmediateSize"]
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .unwrap_or(0),
    })
}

/// A runtime folder for Dawn when the session has none: this user's own (`shader-info-tint-<uid>`, mode 0700, as
/// XDG asks), never one another user made first in the shared temporary folder.
fn private_runtime_dir() -> Option<PathBuf> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, MetadataExt};
        let uid = crate::cache_file::own_uid()?;
        let dir = std::env::temp_dir().join(format!("shader-info-tint-{uid}"));
        let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
        let meta = std::fs::symlink_metadata(&dir).ok()?;
        (meta.is_dir() && meta.uid() == uid && meta.mode() & 0o077 == 0).then_some(dir)
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// The version of the installed `webgpu` package (its `package.json`), read once: part of the verdicts' cache key,
/// so another Tint checks again.
pub fn package_version() -> Option<&'static str> {
    static VERSION: OnceLock<Option<String>> = OnceLock::new();
    VERSION
        .get_or_init(|| {
            let text =
                std::fs::read_to_string(package_dir()?.join("node_modules/webgpu/package.json"))
                    .ok()?;
            let json: serde_json::Value = serde_json::from_str(&text).ok()?;
            json["version"].as_str().map(str::to_string)
        })
        .as_deref()
}

/// Whether the package is installed (without starting anything): then every WGSL check runs Tint or fails.
pub fn installed() -> bool {
    static INSTALLED: OnceLock<bool> = OnceLock::new();
    *INSTALLED.get_or_init(|| package_dir().is_some())
}

/// Whether Tint can run here (starts it when it was not yet started).
pub fn available() -> bool {
    SERVER.get_or_init(|| start().map(Mutex::new)).is_ok()
}

/// The immediate bytes Dawn's device takes (its `maxImmediateSize`), where Tint runs here: the WGSL keeps at most
/// [`crate::cross::immediates::WEBGPU_IMMEDIATE_BYTES`] in immediates, which a test holds against this.
pub fn max_immediate_size() -> Option<u32> {
    let server = SERVER
        .get_or_init(|| start().map(Mutex::new))
        .as_ref()
        .ok()?;
    Some(
        server
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .max_immediate_size,
    )
}

/// Tint's verdict on `wgsl`: `Ok(None)` when it accepts it, `Ok(Some(errors))` when it rejects it, `Err(why)` when
/// Tint cannot run (only when it is required; otherwise a missing Tint is `Ok(None)`).
pub fn check(wgsl: &str) -> Result<Option<String>, String> {
    let server = match SERVER.get_or_init(|| start().map(Mutex::new)) {
        Ok(s) => s,
        Err(e) if required() => return Err(format!("{REQUIRE_TINT_ENV}=1 but {e}")),
        // Installed but not running (no node, a broken package): a failure, not a silent skip, so that no verdict
        // is kept as checked by Tint when it was not.
        Err(e) if installed() => return Err(format!("Tint is installed but cannot run: {e}")),
        Err(_) => return Ok(None),
    };
    let key = crate::disk_cache::key_of(&[b"tint", wgsl.as_bytes()]);
    let memo = VERDICTS.get_or_init(Default::default);
    if let Some(v) = memo.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return Ok(v.clone().err());
    }
    let verdict = ask(server, wgsl)?;
    memo.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, verdict.clone());
    Ok(verdict.err())
}

/// Tint's verdict on one module. A process that ended or stopped answering (Dawn for node can abort after
/// thousands of modules, "The futex facility returned an unexpected error code", or hang) is started again and
/// asked again, so one crash costs one restart, not every later verdict; a module it fails on twice is a failure
/// naming that.
fn ask(server: &Mutex<Server>, wgsl: &str) -> Result<Result<(), String>, String> {
    let mut s = server.lock().unwrap_or_else(|e| e.into_inner());
    if s.next_id >= MODULES_PER_PROCESS
        && let Ok(fresh) = start()
    {
        *s = fresh;
    }
    let first = match exchange(&mut s, wgsl) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    *s = start().map_err(|e| format!("{first}, and it did not start again: {e}"))?;
    match exchange(&mut s, wgsl) {
        Ok(v) => Ok(v),
        Err(second) => {
            // Ready for the next module, whatever this one does to it.
            if let Ok(fresh) = start() {
                *s = fresh;
            }
            Err(format!(
                "Tint's process ended twice on this module ({first}; then {second})"
            ))
        }
    }
}

/// Sends one module and reads its answer; `Err` when the process is gone.
fn exchange(s: &mut Server, wgsl: &str) -> Result<Result<(), String>, String> {
    s.next_id += 1;
    let id = s.next_id;
    let mut line = serde_json::json!({ "id": id, "code": wgsl }).to_string();
    line.push('\n');
    s.stdin
        .write_all(line.as_bytes())
        .and_then(|()| s.stdin.flush())
        .map_err(|e| format!("Tint's process ended: {e}"))?;
    loop {
        let answer = match s.lines.recv_timeout(ANSWER_TIMEOUT) {
            Ok(line) => line,
            Err(RecvTimeoutError::Disconnected) => {
                return Err("Tint's process ended before answering".into());
            }
            Err(RecvTimeoutError::Timeout) => {
                // Hung, not ended: end it, so that the next ask starts a fresh one.
                let _ = s.child.kill();
                let _ = s.child.wait();
                return Err(format!(
                    "Tint did not answer in {} s",
                    ANSWER_TIMEOUT.as_secs()
                ));
            }
        };
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&answer) else {
            continue;
        };
        if v["id"] != serde_json::json!(id) {
            continue;
        }
        if v["ok"] == serde_json::Value::Bool(true) {
            return Ok(Ok(()));
        }
        let lines: Vec<String> = v["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|m| {
                format!(
                    "{}:{}: {}: {}",
                    m["line"],
                    m["column"],
                    m["type"].as_str().unwrap_or("error"),
                    m["message"].as_str().unwrap_or_default()
                )
            })
            .collect();
        return Ok(Err(lines.join("\n")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tint_rejects_an_array_in_immediates_and_takes_plain_wgsl() {
        if !available() {
            assert!(!required(), "{REQUIRE_TINT_ENV}=1 but Tint cannot run");
            return;
        }
        assert_eq!(check("@compute @workgroup_size(1) fn main() {}"), Ok(None));
        let rejected = check(
            "struct P { a: array<u32, 4> }\nvar<immediate> p: P;\n@compute @workgroup_size(1) fn main() { _ = p.a[0]; }",
        )
        .unwrap()
        .expect("Tint takes no array in immediates");
        assert!(
            rejected.contains("arrays cannot be used in the <immediate> address space"),
            "{rejected}"
        );
    }

    #[test]
    fn a_tint_process_leaves_no_file_behind() {
        if !installed() {
            assert!(
                !required(),
                "{REQUIRE_TINT_ENV}=1 but Tint is not installed"
            );
            return;
        }
        let scripts = || -> std::collections::BTreeSet<PathBuf> {
            std::fs::read_dir(std::env::temp_dir())
                .unwrap()
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "mjs"))
                .collect()
        };
        let before = scripts();
        let mut server = start().expect("Tint starts");
        assert_eq!(
            exchange(&mut server, "@compute @workgroup_size(1) fn main() {}"),
            Ok(Ok(()))
        );
        assert_eq!(scripts(), before, "a running Tint process wrote a file");
        drop(server);
    }

    #[test]
    fn a_tint_process_that_ended_is_started_again() {
        if !available() {
            assert!(!required(), "{REQUIRE_TINT_ENV}=1 but Tint cannot run");
            return;
        }
        let Some(Ok(server)) = SERVER.get() else {
            unreachable!("available() started it")
        };
        {
            let mut s = server.lock().unwrap_or_else(|e| e.into_inner());
            s.child.kill().unwrap();
            s.child.wait().unwrap();
        }
        // A text no other test asks about, so the verdict is not remembered.
        assert_eq!(
            check("@compute @workgroup_size(2) fn restarted() {}"),
            Ok(None)
        );
    }
}
