//! Render state in the declaration: inherited through `additional_info` (conflicts name both infos), changed per
//! permutation by the specialize function (and counted in the unique variants), carried by the plan, and
//! validated with the rest of the declaration.

use shader_info::*;

fn graphics(name: &str) -> ShaderCreateInfo {
    ShaderCreateInfo::new(name)
        .fragment_out(0, Type::Vec4, "color")
        .vertex_source("v.glsl")
        .fragment_source("f.glsl")
}

fn problems(reg: &Registry, name: &str) -> Vec<Diagnostic> {
    match reg.resolve(name) {
        Err(d) => d,
        Ok(info) => validate(
            &info,
            &ValidateOptions {
                registry: reg,
                extra_type_names: &[],
                require_complete: true,
            },
        ),
    }
}

fn only(info: ShaderCreateInfo) -> Vec<Diagnostic> {
    let name = info.name.clone();
    let mut reg = Registry::new();
    reg.add_info(info);
    problems(&reg, &name)
}

fn render_state_errors(info: ShaderCreateInfo) -> String {
    let d = only(info);
    assert!(
        d.iter().all(|d| d.code == Code::RenderState),
        "{}",
        render_all(&d)
    );
    assert!(!d.is_empty(), "expected a render-state error");
    d.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn state_is_inherited_and_the_plan_carries_it() {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("ui_state")
            .blend(Blend::Alpha)
            .topology(Topology::TriangleStrip),
    );
    reg.add_info(
        graphics("ui")
            .additional_info("ui_state")
            .depth(DepthState::test(CompareOp::Less)),
    );
    let plan = PipelinePlan::new(&reg.validated("ui").unwrap(), &reg);
    let s = plan.render_state.expect("a graphics plan has render state");
    assert_eq!(s.blend_at(0), Blend::Alpha);
    assert_eq!(s.topology, Topology::TriangleStrip);
    assert_eq!(
        s.depth,
        Some(DepthState {
            compare: CompareOp::Less,
            write: false
        })
    );
    assert_eq!(s.cull, CullMode::None, "undeclared state keeps its default");
}

#[test]
fn a_slot_declared_differently_by_two_infos_is_a_conflict_naming_both() {
    let mut reg = Registry::new();
    reg.add_info(ShaderCreateInfo::new("base_opaque").blend(Blend::Opaque));
    reg.add_info(
        graphics("glass")
            .blend(Blend::Alpha)
            .additional_info("base_opaque"),
    );
    let d = problems(&reg, "glass");
    let text = render_all(&d);
    assert_eq!(d[0].code, Code::SingularConflict, "{text}");
    assert!(
        text.contains("blend(Alpha)") && text.contains("`glass`"),
        "{text}"
    );
    assert!(
        text.contains("blend(Opaque)") && text.contains("`base_opaque`"),
        "{text}"
    );
    // The same value twice is no conflict; within one info a later call replaces an earlier one.
    let mut reg = Registry::new();
    reg.add_info(ShaderCreateInfo::new("base_alpha").blend(Blend::Alpha));
    reg.add_info(
        graphics("same")
            .blend(Blend::Opaque)
            .blend(Blend::Alpha)
            .additional_info("base_alpha"),
    );
    assert!(problems(&reg, "same").is_empty());
}

fn specialize(v: &mut VariantBuilder) {
    if v.get("TRANSPARENT") {
        v.state(StateItem::Blend(Blend::Alpha));
        v.state(StateItem::Depth(Some(DepthState::test(
            CompareOp::LessOrEqual,
        ))));
    }
    // Shared with `state_only`, which has no DEPTH_ONLY branch.
    if v.has("DEPTH_ONLY") && v.get("DEPTH_ONLY") {
        v.state(StateItem::ColorWrites(0, ColorWrites::NONE));
    }
}

#[test]
fn variants_carry_their_own_state_and_state_counts_in_uniqueness() {
    let mut reg = Registry::new();
    reg.add_info(
        graphics("tech")
            .depth(DepthState::test_write(CompareOp::LessOrEqual))
            .branch("TRANSPARENT")
            .branch("DEPTH_ONLY")
            .specialize(specialize),
    );
    let info = reg.validated("tech").unwrap();
    let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    assert_eq!(set.variants.len(), 4);
    let state = |bits: u64| {
        let v = info.variant(&set, set.lookup(bits).unwrap(), &reg).unwrap();
        PipelinePlan::new(&v, &reg).render_state.unwrap()
    };
    let opaque = state(0b00);
    assert_eq!(
        (opaque.blend_at(0), opaque.depth.unwrap().write),
        (Blend::Opaque, true)
    );
    let transparent = state(0b01);
    assert_eq!(
        (transparent.blend_at(0), transparent.depth.unwrap().write),
        (Blend::Alpha, false)
    );
    assert_eq!(state(0b10).color_writes_at(0), ColorWrites::NONE);

    // A branch that changes only the state is still its own variant (same GLSL, another pipeline).
    let mut reg = Registry::new();
    reg.add_info(
        graphics("state_only")
            .branch("TRANSPARENT")
            .specialize(specialize),
    );
    let info = reg.validated("state_only").unwrap();
    assert_eq!(
        enumerate_variants(&info, DEFAULT_BRANCH_LIMIT)
            .unwrap()
            .variants
            .len(),
        2
    );
}

#[test]
fn contradictions_are_refused_with_the_call_and_a_hint() {
    let t = render_state_errors(
        graphics("int_blend")
            .fragment_out(1, Type::Uint, "id")
            .blend(Blend::Alpha),
    );
    assert!(
        t.contains("location 1 is an integer") && t.contains("blend(Alpha)"),
        "{t}"
    );

    let dual = BlendComponent::add(BlendFactor::One, BlendFactor::OneMinusSrc1Color);
    let t = render_state_errors(graphics("no_second_source").blend(Blend::Custom {
        color: dual,
        alpha: dual,
    }));
    assert!(
        t.contains("no second output") && t.contains("DualBlend::Src1"),
        "{t}"
    );

    let t = render_state_errors(graphics("nowhere").blend_at(3, Blend::Alpha));
    assert!(t.contains("no fragment output at location 3"), "{t}");

    let t = render_state_errors(graphics("patches").topology(Topology::PatchList));
    assert!(t.contains("patch lists without tessellation"), "{t}");

    let t = render_state_errors(
        ShaderCreateInfo::new("compute_state")
            .local_group_size(8)
            .compute_source("c.glsl")
            .blend(Blend::Alpha),
    );
    assert!(t.contains("not a graphics info"), "{t}");

    let face = StencilFace::new(CompareOp::Equal, StencilOp::Keep);
    let t = render_state_errors(graphics("stencil").stencil(StencilState {
        front: face,
        back: face,
        read_mask: 0xff,
        write_mask: 0,
        reference: None,
    }));
    assert!(
        t.contains("without a reference value") && t.contains("STENCIL_REFERENCE"),
        "{t}"
    );

    let constant = BlendComponent::add(BlendFactor::ConstantColor, BlendFactor::Zero);
    let t = render_state_errors(graphics("constants").blend(Blend::Custom {
        color: constant,
        alpha: constant,
    }));
    assert!(t.contains("BLEND_CONSTANTS"), "{t}");
    assert!(
        only(
            graphics("constants_dynamic")
                .blend(Blend::Custom {
                    color: constant,
                    alpha: constant
                })
                .dynamic(DynamicStates::BLEND_CONSTANTS)
        )
        .is_empty()
    );

    for w in [f32::NAN, 0.0, -1.0] {
        let t = render_state_errors(graphics("lines").topology(Topology::LineList).line_width(w));
        assert!(t.contains("not a positive number"), "{t}");
    }
    let t = render_state_errors(graphics("bias").dynamic(DynamicStates::DEPTH_BIAS));
    assert!(t.contains("no depth bias is declared"), "{t}");

    // Rasterized points need a size: the vertex stage's, or the geometry stage's when it emits points.
    let t = render_state_errors(graphics("points").topology(Topology::PointList));
    assert!(
        t.contains("BuiltinBits::POINT_SIZE") && t.contains("topology(PointList)"),
        "{t}"
    );
    assert!(
        only(
            graphics("sized_points")
                .topology(Topology::PointList)
                .builtins(BuiltinBits::POINT_SIZE)
        )
        .is_empty()
    );
    let sprites = |name: &str| {
        graphics(name)
            .geometry_layout(PrimitiveIn::Triangles, PrimitiveOut::Points, 3)
            .geometry_source("g.glsl")
    };
    let t = render_state_errors(sprites("sprites"));
    assert!(
        t.contains("geometry stage emits points") && t.contains("geometry_layout"),
        "{t}"
    );
    let sized = sprites("sized_sprites").builtins(BuiltinBits::POINT_SIZE);
    assert!(only(sized.clone()).is_empty());
    let stages = [Stage::Vertex, Stage::Geometry, Stage::Fragment];
    assert_eq!(
        BuiltinBits::POINT_SIZE.device_features(&stages)[0].feature,
        "shaderTessellationAndGeometryPointSize"
    );
    assert!(
        BuiltinBits::POINT_SIZE
            .device_features(&[Stage::Vertex, Stage::Fragment])
            .is_empty()
    );
}

#[test]
fn features_a_state_needs_are_listed() {
    let s = RenderState::from_items(
        &graphics("x")
            .polygon_mode(PolygonMode::Line)
            .line_width(2.0)
            .primitive_restart(true)
            .blend_at(0, Blend::Alpha)
            .render_state,
    );
    let needs: Vec<&str> = s
        .required_features(&[0, 1])
        .into_iter()
        .map(|(f, _)| f)
        .collect();
    assert_eq!(
        needs,
        [
            "wideLines",
            "fillModeNonSolid",
            "independentBlend",
            "primitiveTopologyListRestart"
        ]
    );
    assert!(RenderState::default().required_features(&[0]).is_empty());
}
