//! OpenGL 4.3 and OpenGL ES 3.1 GLSL: the naga module with the map's binding points, specialization constants
//! baked, one push-constant uniform named the same in every stage and naga's text adjusted where the host needs it
//! ([`post`]); checked and reflected by glslang for that GLSL version ([`check`]).

mod check;
mod post;

pub(super) use check::check;

use super::{Portable, naga_stage, rb};
use naga::back::glsl;
use shader_info::{ConstValue, GlClass, SpecConstantPlan, Target};

/// The GL or ES text of the module (its entry point is always `main`).
pub(super) fn write(
    p: &Portable,
    target: Target,
    baked: &[(&SpecConstantPlan, ConstValue)],
    entry: &str,
) -> Result<String, String> {
    let map = &p.plan.targets;
    let (module, info) = p.with_constants(baked)?;
    let mut binding_map = glsl::BindingMap::new();
    for b in &map.bindings {
        if let Some(gl) = b.gl {
            let binding = u8::try_from(gl.binding).map_err(|_| {
                format!("OpenGL binding {} of `{}` is over 255", gl.binding, b.name)
            })?;
            binding_map.insert(rb(b.set, b.binding), binding);
        }
    }
    let version = if target == Target::Gl {
        glsl::Version::Desktop(430)
    } else {
        glsl::Version::Embedded {
            version: 310,
            is_webgl: false,
        }
    };
    let opts = glsl::Options {
        version,
        writer_flags: glsl::WriterFlags::empty(),
        binding_map,
        zero_initialize_workgroup_memory: true,
    };
    let Some(stage) = naga_stage(p.stage) else {
        return Err(format!("naga has no {} stage", p.stage));
    };
    let pipe = glsl::PipelineOptions {
        shader_stage: stage,
        entry_point: entry.to_string(),
        multiview: None,
    };
    let mut text = String::new();
    glsl::Writer::new(
        &mut text,
        &module,
        &info,
        &opts,
        &pipe,
        naga::proc::BoundsCheckPolicies::default(),
    )
    .map_err(|e| e.to_string())?
    .write()
    .map_err(|e| e.to_string())?;
    // naga names the block per stage (`_immediates_binding_vs`, a prefix its namer keeps from user
    // names); one name in every stage makes it one uniform of the linked program.
    let text = text.replace(
        &format!("_immediates_binding_{}", gl_stage_suffix(stage)),
        shader_info::GL_PUSH_CONSTANT_UNIFORM,
    );
    // The host sets push constants and finds block members by their declared names.
    let text = post::declared_member_names(&text);
    let text = match &p.plan.push_constants {
        Some(block) => {
            let names: Vec<&str> = block
                .layout
                .members
                .iter()
                .map(|m| m.name.as_str())
                .collect();
            post::declared_push_member_names(&text, &names)
        }
        None => text,
    };
    Ok(post::base_instance_from_host(&text))
}

/// The uniforms naga's GLSL back end adds for the host to set.
pub(crate) const HOST_UNIFORMS: [&str; 1] = ["naga_vs_first_instance"];

/// naga's GL suffix of a stage's names.
fn gl_stage_suffix(stage: naga::ShaderStage) -> &'static str {
    match stage {
        naga::ShaderStage::Vertex => "vs",
        naga::ShaderStage::Fragment => "fs",
        naga::ShaderStage::Compute => "cs",
        _ => "unknown",
    }
}

/// OpenGL class names (for messages).
pub fn gl_class_name(class: GlClass) -> &'static str {
    match class {
        GlClass::UniformBlock => "uniform block",
        GlClass::StorageBlock => "storage block",
        GlClass::TextureUnit => "texture unit",
        GlClass::ImageUnit => "image unit",
    }
}
