//! Constants with a value: the value type itself ([`ConstValue`]), constants whose value lives in Rust
//! ([`SharedConstant`], [`crate::constant!`]) and a variant's override of one ([`ConstOverride`]).

use crate::types::Type;

/// The value of a specialization constant.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum ConstValue {
    Bool(bool),
    Int(i32),
    Uint(u32),
    Float(f32),
}

impl ConstValue {
    /// The GLSL type this value belongs to.
    pub fn ty(self) -> Type {
        match self {
            ConstValue::Bool(_) => Type::Bool,
            ConstValue::Int(_) => Type::Int,
            ConstValue::Uint(_) => Type::Uint,
            ConstValue::Float(_) => Type::Float,
        }
    }

    /// The GLSL literal.
    pub fn glsl_literal(self) -> String {
        match self {
            ConstValue::Bool(b) => b.to_string(),
            ConstValue::Int(i) => i.to_string(),
            ConstValue::Uint(u) => format!("{u}u"),
            ConstValue::Float(f) => {
                let s = format!("{f:?}");
                if s.contains(['.', 'e', 'E']) || s.contains("inf") || s.contains("NaN") {
                    s
                } else {
                    format!("{s}.0")
                }
            }
        }
    }

    /// This value as a `ty`, when the conversion loses nothing (Blender converts a default to the declared type:
    /// `2` for a float constant is `2.0`); otherwise the value unchanged, which validation then reports.
    ///
    /// ```
    /// use shader_info::{ConstValue, Type};
    /// assert_eq!(ConstValue::Int(2).converted_to(Type::Float), ConstValue::Float(2.0));
    /// assert_eq!(ConstValue::Int(3).converted_to(Type::Uint), ConstValue::Uint(3));
    /// assert_eq!(ConstValue::Float(1.0).converted_to(Type::Int), ConstValue::Int(1));
    /// assert_eq!(ConstValue::Int(-1).converted_to(Type::Uint), ConstValue::Int(-1));
    /// assert_eq!(ConstValue::Float(0.5).converted_to(Type::Int), ConstValue::Float(0.5));
    /// assert_eq!(ConstValue::Int(1).converted_to(Type::Bool), ConstValue::Bool(true));
    /// ```
    pub fn converted_to(self, ty: Type) -> ConstValue {
        let exact_f32 = |v: f64| (v as f32) as f64 == v;
        let as_f64 = match self {
            ConstValue::Bool(_) => return self,
            ConstValue::Int(i) => f64::from(i),
            ConstValue::Uint(u) => f64::from(u),
            ConstValue::Float(f) => f64::from(f),
        };
        let converted = match ty {
            Type::Float if exact_f32(as_f64) => Some(ConstValue::Float(as_f64 as f32)),
            Type::Int
                if as_f64.fract() == 0.0
                    && (f64::from(i32::MIN)..=f64::from(i32::MAX)).contains(&as_f64) =>
            {
                Some(ConstValue::Int(as_f64 as i32))
            }
            Type::Uint
                if as_f64.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&as_f64) =>
            {
                Some(ConstValue::Uint(as_f64 as u32))
            }
            Type::Bool if as_f64 == 0.0 || as_f64 == 1.0 => Some(ConstValue::Bool(as_f64 == 1.0)),
            _ => None,
        };
        converted.unwrap_or(self)
    }

    /// The 32-bit pattern Vulkan's `VkSpecializationInfo` expects (bools are `VkBool32`).
    pub fn to_bits(self) -> u32 {
        match self {
            ConstValue::Bool(b) => b as u32,
            ConstValue::Int(i) => i as u32,
            ConstValue::Uint(u) => u,
            ConstValue::Float(f) => f.to_bits(),
        }
    }
}

impl From<bool> for ConstValue {
    fn from(v: bool) -> Self {
        ConstValue::Bool(v)
    }
}
impl From<i32> for ConstValue {
    fn from(v: i32) -> Self {
        ConstValue::Int(v)
    }
}
impl From<u32> for ConstValue {
    fn from(v: u32) -> Self {
        ConstValue::Uint(v)
    }
}
impl From<f32> for ConstValue {
    fn from(v: f32) -> Self {
        ConstValue::Float(v)
    }
}

/// A constant whose value lives in Rust: each info that adds it gets a typed GLSL `const` (after its defines,
/// before any type or resource), and array sizes in its declarations may name it (`views[VIEW_COUNT]`), so the
/// shader, the declaration's layout and the host share one value. Made by [`crate::constant!`] from a Rust
/// `const` of the same name.
///
/// ```
/// use shader_info::{constant, ConstValue, ShaderCreateInfo};
/// const VIEW_COUNT: u32 = 4;
/// let c = constant!(VIEW_COUNT);
/// assert_eq!((c.name.as_str(), c.value), ("VIEW_COUNT", ConstValue::Uint(4)));
/// let info = ShaderCreateInfo::new("views").constant(c);
/// assert_eq!(info.constants.len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct SharedConstant {
    pub name: String,
    pub value: ConstValue,
}

impl SharedConstant {
    /// A constant named `name` (its Rust name, normally: see [`crate::constant!`]).
    pub fn new(name: impl Into<String>, value: impl Into<ConstValue>) -> SharedConstant {
        SharedConstant {
            name: name.into(),
            value: value.into(),
        }
    }

    /// The GLSL line that declares it: `const uint VIEW_COUNT = 4u;`.
    pub fn glsl(&self) -> String {
        format!(
            "const {} {} = {};",
            self.value.ty(),
            self.name,
            self.value.glsl_literal()
        )
    }

    /// Its value as an array size, when it is a positive integer.
    pub fn as_size(&self) -> Option<u32> {
        match self.value {
            ConstValue::Uint(n) if n > 0 => Some(n),
            ConstValue::Int(n) if n > 0 => Some(n as u32),
            _ => None,
        }
    }
}

/// A [`SharedConstant`] from a Rust `const` (`bool`, `i32`, `u32` or `f32`), named as in Rust: the Rust value is
/// the source of truth, and the GLSL name cannot drift from it.
///
/// ```
/// const SHADOW_MAP_SIZE: u32 = 2048;
/// let c = shader_info::constant!(SHADOW_MAP_SIZE);
/// assert_eq!(c.glsl(), "const uint SHADOW_MAP_SIZE = 2048u;");
/// ```
#[macro_export]
macro_rules! constant {
    ($name:ident) => {
        $crate::SharedConstant::new(stringify!($name), $name)
    };
}

/// A compilation constant's value in one variant. Compared and hashed by its bits, so variants stay hashable
/// (a float constant has no `Eq` of its own).
#[derive(Clone, Debug)]
pub struct ConstOverride {
    pub name: String,
    pub value: ConstValue,
}

impl ConstOverride {
    fn key(&self) -> (&str, Type, u32) {
        (&self.name, self.value.ty(), self.value.to_bits())
    }
}

impl PartialEq for ConstOverride {
    fn eq(&self, other: &ConstOverride) -> bool {
        self.key() == other.key()
    }
}

impl Eq for ConstOverride {}

impl std::hash::Hash for ConstOverride {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.key().hash(state);
    }
}
