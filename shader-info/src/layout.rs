//! The std140/std430 layout engine: offsets, sizes, alignments, array strides and matrix strides of every member
//! of a buffer block or shared struct, by the rules of the OpenGL 4.5 / Vulkan specification (§7.6.2.2).
//!
//! The `const fn`s on [`Type`] are the same rules usable in constant evaluation, which is how the derive macros
//! prove a Rust struct's layout at compile time.

use crate::types::{Scalar, Type};
use std::collections::HashMap;
use std::fmt;

/// Which packing rules a block follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rules {
    /// Uniform blocks: arrays and structs are aligned to 16 bytes.
    Std140,
    /// Storage blocks and push constants: tight arrays and structs.
    Std430,
}

impl Rules {
    /// `"std140"` or `"std430"`.
    pub const fn glsl_name(self) -> &'static str {
        match self {
            Rules::Std140 => "std140",
            Rules::Std430 => "std430",
        }
    }
}

impl Rules {
    /// The alignment of an array, matrix or struct whose elements or members align to `a`: std140 rounds it up
    /// to a `vec4` (16 bytes), std430 keeps it.
    pub const fn aggregate_align(self, a: u32) -> u32 {
        match self {
            Rules::Std140 => round_up(a, 16),
            Rules::Std430 => a,
        }
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.glsl_name())
    }
}

/// Rounds `x` up to a multiple of `align`, which must not be 0 (alignments are powers of two).
pub const fn round_up(x: u32, align: u32) -> u32 {
    x.div_ceil(align) * align
}

impl Type {
    const fn scalar_size(self) -> u32 {
        match self.scalar() {
            Scalar::Double => 8,
            _ => 4,
        }
    }

    const fn vector_align(n: u32, rows: u32) -> u32 {
        match rows {
            1 => n,
            2 => 2 * n,
            _ => 4 * n,
        }
    }

    /// Base alignment of a (non-array) member of this type.
    pub const fn align(self, rules: Rules) -> u32 {
        let (cols, rows) = self.shape();
        let n = self.scalar_size();
        let a = Self::vector_align(n, rows);
        // Matrices are arrays of column vectors.
        if cols > 1 {
            rules.aggregate_align(a)
        } else {
            a
        }
    }

    /// Size in bytes of a (non-array) member of this type.
    pub const fn size(self, rules: Rules) -> u32 {
        let (cols, rows) = self.shape();
        if cols > 1 {
            cols * self.matrix_stride(rules)
        } else {
            rows * self.scalar_size()
        }
    }

    /// Stride between matrix columns; 0 for non-matrices.
    pub const fn matrix_stride(self, rules: Rules) -> u32 {
        let (cols, rows) = self.shape();
        if cols == 1 {
            return 0;
        }
        rules.aggregate_align(Self::vector_align(self.scalar_size(), rows))
    }

    /// Stride between elements of an array of this type.
    pub const fn array_stride(self, rules: Rules) -> u32 {
        let align = self.align(rules);
        rules.aggregate_align(round_up(self.size(rules), align))
    }
}

/// The type of a struct field or block member.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FieldType {
    Value(Type),
    /// A struct, by GLSL name.
    Struct(String),
}

impl FieldType {
    /// The GLSL spelling.
    pub fn glsl_name(&self) -> &str {
        match self {
            FieldType::Value(t) => t.glsl_name(),
            FieldType::Struct(s) => s,
        }
    }
}

/// Array-ness of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FieldArray {
    None,
    Fixed(u32),
    /// `[]`, allowed as the last member of a storage block only.
    Runtime,
}

/// A member of a struct or block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Field {
    pub name: String,
    pub ty: FieldType,
    pub array: FieldArray,
}

impl Field {
    /// A plain value field.
    pub fn new(ty: Type, name: impl Into<String>) -> Field {
        Field {
            name: name.into(),
            ty: FieldType::Value(ty),
            array: FieldArray::None,
        }
    }

    /// A struct-typed field.
    pub fn structure(struct_name: impl Into<String>, name: impl Into<String>) -> Field {
        Field {
            name: name.into(),
            ty: FieldType::Struct(struct_name.into()),
            array: FieldArray::None,
        }
    }

    /// Makes the field a fixed array.
    pub fn array(mut self, len: u32) -> Field {
        self.array = FieldArray::Fixed(len);
        self
    }

    /// The GLSL declaration `type name[N];`.
    pub fn glsl_decl(&self) -> String {
        match self.array {
            FieldArray::None => format!("{} {};", self.ty.glsl_name(), self.name),
            FieldArray::Fixed(n) => format!("{} {}[{n}];", self.ty.glsl_name(), self.name),
            FieldArray::Runtime => format!("{} {}[];", self.ty.glsl_name(), self.name),
        }
    }
}

/// A struct shared between Rust and GLSL (usually generated by `#[derive(ShaderStruct)]`).
///
/// ```
/// use shader_info::{StructDef, Field, Type, Rules, StructMap};
/// let def = StructDef::new("Light").field(Field::new(Type::Vec3, "position")).field(Field::new(Type::Float, "radius"));
/// let structs = StructMap::default();
/// let l = def.layout(Rules::Std140, &structs).unwrap();
/// assert_eq!(l.members[1].offset, 12); // a float packs after a vec3
/// assert_eq!(l.size, 16);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructDef {
    pub name: String,
    pub fields: Vec<Field>,
}

impl StructDef {
    /// An empty struct definition.
    pub fn new(name: impl Into<String>) -> StructDef {
        StructDef {
            name: name.into(),
            fields: Vec::new(),
        }
    }

    /// Appends a field.
    pub fn field(mut self, f: Field) -> StructDef {
        self.fields.push(f);
        self
    }

    /// The GLSL `struct` definition.
    pub fn glsl(&self) -> String {
        let mut s = format!("struct {} {{\n", self.name);
        for f in &self.fields {
            s.push_str("  ");
            s.push_str(&f.glsl_decl());
            s.push('\n');
        }
        s.push_str("};\n");
        s
    }

    /// The layout of this struct under `rules`.
    pub fn layout(
        &self,
        rules: Rules,
        structs: &dyn StructLookup,
    ) -> Result<BlockLayout, LayoutError> {
        layout_fields(&self.fields, rules, structs, &mut vec![self.name.clone()])
    }
}

/// Something that finds struct definitions by GLSL name.
pub trait StructLookup {
    fn find_struct(&self, name: &str) -> Option<&StructDef>;

    /// Whether `name` is a shared enum (`#[derive(ShaderEnum)]`): GLSL reads it as a `uint`.
    fn is_enum(&self, name: &str) -> bool {
        let _ = name;
        false
    }
}

/// A plain map of struct definitions.
#[derive(Clone, Debug, Default)]
pub struct StructMap(pub HashMap<String, StructDef>);

impl StructMap {
    /// Adds a definition (replacing one of the same name).
    pub fn insert(&mut self, def: StructDef) {
        self.0.insert(def.name.clone(), def);
    }
}

impl StructLookup for StructMap {
    fn find_struct(&self, name: &str) -> Option<&StructDef> {
        self.0.get(name)
    }
}

/// The computed layout of one member.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemberLayout {
    pub name: String,
    pub ty: FieldType,
    pub offset: u32,
    /// Whole size of the member (all elements for arrays; one element's stride for a runtime array).
    pub size: u32,
    pub align: u32,
    pub array: FieldArray,
    /// Element stride for arrays.
    pub array_stride: Option<u32>,
    /// Column stride for matrices (and arrays of matrices).
    pub matrix_stride: Option<u32>,
    /// The nested struct's layout for struct members.
    pub nested: Option<Box<BlockLayout>>,
}

/// The layout of a struct or block.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockLayout {
    pub rules: Rules,
    pub members: Vec<MemberLayout>,
    /// Alignment of the struct as a whole (std140 rounds it up to 16).
    pub align: u32,
    /// Offset just past the last member, without tail padding (what a block's data size is).
    pub end: u32,
    /// Size rounded up to `align`: a struct's size as a member or array element.
    pub size: u32,
}

/// Why a layout could not be computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// A struct-typed member names no known struct.
    UnknownStruct { name: String, field: String },
    /// A struct contains itself (the chain of struct names).
    Recursive { chain: Vec<String> },
    /// `name[]` is not the last member.
    RuntimeArrayNotLast { field: String },
    /// `name[0]`.
    ZeroLengthArray { field: String },
    /// The block would be larger than 4 GiB.
    TooLarge { field: String },
    /// Structs nested deeper than [`MAX_STRUCT_NESTING`] (the chain of struct names, cut short).
    TooDeep { chain: Vec<String> },
}

/// The deepest nesting of shared structs a layout (or a generated stage) takes. Real data stays within a handful;
/// the bound keeps the recursive layout walk from overflowing the stack on a generated chain.
pub const MAX_STRUCT_NESTING: usize = 64;

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::UnknownStruct { name, field } => write!(
                f,
                "field `{field}` has type `{name}`, which is neither a GLSL type nor a known shared struct"
            ),
            LayoutError::Recursive { chain } => {
                write!(f, "struct contains itself: {}", chain.join(" → "))
            }
            LayoutError::RuntimeArrayNotLast { field } => {
                write!(
                    f,
                    "runtime-sized array `{field}` must be the last member of a storage block"
                )
            }
            LayoutError::ZeroLengthArray { field } => write!(f, "array `{field}` has length 0"),
            LayoutError::TooDeep { chain } => write!(
                f,
                "shared structs are nested more than {MAX_STRUCT_NESTING} deep: {} → …",
                chain.join(" → ")
            ),
            LayoutError::TooLarge { field } => {
                write!(
                    f,
                    "the block is larger than 4 GiB at member `{field}`: check its array size"
                )
            }
        }
    }
}

impl std::error::Error for LayoutError {}

fn too_large(field: &str) -> LayoutError {
    LayoutError::TooLarge {
        field: field.to_string(),
    }
}

/// Lays out `fields` as a block or struct body.
pub fn layout_fields(
    fields: &[Field],
    rules: Rules,
    structs: &dyn StructLookup,
    stack: &mut Vec<String>,
) -> Result<BlockLayout, LayoutError> {
    let mut offset = 0u32;
    let mut members = Vec::with_capacity(fields.len());
    let mut max_align = 1u32;
    for (i, f) in fields.iter().enumerate() {
        let (elem_align, elem_size, matrix_stride, nested) = match &f.ty {
            FieldType::Value(t) => {
                let ms = if t.is_matrix() {
                    Some(t.matrix_stride(rules))
                } else {
                    None
                };
                (t.align(rules), t.size(rules), ms, None)
            }
            FieldType::Struct(name) => {
                if stack.len() > MAX_STRUCT_NESTING {
                    return Err(LayoutError::TooDeep {
                        chain: stack[..4].to_vec(),
                    });
                }
                if stack.contains(name) {
                    let mut chain = stack.clone();
                    chain.push(name.clone());
                    return Err(LayoutError::Recursive { chain });
                }
                let def = structs
                    .find_struct(name)
                    .ok_or_else(|| LayoutError::UnknownStruct {
                        name: name.clone(),
                        field: f.name.clone(),
                    })?;
                stack.push(name.clone());
                let inner = layout_fields(&def.fields, rules, structs, stack)?;
                stack.pop();
                (inner.align, inner.size, None, Some(Box::new(inner)))
            }
        };
        let (align, size, array_stride) = match f.array {
            FieldArray::None => (elem_align, elem_size, None),
            FieldArray::Fixed(0) => {
                return Err(LayoutError::ZeroLengthArray {
                    field: f.name.clone(),
                });
            }
            FieldArray::Fixed(_) | FieldArray::Runtime => {
                if f.array == FieldArray::Runtime && i + 1 != fields.len() {
                    return Err(LayoutError::RuntimeArrayNotLast {
                        field: f.name.clone(),
                    });
                }
                let a = rules.aggregate_align(elem_align);
                let stride = round_up(elem_size, a);
                let n = if let FieldArray::Fixed(n) = f.array {
                    n
                } else {
                    1
                };
                let size = stride.checked_mul(n).ok_or_else(|| too_large(&f.name))?;
                (a, size, Some(stride))
            }
        };
        offset = offset
            .checked_next_multiple_of(align)
            .ok_or_else(|| too_large(&f.name))?;
        max_align = max_align.max(align);
        members.push(MemberLayout {
            name: f.name.clone(),
            ty: f.ty.clone(),
            offset,
            size,
            align,
            array: f.array,
            array_stride,
            matrix_stride,
            nested,
        });
        offset = offset.checked_add(size).ok_or_else(|| too_large(&f.name))?;
    }
    let align = rules.aggregate_align(max_align);
    Ok(BlockLayout {
        rules,
        members,
        align,
        end: offset,
        size: offset
            .checked_next_multiple_of(align)
            .ok_or_else(|| too_large(fields.last().map_or("", |f| &f.name)))?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lay(fields: Vec<Field>, rules: Rules) -> BlockLayout {
        layout_fields(&fields, rules, &StructMap::default(), &mut vec![]).unwrap()
    }

    #[test]
    fn matrices_follow_the_spec() {
        assert_eq!(Type::Mat3.size(Rules::Std140), 48);
        assert_eq!(Type::Mat3.size(Rules::Std430), 48);
        assert_eq!(Type::Mat2.size(Rules::Std140), 32);
        assert_eq!(Type::Mat2.size(Rules::Std430), 16);
        assert_eq!(Type::Mat3x2.matrix_stride(Rules::Std430), 8);
        assert_eq!(Type::Mat2x3.size(Rules::Std430), 32);
        assert_eq!(Type::DVec3.align(Rules::Std430), 32);
    }

    #[test]
    fn std140_rounds_arrays_to_16() {
        let l = lay(
            vec![
                Field::new(Type::Float, "a").array(3),
                Field::new(Type::Float, "b"),
            ],
            Rules::Std140,
        );
        assert_eq!(l.members[0].array_stride, Some(16));
        assert_eq!(l.members[1].offset, 48);
        let l = lay(
            vec![
                Field::new(Type::Float, "a").array(3),
                Field::new(Type::Float, "b"),
            ],
            Rules::Std430,
        );
        assert_eq!(l.members[0].array_stride, Some(4));
        assert_eq!(l.members[1].offset, 12);
    }

    #[test]
    fn nested_structs_align_to_16_in_std140() {
        let mut m = StructMap::default();
        m.insert(StructDef::new("S").field(Field::new(Type::Float, "x")));
        let fields = vec![
            Field::new(Type::Float, "a"),
            Field::structure("S", "s"),
            Field::new(Type::Float, "b"),
        ];
        let l140 = layout_fields(&fields, Rules::Std140, &m, &mut vec![]).unwrap();
        assert_eq!((l140.members[1].offset, l140.members[2].offset), (16, 32));
        let l430 = layout_fields(&fields, Rules::Std430, &m, &mut vec![]).unwrap();
        assert_eq!((l430.members[1].offset, l430.members[2].offset), (4, 8));
    }

    #[test]
    fn unknown_and_recursive_structs_are_errors() {
        let mut m = StructMap::default();
        m.insert(StructDef::new("A").field(Field::structure("A", "me")));
        let e = m.0["A"].layout(Rules::Std430, &m).unwrap_err();
        assert!(matches!(e, LayoutError::Recursive { .. }), "{e}");
        let e = layout_fields(
            &[Field::structure("Nope", "n")],
            Rules::Std430,
            &m,
            &mut vec![],
        )
        .unwrap_err();
        assert!(e.to_string().contains("Nope"));
    }

    #[test]
    fn runtime_array_must_be_last() {
        let f = vec![
            Field {
                name: "a".into(),
                ty: FieldType::Value(Type::Vec4),
                array: FieldArray::Runtime,
            },
            Field::new(Type::Float, "b"),
        ];
        assert!(layout_fields(&f, Rules::Std430, &StructMap::default(), &mut vec![]).is_err());
    }
}
