//! glslang and SPIRV-Tools in process (`gpu/native/glslang_check.cpp`, built where Debian's static archives and
//! headers are): the same Khronos front ends and validator the `glslangValidator` and `spirv-val` commands are,
//! given the options the check gives those commands, without a process per module and target. Where the library
//! is not built, or `SHADER_INFO_CHECK_WITH_COMMANDS=1`, the check runs the commands instead.
//!
//! The check memoizes (`memoized`): each distinct (stage, entry point, text) is compiled once per process, in
//! process or by the commands.

use shader_info::Stage;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// `1`: run `glslangValidator` and `spirv-val` as commands even where the in-process library is built.
pub const WITH_COMMANDS_ENV: &str = "SHADER_INFO_CHECK_WITH_COMMANDS";

/// Whether the checks run glslang and SPIRV-Tools in process.
pub fn available() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        cfg!(gpu_glslang_lib) && std::env::var(WITH_COMMANDS_ENV).as_deref() != Ok("1")
    })
}

/// glslang's stage numbers (`EShLanguage`).
fn lang(stage: Stage) -> i32 {
    match stage {
        Stage::Vertex => 0,
        Stage::TessControl => 1,
        Stage::TessEvaluation => 2,
        Stage::Geometry => 3,
        Stage::Fragment => 4,
        Stage::Compute => 5,
        Stage::RayGen => 6,
        Stage::Intersection => 7,
        Stage::AnyHit => 8,
        Stage::ClosestHit => 9,
        Stage::Miss => 10,
        Stage::Callable => 11,
    }
}

/// A verdict table of one kind: identical input, identical verdict.
pub type Memo<T> = OnceLock<Mutex<HashMap<u128, T>>>;

/// The verdict kept in `memo` under `key`, or made by `make` and kept.
pub fn memoized<T: Clone>(memo: &'static Memo<T>, key: u128, make: impl FnOnce() -> T) -> T {
    let map = memo.get_or_init(Default::default);
    if let Some(v) = map.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
        return v.clone();
    }
    let v = make();
    map.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(key, v.clone());
    v
}

/// What the HLSL check's compile can end in.
#[derive(Clone, Debug)]
pub enum HlslOutcome {
    /// glslang compiled it and SPIRV-Tools validated the SPIR-V.
    Valid(Vec<u32>),
    /// glslang rejects the HLSL (its log).
    Rejected(String),
    /// glslang's SPIR-V of it is invalid (the validator's message).
    Invalid(String),
}

/// OpenGL / ES GLSL through glslang with GL semantics: `Ok(reflection)` in `glslangValidator -q`'s format, or
/// `Err(log)`.
pub fn gl(text: &str, stage: Stage) -> Result<String, String> {
    ffi::gl(text, lang(stage))
}

/// HLSL through glslang's HLSL front end to SPIR-V (Vulkan 1.1, HLSL io mapping and offsets, register classes
/// shifted by `shifts`: texture, sampler, constant buffer, UAV), then SPIRV-Tools' validator.
pub fn hlsl(text: &str, stage: Stage, entry: &str, shifts: [u32; 4]) -> HlslOutcome {
    ffi::hlsl(text, lang(stage), entry, shifts)
}

#[cfg(gpu_glslang_lib)]
mod ffi {
    use super::HlslOutcome;
    use std::ffi::{CStr, CString, c_char, c_int, c_uint, c_void};

    unsafe extern "C" {
        fn gpu_check_free(p: *mut c_void);
        fn gpu_check_gl(text: *const c_char, stage: c_int, out: *mut *mut c_char) -> c_int;
        fn gpu_check_hlsl(
            text: *const c_char,
            stage: c_int,
            entry: *const c_char,
            shifts: *const c_uint,
            words: *mut *mut c_uint,
            count: *mut usize,
            log: *mut *mut c_char,
        ) -> c_int;
    }

    /// Takes a string the library allocated.
    fn take(p: *mut c_char) -> String {
        if p.is_null() {
            return String::new();
        }
        // SAFETY: the library returns a NUL-terminated string from malloc, which is freed here once.
        let s = unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned();
        // SAFETY: allocated by the library's malloc, not used after this.
        unsafe { gpu_check_free(p.cast()) };
        s
    }

    fn c_string(s: &str) -> CString {
        CString::new(s.replace('\0', " ")).unwrap_or_default()
    }

    pub fn gl(text: &str, stage: i32) -> Result<String, String> {
        let text = c_string(text);
        let mut out: *mut c_char = std::ptr::null_mut();
        // SAFETY: `text` is NUL-terminated and outlives the call; `out` is written by the library.
        let rc = unsafe { gpu_check_gl(text.as_ptr(), stage, &mut out) };
        let s = take(out);
        if rc == 0 { Ok(s) } else { Err(s) }
    }

    pub fn hlsl(text: &str, stage: i32, entry: &str, shifts: [u32; 4]) -> HlslOutcome {
        let (text, entry) = (c_string(text), c_string(entry));
        let mut words: *mut c_uint = std::ptr::null_mut();
        let mut count = 0usize;
        let mut log: *mut c_char = std::ptr::null_mut();
        // SAFETY: the strings are NUL-terminated and outlive the call, `shifts` holds the 4 values read; the
        // out-pointers are written by the library.
        let rc = unsafe {
            gpu_check_hlsl(
                text.as_ptr(),
                stage,
                entry.as_ptr(),
                shifts.as_ptr(),
                &mut words,
                &mut count,
                &mut log,
            )
        };
        let log = take(log);
        match rc {
            0 if !words.is_null() => {
                // SAFETY: the library wrote `count` words at `words` (malloc'ed), freed here once.
                let v = unsafe { std::slice::from_raw_parts(words, count) }.to_vec();
                // SAFETY: as above.
                unsafe { gpu_check_free(words.cast()) };
                HlslOutcome::Valid(v)
            }
            3 => HlslOutcome::Invalid(log),
            _ => HlslOutcome::Rejected(log),
        }
    }
}

#[cfg(not(gpu_glslang_lib))]
mod ffi {
    use super::HlslOutcome;

    pub fn gl(_: &str, _: i32) -> Result<String, String> {
        Err("glslang is not built in (gpu/build.rs found no static archives)".into())
    }

    pub fn hlsl(_: &str, _: i32, _: &str, _: [u32; 4]) -> HlslOutcome {
        HlslOutcome::Rejected(
            "glslang is not built in (gpu/build.rs found no static archives)".into(),
        )
    }
}

#[cfg(all(test, gpu_glslang_lib))]
mod tests {
    use super::*;
    use std::process::Command;

    const GL: &str = "#version 430\nlayout(local_size_x = 64) in;\n\
        layout(std140, binding = 2) uniform View { mat4 m; vec3 eye; float t; } view;\n\
        layout(std430, binding = 1) buffer Out { vec4 v[]; } out_;\n\
        layout(binding = 3) uniform sampler2D tex;\n\
        void main() { out_.v[gl_GlobalInvocationID.x] = view.m * texture(tex, vec2(view.t)) + vec4(view.eye, 0.0); }\n";

    /// The library's reflection is the command's, line for line (the check parses either).
    #[test]
    fn in_process_gl_reflection_is_the_commands() {
        let ours = gl(GL, Stage::Compute).expect("glslang takes it");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("module.comp");
        std::fs::write(&path, GL).unwrap();
        let Ok(out) = Command::new("glslangValidator")
            .args(["-l", "-q", "--reflect-separate-buffers"])
            .arg(&path)
            .output()
        else {
            return; // no command to compare with
        };
        let theirs = String::from_utf8_lossy(&out.stdout);
        let pick = |t: &str| -> Vec<String> {
            t.lines()
                .filter(|l| l.contains(": offset ") || l.ends_with("reflection:"))
                .filter(|l| !l.contains("attribute reflection"))
                .map(str::to_string)
                .take_while(|l| !l.starts_with("Pipeline"))
                .collect()
        };
        assert_eq!(
            pick(&ours),
            pick(&theirs),
            "ours:\n{ours}\ntheirs:\n{theirs}"
        );
        assert!(ours.contains("View.eye: offset 64"), "{ours}");
    }

    #[test]
    fn in_process_glslang_rejects_what_the_command_rejects() {
        let broken = GL.replace("view.t", "view.missing");
        let log = gl(&broken, Stage::Compute).expect_err("no member `missing`");
        assert!(log.contains("missing"), "{log}");
        let hlsl_ok = "RWStructuredBuffer<float> b : register(u0, space0);\n\
            [numthreads(64, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { b[id.x] *= 2.0; }\n";
        let shifts = [1000, 2000, 3000, 4000];
        match hlsl(hlsl_ok, Stage::Compute, "main", shifts) {
            HlslOutcome::Valid(words) => assert_eq!(words[0], 0x0723_0203),
            other => panic!("{other:?}"),
        }
        match hlsl(
            &hlsl_ok.replace("2.0;", "2.0"),
            Stage::Compute,
            "main",
            shifts,
        ) {
            HlslOutcome::Rejected(log) => assert!(log.contains("ERROR"), "{log}"),
            other => panic!("{other:?}"),
        }
        // The entry point must exist.
        assert!(matches!(
            hlsl(hlsl_ok, Stage::Compute, "other", shifts),
            HlslOutcome::Rejected(_)
        ));
    }
}
