//! Snapshots of the generated GLSL of representative infos that together use every builder method, and proof that
//! every generated stage compiles (with `glslangValidator`, independent of this project's compiler).

use shader_info::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn registry() -> Registry {
    let mut r = Registry::new();
    r.add_enum(EnumDef {
        name: "LightKind".into(),
        values: vec![("LIGHT_KIND_POINT".into(), 0), ("LIGHT_KIND_SUN".into(), 1)],
    });
    r.add_struct(
        StructDef::new("Light")
            .field(Field::new(Type::Vec3, "position"))
            .field(Field::new(Type::Uint, "kind"))
            .field(Field::new(Type::Vec3, "direction"))
            .field(Field::new(Type::Float, "radius"))
            .field(Field::new(Type::Vec3, "color"))
            .field(Field::new(Type::Float, "intensity")),
    );
    r.add_struct(
        StructDef::new("ViewData")
            .field(Field::new(Type::Mat4, "view_projection"))
            .field(Field::new(Type::Vec4, "camera_position"))
            .field(Field::new(Type::Uint, "light_count"))
            .field(Field::structure("Light", "lights").array(4)),
    );
    r.add_struct(
        StructDef::new("GlyphQuad")
            .field(Field::new(Type::Vec4, "color"))
            .field(Field::new(Type::Vec2, "pos"))
            .field(Field::new(Type::Vec2, "size"))
            .field(Field::new(Type::Uint, "glyph_offset")),
    );

    let mvp =
        ShaderCreateInfo::new("fx_mvp").push_constant(Type::Mat4, "ModelViewProjectionMatrix");
    let color_iface =
        StageInterfaceInfo::new("smooth_color_iface", "").smooth(Type::Vec4, "finalColor");
    let uv_iface =
        StageInterfaceInfo::new("image_iface", "").no_perspective(Type::Vec2, "uv_interp");
    let text_iface = StageInterfaceInfo::new("text_iface", "text")
        .flat(Type::Vec4, "color_flat")
        .no_perspective(Type::Vec2, "uv_interp")
        .flat(Type::Int, "glyph_offset")
        .flat(Type::IVec2, "glyph_dim");
    let point_vs = StageInterfaceInfo::new("point_vs_iface", "vs").smooth(Type::Vec4, "color");
    let point_gs = StageInterfaceInfo::new("point_gs_iface", "gs")
        .smooth(Type::Vec4, "color")
        .smooth(Type::Vec2, "uv");
    let lit_iface = StageInterfaceInfo::new("lit_iface", "v")
        .smooth(Type::Vec3, "world_pos")
        .smooth(Type::Vec3, "normal")
        .flat(Type::Int, "light_count");

    for info in [
        mvp,
        ShaderCreateInfo::new("fx_2d_uniform_color")
            .vertex_in(0, Type::Vec2, "pos")
            .push_constant(Type::Vec4, "color")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("uniform_color_vert.glsl")
            .fragment_source("uniform_color_frag.glsl")
            .additional_info("fx_mvp")
            .do_static_compilation(true),
        ShaderCreateInfo::new("fx_3d_smooth_color")
            .vertex_in(0, Type::Vec3, "pos")
            .vertex_in(1, Type::Vec4, "col")
            .vertex_out(&color_iface)
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("smooth_color_vert.glsl")
            .fragment_source("smooth_color_frag.glsl")
            .additional_info("fx_mvp")
            .do_static_compilation(true),
        ShaderCreateInfo::new("fx_2d_image")
            .vertex_in(0, Type::Vec2, "pos")
            .vertex_in(1, Type::Vec2, "texCoord")
            .vertex_out(&uv_iface)
            .fragment_out(0, Type::Vec4, "frag_color")
            .sampler(0, ImageType::Float2D, "image", Frequency::Batch)
            .typedef_source("typedefs.glsl")
            .define("USE_ALPHA_CUTOFF")
            .define_value("ALPHA_CUTOFF", "0.5")
            .vertex_source("image_vert.glsl")
            .fragment_source("image_frag.glsl")
            .additional_info("fx_mvp")
            .do_static_compilation(true),
        ShaderCreateInfo::new("fx_text")
            .vertex_out(&text_iface)
            .fragment_out(0, Type::Vec4, "frag_color")
            .storage_buf(
                0,
                Qualifier::Read,
                "GlyphQuad",
                "glyphs[]",
                Frequency::Geometry,
            )
            .sampler(0, ImageType::FloatBuffer, "glyph", Frequency::Batch)
            .builtins(BuiltinBits::VERTEX_ID)
            .vertex_source("text_vert.glsl")
            .fragment_source("text_frag.glsl")
            .additional_info("fx_mvp")
            .do_static_compilation(true),
        ShaderCreateInfo::new("fx_compute_blur")
            .image(
                0,
                TextureFormat::Rgba16f,
                Qualifier::Read,
                ImageType::Float2D,
                "src_img",
                Frequency::Pass,
            )
            .image(
                1,
                TextureFormat::Rgba16f,
                Qualifier::Write,
                ImageType::Float2D,
                "dst_img",
                Frequency::Pass,
            )
            .define_value("BLUR_HORIZONTAL", "1")
            .define_value("RADIUS", "4")
            .local_group_size_2d(8, 8)
            .compute_source("blur_comp.glsl")
            .do_static_compilation(true),
        ShaderCreateInfo::new("fx_compute_histogram")
            .storage_buf(0, Qualifier::Read, "uint", "values[]", Frequency::Pass)
            .storage_buf(1, Qualifier::ReadWrite, "uint", "bins[64]", Frequency::Pass)
            .specialization_constant(Type::Uint, "bin_width", 4u32)
            .specialization_constant(Type::Uint, "bin_count", 64u32)
            .local_group_size_3d(64, 1, 1)
            .compute_source("histogram_comp.glsl")
            .do_static_compilation(true),
        ShaderCreateInfo::new("fx_point_sprites")
            .vertex_in(0, Type::Vec3, "pos")
            .vertex_in(1, Type::Vec4, "col")
            .vertex_out(&point_vs)
            .geometry_layout_instanced(PrimitiveIn::Points, PrimitiveOut::TriangleStrip, 4, 1)
            .geometry_out(&point_gs)
            .push_constant(Type::Vec2, "point_size")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_source("points_vert.glsl")
            .geometry_source("points_geom.glsl")
            .fragment_source("points_frag.glsl")
            .do_static_compilation(true),
        ShaderCreateInfo::new("fx_dual_blend")
            .fragment_out_blend(0, Type::Vec4, "color_src", DualBlend::Src0)
            .fragment_out_blend(0, Type::Vec4, "color_weight", DualBlend::Src1)
            .depth_write(DepthWrite::Greater)
            .early_fragment_test(false)
            .builtins(BuiltinBits::FRAG_COORD)
            .vertex_source("fullscreen_vert.glsl")
            .fragment_source("blend_frag.glsl")
            .do_static_compilation(true),
        ShaderCreateInfo::new("fx_depth_prepass")
            .vertex_in(0, Type::Vec3, "pos")
            .vertex_out(&color_iface)
            .fragment_out(0, Type::Vec4, "frag_color")
            .early_fragment_test(true)
            .vertex_source("smooth_color_vert.glsl")
            .fragment_source("smooth_color_frag.glsl")
            .additional_info("fx_3d_smooth_color")
            .do_static_compilation(true),
        ShaderCreateInfo::new("fx_ray_tracing")
            .acceleration_structure(0, "scene", Frequency::Pass)
            .image(
                1,
                TextureFormat::Rgba8,
                Qualifier::Write,
                ImageType::Float2D,
                "out_image",
                Frequency::Pass,
            )
            .push_constant(Type::Vec4, "camera_origin")
            .raygen_source("rt_gen.glsl")
            .miss_source("rt_miss.glsl")
            .closest_hit_source("rt_hit.glsl")
            .do_static_compilation(true),
        ShaderCreateInfo::new("fx_forward_lit")
            .vertex_in(0, Type::Vec3, "pos")
            .vertex_in(1, Type::Vec3, "nor")
            .vertex_out(&lit_iface)
            .fragment_out(0, Type::Vec4, "frag_color")
            .uniform_buf(0, "ViewData", "view", Frequency::Pass)
            .uniform_buf(1, "vec4", "tint[2]", Frequency::Batch)
            .sampler(1, ImageType::Shadow2D, "shadow_map", Frequency::Pass)
            .sampler(2, ImageType::FloatCube, "environment", Frequency::Pass)
            .typedef_source("LightKind")
            .push_constant(Type::Mat4, "model")
            .push_constant_array(Type::Vec4, "material", 2)
            .vertex_source("lit_vert.glsl")
            .fragment_source("lit_frag.glsl")
            .do_static_compilation(true),
    ] {
        r.add_info(info);
    }
    r
}

fn glslang_compiles(source: &str, stage: Stage, dir: &Path) -> Result<(), String> {
    let file = dir.join(format!("shader.{}", stage.short_name()));
    std::fs::write(&file, source).unwrap();
    let out = Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.3", "-o"])
        .arg(dir.join("out.spv"))
        .arg(format!("-I{}", fixtures().display()))
        .arg(&file)
        .output()
        .map_err(|e| format!("cannot run glslangValidator (install glslang-tools): {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[test]
fn generated_stages_match_snapshots_and_compile() {
    let reg = registry();
    let loader = DirLoader::new(fixtures());
    let opts = GenerateOptions::new(&loader, &reg);
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut stages_done = 0;
    let compilable: Vec<&ShaderCreateInfo> =
        reg.infos().filter(|i| i.do_static_compilation).collect();
    assert!(compilable.len() >= 10, "at least ten representative infos");
    for info in compilable {
        let resolved = reg
            .validated(&info.name)
            .unwrap_or_else(|d| panic!("{}", render_all(&d)));
        assert!(
            resolved.warnings().is_empty(),
            "{}",
            render_all(resolved.warnings())
        );
        for stage in resolved.stages() {
            let g =
                generate(&resolved, stage, &opts).unwrap_or_else(|d| panic!("{}", render_all(&d)));
            insta::assert_snapshot!(format!("{}.{}", info.name, stage.short_name()), g.source);
            if let Err(e) = glslang_compiles(&g.source, stage, tmp.path()) {
                failures.push(format!("{} {stage}:\n{e}", info.name));
            }
            stages_done += 1;
        }
    }
    assert!(
        failures.is_empty(),
        "generated stages failed to compile:\n{}",
        failures.join("\n")
    );
    assert!(stages_done >= 22, "{stages_done}");
}

#[test]
fn generation_is_deterministic_and_ignores_builder_call_order() {
    let reg = registry();
    let loader = DirLoader::new(fixtures());
    let opts = GenerateOptions::new(&loader, &reg);
    let a = reg.validated("fx_2d_image").unwrap();
    let g1 = generate(&a, Stage::Fragment, &opts).unwrap();
    let g2 = generate(&a, Stage::Fragment, &opts).unwrap();
    assert_eq!(g1, g2);

    // The same declarations in another call order give the same text (definition order within a kind is kept).
    let mut other = Registry::new();
    other.add_info(
        ShaderCreateInfo::new("fx_mvp").push_constant(Type::Mat4, "ModelViewProjectionMatrix"),
    );
    other.add_info(
        ShaderCreateInfo::new("fx_2d_image")
            .fragment_source("image_frag.glsl")
            .define("USE_ALPHA_CUTOFF")
            .vertex_source("image_vert.glsl")
            .sampler(0, ImageType::Float2D, "image", Frequency::Batch)
            .define_value("ALPHA_CUTOFF", "0.5")
            .additional_info("fx_mvp")
            .typedef_source("typedefs.glsl")
            .fragment_out(0, Type::Vec4, "frag_color")
            .vertex_out(
                &StageInterfaceInfo::new("image_iface", "").no_perspective(Type::Vec2, "uv_interp"),
            )
            .vertex_in(0, Type::Vec2, "pos")
            .vertex_in(1, Type::Vec2, "texCoord"),
    );
    let b = other.validated("fx_2d_image").unwrap();
    let opts_b = GenerateOptions::new(&loader, &other);
    assert_eq!(
        generate(&b, Stage::Fragment, &opts_b).unwrap().source,
        g1.source
    );
}

#[test]
fn compile_errors_point_at_the_users_file_and_line() {
    let reg = registry();
    let tmp = tempfile::tempdir().unwrap();
    let loader = MemoryLoader::default()
        .with(
            "uniform_color_vert.glsl",
            "void main() {\n  gl_Position = vec4(0.0);\n}\n",
        )
        .with(
            "uniform_color_frag.glsl",
            "void main() {\n  frag_color = color;\n  undefined_call();\n}\n",
        );
    let opts = GenerateOptions::new(&loader, &reg);
    let info = reg.validated("fx_2d_uniform_color").unwrap();
    let g = generate(&info, Stage::Fragment, &opts).unwrap();
    let err = glslang_compiles(&g.source, Stage::Fragment, tmp.path()).unwrap_err();
    assert!(err.contains("uniform_color_frag.glsl:3:"), "{err}");
}

#[test]
fn missing_sources_are_diagnostics_naming_the_info() {
    let reg = registry();
    let loader = MemoryLoader::default();
    let opts = GenerateOptions::new(&loader, &reg);
    let info = reg.validated("fx_2d_image").unwrap();
    let d = generate(&info, Stage::Fragment, &opts).unwrap_err();
    assert!(
        d.iter()
            .all(|d| d.code == Code::MissingSource && d.info == "fx_2d_image")
    );
    assert!(d.iter().any(|d| d.message.contains("typedefs.glsl")));
    assert!(d.iter().any(|d| d.message.contains("image_frag.glsl")));
    let d = generate(&info, Stage::Compute, &opts).unwrap_err();
    assert_eq!(d[0].code, Code::UnknownStage);
}

#[test]
fn shared_structs_are_emitted_once_dependencies_first() {
    let reg = registry();
    let loader = DirLoader::new(fixtures());
    let opts = GenerateOptions::new(&loader, &reg);
    let info = reg.validated("fx_forward_lit").unwrap();
    let src = generate(&info, Stage::Fragment, &opts).unwrap().source;
    let light = src.find("struct Light {").expect("Light emitted");
    let view = src.find("struct ViewData {").expect("ViewData emitted");
    let en = src
        .find("const uint LIGHT_KIND_SUN = 1u;")
        .expect("enum emitted");
    assert!(en < light && light < view);
    assert_eq!(src.matches("struct Light {").count(), 1);
}
