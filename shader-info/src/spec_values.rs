//! Specialization-constant values a renderer gives at pipeline creation, checked against the declaration once for
//! every backend (Vulkan specialization info, WGSL pipeline overrides, MSL function constants, the values HLSL and
//! OpenGL translations are baked with).

use crate::constant::ConstValue;
use crate::plan::SpecConstantPlan;
use std::hash::{Hash, Hasher};

/// Specialization-constant values by name, overriding the declaration's defaults.
///
/// ```
/// use shader_info::SpecValues;
/// let v = SpecValues::default().set("RADIUS", 3u32).set("USE_FAST_PATH", true);
/// assert_eq!(v.0.len(), 2);
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpecValues(pub Vec<(String, ConstValue)>);

impl SpecValues {
    /// Sets `name` to `value` (replacing an earlier value).
    pub fn set(mut self, name: impl Into<String>, value: impl Into<ConstValue>) -> SpecValues {
        let name = name.into();
        let value = value.into();
        self.0.retain(|(n, _)| *n != name);
        self.0.push((name, value));
        self
    }

    /// Every declared constant with its value: the one given here, else the declared default. A name the
    /// declaration lacks, or a value of another type, is an error naming what is declared.
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("x").specialization_constant(Type::Uint, "N", 4u32)
    ///     .local_group_size(1).compute_source("x.comp"));
    /// let plan = PipelinePlan::new(&reg.validated("x").unwrap(), &reg);
    /// let values = SpecValues::default().set("N", 7u32).resolve(&plan.specialization_constants).unwrap();
    /// assert_eq!(values[0].1, ConstValue::Uint(7));
    /// assert!(SpecValues::default().set("M", 1u32).resolve(&plan.specialization_constants).is_err());
    /// assert!(SpecValues::default().set("N", 1.5f32).resolve(&plan.specialization_constants).is_err());
    /// ```
    ///
    /// A float that is not finite is refused as declared defaults are:
    ///
    /// ```
    /// use shader_info::*;
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("y").specialization_constant(Type::Float, "SIGMA", 1.0f32)
    ///     .local_group_size(1).compute_source("y.comp"));
    /// let plan = PipelinePlan::new(&reg.validated("y").unwrap(), &reg);
    /// let e = SpecValues::default().set("SIGMA", f32::NAN).resolve(&plan.specialization_constants).unwrap_err();
    /// assert!(e.contains("`SIGMA`") && e.contains("NaN"), "{e}");
    /// ```
    pub fn resolve<'p>(
        &self,
        declared: &'p [SpecConstantPlan],
    ) -> Result<Vec<(&'p SpecConstantPlan, ConstValue)>, String> {
        for (name, v) in &self.0 {
            let Some(d) = declared.iter().find(|d| d.name == *name) else {
                let names: Vec<&str> = declared.iter().map(|d| d.name.as_str()).collect();
                return Err(format!(
                    "no specialization constant `{name}`; declared: {}",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ));
            };
            if v.ty() != d.ty {
                return Err(format!(
                    "specialization constant `{name}` is {}, the value given is {}",
                    d.ty,
                    v.ty()
                ));
            }
            // As declared defaults are: a NaN or infinity is no GLSL constant (naga refuses it at pipeline creation
            // without the name, Vulkan passes the bits on).
            if let ConstValue::Float(f) = v
                && !f.is_finite()
            {
                return Err(format!(
                    "specialization constant `{name}` is given {f}, which is not a finite float"
                ));
            }
        }
        Ok(declared
            .iter()
            .map(|d| {
                let v = self
                    .0
                    .iter()
                    .find(|(n, _)| *n == d.name)
                    .map_or(d.default, |(_, v)| *v);
                (d, v)
            })
            .collect())
    }
}

// Values are compared and hashed by their bit patterns, so pipelines can be cached by them (f32 has no `Eq`).
impl Eq for SpecValues {}
impl Hash for SpecValues {
    fn hash<H: Hasher>(&self, state: &mut H) {
        for (n, v) in &self.0 {
            n.hash(state);
            std::mem::discriminant(v).hash(state);
            v.to_bits().hash(state);
        }
    }
}
