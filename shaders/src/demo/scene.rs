//! The demo's 3D scene, generated in code: a cube and a UV sphere mesh (positions and normals, interleaved as
//! `gpu_shader_forward_lit` reads them), a handful of objects, the camera and the sun.

use crate::ViewData;
use glam::{Mat4, Quat, Vec3, Vec4};

/// One vertex of `gpu_shader_forward_lit` and `gpu_shader_3D_transparent`: `pos` at location 0, `nor` at
/// location 1, interleaved (checked against both declarations when the frame is described).
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable, shader_info::ShaderVertex)]
#[repr(C)]
pub struct LitVertex {
    pub pos: [f32; 3],
    pub nor: [f32; 3],
}

/// One vertex of `gpu_shader_3D_depth_only`: the position alone.
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable, shader_info::ShaderVertex)]
#[repr(C)]
pub struct PositionVertex {
    pub pos: [f32; 3],
}

/// An indexed triangle list.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    pub vertices: Vec<LitVertex>,
    pub indices: Vec<u32>,
}

/// A unit cube centered on the origin (side 1), four vertices per face so normals are flat.
pub fn cube() -> Mesh {
    let mut m = Mesh::default();
    let faces = [
        Vec3::X,
        Vec3::NEG_X,
        Vec3::Y,
        Vec3::NEG_Y,
        Vec3::Z,
        Vec3::NEG_Z,
    ];
    for n in faces {
        // Two axes spanning the face with u × v = n (v = n × u, u ⊥ n): the corners below, counter-clockwise in
        // (u, v), are then counter-clockwise seen from outside.
        let u = if n.x.abs() > 0.5 { Vec3::Y } else { Vec3::X };
        let v = n.cross(u);
        let base = m.vertices.len() as u32;
        for (a, b) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)] {
            let p = (n + u * a + v * b) * 0.5;
            m.vertices.push(LitVertex {
                pos: p.to_array(),
                nor: n.to_array(),
            });
        }
        m.indices
            .extend([base, base + 1, base + 2, base, base + 2, base + 3]);
    }
    m
}

/// A unit-radius UV sphere with `rings` latitude bands and `segments` longitude bands (smooth normals).
pub fn sphere(rings: u32, segments: u32) -> Mesh {
    let mut m = Mesh::default();
    for r in 0..=rings {
        let theta = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let phi = std::f32::consts::TAU * s as f32 / segments as f32;
            let n = Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                theta.sin() * phi.sin(),
            );
            m.vertices.push(LitVertex {
                pos: n.to_array(),
                nor: n.to_array(),
            });
        }
    }
    let row = segments + 1;
    for r in 0..rings {
        for s in 0..segments {
            let a = r * row + s;
            let b = a + row;
            m.indices.extend([a, a + 1, b, a + 1, b + 1, b]);
        }
    }
    m
}

/// Which mesh an object uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Cube,
    Sphere,
}

/// One object: its mesh, model matrix and material (the `gpu_shader_forward_lit` push constants).
#[derive(Clone, Copy, Debug)]
pub struct Object {
    pub shape: Shape,
    pub model: Mat4,
    /// Linear albedo and alpha.
    pub base_color: Vec4,
    pub shininess: f32,
}

/// The scene: a ground slab, three cubes and three spheres.
pub fn objects() -> Vec<Object> {
    let obj = |shape, model, rgb: [f32; 3], shininess| Object {
        shape,
        model,
        base_color: Vec4::new(rgb[0], rgb[1], rgb[2], 1.0),
        shininess,
    };
    let srt = |s: Vec3, angle: f32, t: Vec3| {
        Mat4::from_scale_rotation_translation(s, Quat::from_rotation_y(angle), t)
    };
    vec![
        obj(
            Shape::Cube,
            srt(Vec3::new(12.0, 0.2, 12.0), 0.0, Vec3::new(0.0, -0.1, 0.0)),
            [0.45, 0.45, 0.42],
            8.0,
        ),
        obj(
            Shape::Cube,
            srt(Vec3::splat(1.2), 0.5, Vec3::new(-2.4, 0.6, -0.4)),
            [0.80, 0.12, 0.10],
            32.0,
        ),
        obj(
            Shape::Cube,
            srt(Vec3::splat(0.9), -0.3, Vec3::new(2.6, 0.45, -0.8)),
            [0.10, 0.25, 0.80],
            32.0,
        ),
        obj(
            Shape::Cube,
            srt(Vec3::new(0.6, 1.8, 0.6), 0.8, Vec3::new(3.4, 0.9, 1.4)),
            [0.85, 0.55, 0.10],
            16.0,
        ),
        obj(
            Shape::Sphere,
            srt(Vec3::splat(0.9), 0.0, Vec3::new(0.0, 0.9, 0.0)),
            [0.90, 0.75, 0.35],
            64.0,
        ),
        obj(
            Shape::Sphere,
            srt(Vec3::splat(0.5), 0.0, Vec3::new(-0.9, 0.5, 2.0)),
            [0.15, 0.70, 0.25],
            48.0,
        ),
        obj(
            Shape::Sphere,
            srt(Vec3::splat(0.4), 0.0, Vec3::new(1.3, 0.4, 2.3)),
            [0.90, 0.90, 0.90],
            96.0,
        ),
    ]
}

/// The glass: drawn after the opaque objects with the transparent technique, back to front.
pub fn transparent_objects() -> Vec<Object> {
    let glass = |shape, model, rgba: [f32; 4]| Object {
        shape,
        model,
        base_color: Vec4::from_array(rgba),
        shininess: 96.0,
    };
    vec![
        glass(
            Shape::Cube,
            Mat4::from_scale_rotation_translation(
                Vec3::new(1.6, 1.1, 0.08),
                Quat::from_rotation_y(0.25),
                Vec3::new(-1.3, 0.55, 1.1),
            ),
            [0.55, 0.85, 0.75, 0.35],
        ),
        glass(
            Shape::Sphere,
            Mat4::from_scale_rotation_translation(
                Vec3::splat(0.55),
                Quat::IDENTITY,
                Vec3::new(0.9, 0.55, 2.6),
            ),
            [0.70, 0.80, 1.00, 0.45],
        ),
    ]
}

/// The linear sky color the HDR target is cleared to.
pub const SKY: [f32; 4] = [0.35, 0.50, 0.80, 1.0];

/// The camera and lights for a `width` × `height` viewport. Clip space is Vulkan's (y down, depth 0..1), so the
/// projection flips y; the winding flips with it, which the two-sided forward shader and culling off absorb.
pub fn view_data(width: u32, height: u32) -> ViewData {
    let (w, h) = (width.max(1) as f32, height.max(1) as f32);
    let eye = Vec3::new(0.0, 3.2, 8.0);
    let view = Mat4::look_at_rh(eye, Vec3::new(0.0, 0.6, 0.0), Vec3::Y);
    let proj = Mat4::from_scale(Vec3::new(1.0, -1.0, 1.0))
        * Mat4::perspective_rh(45f32.to_radians(), w / h, 0.1, 100.0);
    let view_projection = proj * view;
    let pi = std::f32::consts::PI;
    ViewData {
        view_projection,
        inv_view_projection: view_projection.inverse(),
        camera_position: eye.extend(1.0),
        sun_direction: Vec3::new(-0.45, -1.0, -0.35).normalize().extend(0.0),
        sun_color: Vec4::new(pi * 1.0, pi * 0.95, pi * 0.85, 0.0),
        ambient_color: Vec4::new(0.25, 0.32, 0.45, 0.0),
        viewport_size: Vec4::new(w, h, 1.0 / w, 1.0 / h),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cube_faces_wind_counter_clockwise_seen_from_outside() {
        let m = cube();
        assert_eq!((m.vertices.len(), m.indices.len()), (24, 36));
        for t in m.indices.chunks(3) {
            let p = [0, 1, 2].map(|k| Vec3::from(m.vertices[t[k] as usize].pos));
            let n = Vec3::from(m.vertices[t[0] as usize].nor);
            assert!((p[1] - p[0]).cross(p[2] - p[0]).dot(n) > 0.0);
            assert!(p.iter().all(|p| p.abs().max_element() <= 0.5 + 1e-6));
        }
    }

    #[test]
    fn sphere_vertices_lie_on_the_unit_sphere() {
        let m = sphere(8, 12);
        assert_eq!(m.vertices.len(), 9 * 13);
        assert_eq!(m.indices.len(), 8 * 12 * 6);
        assert!(
            m.vertices
                .iter()
                .all(|v| (Vec3::from(v.pos).length() - 1.0).abs() < 1e-5)
        );
    }
}
