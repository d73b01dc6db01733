//! The persisted pipeline cache: saved by one device context, loaded warm by the next; every kind of damage
//! (bit flips anywhere, truncation, another format version, another device's header) is refused with the reason and
//! never handed to the driver, and the run goes on cold.

use shader_info::{Frequency, Qualifier, Registry, ShaderCreateInfo};
use shader_info_gpu::vk::pipeline_cache::{Loaded, load, path_in, save};
use shader_info_gpu::vk::testing::{assert_no_validation_messages, test_context};
use shader_info_gpu::vk::{LibraryOptions, ShaderLibrary};

/// A compute info and its source under `root`: the pipeline both caches are tested with.
fn registry(root: &std::path::Path) -> Registry {
    std::fs::write(
        root.join("c.comp.glsl"),
        "void main() { a[gl_GlobalInvocationID.x] = 3u; }\n",
    )
    .unwrap();
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("cache_fill")
            .storage_buf(0, Qualifier::Write, "uint", "a[]", Frequency::Pass)
            .local_group_size(64)
            .compute_source("c.comp.glsl"),
    );
    reg
}

fn library(ctx: &shader_info_gpu::vk::VkContext, root: &std::path::Path) -> ShaderLibrary {
    ShaderLibrary::new(ctx, registry(root), LibraryOptions::new(root)).unwrap()
}

#[test]
fn a_saved_cache_loads_warm_and_every_damaged_file_is_refused() {
    let Some(ctx) = test_context() else { return };
    let dir = tempfile::tempdir().unwrap();
    let file = path_in(&ctx, &dir.path().join("cache"));
    assert_eq!(load(&ctx, &file), Loaded::Missing);
    let mut lib = library(&ctx, dir.path());
    lib.compute_pipeline("cache_fill").unwrap();
    let written = save(&ctx, &file).unwrap();
    assert!(written > 32, "{written}");
    drop(lib);
    let good = std::fs::read(&file).unwrap();

    // A fresh context (another run) loads it.
    let Some(next) = test_context() else { return };
    assert!(
        matches!(load(&next, &file), Loaded::Warm { .. }),
        "{:?}",
        load(&next, &file)
    );
    let mut lib = library(&next, dir.path());
    lib.compute_pipeline("cache_fill").unwrap();
    drop(lib);

    // Damage: a flipped bit at every position of the header and the driver's header, and at spread positions of
    // the rest; every truncation length class; another format version; another device.
    let mut positions: Vec<usize> = (0..good.len().min(96)).collect();
    positions.extend((96..good.len()).step_by((good.len() / 200).max(1)));
    let mut cases: Vec<(String, Vec<u8>)> = positions
        .iter()
        .map(|&i| {
            let mut b = good.clone();
            b[i] ^= 0x10;
            (format!("bit flip at {i}"), b)
        })
        .collect();
    for len in [0, 7, 31, 32, 33, good.len() / 2, good.len() - 1] {
        cases.push((format!("truncated to {len}"), good[..len].to_vec()));
    }
    let mut extended = good.clone();
    extended.push(0);
    cases.push(("one byte appended".into(), extended));
    let mut version = good.clone();
    version[8] = 2;
    cases.push(("format version 2".into(), version));
    let (mut refused, mut loaded) = (0, 0);
    for (what, bytes) in &cases {
        std::fs::write(&file, bytes).unwrap();
        match load(&next, &file) {
            Loaded::Refused(why) => {
                assert!(why.contains(&file.display().to_string()), "{what}: {why}");
                refused += 1;
            }
            other => {
                loaded += 1;
                eprintln!("{what}: {other:?}");
            }
        }
    }
    eprintln!(
        "pipeline cache: {} damaged files, {refused} refused, {loaded} loaded",
        cases.len()
    );
    assert_eq!(loaded, 0);

    // Another device's data with a valid checksum: refused by the driver-header check, naming both devices.
    let mut foreign = good.clone();
    foreign[32 + 8] ^= 0xFF; // the vendor ID of the driver's header
    let sum = xxhash_rust::xxh3::xxh3_64(&foreign[32..]);
    foreign[24..32].copy_from_slice(&sum.to_le_bytes());
    std::fs::write(&file, &foreign).unwrap();
    match load(&next, &file) {
        Loaded::Refused(why) => assert!(why.contains("written for device"), "{why}"),
        other => panic!("a foreign header was accepted: {other:?}"),
    }
    // The good file still loads after all that (nothing was merged from the refused ones).
    std::fs::write(&file, &good).unwrap();
    assert!(matches!(load(&next, &file), Loaded::Warm { .. }));
    // The same good bytes in another user's file (a shared temporary folder) are never handed to the driver.
    // Giving a file away takes root (as CI runs); elsewhere the ownership cannot be staged.
    if std::os::unix::fs::chown(&file, Some(12345), None).is_ok() {
        match load(&next, &file) {
            Loaded::Refused(why) => assert!(why.contains("another user"), "{why}"),
            other => panic!("another user's cache was read: {other:?}"),
        }
    }
    assert_no_validation_messages(&ctx);
    assert_no_validation_messages(&next);
}

/// wgpu's pipeline cache, persisted through the same container: saved by one context, started warm by the next;
/// a damaged file is refused with the reason and the context starts with an empty cache.
#[test]
fn wgpu_saves_and_reloads_its_pipeline_cache_and_refuses_a_damaged_one() {
    use shader_info_gpu::wgpu::{WgpuContext, WgpuContextOptions, WgpuLibrary};
    // Installs the validation-message capture; the contexts below are this test's own.
    if shader_info_gpu::wgpu::testing::test_context(true).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cache").join("wgpu-pipelines.bin");
    let context = || {
        WgpuContext::new(&WgpuContextOptions {
            validation: true,
            pipeline_cache: Some(file.clone()),
            ..Default::default()
        })
        .unwrap()
    };
    let pipeline = |ctx: &WgpuContext| {
        let mut lib =
            WgpuLibrary::new(ctx, registry(dir.path()), LibraryOptions::new(dir.path())).unwrap();
        lib.compute_pipeline("cache_fill").unwrap();
    };
    let first = context();
    if first.pipeline_cache().is_none() {
        eprintln!("skipping: {}", first.pipeline_cache_status());
        return;
    }
    assert!(
        first.pipeline_cache_status().starts_with("cold"),
        "{}",
        first.pipeline_cache_status()
    );
    pipeline(&first);
    let saved = first.save_pipeline_cache().unwrap();
    eprintln!("wgpu pipeline cache: saved {saved:?} bytes");
    if saved.is_some() {
        let second = context();
        assert!(
            second.pipeline_cache_status().starts_with("warm"),
            "{}",
            second.pipeline_cache_status()
        );
        pipeline(&second);
        shader_info_gpu::wgpu::testing::assert_quiet(&second);
        // The same good bytes in another user's file (a shared temporary folder) are not handed to the driver.
        #[cfg(unix)]
        let owner = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(&file).unwrap());
        #[cfg(unix)]
        if std::os::unix::fs::chown(&file, Some(12345), None).is_ok() {
            let foreign = context();
            assert!(
                foreign.pipeline_cache_status().starts_with("cold, refused")
                    && foreign.pipeline_cache_status().contains("another user"),
                "{}",
                foreign.pipeline_cache_status()
            );
            drop(foreign);
            std::os::unix::fs::chown(&file, Some(owner), None).unwrap();
        }
        let mut bytes = std::fs::read(&file).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0x5A;
        std::fs::write(&file, &bytes).unwrap();
    } else {
        std::fs::write(&file, b"not a cache").unwrap();
    }
    let damaged = context();
    assert!(
        damaged.pipeline_cache_status().contains("refused"),
        "{}",
        damaged.pipeline_cache_status()
    );
    pipeline(&damaged);
    shader_info_gpu::wgpu::testing::assert_quiet(&first);
    shader_info_gpu::wgpu::testing::assert_quiet(&damaged);
}
