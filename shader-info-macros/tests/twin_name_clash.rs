//! Two push-constant structs of one GLSL name in two modules (each derive names its struct after the Rust type):
//! the registry keeps one definition of `Params`, so a typed push check that looked the struct up by that name
//! compared the other one's members, and passed or refused a struct by registration order. Its own test binary:
//! the clash is in the global registry.
use shader_info::*;

mod a {
    use shader_info::*;
    #[derive(Clone, Copy, ShaderStruct)]
    #[repr(C)]
    #[shader(std430)]
    pub struct Params {
        pub dir: glam::Vec4,
        pub radius: f32,
        pub _pad_end: Pad<12>,
    }
}

mod b {
    use shader_info::*;
    #[derive(Clone, Copy, ShaderStruct)]
    #[repr(C)]
    #[shader(std430)]
    pub struct Params {
        pub radius: f32,
        pub _p: Pad<12>,
        pub dir: glam::Vec4,
    }
}

#[test]
fn a_push_struct_whose_glsl_name_two_structs_share_is_refused_naming_the_clash() {
    let mut reg = Registry::shared_types_from_inventory();
    for (name, first) in [("dir_first", true), ("radius_first", false)] {
        let info = ShaderCreateInfo::new(name)
            .local_group_size(1)
            .compute_source("p.comp");
        reg.add_info(if first {
            info.push_constant(Type::Vec4, "dir")
                .push_constant(Type::Float, "radius")
        } else {
            info.push_constant(Type::Float, "radius")
                .push_constant(Type::Vec4, "dir")
        });
    }
    for (info, problems) in [
        ("dir_first", {
            let plan = PipelinePlan::new(&reg.validated("dir_first").unwrap(), &reg);
            plan.push_constant_problems::<a::Params>(&reg)
        }),
        ("radius_first", {
            let plan = PipelinePlan::new(&reg.validated("radius_first").unwrap(), &reg);
            plan.push_constant_problems::<b::Params>(&reg)
        }),
    ] {
        let text = render_all(&problems);
        assert!(
            text.contains("which the registry refuses"),
            "{info}: {text}"
        );
        assert!(
            text.contains("two different shared structs are named `Params`"),
            "{info}: {text}"
        );
    }
}
