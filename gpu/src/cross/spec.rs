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
use shader_info::{ConstValue, Target};

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
