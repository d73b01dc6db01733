//! How long GLSL generation takes per stage: every stage of 1,000 synthetic infos, each at the end of a
//! three-level `additional_info` chain (info → mid → base, mids and bases shared among infos), with resources,
//! push constants, specialization constants, interfaces, vertex inputs, fragment outputs, defines, shared structs,
//! typedef sources and `#pragma require` dependencies.
//!
//! Target: under 20 µs per stage, so that generation stays negligible next to a 1–3 ms compile. Criterion's
//! throughput line gives stages per second; the time per stage is its inverse.
//!
//! `cargo bench -p shader-info --bench generate -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use shader_info::{
    Field, Frequency, GenerateOptions, ImageType, MemoryLoader, Qualifier, Registry, ResolvedInfo,
    ShaderCreateInfo, Stage, StageInterfaceInfo, StructDef, TextureFormat, Type, ValidatedInfo,
    generate,
};
use std::hint::black_box;

const INFOS: usize = 1000;
/// Every `COMPUTE_EVERY`th info is a compute info; the others have a vertex and a fragment stage.
const COMPUTE_EVERY: usize = 5;
const BASES: usize = 10;
const MIDS: usize = 50;

fn shared_structs(reg: &mut Registry) {
    reg.add_struct(
        StructDef::new("CameraData")
            .field(Field::new(Type::Mat4, "view"))
            .field(Field::new(Type::Mat4, "proj"))
            .field(Field::new(Type::Vec4, "eye")),
    );
    reg.add_struct(
        StructDef::new("Light")
            .field(Field::new(Type::Vec3, "position"))
            .field(Field::new(Type::Float, "radius"))
            .field(Field::new(Type::Vec4, "color")),
    );
    reg.add_struct(
        StructDef::new("LightData")
            .field(Field::new(Type::Uint, "count"))
            .field(Field::structure("Light", "lights").array(16)),
    );
    reg.add_struct(StructDef::new("Particle").field(Field::new(Type::Vec4, "pos_life")));
}

fn sources() -> MemoryLoader {
    let lib = "float saturate(float x) { return clamp(x, 0.0, 1.0); }\n\
               vec3 tonemap(vec3 c) { return c / (1.0 + c); }\n";
    MemoryLoader::default()
        .with("common_types.glsl", "#define PI 3.14159265\n")
        .with("common_math.glsl", lib)
        .with(
            "lighting_lib.glsl",
            "#pragma require(common_math.glsl)\nvec3 shade(vec3 n) { return vec3(saturate(n.z)); }\n",
        )
        .with(
            "mesh.vert.glsl",
            "#pragma require(common_math.glsl)\nvoid main() {\n  v_color = color;\n  gl_Position = camera.proj * camera.view * model * vec4(pos, 1.0);\n}\n",
        )
        .with(
            "mesh.frag.glsl",
            "#pragma require(lighting_lib.glsl)\nvoid main() {\n  frag_color = vec4(tonemap(shade(v_normal)), 1.0) * v_color;\n}\n",
        )
        .with(
            "particles.comp.glsl",
            "#pragma require(common_math.glsl)\nvoid main() {\n  uint i = gl_GlobalInvocationID.x;\n  particles[i].pos_life.w -= 0.016;\n}\n",
        )
}

/// Builds the registry: `BASES` graphics and compute bases, `MIDS` mids on top of them, `INFOS` leaf infos.
fn registry() -> (Registry, Vec<String>) {
    let mut reg = Registry::new();
    shared_structs(&mut reg);
    let iface = StageInterfaceInfo::new("mesh_iface", "")
        .smooth(Type::Vec4, "v_color")
        .smooth(Type::Vec3, "v_normal")
        .flat(Type::Uint, "v_id");
    for b in 0..BASES {
        reg.add_info(
            ShaderCreateInfo::new(format!("base{b}"))
                .define("USE_CAMERA")
                .typedef_source("common_types.glsl")
                .uniform_buf(0, "CameraData", "camera", Frequency::Pass)
                .sampler(1, ImageType::Float2D, "env_map", Frequency::Pass)
                .push_constant(Type::Mat4, "model"),
        );
        reg.add_info(
            ShaderCreateInfo::new(format!("cbase{b}"))
                .define_value("WORKGROUP", "64")
                .typedef_source("common_types.glsl")
                .uniform_buf(0, "CameraData", "camera", Frequency::Pass)
                .local_group_size(64),
        );
    }
    for m in 0..MIDS {
        reg.add_info(
            ShaderCreateInfo::new(format!("mid{m}"))
                .additional_info(format!("base{}", m % BASES))
                .define_value("MID", m.to_string())
                .vertex_in(0, Type::Vec3, "pos")
                .vertex_in(1, Type::Vec3, "normal")
                .vertex_in(2, Type::Vec4, "color")
                .vertex_out(&iface)
                .uniform_buf(0, "LightData", "lights", Frequency::Batch)
                .sampler(1, ImageType::Shadow2DArray, "shadow_maps", Frequency::Batch)
                .specialization_constant(Type::Uint, "light_limit", 16u32)
                .push_constant(Type::Vec4, "tint"),
        );
        reg.add_info(
            ShaderCreateInfo::new(format!("cmid{m}"))
                .additional_info(format!("cbase{}", m % BASES))
                .storage_buf(
                    0,
                    Qualifier::ReadWrite,
                    "Particle",
                    "particles[]",
                    Frequency::Batch,
                )
                .specialization_constant(Type::Float, "damping", 0.5f32)
                .push_constant(Type::Float, "dt"),
        );
    }
    let mut names = Vec::with_capacity(INFOS);
    for i in 0..INFOS {
        let name = format!("info{i}");
        let info = if i % COMPUTE_EVERY == 0 {
            ShaderCreateInfo::new(&name)
                .additional_info(format!("cmid{}", i % MIDS))
                .define_value("VARIANT", i.to_string())
                .image(
                    0,
                    TextureFormat::Rgba16f,
                    Qualifier::Write,
                    ImageType::Float2D,
                    "out_img",
                    Frequency::Geometry,
                )
                .push_constant(Type::Uint, "frame")
                .compute_source("particles.comp.glsl")
        } else {
            ShaderCreateInfo::new(&name)
                .additional_info(format!("mid{}", i % MIDS))
                .define_value("VARIANT", i.to_string())
                .sampler(0, ImageType::Float2D, "albedo", Frequency::Geometry)
                .sampler(1, ImageType::Float2D, "normal_map", Frequency::Geometry)
                .push_constant(Type::Uint, "object_id")
                .fragment_out(0, Type::Vec4, "frag_color")
                .vertex_source("mesh.vert.glsl")
                .fragment_source("mesh.frag.glsl")
        };
        reg.add_info(info);
        names.push(name);
    }
    assert!(reg.problems().is_empty(), "{:?}", reg.problems());
    (reg, names)
}

fn stages(info: &ResolvedInfo) -> &'static [Stage] {
    if info.source(Stage::Compute).is_some() {
        &[Stage::Compute]
    } else {
        &[Stage::Vertex, Stage::Fragment]
    }
}

fn bench(c: &mut Criterion) {
    let (reg, names) = registry();
    let loader = sources();
    let opts = GenerateOptions::new(&loader, &reg);
    let resolved: Vec<ValidatedInfo> = names.iter().map(|n| reg.validated(n).unwrap()).collect();
    let total: usize = resolved.iter().map(|r| stages(r).len()).sum();
    // Every stage must generate, or the bench would time error paths.
    for r in &resolved {
        for &s in stages(r) {
            let g = generate(r, s, &opts).unwrap_or_else(|e| panic!("{} {s}: {e:?}", r.name));
            assert!(g.source.contains("void main()"));
        }
    }

    let mut g = c.benchmark_group("generate_1000_infos");
    g.throughput(Throughput::Elements(total as u64));
    g.sample_size(20);
    g.bench_function("resolve_validate_and_generate_all_stages", |b| {
        b.iter(|| {
            for n in &names {
                let r = reg.validated(n).unwrap();
                for &s in stages(&r) {
                    black_box(generate(&r, s, &opts).unwrap());
                }
            }
        })
    });
    g.bench_function("generate_all_stages", |b| {
        b.iter(|| {
            for r in &resolved {
                for &s in stages(r) {
                    black_box(generate(r, s, &opts).unwrap());
                }
            }
        })
    });
    g.finish();
    println!(
        "{total} stages of {INFOS} infos per iteration: time per stage = iteration time / {total} \
         (criterion's thrpt line is stages/s)"
    );
}

criterion_group!(benches, bench);
criterion_main!(benches);
