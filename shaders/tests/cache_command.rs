//! `shader-builder build` with the persistent cache, shards and the remote cache, as separate processes over real
//! directories — and, for the remote cache, a real S3-compatible server on the loopback address (moto's, started
//! by `scripts/s3-server.py`; `SHADER_INFO_REQUIRE_S3=1` makes its absence a failure, as in CI).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

fn builder() -> Command {
    Command::new(env!("CARGO_BIN_EXE_shader-builder"))
}

/// The JSON report and stderr of a finished build; fails the test when the build failed.
fn report(out: Output, args: &[&str]) -> (serde_json::Value, String) {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "build {args:?} failed:\n{stderr}");
    let json = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("build {args:?}: not JSON ({e}):\n{stderr}"));
    (json, stderr)
}

fn cache_count(r: &serde_json::Value, field: &str) -> u64 {
    r["cache"][field]
        .as_u64()
        .unwrap_or_else(|| panic!("no cache.{field} in {}", r["cache"]))
}

/// Every file of a directory, by name, with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().to_string(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn assert_same_outputs(a: &Path, b: &Path) {
    let (fa, fb) = (files(a), files(b));
    assert!(!fa.is_empty());
    assert_eq!(
        fa.keys().collect::<Vec<_>>(),
        fb.keys().collect::<Vec<_>>(),
        "{} and {} hold other files",
        a.display(),
        b.display()
    );
    for (name, bytes) in &fa {
        assert!(fb[name] == *bytes, "`{name}` differs");
    }
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_type().unwrap().is_dir() {
            out.extend(walk(&e.path()));
        } else {
            out.push(e.path());
        }
    }
    out
}

/// The infos these tests build: small enough for CI, with vertex, fragment and compute stages and every target.
const FILTER: &str = "gpu_shader_2D";

#[test]
fn a_warm_build_compiles_nothing_and_writes_the_same_files_with_every_target() {
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);
    let cache = p("cache");
    let go = |global: &[&str], out: &Path| {
        let args = [
            global,
            &["build", "--json", "--filter", FILTER, "--target", "all"],
        ]
        .concat();
        let o = builder()
            .args(&args)
            .arg("--out")
            .arg(out)
            .output()
            .unwrap();
        report(o, &args).0
    };
    let with_cache = ["--cache", cache.to_str().unwrap()];
    let cold = go(&with_cache, &p("cold"));
    assert!(cache_count(&cold, "writes") > 0);
    let warm = go(&with_cache, &p("warm"));
    assert_eq!(
        cache_count(&warm, "misses"),
        0,
        "a warm build compiled: {}",
        warm["cache"]
    );
    assert_eq!(cache_count(&warm, "hits"), cache_count(&cold, "misses"));
    assert_eq!(warm["modules"], cold["modules"]);
    assert_same_outputs(&p("cold"), &p("warm"));
    let plain = go(&["--no-cache"], &p("plain"));
    assert!(plain["cache"].is_null());
    assert_same_outputs(&p("cold"), &p("plain"));
}

/// Every file under `from`, copied under `to`.
fn copy_tree(from: &Path, to: &Path) {
    for f in walk(from) {
        let dest = to.join(f.strip_prefix(from).unwrap());
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(&f, dest).unwrap();
    }
}

#[test]
fn a_second_build_of_an_unchanged_tree_is_replayed_and_an_edit_builds_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("glsl");
    copy_tree(&Path::new(env!("CARGO_MANIFEST_DIR")).join("glsl"), &root);
    let cache = dir.path().join("cache");
    let run = || {
        let args = [
            "--root",
            root.to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
            "build",
            "--json",
            "--filter",
            FILTER,
            "--target",
            "wgsl,gl",
        ];
        report(builder().args(args).output().unwrap(), &args).0
    };
    let same = |a: &serde_json::Value, b: &serde_json::Value| {
        for field in [
            "infos_total",
            "infos_passed",
            "modules",
            "targets",
            "pipeline_set",
        ] {
            assert_eq!(a[field], b[field], "{field}");
        }
        let names = |r: &serde_json::Value| -> Vec<serde_json::Value> {
            r["infos"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["name"].clone())
                .collect()
        };
        assert_eq!(names(a), names(b));
    };
    let cold = run();
    assert_eq!(cold["replayed"], false);
    let warm = run();
    assert_eq!(warm["replayed"], true, "nothing changed");
    assert_eq!(cache_count(&warm, "hits"), 0, "a replay looks nothing up");
    same(&cold, &warm);
    // An edit anywhere the pass reads (here: every file gets a comment) builds again, then is replayed.
    for f in walk(&root) {
        let mut text = std::fs::read_to_string(&f).unwrap();
        text.push_str("\n// edited\n");
        std::fs::write(&f, text).unwrap();
    }
    let edited = run();
    assert_eq!(edited["replayed"], false, "the sources changed");
    assert!(cache_count(&edited, "misses") > 0);
    same(&cold, &edited);
    assert_eq!(run()["replayed"], true);
}

#[test]
fn damaged_reflection_and_translation_entries_are_all_refused_and_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let cache_s = cache.to_str().unwrap();
    let out = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let args = |o: &str| {
        vec![
            "--cache".to_string(),
            cache_s.to_string(),
            "build".into(),
            "--json".into(),
            "--filter".into(),
            FILTER.into(),
            "--target".into(),
            "wgsl,gl".into(),
            "--out".into(),
            o.to_string(),
        ]
    };
    let run = |o: &str| {
        let a = args(o);
        report(builder().args(&a).output().unwrap(), &[])
    };
    let (cold, _) = run(&out("cold"));
    assert!(cache_count(&cold, "writes") > 0);
    // The other kinds are damaged in `gpu/tests/disk_cache.rs`; here, every reflection and translation entry, by
    // the three kinds of damage in turn.
    let damaged: Vec<PathBuf> = ["reflection", "translation"]
        .iter()
        .flat_map(|k| walk(&cache.join("v1").join(k)))
        .collect();
    assert!(damaged.len() > 10, "{} entries", damaged.len());
    for (how, damage) in [
        (
            "flipped",
            (|b: &mut Vec<u8>| b[40] ^= 4) as fn(&mut Vec<u8>),
        ),
        ("truncated", |b: &mut Vec<u8>| b.truncate(b.len() - 3)),
        ("emptied", |b: &mut Vec<u8>| b.clear()),
    ] {
        for f in &damaged {
            let mut b = std::fs::read(f).unwrap();
            damage(&mut b);
            std::fs::write(f, b).unwrap();
        }
        let (r, stderr) = run(&out(how));
        assert_eq!(
            cache_count(&r, "corrupt"),
            damaged.len() as u64,
            "{how}: not every damaged entry was detected"
        );
        assert_eq!(
            stderr.matches("is refused").count(),
            damaged.len(),
            "{how}: one warning per entry"
        );
        assert_same_outputs(Path::new(&out("cold")), Path::new(&out(how)));
        // Replaced: the next build hits everything.
        let (again, _) = run(&out(&format!("{how}-again")));
        assert_eq!(cache_count(&again, "corrupt"), 0);
        assert_eq!(cache_count(&again, "misses"), 0);
    }
}

#[test]
fn shards_merged_equal_one_full_run_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    // The whole library (951 modules) without targets, and one family with every target.
    for (name, extra) in [
        ("library", vec![]),
        (
            "targets",
            vec!["--filter", FILTER, "--target", "wgsl,msl,hlsl"],
        ),
    ] {
        let full = path(&format!("{name}-full"));
        let mut args = vec!["--no-cache", "build", "--json", "--out", &full];
        args.extend(&extra);
        let (whole, _) = report(builder().args(&args).output().unwrap(), &args);
        let mut parts = Vec::new();
        let mut modules = 0;
        for i in 1..=3 {
            let out = path(&format!("{name}-shard{i}"));
            let shard = format!("{i}/3");
            let mut args = vec![
                "--no-cache",
                "build",
                "--json",
                "--shard",
                &shard,
                "--out",
                &out,
            ];
            args.extend(&extra);
            let (r, _) = report(builder().args(&args).output().unwrap(), &args);
            let n = r["modules"].as_u64().unwrap();
            assert!(n > 0, "shard {i} is empty");
            assert_eq!(r["shard"]["count"], 3);
            modules += n;
            parts.push(out);
        }
        assert_eq!(
            modules,
            whole["modules"].as_u64().unwrap(),
            "{name}: every module in exactly one shard"
        );
        let merged = path(&format!("{name}-merged"));
        let st = builder()
            .args(["merge", "--out", &merged])
            .args(&parts)
            .status()
            .unwrap();
        assert!(st.success());
        assert_same_outputs(Path::new(&full), Path::new(&merged));
    }
    // The split does not depend on the machine or the run: the same shard twice gives the same files.
    let again = path("again");
    let args = [
        "--no-cache",
        "build",
        "--json",
        "--shard",
        "2/3",
        "--out",
        &again,
    ];
    report(builder().args(args).output().unwrap(), &args);
    assert_same_outputs(Path::new(&path("library-shard2")), Path::new(&again));
    // Bad shards are refused with the form to use.
    let bad = builder()
        .args(["--no-cache", "build", "--shard", "4/3"])
        .output()
        .unwrap();
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("I/N"));
    // A set of parts with one missing, or into a folder that already holds files, is refused: either would
    // give a merge that looks whole.
    let parts: Vec<String> = (1..=3)
        .map(|i| path(&format!("library-shard{i}")))
        .collect();
    let merge = |out: &str, parts: &[&String]| {
        let m = builder()
            .arg("merge")
            .arg("--out")
            .arg(out)
            .args(parts)
            .output()
            .unwrap();
        assert!(!m.status.success());
        String::from_utf8_lossy(&m.stderr).into_owned()
    };
    let two = merge(&path("two-of-three"), &[&parts[0], &parts[2]]);
    assert!(two.contains("parts 2/3 are missing"), "{two}");
    let again = merge(&path("library-merged"), &[&parts[0], &parts[1], &parts[2]]);
    assert!(again.contains("is not empty"), "{again}");
    // A part that did not finish (no record) is refused, naming its folder.
    std::fs::remove_file(Path::new(&parts[1]).join(".shard")).unwrap();
    let unfinished = merge(&path("unfinished"), &[&parts[0], &parts[1], &parts[2]]);
    assert!(
        unfinished.contains("library-shard2") && unfinished.contains("finished"),
        "{unfinished}"
    );
    // Merging shards of different sources is refused, naming the file.
    let a = path("conflict-a");
    let b = path("conflict-b");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::create_dir_all(&b).unwrap();
    std::fs::write(Path::new(&a).join("x.spv"), b"one").unwrap();
    std::fs::write(Path::new(&b).join("x.spv"), b"two").unwrap();
    std::fs::write(Path::new(&a).join(".shard"), "1/2\n").unwrap();
    std::fs::write(Path::new(&b).join(".shard"), "2/2\n").unwrap();
    let conflict = merge(&path("conflict"), &[&a, &b]);
    assert!(conflict.contains("x.spv"), "{conflict}");
}

/// A part's record says it finished and how it was built: a rerun that fails leaves none behind (the earlier
/// record made a half-old part look whole), parts built with other options are not merged, a part with no module
/// still finishes, and an output path that is a file is one error before anything compiles.
#[test]
fn a_part_is_merged_only_when_this_run_finished_it_with_the_same_options() {
    let dir = tempfile::tempdir().unwrap();
    let path = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let part = |i: u32, out: &str, extra: &[&str]| {
        let shard = format!("{i}/2");
        let mut args = vec!["--no-cache", "build", "--shard", &shard, "--out", out];
        args.extend(extra);
        builder().args(&args).output().unwrap()
    };
    let merge = |out: &str, parts: &[&str]| {
        builder()
            .args(["merge", "--out", out])
            .args(parts)
            .output()
            .unwrap()
    };
    let stderr = |o: &Output| String::from_utf8_lossy(&o.stderr).into_owned();
    let (one, two) = (path("one"), path("two"));
    for (i, out) in [(1, &one), (2, &two)] {
        let o = part(i, out, &["--filter", FILTER]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    assert!(merge(&path("merged"), &[&one, &two]).status.success());
    // Built again and failing (here: a filter that matches nothing), the part has no record: not mergeable.
    let failed = part(2, &two, &["--filter", "gpu_shader_2D_nothing"]);
    assert!(!failed.status.success());
    assert!(!Path::new(&two).join(".shard").exists());
    let stale = merge(&path("stale"), &[&one, &two]);
    assert!(
        !stale.status.success() && stderr(&stale).contains("finished"),
        "{}",
        stderr(&stale)
    );
    // Built with other targets: refused, both folders and both option sets named.
    let o = part(2, &two, &["--filter", FILTER, "--target", "wgsl"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mixed = merge(&path("mixed"), &[&one, &two]);
    let text = stderr(&mixed);
    assert!(!mixed.status.success(), "{text}");
    assert!(
        text.contains("built differently") && text.contains("[Wgsl]") && text.contains("[]"),
        "{text}"
    );
    // Built again as part 1 was (no target) into the same folder: its record lists its own files, and the WGSL
    // the earlier build left in the folder is not merged.
    let o = part(2, &two, &["--filter", FILTER]);
    assert!(o.status.success(), "{}", stderr(&o));
    let has_wgsl = |dir: &str| {
        std::fs::read_dir(dir)
            .unwrap()
            .any(|e| e.unwrap().path().extension().is_some_and(|x| x == "wgsl"))
    };
    assert!(
        has_wgsl(&two),
        "the earlier build's WGSL is still in the folder"
    );
    let fresh = path("fresh");
    let m = merge(&fresh, &[&one, &two]);
    assert!(m.status.success(), "{}", stderr(&m));
    assert!(!has_wgsl(&fresh), "an earlier build's file was merged");
    // Parts built from different sources (a stage source edited between the two parts): refused, though no file
    // is in both parts to compare.
    let root = path("root");
    copy_tree(&shaders::glsl_root(), Path::new(&root));
    let from = |i: u32, out: &str| {
        let shard = format!("{i}/2");
        let o = builder()
            .args([
                "--no-cache",
                "--root",
                &root,
                "build",
                "--shard",
                &shard,
                "--out",
                out,
            ])
            .args(["--filter", FILTER])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", stderr(&o));
    };
    let (old, new) = (path("old-sources"), path("new-sources"));
    from(1, &old);
    for e in std::fs::read_dir(Path::new(&root).join("2d")).unwrap() {
        let file = e.unwrap().path();
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::write(&file, format!("{text}\n// edited between the parts\n")).unwrap();
    }
    from(2, &new);
    let m = merge(&path("mixed-sources"), &[&old, &new]);
    assert!(!m.status.success());
    assert!(
        stderr(&m).contains("different sources or declarations"),
        "{}",
        stderr(&m)
    );
    // A part with no module (one info with one stage, split in two): finished, its folder made.
    let empty = path("empty");
    let o = part(2, &empty, &["--filter", "gpu_compute_particles", "--json"]);
    let (r, _) = report(o, &["build", "--shard", "2/2"]);
    assert_eq!(r["modules"], 0);
    assert!(Path::new(&empty).join(".shard").exists());
    // `--out` naming a file: one error, nothing compiled.
    let file = path("file.spv");
    std::fs::write(&file, b"x").unwrap();
    let o = builder()
        .args(["--no-cache", "build", "--json", "--out", &file])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(r["modules"], 0);
    assert_eq!(r["failed"].as_array().map(Vec::len), Some(1), "{r}");
    assert!(r.to_string().contains("is a file"), "{r}");
}

/// The S3-compatible server of a test, stopped when dropped.
struct S3Server {
    child: Child,
    port: u16,
}

impl Drop for S3Server {
    fn drop(&mut self) {
        // Closing its standard input stops it; kill in case it hangs.
        drop(self.child.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

const BUCKET: &str = "shader-cache";

fn s3_server() -> Option<S3Server> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scripts/s3-server.py");
    let has_moto = Command::new("python3")
        .args(["-c", "import moto.server, boto3"])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !has_moto {
        assert!(
            std::env::var_os("SHADER_INFO_REQUIRE_S3").is_none(),
            "SHADER_INFO_REQUIRE_S3 is set but moto is missing: pip install 'moto[server]'"
        );
        eprintln!("skipped: no S3-compatible server (pip install 'moto[server]')");
        return None;
    }
    let mut child = Command::new("python3")
        .arg(script)
        .arg(BUCKET)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line
        .trim()
        .strip_prefix("ready ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("the S3 server did not start: {line:?}"));
    Some(S3Server { child, port })
}

fn s3_env(port: u16) -> Vec<(&'static str, String)> {
    vec![
        ("AWS_ACCESS_KEY_ID", "test".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("AWS_REGION", "us-east-1".into()),
        ("AWS_ENDPOINT", format!("http://127.0.0.1:{port}")),
        ("AWS_ALLOW_HTTP", "true".into()),
    ]
}

/// One runner's command: its own local cache, the remote cache at `prefix`.
fn runner_command(port: u16, prefix: &str, local: &Path, out: &Path) -> Command {
    let mut c = builder();
    c.arg("--cache")
        .arg(local)
        .args(["--remote-cache", &format!("s3://{BUCKET}/{prefix}")])
        .args([
            "build", "--json", "--filter", FILTER, "--target", "wgsl", "--out",
        ])
        .arg(out)
        .envs(s3_env(port));
    c
}

/// One runner, run to the end: its report and stderr.
fn runner(port: u16, prefix: &str, local: &Path, out: &Path) -> (serde_json::Value, String) {
    let o = runner_command(port, prefix, local, out).output().unwrap();
    report(o, &[prefix])
}

/// The ETag of the one object under `prefix` (the pack): it changes when a runner uploads.
fn pack_etag(port: u16, prefix: &str) -> String {
    let py = format!(
        "import boto3\n\
         s3 = boto3.client('s3', endpoint_url='http://127.0.0.1:{port}', aws_access_key_id='test', \
         aws_secret_access_key='test', region_name='us-east-1')\n\
         objects = s3.list_objects_v2(Bucket='{BUCKET}', Prefix='{prefix}/v1/')['Contents']\n\
         assert len(objects) == 1, objects\n\
         print(objects[0]['ETag'])\n"
    );
    let o = Command::new("python3").args(["-c", &py]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

/// Damages one entry inside the pack under `prefix` (a byte in the middle of its first entry: the framing stays
/// whole, the entry's checksum fails); returns the pack's key.
fn damage_one_packed_entry(port: u16, prefix: &str) -> String {
    let py = format!(
        "import boto3, struct\n\
         s3 = boto3.client('s3', endpoint_url='http://127.0.0.1:{port}', aws_access_key_id='test', \
         aws_secret_access_key='test', region_name='us-east-1')\n\
         keys = [o['Key'] for o in s3.list_objects_v2(Bucket='{BUCKET}', Prefix='{prefix}/v1/')['Contents']]\n\
         assert len(keys) == 1 and '/v1/pack/' in keys[0], keys\n\
         body = bytearray(s3.get_object(Bucket='{BUCKET}', Key=keys[0])['Body'].read())\n\
         (n,) = struct.unpack_from('<Q', body, 8)\n\
         body[16 + n // 2] ^= 0xff\n\
         s3.put_object(Bucket='{BUCKET}', Key=keys[0], Body=bytes(body))\n\
         print(keys[0])\n"
    );
    let o = Command::new("python3").args(["-c", &py]).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).trim().to_string()
}

#[test]
fn runners_share_a_remote_cache_on_a_real_s3_server() {
    let Some(server) = s3_server() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let p = |n: &str| dir.path().join(n);

    // A cold runner fills the remote cache.
    let (a, _) = runner(server.port, "team", &p("a-local"), &p("a-out"));
    let written = cache_count(&a, "writes");
    assert!(written > 0);
    assert_eq!(cache_count(&a, "remote_hits"), 0);

    // A second runner, with an empty local cache: everything from the remote, nothing compiled.
    let (b, stderr) = runner(server.port, "team", &p("b-local"), &p("b-out"));
    assert_eq!(cache_count(&b, "misses"), 0, "{}\n{stderr}", b["cache"]);
    assert_eq!(cache_count(&b, "remote_hits"), cache_count(&b, "hits"));
    assert!(cache_count(&b, "hits") > 0);
    assert_same_outputs(&p("a-out"), &p("b-out"));

    // The remote store holds one object, the pack: one request each way, not one per entry.
    // A damaged entry in it is refused (said once, naming the pack), compiled locally, and the pack replaced.
    let key = damage_one_packed_entry(server.port, "team");
    let (c, stderr) = runner(server.port, "team", &p("c-local"), &p("c-out"));
    assert_eq!(stderr.matches("is refused").count(), 1, "{stderr}");
    assert!(stderr.contains(&key), "{stderr}");
    assert_eq!(cache_count(&c, "misses"), 1, "{}", c["cache"]);
    assert_eq!(cache_count(&c, "remote_hits"), cache_count(&c, "hits"));
    assert_same_outputs(&p("a-out"), &p("c-out"));
    let (d, stderr) = runner(server.port, "team", &p("d-local"), &p("d-out"));
    assert!(!stderr.contains("is refused"), "{stderr}");
    assert_eq!(cache_count(&d, "misses"), 0);
    // A runner whose local cache is warm and whose pack is current uploads nothing.
    let before = pack_etag(server.port, "team");
    let (d2, _) = runner(server.port, "team", &p("d-local"), &p("d2-out"));
    assert_eq!(cache_count(&d2, "misses"), 0);
    assert_eq!(pack_etag(server.port, "team"), before);

    // Four runners writing the same keys at once, to an empty prefix: all succeed, and the result serves a fifth
    // runner whole.
    let children: Vec<(PathBuf, Child)> = (0..4)
        .map(|i| {
            let out = p(&format!("w{i}-out"));
            let child = runner_command(server.port, "concurrent", &p(&format!("w{i}-local")), &out)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            (out, child)
        })
        .collect();
    for (out, child) in children {
        let o = child.wait_with_output().unwrap();
        let (r, stderr) = report(o, &["concurrent writer"]);
        assert_eq!(cache_count(&r, "corrupt"), 0, "{stderr}");
        assert_same_outputs(&p("a-out"), &out);
    }
    let (e, _) = runner(server.port, "concurrent", &p("e-local"), &p("e-out"));
    assert_eq!(cache_count(&e, "misses"), 0);
    assert_eq!(cache_count(&e, "corrupt"), 0);

    // An unreachable server: the build goes on with the local cache and says so once.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let (f, stderr) = runner(closed, "team", &p("f-local"), &p("f-out"));
    assert_eq!(stderr.matches("cannot be reached").count(), 1, "{stderr}");
    assert_eq!(cache_count(&f, "remote_hits"), 0);
    assert_same_outputs(&p("a-out"), &p("f-out"));
    drop(server);
}

/// `build --pipelines`: after the static pass, every pipeline of the library warmed up on the device (in
/// parallel) and timed; a second run starts from the saved pipeline cache and the persistent shader cache.
#[test]
fn build_pipelines_warms_every_pipeline_up_and_starts_warm_the_second_time() {
    if gpu::vk::testing::test_context().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (cache, pipelines) = (dir.path().join("cache"), dir.path().join("pipelines"));
    let run = || {
        let o = builder()
            .arg("--cache")
            .arg(&cache)
            .args(["build", "--filter", "gpu_shader_2D_image", "--pipelines"])
            .arg("--pipeline-cache")
            .arg(&pipelines)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&o.stderr).to_string();
        assert!(o.status.success(), "{stderr}");
        stderr
    };
    let cold = run();
    assert!(cold.contains("pipeline cache: cold"), "{cold}");
    assert!(cold.contains(" 0 failed, 0 validation messages"), "{cold}");
    let summary = cold
        .lines()
        .find(|l| l.starts_with("pipelines on"))
        .unwrap();
    let created: usize = summary
        .split(": ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{summary}"));
    assert!(created >= 28, "{summary}");
    // One line per pipeline with its creation time.
    assert_eq!(
        cold.lines()
            .filter(|l| l.ends_with(" ms") && l.starts_with("  "))
            .count(),
        created
    );
    let warm = run();
    assert!(warm.contains("pipeline cache: warm"), "{warm}");
    assert!(
        warm.contains(" 0 misses"),
        "the shader cache served every module: {warm}"
    );
    // A cache file that cannot be written (a folder holds its name): the pipelines were made, the run succeeds
    // and says what was not kept.
    for e in std::fs::read_dir(&pipelines).unwrap() {
        let file = e.unwrap().path();
        std::fs::remove_file(&file).unwrap();
        std::fs::create_dir(&file).unwrap();
        std::fs::write(file.join("keep"), b"x").unwrap();
    }
    let unsaved = run();
    assert!(
        unsaved.contains("the pipeline cache was not saved"),
        "{unsaved}"
    );
}

/// The `.json` of module `file` after `build --out out --filter info`.
fn module_json(out: &Path, info: &str, file: &str) -> serde_json::Value {
    let o = builder()
        .args(["--no-cache", "build", "--json", "--filter", info, "--out"])
        .arg(out)
        .output()
        .unwrap();
    report(o, &[info]);
    serde_json::from_slice(&std::fs::read(out.join(file)).unwrap()).unwrap()
}

/// The per-module JSON a host in another language reads: the declared vertex inputs (all of them, not just what
/// the optimized code reads), the bindings with their resources, and the push block's size as each target counts
/// it.
#[test]
fn the_module_json_holds_the_declaration_a_host_binds_by() {
    let out = tempfile::tempdir().unwrap();
    let json = module_json(
        out.path(),
        "gpu_compute_particles",
        "gpu_compute_particles.comp.json",
    );
    let declared = &json["declared"];
    // `vec4 emitter; vec3 gravity; float delta_time; uint particle_count; uint frame;`: 40 bytes in std430, 48 as
    // a WGSL or MSL struct, 48 in HLSL registers.
    let sizes = &declared["push_constants"]["target_sizes"];
    assert_eq!(
        (
            &sizes["vulkan"],
            &sizes["wgsl"],
            &sizes["msl"],
            &sizes["hlsl"]
        ),
        (&40.into(), &48.into(), &48.into(), &48.into()),
        "{declared}"
    );
    let particles = &declared["bindings"][0];
    assert_eq!(particles["name"], "particles", "{declared}");
    assert_eq!(particles["resource"]["kind"], "storage_buf");
    assert_eq!(particles["resource"]["type"], "Particle");

    // A graphics module lists every declared input with its format.
    let json = module_json(
        out.path(),
        "gpu_shader_2D_image",
        "gpu_shader_2D_image.vert.json",
    );
    let inputs: Vec<(&str, &str)> = json["declared"]["vertex_inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap(), a["format"].as_str().unwrap()))
        .collect();
    assert_eq!(inputs, [("pos", "Float32x2"), ("texCoord", "Float32x2")]);
    // And the buffer the pipelines read them from: one interleaved buffer of 16 bytes a vertex.
    let buffer = &json["declared"]["vertex_buffers"][0];
    assert_eq!(
        (
            &buffer["binding"],
            &buffer["stride"],
            &buffer["attributes"][1]
        ),
        (
            &0.into(),
            &16.into(),
            &serde_json::json!([1, "Float32x2", 8])
        ),
        "{buffer}"
    );
    assert_eq!(
        json["declared"]["bindings"][0]["resource"]["image_type"],
        "Float2D"
    );
}

/// A damaged entry met after `build` printed its report (here: by `--pipelines`, whose library reads the modules
/// that a replayed pass did not) is still said: the count of warnings already said is the report's, not every
/// warning of the run.
#[test]
fn a_damaged_entry_met_after_the_report_is_still_said() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let run = || {
        let o = builder()
            .arg("--cache")
            .arg(&cache)
            .args(["build", "--filter", FILTER, "--pipelines"])
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    run();
    let modules = walk(&cache.join("v1").join("module"));
    assert!(!modules.is_empty());
    for f in &modules {
        let mut b = std::fs::read(f).unwrap();
        b[40] ^= 4;
        std::fs::write(f, b).unwrap();
    }
    let stderr = run();
    // The pipelines read the modules they create pipelines of (not every one the pass built): as many warnings as
    // the cache counted refusals.
    let refused: usize = stderr
        .split(" damaged entries refused")
        .next()
        .and_then(|head| head.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the cache's note counts the refused entries");
    assert!(refused > 0, "{stderr}");
    assert_eq!(
        stderr.matches("warning: shader cache entry").count(),
        refused,
        "one warning per refused entry: {stderr}"
    );
}
