//! `#[derive(ShaderVertex)]` against declared vertex layouts: every way a host struct can drift from its info is
//! named, field by field.

use shader_info::*;

fn plan() -> PipelinePlan {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("packed_mesh")
            .vertex_in(0, Type::Vec3, "pos")
            .vertex_in_packed(1, Type::Vec4, VertexFormat::Unorm10_10_10_2, "nor")
            .vertex_in_packed(2, Type::Vec4, VertexFormat::Unorm8x4, "color")
            .vertex_in_packed(3, Type::Vec2, VertexFormat::Float16x2, "uv")
            .vertex_source("v.glsl")
            .fragment_source("f.glsl"),
    );
    PipelinePlan::new(&reg.validated("packed_mesh").unwrap(), &reg)
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Good {
    pos: [f32; 3],
    #[vertex(format = "Unorm10_10_10_2")]
    nor: u32,
    #[vertex(format = "Unorm8x4")]
    color: [u8; 4],
    #[vertex(format = "Float16x2")]
    uv: [u16; 2],
}

#[test]
fn the_matching_struct_has_no_problems() {
    assert_eq!(plan().vertex_problems::<Good>(), vec![]);
    assert_eq!(<Good as ShaderVertex>::STRIDE, 12 + 4 + 4 + 4);
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct Drifted {
    pos: [f32; 3],
    /// Stored as floats where the declaration packs it.
    nor: [f32; 3],
    #[vertex(format = "Unorm8x4")]
    color: [u8; 4],
    /// Not declared at all.
    tangent: [f32; 4],
}

#[test]
fn every_drifted_field_is_named() {
    let problems = plan().vertex_problems::<Drifted>();
    let text: Vec<&str> = problems.iter().map(|d| d.message.as_str()).collect();
    assert!(
        text.iter()
            .any(|m| m.contains("field `nor` is Float32x3 at byte 12")
                && m.contains("Unorm10_10_10_2")),
        "{text:#?}"
    );
    assert!(
        text.iter().any(|m| m.contains("field `color`")),
        "{text:#?}"
    );
    assert!(
        text.iter()
            .any(|m| m.contains("`uv`") && m.contains("no field")),
        "{text:#?}"
    );
    assert!(
        text.iter().any(|m| m.contains("`tangent` is no vertex_in")),
        "{text:#?}"
    );
    assert!(
        problems
            .iter()
            .all(|d| d.code == Code::RustTwin && d.hint.is_some())
    );
}
