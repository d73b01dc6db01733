//! Enumerate, specialize and deduplicate the 2^16 permutations of a 16-branch info, on one thread and in chunks on
//! every thread of a rayon pool (as the static pass does); and the run-time lookup.
//!
//! `cargo bench -p shader-info --bench variants -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, criterion_group, criterion_main};
use rayon::prelude::*;
use shader_info::*;
use std::hint::black_box;

fn fold(v: &mut VariantBuilder) {
    // Rules of the same kind as the mesh shader's: a mode that turns features off, exclusive features, a source
    // swap and an impossible combination.
    if v.get("B0") {
        for b in ["B4", "B5", "B6", "B7", "B8"] {
            v.set(b, false);
        }
        v.source(Stage::Fragment, "depth.frag");
    }
    if v.get("B1") {
        v.set("B2", false);
    }
    if v.get("B9") && v.get("B10") {
        v.never_used();
    }
    if v.get("B11") {
        v.define("QUALITY", "2");
    }
    // Quality levels: the higher one implies the lower ones' code, so their bits fold away.
    if v.get("B12") {
        for b in ["B13", "B14", "B15"] {
            v.set(b, false);
        }
    }
    if v.get("B3") {
        v.set("B4", false);
    }
}

fn info16() -> ResolvedInfo {
    let mut info = ShaderCreateInfo::new("bench16").specialize(fold);
    for i in 0..16 {
        info = info.branch(format!("B{i}"));
    }
    let mut reg = Registry::new();
    reg.add_info(info);
    reg.resolve("bench16").unwrap()
}

fn bench(c: &mut Criterion) {
    let info = info16();
    let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    println!(
        "2^16 = {} permutations -> {} unique variants",
        set.permutations(),
        set.variants.len()
    );
    c.bench_function("enumerate_specialize_dedup_2^16", |b| {
        b.iter(|| enumerate_variants(black_box(&info), DEFAULT_BRANCH_LIMIT).unwrap())
    });
    c.bench_function(
        "enumerate_specialize_dedup_2^16_chunks_on_all_threads",
        |b| {
            b.iter(|| {
                let e = Enumeration::new(black_box(&info), DEFAULT_BRANCH_LIMIT).unwrap();
                let chunks = (0..e.chunks())
                    .into_par_iter()
                    .map(|i| e.chunk(i))
                    .collect();
                e.finish(chunks).unwrap()
            })
        },
    );
    let mut bits = 0u64;
    c.bench_function("lookup", |b| {
        b.iter(|| {
            bits = (bits + 0x9e37) & 0xffff;
            black_box(set.lookup(black_box(bits & !(1 << 10))).ok())
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
