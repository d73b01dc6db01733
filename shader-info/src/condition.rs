//! Conditions on branches and boolean shared constants, for resources present only in some variants
//! ([`crate::ShaderCreateInfo::resources_if`], Blender's conditional resources). A condition is evaluated when an
//! info is resolved (every branch false) and again for each variant, so a resource is pruned where its condition
//! does not hold and binding collisions are checked per evaluated variant.

use std::fmt;

/// A boolean expression over branch names and boolean shared constants.
///
/// ```
/// use shader_info::Condition;
/// let c = Condition::branch("SKINNING").and(Condition::branch("DEPTH_ONLY").not());
/// assert_eq!(c.to_string(), "SKINNING && !DEPTH_ONLY");
/// assert!(c.eval(&|n| n == "SKINNING"));
/// assert!(!c.eval(&|_| true));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Condition {
    /// True when the branch (or boolean shared constant) of this name is.
    Branch(String),
    Not(Box<Condition>),
    All(Vec<Condition>),
    Any(Vec<Condition>),
}

impl Condition {
    /// The value of the branch or boolean shared constant `name`.
    pub fn branch(name: impl Into<String>) -> Condition {
        Condition::Branch(name.into())
    }

    /// The negation.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Condition {
        Condition::Not(Box::new(self))
    }

    /// Both hold.
    pub fn and(self, other: Condition) -> Condition {
        match self {
            Condition::All(mut v) => {
                v.push(other);
                Condition::All(v)
            }
            c => Condition::All(vec![c, other]),
        }
    }

    /// Either holds.
    pub fn or(self, other: Condition) -> Condition {
        match self {
            Condition::Any(mut v) => {
                v.push(other);
                Condition::Any(v)
            }
            c => Condition::Any(vec![c, other]),
        }
    }

    /// Evaluates with `value(name)` for each named branch or constant.
    pub fn eval(&self, value: &dyn Fn(&str) -> bool) -> bool {
        match self {
            Condition::Branch(n) => value(n),
            Condition::Not(c) => !c.eval(value),
            Condition::All(v) => v.iter().all(|c| c.eval(value)),
            Condition::Any(v) => v.iter().any(|c| c.eval(value)),
        }
    }

    /// Every name the condition reads.
    pub fn names(&self) -> Vec<&str> {
        match self {
            Condition::Branch(n) => vec![n.as_str()],
            Condition::Not(c) => c.names(),
            Condition::All(v) | Condition::Any(v) => v.iter().flat_map(|c| c.names()).collect(),
        }
    }
}

impl From<&str> for Condition {
    fn from(name: &str) -> Condition {
        Condition::branch(name)
    }
}

impl fmt::Display for Condition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let join = |f: &mut fmt::Formatter<'_>, v: &[Condition], op: &str| {
            for (i, c) in v.iter().enumerate() {
                if i > 0 {
                    write!(f, " {op} ")?;
                }
                match c {
                    Condition::All(_) | Condition::Any(_) => write!(f, "({c})")?,
                    _ => write!(f, "{c}")?,
                }
            }
            Ok(())
        };
        match self {
            Condition::Branch(n) => f.write_str(n),
            Condition::Not(c) => match **c {
                Condition::Branch(_) | Condition::Not(_) => write!(f, "!{c}"),
                _ => write!(f, "!({c})"),
            },
            Condition::All(v) => join(f, v, "&&"),
            Condition::Any(v) => join(f, v, "||"),
        }
    }
}
