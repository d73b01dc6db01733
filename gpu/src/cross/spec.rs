//! How specialization constants reach each target.
//!
//! | target | how a value is applied | cache key of a translation |
//! |---|---|---|
//! | WGSL | pipeline-time: `@id(N) override`, set by `PipelineCompilationOptions::constants` (key: the id as a decimal string) | the module |
//! | MSL | pipeline-time: `[[function_constant(N)]]`, set by `MTLFunctionConstantValues` at index N; the declared default when none is set | the module |
//! | HLSL | baked: the value is a `static const` of the text | the module and the values |
//! | OpenGL / ES | baked: the value is a `const` of the text | the module and the values |
//!
//! The generator reads each constant through a global copy (`NAME = gpu_spec<ID>_value`), so the only use of a
//! constant is that copy and the MSL text can turn the baked default into a function constant by name.

use serde::Serialize;
use shader_info::{ConstValue, SpecConstantPlan, Target, portable_spec_name};

/// How a translation holds the specialization constants its module uses.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "applied")]
pub enum SpecHandling {
    /// The module uses none.
    None,
    /// Each stays a pipeline-time value the API sets by its id (WGSL overrides, MSL function constants).
    PipelineTime { ids: Vec<u32> },
    /// Each is baked into the text with this value (HLSL, OpenGL): another value is another translation.
    Baked { values: Vec<(String, ConstValue)> },
}

/// Whether `target` keeps specialization constants as pipeline-time values.
pub fn pipeline_time(target: Target) -> bool {
    matches!(target, Target::Wgsl | Target::Msl)
}

/// The MSL with each baked `constant T gpu_spec_NAME = default;` turned into a function constant at the declared
/// id that falls back to the default: `constant T gpu_spec_NAME_fc [[function_constant(id)]];` and
/// `constant T gpu_spec_NAME = is_function_constant_defined(gpu_spec_NAME_fc) ? gpu_spec_NAME_fc : default;`.
/// A used constant whose line is not found is an error, never a silently baked value.
pub(crate) fn msl_function_constants(
    text: &str,
    used: &[&SpecConstantPlan],
) -> Result<String, String> {
    let mut out = String::with_capacity(text.len() + used.len() * 128);
    let mut found = vec![false; used.len()];
    for line in text.lines() {
        let hit = used.iter().enumerate().find_map(|(i, c)| {
            let prefix = format!("constant {} {} = ", msl_type(c), portable_spec_name(c.id));
            let default = line.strip_prefix(&prefix)?.strip_suffix(';')?;
            Some((i, c, default.to_string()))
        });
        match hit {
            Some((i, c, default)) => {
                found[i] = true;
                let (ty, name) = (msl_type(c), portable_spec_name(c.id));
                out.push_str(&format!(
                    "constant {ty} {name}_fc [[function_constant({id})]];\n\
                     constant {ty} {name} = is_function_constant_defined({name}_fc) ? {name}_fc : {default};\n",
                    id = c.id
                ));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    if let Some(i) = found.iter().position(|f| !f) {
        return Err(format!(
            "the MSL has no `constant … {}` line to make the function constant of `{}`",
            portable_spec_name(used[i].id),
            used[i].name
        ));
    }
    Ok(out)
}

fn msl_type(c: &SpecConstantPlan) -> &'static str {
    match c.default {
        ConstValue::Bool(_) => "bool",
        ConstValue::Int(_) => "int",
        ConstValue::Uint(_) => "uint",
        ConstValue::Float(_) => "float",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shader_info::Type;

    #[test]
    fn baked_msl_constants_become_function_constants() {
        let c = SpecConstantPlan {
            id: 3,
            name: "N".into(),
            ty: Type::Uint,
            default: ConstValue::Uint(4),
        };
        let out =
            msl_function_constants("constant uint gpu_spec3_value = 4u;\nvoid f() {}\n", &[&c])
                .unwrap();
        assert_eq!(
            out,
            "constant uint gpu_spec3_value_fc [[function_constant(3)]];\n\
             constant uint gpu_spec3_value = is_function_constant_defined(gpu_spec3_value_fc) ? \
             gpu_spec3_value_fc : 4u;\n\
             void f() {}\n"
        );
        let e = msl_function_constants("void f() {}\n", &[&c]).unwrap_err();
        assert!(e.contains("gpu_spec3_value") && e.contains("`N`"), "{e}");
    }
}
