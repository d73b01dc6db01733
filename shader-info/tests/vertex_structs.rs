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

/// The usual instanced mesh: per-vertex position and normal, a per-instance model matrix (one attribute per column)
/// and packed color. Each rate gets its buffer; a struct is checked against its own.
fn instanced() -> PipelinePlan {
    let mut reg = Registry::new();
    reg.add_info(
        ShaderCreateInfo::new("instanced_mesh")
            .vertex_in(0, Type::Vec3, "pos")
            .instance_in(1, Type::Mat4, "model")
            .vertex_in(5, Type::Vec3, "nor")
            .instance_in_packed(6, Type::Vec4, VertexFormat::Unorm8x4, "tint")
            .vertex_source("v.glsl")
            .fragment_source("f.glsl"),
    );
    PipelinePlan::new(&reg.validated("instanced_mesh").unwrap(), &reg)
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct MeshVertex {
    pos: [f32; 3],
    nor: [f32; 3],
}

#[derive(Clone, Copy, ShaderVertex)]
#[repr(C)]
struct MeshInstance {
    model: glam::Mat4,
    #[vertex(format = "Unorm8x4")]
    tint: [u8; 4],
}

#[test]
fn per_instance_inputs_have_their_own_buffer_and_struct() {
    let p = instanced();
    let buffers = p.vertex_buffers(VertexArrangement::Interleaved);
    assert_eq!(buffers.len(), 2);
    assert_eq!(
        (buffers[0].binding, buffers[0].rate, buffers[0].stride),
        (0, VertexRate::Vertex, 24)
    );
    assert_eq!(
        buffers[0].attributes,
        [
            (0, VertexFormat::Float32x3, 0),
            (5, VertexFormat::Float32x3, 12)
        ]
    );
    assert_eq!(
        (buffers[1].binding, buffers[1].rate, buffers[1].stride),
        (1, VertexRate::Instance, 68)
    );
    let columns: Vec<(u32, u32)> = buffers[1].attributes.iter().map(|a| (a.0, a.2)).collect();
    assert_eq!(columns, [(1, 0), (2, 16), (3, 32), (4, 48), (6, 64)]);
    // One buffer per input, each with its input's rate; the matrix's columns share one.
    let per_input = p.vertex_buffers(VertexArrangement::PerInput);
    let rates: Vec<(u32, VertexRate, u32)> = per_input
        .iter()
        .map(|b| (b.binding, b.rate, b.stride))
        .collect();
    assert_eq!(
        rates,
        [
            (0, VertexRate::Vertex, 12),
            (1, VertexRate::Instance, 64),
            (2, VertexRate::Vertex, 12),
            (3, VertexRate::Instance, 4)
        ]
    );
    assert_eq!(p.vertex_problems::<MeshVertex>(), vec![]);
    // glam's Mat4 aligns the struct to 16: 68 bytes of fields, 80 with Rust's padding. Read with the packed
    // stride, every instance after the first would be read from the wrong bytes: refused, saying why.
    assert_eq!(<MeshInstance as ShaderVertex>::STRIDE, 80);
    let d = p.instance_problems::<MeshInstance>();
    assert!(
        d.len() == 1
            && d[0].message.contains("80 bytes")
            && d[0].message.contains("12 bytes of padding"),
        "{d:#?}"
    );
    // A typed pipeline reads it with its own stride.
    let strided = typed_arrangement::<MeshVertex, MeshInstance>(&p, VertexArrangement::Interleaved);
    assert_eq!(
        strided,
        VertexArrangement::Strided {
            vertex: 24,
            instance: 80
        }
    );
    assert_eq!(
        p.buffer_problems::<MeshInstance>(strided, VertexRate::Instance),
        vec![]
    );
    assert_eq!(
        p.buffer_problems::<MeshVertex>(strided, VertexRate::Vertex),
        vec![]
    );
    assert_eq!(p.vertex_buffers(strided)[1].stride, 80);
    // Swapped: each field is named as belonging to the other buffer.
    let text: Vec<String> = p
        .vertex_problems::<MeshInstance>()
        .into_iter()
        .map(|d| d.message)
        .collect();
    assert!(
        text.iter().any(|m| m.contains("vertex_in `pos`"))
            && text
                .iter()
                .any(|m| m.contains("field `model` is a per-instance input")),
        "{text:#?}"
    );
    assert!(
        p.vertex_layout_problems(VertexArrangement::Interleaved, VertexRules::WebGpu)
            .is_empty()
    );
}
