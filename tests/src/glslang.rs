//! Runs Khronos' reference compiler, `glslangValidator`, as an independent oracle, and parses what it says.
//!
//! Two views of one compile are offered, because neither is complete on its own:
//! - [`Reflection`]: glslang's reflection database (`-q`), with the flattened member names (`Block.s[1].v`),
//!   offsets, array strides, top-level array strides and block sizes. It does not report matrix strides.
//! - [`SpirvModule`]: the `Offset`, `ArrayStride` and `MatrixStride` decorations of the SPIR-V that glslang
//!   emitted (through `spirv-dis --raw-id`), as a type graph that can be walked member by member.
//!
//! [`check_block_layout`] compares both views of a block with the layout engine of `shader-info`.
//!
//! ```no_run
//! let src = "#version 450\nlayout(local_size_x = 1) in;\n\
//!            layout(std430, binding = 0) buffer B { vec3 a; float b; } blk;\n\
//!            void main() { blk.b = 1.0; }\n";
//! let out = tests::glslang::compile_and_reflect(src, "comp").unwrap();
//! assert_eq!(out.reflection.buffer_variable("B.b").unwrap().offset(), Some(12));
//! ```

use shader_info::{BlockLayout, FieldArray, MemberLayout, Rules};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::path::Path;
use std::process::Command;

/// The reflection arguments used by [`compile_and_reflect`].
///
/// `--reflect-all-block-variables` keeps members that the shader never reads, so a block only has to be
/// referenced once for every member to be reported. `--reflect-separate-buffers` puts storage-block members under
/// "Buffer variable reflection" instead of mixing them with uniforms.
pub const REFLECT_ARGS: &[&str] = &[
    "-V",
    "--target-env",
    "vulkan1.3",
    "-l",
    "-q",
    "--reflect-all-block-variables",
    "--reflect-separate-buffers",
];

/// One line of glslang's reflection: a name and its `key value` pairs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReflectedEntry {
    pub name: String,
    /// Every `key value` pair of the line, values as printed (`type` is hexadecimal, the others decimal).
    pub fields: BTreeMap<String, String>,
}

impl ReflectedEntry {
    /// A decimal field; `None` when it is absent or not a number.
    pub fn int(&self, key: &str) -> Option<i64> {
        self.fields.get(key)?.parse().ok()
    }

    /// Byte offset within the block (`-1` for blocks themselves).
    pub fn offset(&self) -> Option<i64> {
        self.int("offset")
    }

    /// For a block: its size in bytes. For a member: its array length (1 for non-arrays, 0 for runtime arrays).
    pub fn size(&self) -> Option<i64> {
        self.int("size")
    }

    /// Element stride of an array member (absent for non-arrays).
    pub fn array_stride(&self) -> Option<i64> {
        self.int("arrayStride")
    }

    /// Stride of the first array on the member's path (absent when there is none).
    pub fn top_level_array_stride(&self) -> Option<i64> {
        self.int("topLevelArrayStride")
    }

    /// Binding (`-1` for block members).
    pub fn binding(&self) -> Option<i64> {
        self.int("binding")
    }

    /// The GL type enum (`GL_FLOAT` = 0x1406, …).
    pub fn gl_type(&self) -> Option<u32> {
        u32::from_str_radix(self.fields.get("type")?, 16).ok()
    }
}

/// glslang's reflection database, section by section.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reflection {
    pub uniforms: Vec<ReflectedEntry>,
    pub uniform_blocks: Vec<ReflectedEntry>,
    pub buffer_variables: Vec<ReflectedEntry>,
    pub buffer_blocks: Vec<ReflectedEntry>,
    pub pipeline_inputs: Vec<ReflectedEntry>,
    pub pipeline_outputs: Vec<ReflectedEntry>,
}

impl Reflection {
    /// A uniform(-block member) by its full reflected name.
    pub fn uniform(&self, name: &str) -> Option<&ReflectedEntry> {
        self.uniforms.iter().find(|e| e.name == name)
    }

    /// A storage-block member by its full reflected name.
    pub fn buffer_variable(&self, name: &str) -> Option<&ReflectedEntry> {
        self.buffer_variables.iter().find(|e| e.name == name)
    }

    /// A uniform block by name.
    pub fn uniform_block(&self, name: &str) -> Option<&ReflectedEntry> {
        self.uniform_blocks.iter().find(|e| e.name == name)
    }

    /// A storage block by name.
    pub fn buffer_block(&self, name: &str) -> Option<&ReflectedEntry> {
        self.buffer_blocks.iter().find(|e| e.name == name)
    }
}

/// Parses the text that `glslangValidator -q` prints.
///
/// Lines before the first section header (the file name) are ignored; a line in a section that does not look
/// like `name: key value, key value` is an error, so a change of format shows up instead of silently matching
/// nothing.
pub fn parse_reflection(text: &str) -> Result<Reflection, String> {
    const SECTIONS: [&str; 6] = [
        "Uniform reflection:",
        "Uniform block reflection:",
        "Buffer variable reflection:",
        "Buffer block reflection:",
        "Pipeline input reflection:",
        "Pipeline output reflection:",
    ];
    let mut sections: [Vec<ReflectedEntry>; 6] = Default::default();
    let mut section: Option<usize> = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if let Some(i) = SECTIONS.iter().position(|s| *s == line) {
            section = Some(i);
            continue;
        }
        if line.is_empty() {
            continue;
        }
        let Some(current) = section else {
            continue;
        };
        // Names never contain ": " (they are GLSL identifiers, dots and brackets), so the first one ends it.
        let (name, rest) = line
            .split_once(": ")
            .ok_or_else(|| format!("reflection line {}: no `name: ` in {line:?}", n + 1))?;
        let mut fields = BTreeMap::new();
        for pair in rest.split(", ") {
            let (k, v) = pair
                .split_once(' ')
                .ok_or_else(|| format!("reflection line {}: bad pair {pair:?}", n + 1))?;
            fields.insert(k.to_string(), v.to_string());
        }
        sections[current].push(ReflectedEntry {
            name: name.to_string(),
            fields,
        });
    }
    let [
        uniforms,
        uniform_blocks,
        buffer_variables,
        buffer_blocks,
        pipeline_inputs,
        pipeline_outputs,
    ] = sections;
    Ok(Reflection {
        uniforms,
        uniform_blocks,
        buffer_variables,
        buffer_blocks,
        pipeline_inputs,
        pipeline_outputs,
    })
}

/// One segment of a reflected member name: `in1[0]` is `("in1", Some(0))`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameSegment<'a> {
    pub name: &'a str,
    pub index: Option<u32>,
}

/// Splits `B0.s.in1[1].v` into segments. glslang never prints arrays of arrays for what we declare, so at most
/// one index per segment is accepted.
pub fn split_reflected_name(name: &str) -> Result<Vec<NameSegment<'_>>, String> {
    name.split('.')
        .map(|seg| match seg.split_once('[') {
            None => Ok(NameSegment {
                name: seg,
                index: None,
            }),
            Some((n, idx)) => {
                let idx = idx
                    .strip_suffix(']')
                    .and_then(|i| i.parse().ok())
                    .ok_or_else(|| format!("bad index in segment {seg:?} of {name:?}"))?;
                Ok(NameSegment {
                    name: n,
                    index: Some(idx),
                })
            }
        })
        .collect()
}

/// A SPIR-V type, as far as layouts care.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpirvType {
    /// `OpTypeFloat`/`OpTypeInt`/`OpTypeBool` with its bit width (1 for bool).
    Scalar {
        width: u32,
    },
    Vector {
        component: u32,
        count: u32,
    },
    Matrix {
        column: u32,
        columns: u32,
    },
    /// `len` is `None` when the length is not a plain `OpConstant` (a specialization constant).
    Array {
        element: u32,
        len: Option<u32>,
    },
    RuntimeArray {
        element: u32,
    },
    Struct {
        members: Vec<u32>,
    },
    Pointer {
        pointee: u32,
    },
    Other,
}

/// The decorations of one struct member.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemberDecorations {
    pub offset: Option<u32>,
    pub matrix_stride: Option<u32>,
    pub row_major: bool,
}

/// The layout-relevant part of a SPIR-V module, read from `spirv-dis --raw-id` text.
#[derive(Clone, Debug, Default)]
pub struct SpirvModule {
    pub names: HashMap<u32, String>,
    pub member_names: HashMap<(u32, u32), String>,
    pub types: HashMap<u32, SpirvType>,
    pub members: HashMap<(u32, u32), MemberDecorations>,
    pub array_strides: HashMap<u32, u32>,
    /// Struct ids decorated `Block` (or the old `BufferBlock`).
    pub blocks: Vec<u32>,
    constants: HashMap<u32, u32>,
}

impl SpirvModule {
    /// The `Block`-decorated struct whose `OpName` is `name` (the GLSL block name, not the instance name).
    pub fn block(&self, name: &str) -> Option<u32> {
        self.blocks
            .iter()
            .copied()
            .find(|id| self.names.get(id).is_some_and(|n| n == name))
    }

    /// Member type ids of a struct.
    pub fn struct_members(&self, id: u32) -> Option<&[u32]> {
        match self.types.get(&id)? {
            SpirvType::Struct { members } => Some(members),
            _ => None,
        }
    }

    /// Decorations of member `index` of struct `id` (default when it has none).
    pub fn member(&self, id: u32, index: u32) -> MemberDecorations {
        self.members.get(&(id, index)).cloned().unwrap_or_default()
    }
}

fn parse_id(s: &str) -> Option<u32> {
    s.strip_prefix('%')?.parse().ok()
}

/// Parses `spirv-dis --raw-id` output. Only the instructions that describe types and their layout are read.
pub fn parse_disassembly(text: &str) -> Result<SpirvModule, String> {
    let mut m = SpirvModule::default();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with(';') || line.is_empty() {
            continue;
        }
        // Quoted names are the last token of OpName/OpMemberName; take them out before splitting on spaces.
        let (code, quoted) = match line.split_once('"') {
            Some((c, q)) => (c, Some(q.trim_end_matches('"').to_string())),
            None => (line, None),
        };
        let tok: Vec<&str> = code.split_whitespace().collect();
        let bad = || format!("unexpected disassembly line: {line}");
        let (result, op, args) = if tok.get(1) == Some(&"=") {
            (Some(parse_id(tok[0]).ok_or_else(bad)?), tok[2], &tok[3..])
        } else {
            (None, tok[0], &tok[1..])
        };
        let id = |i: usize| args.get(i).and_then(|s| parse_id(s)).ok_or_else(bad);
        let num = |i: usize| -> Result<u32, String> {
            args.get(i).and_then(|s| s.parse().ok()).ok_or_else(bad)
        };
        match (op, result) {
            ("OpName", None) => {
                m.names.insert(id(0)?, quoted.ok_or_else(bad)?);
            }
            ("OpMemberName", None) => {
                m.member_names
                    .insert((id(0)?, num(1)?), quoted.ok_or_else(bad)?);
            }
            ("OpMemberDecorate", None) => {
                let d = m.members.entry((id(0)?, num(1)?)).or_default();
                match args.get(2).copied() {
                    Some("Offset") => d.offset = Some(num(3)?),
                    Some("MatrixStride") => d.matrix_stride = Some(num(3)?),
                    Some("RowMajor") => d.row_major = true,
                    _ => {}
                }
            }
            ("OpDecorate", None) => match args.get(1).copied() {
                Some("ArrayStride") => {
                    m.array_strides.insert(id(0)?, num(2)?);
                }
                Some("Block") | Some("BufferBlock") => m.blocks.push(id(0)?),
                _ => {}
            },
            ("OpTypeFloat" | "OpTypeInt", Some(r)) => {
                m.types.insert(r, SpirvType::Scalar { width: num(0)? });
            }
            ("OpTypeBool", Some(r)) => {
                m.types.insert(r, SpirvType::Scalar { width: 1 });
            }
            ("OpTypeVector", Some(r)) => {
                let t = SpirvType::Vector {
                    component: id(0)?,
                    count: num(1)?,
                };
                m.types.insert(r, t);
            }
            ("OpTypeMatrix", Some(r)) => {
                let t = SpirvType::Matrix {
                    column: id(0)?,
                    columns: num(1)?,
                };
                m.types.insert(r, t);
            }
            ("OpTypeArray", Some(r)) => {
                // Constants are declared before the array types that use them, so the lookup is complete.
                let len = m.constants.get(&id(1)?).copied();
                let t = SpirvType::Array {
                    element: id(0)?,
                    len,
                };
                m.types.insert(r, t);
            }
            ("OpTypeRuntimeArray", Some(r)) => {
                m.types
                    .insert(r, SpirvType::RuntimeArray { element: id(0)? });
            }
            ("OpTypeStruct", Some(r)) => {
                let members = (0..args.len()).map(id).collect::<Result<_, _>>()?;
                m.types.insert(r, SpirvType::Struct { members });
            }
            ("OpTypePointer", Some(r)) => {
                m.types.insert(r, SpirvType::Pointer { pointee: id(1)? });
            }
            ("OpConstant", Some(r)) => {
                // Float constants do not parse as u32 and are not array lengths anyway.
                if let Some(v) = args.get(1).and_then(|s| s.parse().ok()) {
                    m.constants.insert(r, v);
                }
            }
            (op, Some(r)) if op.starts_with("OpType") => {
                m.types.insert(r, SpirvType::Other);
            }
            _ => {}
        }
    }
    Ok(m)
}

/// What one compile produced.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub reflection: Reflection,
    pub spirv: SpirvModule,
    /// The raw reflection text, for failure messages.
    pub reflection_text: String,
}

/// Why a compile could not be inspected.
#[derive(Clone, Debug)]
pub struct ToolError(pub String);

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ToolError {}

fn run(cmd: &mut Command) -> Result<String, ToolError> {
    let out = cmd.output().map_err(|e| {
        ToolError(format!(
            "could not run {:?}: {e} (install glslang-tools and spirv-tools, see TOOLCHAIN.md)",
            cmd.get_program()
        ))
    })?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(ToolError(format!(
            "{:?} failed ({}):\n{stdout}\n{}",
            cmd.get_program(),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    Ok(stdout)
}

/// Compiles a GLSL file (its extension names the stage: `.comp`, `.vert`, …) to SPIR-V with glslang and returns
/// the reflection and the SPIR-V layout decorations. Two processes in all: glslangValidator and spirv-dis.
pub fn compile_file_and_reflect(path: &Path) -> Result<Compiled, ToolError> {
    let spv = path.with_extension(format!(
        "{}.spv",
        path.extension().and_then(|e| e.to_str()).unwrap_or("")
    ));
    let reflection_text = run(Command::new("glslangValidator")
        .args(REFLECT_ARGS)
        .arg(path)
        .arg("-o")
        .arg(&spv))?;
    let reflection = parse_reflection(&reflection_text).map_err(ToolError)?;
    let dis = run(Command::new("spirv-dis").arg("--raw-id").arg(&spv))?;
    let spirv = parse_disassembly(&dis).map_err(ToolError)?;
    Ok(Compiled {
        reflection,
        spirv,
        reflection_text,
    })
}

/// [`compile_file_and_reflect`] for source text; `stage` is the file extension glslang uses (`"comp"`, `"vert"`).
pub fn compile_and_reflect(source: &str, stage: &str) -> Result<Compiled, ToolError> {
    let dir = tempfile::tempdir().map_err(|e| ToolError(format!("temp dir: {e}")))?;
    let path = dir.path().join(format!("shader.{stage}"));
    std::fs::write(&path, source).map_err(|e| ToolError(format!("write {path:?}: {e}")))?;
    compile_file_and_reflect(&path)
}

// ---- Comparing glslang's answer with the layout engine -------------------------------------------------------

/// The result of comparing one block with [`check_block_layout`].
#[derive(Clone, Debug, Default)]
pub struct LayoutCheck {
    /// Reflected members compared.
    pub reflected_members: usize,
    /// SPIR-V struct members compared (nested ones included).
    pub spirv_members: usize,
    /// One line per mismatch; empty when glslang agrees with the engine.
    pub errors: Vec<String>,
}

/// Compares block `block` (the GLSL block name) of a compile with the engine's `layout` of its members, through
/// both reflection ([`check_reflection`]) and SPIR-V decorations ([`check_spirv`]).
pub fn check_block_layout(
    out: &Compiled,
    block: &str,
    rules: Rules,
    layout: &BlockLayout,
) -> LayoutCheck {
    let mut c = LayoutCheck::default();
    c.reflected_members = check_reflection(out, block, rules, layout, &mut c.errors);
    match out.spirv.block(block) {
        Some(id) => c.spirv_members = check_spirv(out, id, block, layout, &mut c.errors),
        None => c
            .errors
            .push(format!("{block}: no such block in the SPIR-V")),
    }
    c
}

fn array_len(a: FieldArray) -> i64 {
    match a {
        FieldArray::None => 1,
        FieldArray::Fixed(n) => i64::from(n),
        FieldArray::Runtime => 0,
    }
}

/// Index-stripped paths of every leaf (non-struct) member, e.g. `f1.m0.m2`.
fn leaf_paths(l: &BlockLayout, prefix: &str, out: &mut BTreeSet<String>) {
    for m in &l.members {
        let p = if prefix.is_empty() {
            m.name.clone()
        } else {
            format!("{prefix}.{}", m.name)
        };
        match &m.nested {
            Some(n) => leaf_paths(n, &p, out),
            None => {
                out.insert(p);
            }
        }
    }
}

/// Checks glslang's reflection of block `block` against `layout`: the block size, every reported member's offset,
/// array length, array stride and top-level array stride, and that every leaf member of `layout` was reported.
/// Appends one line per mismatch and returns how many reflected members were compared.
///
/// The block is looked up as a uniform block for std140 and as a storage block for std430, the pairing Vulkan
/// GLSL allows by default. glslang's block size is the end of the last member without tail padding (a runtime
/// array counts as one element), which is the engine's `end`.
pub fn check_reflection(
    out: &Compiled,
    block: &str,
    rules: Rules,
    layout: &BlockLayout,
    errors: &mut Vec<String>,
) -> usize {
    let r = &out.reflection;
    let (vars, blk) = match rules {
        Rules::Std140 => (&r.uniforms, r.uniform_block(block)),
        Rules::Std430 => (&r.buffer_variables, r.buffer_block(block)),
    };
    match blk.and_then(|b| b.size()) {
        Some(size) if size == i64::from(layout.end) => {}
        other => errors.push(format!(
            "block size: glslang {other:?}, engine {} (end)",
            layout.end
        )),
    }
    let prefix = format!("{block}.");
    let mut seen = BTreeSet::new();
    let mut checked = 0;
    for v in vars.iter().filter(|v| v.name.starts_with(&prefix)) {
        checked += 1;
        let segs = match split_reflected_name(&v.name[prefix.len()..]) {
            Ok(s) => s,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        let mut cur = layout;
        let mut base = 0i64;
        let mut first_array_stride = None;
        let mut path = Vec::new();
        let mut leaf: Option<&MemberLayout> = None;
        for (i, seg) in segs.iter().enumerate() {
            let Some(m) = cur.members.iter().find(|m| m.name == seg.name) else {
                errors.push(format!(
                    "{}: glslang reports `{}`, the engine has no such member",
                    v.name, seg.name
                ));
                leaf = None;
                break;
            };
            path.push(m.name.as_str());
            base += i64::from(m.offset);
            if let Some(stride) = m.array_stride {
                first_array_stride.get_or_insert(i64::from(stride));
                base += i64::from(seg.index.unwrap_or(0)) * i64::from(stride);
            }
            leaf = Some(m);
            if i + 1 < segs.len() {
                match &m.nested {
                    Some(n) => cur = n,
                    None => {
                        errors.push(format!("{}: `{}` is not a struct", v.name, m.name));
                        leaf = None;
                        break;
                    }
                }
            }
        }
        let Some(m) = leaf else { continue };
        seen.insert(path.join("."));
        let mut diff = |what: &str, glslang: Option<i64>, engine: Option<i64>| {
            if glslang != engine {
                errors.push(format!(
                    "{}: {what}: glslang {glslang:?}, engine {engine:?}",
                    v.name
                ));
            }
        };
        diff("offset", v.offset(), Some(base));
        diff("array length", v.size(), Some(array_len(m.array)));
        diff(
            "array stride",
            v.array_stride(),
            m.array_stride.map(i64::from),
        );
        diff(
            "top-level array stride",
            v.top_level_array_stride(),
            first_array_stride,
        );
    }
    let mut expected = BTreeSet::new();
    leaf_paths(layout, "", &mut expected);
    for missing in expected.difference(&seen) {
        errors.push(format!(
            "{block}.{missing}: glslang's reflection does not list it"
        ));
    }
    checked
}

/// Checks the `Offset`, `ArrayStride` and `MatrixStride` decorations of SPIR-V struct type `id` (a block, or a
/// struct inside one) against `layout`, recursively. `path` prefixes the messages. Appends one line per mismatch
/// and returns how many members were compared.
pub fn check_spirv(
    out: &Compiled,
    id: u32,
    path: &str,
    layout: &BlockLayout,
    errors: &mut Vec<String>,
) -> usize {
    let m = &out.spirv;
    let Some(members) = m.struct_members(id) else {
        errors.push(format!("{path}: SPIR-V type %{id} is not a struct"));
        return 0;
    };
    if members.len() != layout.members.len() {
        errors.push(format!(
            "{path}: SPIR-V has {} members, engine {}",
            members.len(),
            layout.members.len()
        ));
        return 0;
    }
    let mut checked = 0;
    for (i, (ml, &ty)) in layout.members.iter().zip(members).enumerate() {
        checked += 1;
        let p = format!("{path}.{}", ml.name);
        let deco = m.member(id, i as u32);
        let mut diff = |what: &str, spirv: Option<u32>, engine: Option<u32>| {
            if spirv != engine {
                errors.push(format!("{p}: {what}: SPIR-V {spirv:?}, engine {engine:?}"));
            }
        };
        diff("offset", deco.offset, Some(ml.offset));
        let elem = match (ml.array, m.types.get(&ty)) {
            (FieldArray::None, _) => ty,
            (FieldArray::Fixed(n), Some(SpirvType::Array { element, len })) => {
                diff("array length", *len, Some(n));
                diff(
                    "array stride",
                    m.array_strides.get(&ty).copied(),
                    ml.array_stride,
                );
                *element
            }
            (FieldArray::Runtime, Some(SpirvType::RuntimeArray { element })) => {
                diff(
                    "array stride",
                    m.array_strides.get(&ty).copied(),
                    ml.array_stride,
                );
                *element
            }
            (a, t) => {
                errors.push(format!("{p}: engine array {a:?}, SPIR-V type {t:?}"));
                continue;
            }
        };
        // glslang decorates every matrix member with MatrixStride, arrays of matrices included.
        diff("matrix stride", deco.matrix_stride, ml.matrix_stride);
        if let Some(n) = &ml.nested {
            checked += check_spirv(out, elem, &p, n, errors);
        }
    }
    checked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_reflection_sections_and_fields() {
        let text = "a.comp\nUniform reflection:\n\
            B0.s.in1[1].v: offset 96, type 8b51, size 1, index 0, binding -1, stages 0, topLevelArrayStride 32\n\
            \nUniform block reflection:\n\
            B0: offset -1, type ffffffff, size 1052, index 0, binding 0, stages 32, numMembers 27\n\
            \nBuffer variable reflection:\n\nBuffer block reflection:\n\n\
            Pipeline input reflection:\n\nPipeline output reflection:\n";
        let r = parse_reflection(text).unwrap();
        let e = r.uniform("B0.s.in1[1].v").unwrap();
        assert_eq!(e.offset(), Some(96));
        assert_eq!(e.top_level_array_stride(), Some(32));
        assert_eq!(e.array_stride(), None);
        assert_eq!(e.gl_type(), Some(0x8b51));
        assert_eq!(r.uniform_block("B0").unwrap().size(), Some(1052));
        assert!(r.buffer_variables.is_empty());
        assert!(parse_reflection("Uniform reflection:\nnonsense\n").is_err());
    }

    #[test]
    fn splits_names() {
        let s = split_reflected_name("B0.sa[12].v").unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!((s[1].name, s[1].index), ("sa", Some(12)));
        assert_eq!((s[2].name, s[2].index), ("v", None));
        assert!(split_reflected_name("B0.x[").is_err());
    }

    #[test]
    fn parses_disassembly() {
        let text = r#"
               OpName %30 "B1"
               OpMemberName %30 0 "s"
               OpMemberDecorate %30 0 Offset 16
               OpMemberDecorate %30 0 MatrixStride 32
               OpDecorate %29 ArrayStride 144
               OpDecorate %30 Block
          %8 = OpTypeFloat 32
          %9 = OpTypeVector %8 3
         %10 = OpTypeMatrix %9 2
          %6 = OpTypeInt 32 0
         %11 = OpConstant %6 2
         %29 = OpTypeArray %10 %11
         %30 = OpTypeStruct %8 %29
"#;
        let m = parse_disassembly(text).unwrap();
        let b = m.block("B1").unwrap();
        assert_eq!(m.struct_members(b), Some(&[8, 29][..]));
        assert_eq!(m.member(b, 0).offset, Some(16));
        assert_eq!(m.member(b, 0).matrix_stride, Some(32));
        assert_eq!(m.member(b, 1), MemberDecorations::default());
        assert_eq!(
            m.types[&29],
            SpirvType::Array {
                element: 10,
                len: Some(2)
            }
        );
        assert_eq!(m.array_strides[&29], 144);
    }
}
