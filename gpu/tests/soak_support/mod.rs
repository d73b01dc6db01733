//! The hot-reload soak shared by both libraries: a small shader tree (a graphics info with a header, a compute info
//! with a header), a model of what the tree holds, seeded random edits of every kind an editor or a tool makes,
//! and the loop that reloads after each edit and checks the promise against the model.
#![allow(dead_code)]

use shader_info::{Frequency, Qualifier, Registry, ShaderCreateInfo, Type};
use shader_info_gpu::library::{PipelineOutcome, ReloadReport};
use std::path::Path;
use std::time::Duration;

pub const QUAD: [[f32; 2]; 6] = [
    [-1.0, -1.0],
    [1.0, -1.0],
    [1.0, 1.0],
    [-1.0, -1.0],
    [1.0, 1.0],
    [-1.0, 1.0],
];
/// Red levels the header can write (exact in 8 bits), and the frag's scale on top.
pub const REDS: [u32; 4] = [0, 51, 153, 255];
/// Divisors that keep every red exact in 8 bits.
pub const SCALES: [u32; 2] = [1, 3];

pub fn header(red: u32) -> String {
    format!("vec4 tint() {{\n  return vec4({red}.0 / 255.0, 0.0, 0.0, 1.0);\n}}\n")
}
pub fn frag(scale: u32) -> String {
    format!(
        "#include \"common/tint.glsl\"\nvoid main() {{\n  frag_color = tint() / vec4({scale}.0, 1.0, 1.0, 1.0);\n}}\n"
    )
}
pub fn value_header(v: u32) -> String {
    format!("const uint VALUE = {v}u;\n")
}
pub const COMP: &str =
    "#include \"common/value.glsl\"\nvoid main() { data[gl_GlobalInvocationID.x] = VALUE; }\n";
pub const VERT: &str = "void main() { gl_Position = vec4(pos, 0.0, 1.0); }\n";

/// What the tree holds, as the soak wrote it: `None` for a file that is broken, missing or garbage.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Model {
    pub red: Option<u32>,
    pub scale: Option<u32>,
    pub value: Option<u32>,
    pub comp_ok: bool,
}

impl Model {
    pub fn pixel(&self) -> Option<[u8; 4]> {
        let (red, scale) = (self.red?, self.scale?);
        Some([(red / scale) as u8, 0, 0, 255])
    }
    pub fn value(&self) -> Option<u32> {
        self.comp_ok.then_some(self.value?)
    }
}

pub fn write(root: &Path, file: &str, text: impl AsRef<[u8]>) {
    std::fs::write(root.join(file), text).unwrap();
}

pub fn base(root: &Path) -> (Registry, Model) {
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

pub struct Rng(u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

pub fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Applies one random edit; returns its description. `half` is called between the two halves of a split write.
pub fn edit(root: &Path, rng: &mut Rng, m: &mut Model, half: &mut dyn FnMut(&Model)) -> String {
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

/// A library under the soak: reload, then what its two pipelines draw and compute now.
pub trait Soaked {
    fn reload(&mut self) -> Result<ReloadReport, String>;
    /// The quad's center pixel and the first value the fill dispatch writes. Panics when a pipeline is missing.
    fn observe(&mut self) -> ([u8; 4], u32);
}

/// What a soak saw.
#[derive(Default)]
pub struct Stats {
    pub reloads: usize,
    pub rebuilt: usize,
    pub kept: usize,
    pub unchanged: usize,
    pub times: Vec<Duration>,
}

impl Stats {
    /// One line for the log: steps, reloads, outcomes, reload-time median and p99.
    pub fn report(&mut self, what: &str, steps: u64) -> String {
        let (median, p99) = self.percentiles();
        format!(
            "{what}: {steps} steps, {} reloads; pipeline outcomes: {} rebuilt, {} kept, {} unchanged; 0 lost \
             pipelines; reload median {median:.2} ms, p99 {p99:.2} ms",
            self.reloads, self.rebuilt, self.kept, self.unchanged
        )
    }

    /// `median, p99` reload time in milliseconds.
    pub fn percentiles(&mut self) -> (f64, f64) {
        self.times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let n = self.times.len().max(1);
        (
            ms(self.times[n / 2]),
            ms(self.times[(n * 99 / 100).min(n - 1)]),
        )
    }
}

/// `steps` random edits of the tree at `root` (made by [`base`]), each followed by a reload and a check that a
/// valid tree runs its current source and a broken one keeps what it last ran; then the tree is restored and
/// checked once more. Panics with the seed and the last edits on a broken promise.
pub fn soak(lib: &mut dyn Soaked, root: &Path, seed: u64, steps: u64) -> Stats {
    let mut model = base(root).1;
    let mut stats = Stats::default();
    let mut shown = lib.observe();
    assert_eq!(Some(shown.0), model.pixel());
    let mut rng = Rng(seed);
    let mut history: Vec<String> = Vec::new();
    let mut check = |lib: &mut dyn Soaked, m: &Model, history: &[String], stats: &mut Stats| {
        let r = lib.reload().unwrap_or_else(|e| {
            panic!("SOAK_SEED={seed}: reload failed outright after {history:?}: {e}")
        });
        stats.reloads += 1;
        stats.times.push(r.duration);
        stats.rebuilt += r.count(|o| *o == PipelineOutcome::Rebuilt);
        stats.unchanged += r.count(|o| *o == PipelineOutcome::Unchanged);
        stats.kept += r.count(|o| matches!(o, PipelineOutcome::KeptPrevious { .. }));
        let now = lib.observe();
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
        let mut between = |m: &Model| check(&mut *lib, m, &history, &mut stats);
        let what = edit(root, &mut rng, &mut model, &mut between);
        history.push(what);
        check(&mut *lib, &model, &history, &mut stats);
    }
    let (_, restored) = base(root);
    check(&mut *lib, &restored, &history, &mut stats);
    stats
}

pub fn seed() -> u64 {
    env("SOAK_SEED", {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(11, |d| d.as_nanos() as u64 | 1)
    })
}
