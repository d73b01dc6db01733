//! The hot-reload soak (lavapipe in CI, validation on): seeded random edits to a small shader tree — valid edits,
//! syntax errors, deletes, delete-and-recreate, write-then-rename, truncate-then-write in two halves with a reload
//! between, header edits, include cycles, includes leaving the root, binary garbage, empty files — each followed by
//! a reload. After every step: no panic, every info still has a pipeline, an info whose sources are valid runs the
//! current source (its pixel or its computed value), and at the end no validation message and a library equal to
//! a freshly built one. Then the same through the real file watcher, counting missed and duplicated reloads.
//!
//! `SOAK_STEPS` (default 1,000) and `SOAK_WATCH_EDITS` (default 100) size it; `SOAK_SEED=…` reproduces a run.
//! Without Vulkan it skips, unless `SHADER_INFO_REQUIRE_VULKAN=1`.

mod vk_support;

use gpu::vk::testing::{assert_no_validation_messages, pixel, test_context};
use gpu::vk::{Buffer, GraphicsOptions, LibraryOptions, PipelineOutcome, ShaderLibrary, raw};
use shader_info::{Frequency, Qualifier, Registry, ShaderCreateInfo, Type};
use std::path::Path;
use std::time::Duration;
use vk_support::{SIZE, dispatch, render};

const QUAD: [[f32; 2]; 6] = [
    [-1.0, -1.0],
    [1.0, -1.0],
    [1.0, 1.0],
    [-1.0, -1.0],
    [1.0, 1.0],
    [-1.0, 1.0],
];
/// Red levels the header can write (exact in 8 bits), and the frag's scale on top.
const REDS: [u32; 4] = [0, 51, 153, 255];
/// Divisors that keep every red exact in 8 bits.
const SCALES: [u32; 2] = [1, 3];

fn header(red: u32) -> String {
    format!("vec4 tint() {{\n  return vec4({red}.0 / 255.0, 0.0, 0.0, 1.0);\n}}\n")
}
fn frag(scale: u32) -> String {
    format!(
        "#include \"common/tint.glsl\"\nvoid main() {{\n  frag_color = tint() / vec4({scale}.0, 1.0, 1.0, 1.0);\n}}\n"
    )
}
fn value_header(v: u32) -> String {
    format!("const uint VALUE = {v}u;\n")
}
const COMP: &str =
    "#include \"common/value.glsl\"\nvoid main() { data[gl_GlobalInvocationID.x] = VALUE; }\n";
const VERT: &str = "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";

/// What the tree holds, as the soak wrote it: `None` for a file that is broken, missing or garbage.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Model {
    red: Option<u32>,
    scale: Option<u32>,
    value: Option<u32>,
    comp_ok: bool,
}

impl Model {
    fn pixel(&self) -> Option<[u8; 4]> {
        let (red, scale) = (self.red?, self.scale?);
        Some([(red / scale) as u8, 0, 0, 255])
    }
    fn value(&self) -> Option<u32> {
        self.comp_ok.then_some(self.value?)
    }
}

fn write(root: &Path, file: &str, text: impl AsRef<[u8]>) {
    std::fs::write(root.join(file), text).unwrap();
}

fn base(root: &Path) -> (Registry, Model) {
    std::fs::create_dir_all(root.join("common")).unwrap();
    write(root, "quad.vert.glsl", VERT);
    write(root, "quad.frag.glsl", frag(1));
    write(root, "common/tint.glsl", header(255));
    write(root, "fill.comp.glsl", COMP);
    write(root, "common/value.glsl", value_header(7));
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("soak_quad")
            .vertex_in(0, Type::Vec2, "pos")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("quad.vert.glsl")
            .fragment_source("quad.frag.glsl"),
    );
    reg.add_info(
        ShaderCreateInfo::new("soak_fill")
            .storage_buf(0, Qualifier::Write, "uint", "data[]", Frequency::Pass)
            .local_group_size(1)
            .compute_source("fill.comp.glsl"),
    );
    let model = Model {
        red: Some(255),
        scale: Some(1),
        value: Some(7),
        comp_ok: true,
    };
    (reg, model)
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// What one library currently draws and computes.
fn observe(lib: &mut ShaderLibrary, vb: &Buffer, out: &Buffer) -> ([u8; 4], u32) {
    let quad = lib
        .graphics_pipeline("soak_quad", &GraphicsOptions::default())
        .expect("every info keeps a pipeline");
    let fill = lib
        .compute_pipeline("soak_fill")
        .expect("every info keeps a pipeline");
    let frame = render(lib.context(), &quad, &[vb], 6, &[]);
    dispatch(lib.context(), &fill, &[out], 1);
    (pixel(&frame, SIZE, 16, 16), out.read_vec::<u32>()[0])
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Applies one random edit; returns its description. `half` is called between the two halves of a split write.
fn edit(root: &Path, rng: &mut Rng, m: &mut Model, half: &mut dyn FnMut(&Model)) -> String {
    let red = REDS[rng.below(REDS.len())];
    let scale = SCALES[rng.below(SCALES.len())];
    match rng.below(13) {
        0 | 1 => {
            write(root, "common/tint.glsl", header(red));
            m.red = Some(red);
            format!("header red {red}")
        }
        2 | 3 => {
            write(root, "quad.frag.glsl", frag(scale));
            m.scale = Some(scale);
            format!("frag scale {scale}")
        }
        4 => {
            write(
                root,
                "quad.frag.glsl",
                "void main() {\n  frag_color = vec4(1.0)\n}\n",
            );
            m.scale = None;
            "frag syntax error".into()
        }
        5 => {
            let _ = std::fs::remove_file(root.join("common/tint.glsl"));
            m.red = None;
            "header deleted".into()
        }
        6 => {
            let _ = std::fs::remove_file(root.join("quad.frag.glsl"));
            write(root, "quad.frag.glsl", frag(scale));
            m.scale = Some(scale);
            format!("frag deleted and recreated, scale {scale}")
        }
        7 => {
            write(root, ".tint.tmp", header(red));
            std::fs::rename(root.join(".tint.tmp"), root.join("common/tint.glsl")).unwrap();
            m.red = Some(red);
            format!("header written to a temp file and renamed over, red {red}")
        }
        8 => {
            let text = frag(scale);
            let (a, b) = text.split_at(text.len() / 2);
            write(root, "quad.frag.glsl", a);
            m.scale = None;
            half(m);
            write(root, "quad.frag.glsl", format!("{a}{b}"));
            m.scale = Some(scale);
            format!("frag truncated and written in two halves, scale {scale}")
        }
        9 => {
            let target = ["common/tint.glsl", "../outside.glsl", "/etc/hostname"][rng.below(3)];
            write(
                root,
                "common/tint.glsl",
                format!("#include \"{target}\"\n{}", header(red)),
            );
            m.red = None;
            format!("header includes {target}")
        }
        10 => {
            let garbage: Vec<u8> = (0..1 + rng.below(200)).map(|_| rng.next() as u8).collect();
            write(root, "quad.frag.glsl", garbage);
            m.scale = None;
            "frag is binary garbage".into()
        }
        11 => {
            // An empty frag has no `main`; an empty header leaves `tint` undeclared: both fail.
            if rng.below(2) == 0 {
                write(root, "quad.frag.glsl", "");
                m.scale = None;
                "frag emptied".into()
            } else {
                write(root, "common/tint.glsl", "");
                m.red = None;
                "header emptied".into()
            }
        }
        _ => {
            let v = rng.next() as u32 % 1000;
            if rng.below(4) == 0 {
                write(root, "fill.comp.glsl", "void main() { data[0] = ; }\n");
                m.comp_ok = false;
                "compute syntax error".into()
            } else {
                write(root, "fill.comp.glsl", COMP);
                write(root, "common/value.glsl", value_header(v));
                m.comp_ok = true;
                m.value = Some(v);
                format!("compute value {v}")
            }
        }
    }
}

#[test]
fn a_thousand_random_edits_never_lose_a_pipeline() {
    let Some(ctx) = test_context() else { return };
    let seed = env("SOAK_SEED", {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(11, |d| d.as_nanos() as u64 | 1)
    });
    let steps = env("SOAK_STEPS", 1_000);
    eprintln!("soak: {steps} steps, SOAK_SEED={seed}");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (reg, mut model) = base(root);
    let mut lib = ShaderLibrary::new(&ctx, reg.clone(), LibraryOptions::new(root)).unwrap();
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let out = Buffer::new(&ctx, 4, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    let mut shown = observe(&mut lib, &vb, &out);
    assert_eq!(Some(shown.0), model.pixel());
    let mut rng = Rng(seed);
    let (mut reloads, mut rebuilt, mut kept, mut unchanged) = (0usize, 0usize, 0usize, 0usize);
    let mut times = Vec::new();
    let mut history: Vec<String> = Vec::new();

    // Reloads, then checks the promise: both pipelines exist, and a valid tree shows its current source while a
    // broken one keeps showing the last valid picture and value.
    let mut check = |lib: &mut ShaderLibrary, m: &Model, history: &[String]| {
        let r = lib.reload().unwrap_or_else(|e| {
            panic!("SOAK_SEED={seed}: reload failed outright after {history:?}: {e}")
        });
        reloads += 1;
        times.push(r.duration);
        rebuilt += r.count(|o| *o == PipelineOutcome::Rebuilt);
        unchanged += r.count(|o| *o == PipelineOutcome::Unchanged);
        kept += r.count(|o| matches!(o, PipelineOutcome::KeptPrevious { .. }));
        let now = observe(lib, &vb, &out);
        let expected = (m.pixel().unwrap_or(shown.0), m.value().unwrap_or(shown.1));
        assert_eq!(
            now,
            expected,
            "SOAK_SEED={seed} after {} steps (last: {:?}): the pipelines do not run what the tree holds\n{r}",
            history.len(),
            &history[history.len().saturating_sub(6)..]
        );
        shown = now;
    };
    for _ in 0..steps {
        let mut between = |m: &Model| check(&mut lib, m, &history);
        let what = edit(root, &mut rng, &mut model, &mut between);
        history.push(what);
        check(&mut lib, &model, &history);
    }
    // Restore the tree: the library must equal a freshly built one.
    let (_, restored) = base(root);
    check(&mut lib, &restored, &history);
    let mut fresh = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(root)).unwrap();
    assert_eq!(observe(&mut lib, &vb, &out), observe(&mut fresh, &vb, &out));
    assert_eq!(lib.pipeline_count(), fresh.pipeline_count());
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    eprintln!(
        "soak: {steps} steps, {reloads} reloads; pipeline outcomes: {rebuilt} rebuilt, {kept} kept, {unchanged} \
         unchanged; 0 lost pipelines; reload median {:.2} ms, p99 {:.2} ms",
        ms(times[times.len() / 2]),
        ms(times[times.len() * 99 / 100])
    );
    drop((lib, fresh, vb, out));
    assert_no_validation_messages(&ctx);
}

/// Valid edits through the real file watcher, in the save patterns editors use: every edit reaches the pipeline
/// (none missed), and reloads without anything new are counted as duplicates.
#[test]
fn the_watcher_sees_every_edit() {
    let Some(ctx) = test_context() else { return };
    let edits = env("SOAK_WATCH_EDITS", 100) as usize;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (reg, _) = base(root);
    let mut lib = ShaderLibrary::new(&ctx, reg, LibraryOptions::new(root)).unwrap();
    let vb = Buffer::with_data(&ctx, &QUAD, raw::BufferUsageFlags::VERTEX_BUFFER).unwrap();
    let out = Buffer::new(&ctx, 4, raw::BufferUsageFlags::STORAGE_BUFFER).unwrap();
    observe(&mut lib, &vb, &out);
    lib.watch(Duration::from_millis(30)).unwrap();
    let (mut missed, mut duplicates, mut reloads) = (0, 0, 0);
    for i in 0..edits {
        // A red the picture does not show yet, so that the change is visible.
        let red = REDS[i % REDS.len()];
        let expected = Model {
            red: Some(red),
            scale: Some(1),
            value: Some(7),
            comp_ok: true,
        }
        .pixel()
        .unwrap();
        match i % 3 {
            0 => write(root, "common/tint.glsl", header(red)),
            1 => {
                write(root, ".t.tmp", header(red));
                std::fs::rename(root.join(".t.tmp"), root.join("common/tint.glsl")).unwrap();
            }
            _ => {
                use std::io::Write;
                let mut f = std::fs::OpenOptions::new()
                    .write(true)
                    .truncate(true)
                    .open(root.join("common/tint.glsl"))
                    .unwrap();
                f.write_all(header(red).as_bytes()).unwrap();
            }
        }
        let mut seen = false;
        let deadline = std::time::Instant::now() + Duration::from_secs(5);
        while !seen && std::time::Instant::now() < deadline {
            let Some(r) = lib.wait_reload(Duration::from_millis(500)) else {
                continue;
            };
            let r = r.unwrap();
            reloads += 1;
            if r.pipelines
                .iter()
                .all(|(_, o)| *o == PipelineOutcome::Unchanged)
                && !r.modules_changed.is_empty()
            {
                duplicates += 1;
            }
            seen = observe(&mut lib, &vb, &out).0 == expected;
        }
        missed += usize::from(!seen);
    }
    // What arrives after the last edit is a duplicate.
    while let Some(r) = lib.wait_reload(Duration::from_millis(300)) {
        r.unwrap();
        reloads += 1;
        duplicates += 1;
    }
    eprintln!(
        "watcher: {edits} edits, {reloads} reloads, {missed} missed, {duplicates} duplicated"
    );
    assert_eq!(missed, 0, "every edit reaches the pipeline");
    drop((lib, vb, out));
    assert_no_validation_messages(&ctx);
}
