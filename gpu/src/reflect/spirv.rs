//! A SPIR-V reader for reflection: the types, decorations, names, variables, constants, entry points and execution
//! modes of a module, and nothing of its code but function calls and the ids functions refer to.
//!
//! Written here rather than taken from `spirq` (which the crate used before): spirq 1.3 / spq-core 1.0.6 builds an
//! `anyhow` error — with a captured backtrace when `RUST_BACKTRACE` is set, under a process-wide lock — for every
//! string it reads, names included. With backtraces on, reflection took 1 ms per module and did not scale past
//! one thread (0.87 s for 872 modules on 1 thread, 0.84 s on 2); the static pass then stopped scaling. This reader
//! allocates only the tables it returns and refuses malformed words with a message, never a panic. The
//! `reflect_differential` test compares it with spirq over every module of the library.

/// Keyed by ids: foldhash, not SipHash, which was half of reading a module.
type HashMap<K, V> = foldhash::HashMap<K, V>;

pub(crate) const MAGIC: u32 = 0x0723_0203;

// Opcodes.
const OP_NAME: u16 = 5;
const OP_MEMBER_NAME: u16 = 6;
const OP_ENTRY_POINT: u16 = 15;
const OP_CAPABILITY: u16 = 17;
const OP_EXECUTION_MODE: u16 = 16;
const OP_TYPE_BOOL: u16 = 20;
const OP_TYPE_INT: u16 = 21;
const OP_TYPE_FLOAT: u16 = 22;
const OP_TYPE_VECTOR: u16 = 23;
const OP_TYPE_MATRIX: u16 = 24;
const OP_TYPE_IMAGE: u16 = 25;
const OP_TYPE_SAMPLER: u16 = 26;
const OP_TYPE_SAMPLED_IMAGE: u16 = 27;
const OP_TYPE_ARRAY: u16 = 28;
const OP_TYPE_RUNTIME_ARRAY: u16 = 29;
const OP_TYPE_STRUCT: u16 = 30;
const OP_TYPE_POINTER: u16 = 32;
const OP_CONSTANT: u16 = 43;
const OP_SPEC_CONSTANT_TRUE: u16 = 48;
const OP_SPEC_CONSTANT_FALSE: u16 = 49;
const OP_SPEC_CONSTANT: u16 = 50;
const OP_FUNCTION: u16 = 54;
const OP_FUNCTION_END: u16 = 56;
const OP_FUNCTION_CALL: u16 = 57;
const OP_VARIABLE: u16 = 59;
const OP_DECORATE: u16 = 71;
const OP_MEMBER_DECORATE: u16 = 72;
const OP_EXECUTION_MODE_ID: u16 = 331;
const OP_TYPE_ACCELERATION_STRUCTURE: u16 = 5341;

// Decorations.
const SPEC_ID: u32 = 1;
const BUFFER_BLOCK: u32 = 3;
const ARRAY_STRIDE: u32 = 6;
const MATRIX_STRIDE: u32 = 7;
const BUILT_IN: u32 = 11;
const LOCATION: u32 = 30;
const BINDING: u32 = 33;
const DESCRIPTOR_SET: u32 = 34;
const OFFSET: u32 = 35;
const INPUT_ATTACHMENT_INDEX: u32 = 43;

// Execution modes.
const LOCAL_SIZE: u32 = 17;
const LOCAL_SIZE_ID: u32 = 38;

/// A storage class of a variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(clippy::enum_variant_names)] // the SPIR-V names
pub(crate) enum Storage {
    UniformConstant,
    Input,
    Uniform,
    Output,
    PushConstant,
    StorageBuffer,
    Other(u32),
}

impl Storage {
    fn from(word: u32) -> Storage {
        match word {
            0 => Storage::UniformConstant,
            1 => Storage::Input,
            2 => Storage::Uniform,
            3 => Storage::Output,
            9 => Storage::PushConstant,
            12 => Storage::StorageBuffer,
            w => Storage::Other(w),
        }
    }
}

/// A scalar type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scalar {
    Bool,
    Int { bits: u32, signed: bool },
    Float { bits: u32 },
}

/// A type, as far as reflection needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Ty {
    Scalar(Scalar),
    Vector {
        scalar: u32,
        count: u32,
    },
    /// `column` is the column (vector) type.
    Matrix {
        column: u32,
        columns: u32,
    },
    /// `sampled`: 1 sampled, 2 storage; `dim`: 5 is Buffer, 6 SubpassData.
    Image {
        dim: u32,
        sampled: u32,
    },
    Sampler,
    /// `dim` of its image: a sampled `Buffer` image (GLSL `samplerBuffer`) is a uniform texel buffer in Vulkan.
    SampledImage {
        dim: u32,
    },
    /// `length`: the constant id of the length.
    Array {
        element: u32,
        length: u32,
    },
    RuntimeArray {
        element: u32,
    },
    Struct {
        members: Vec<u32>,
    },
    Pointer {
        storage: Storage,
        pointee: u32,
    },
    AccelerationStructure,
}

/// A global variable.
#[derive(Clone, Debug)]
pub(crate) struct Var {
    pub id: u32,
    /// The pointer type's pointee.
    pub ty: u32,
    pub storage: Storage,
}

/// One function's calls and the ids its instructions name.
#[derive(Debug, Default)]
struct Function {
    calls: Vec<u32>,
    refs: Vec<u32>,
}

/// The parts of a module reflection reads.
#[derive(Debug, Default)]
pub(crate) struct Module {
    pub types: HashMap<u32, Ty>,
    pub names: HashMap<u32, String>,
    pub member_names: HashMap<(u32, u32), String>,
    /// Decorations of ids: (id, decoration) → first literal (or 0 for decorations without one).
    pub decorations: HashMap<(u32, u32), u32>,
    /// Decorations of struct members: (struct, member, decoration) → first literal.
    pub member_decorations: HashMap<(u32, u32, u32), u32>,
    /// Integer (and boolean) constants and specialization constants (their defaults), by id.
    pub constants: HashMap<u32, u64>,
    /// Specialization constants in module order.
    pub spec_constants: Vec<u32>,
    pub variables: Vec<Var>,
    /// The first entry point: (function id, name, interface ids).
    pub entry_point: Option<(u32, String, Vec<u32>)>,
    /// `OpCapability` operands, in module order.
    pub capabilities: Vec<u32>,
    /// Execution modes of the first entry point: (mode, operands).
    pub execution_modes: Vec<(u32, Vec<u32>, bool)>,
    functions: HashMap<u32, Function>,
}

/// Why the words are not a module this reader can take.
#[derive(Debug)]
pub(crate) struct Malformed(pub String);

/// The operands of a function's instruction that are pointers a global variable can be: what accesses a variable
/// (loads, stores, copies, access chains, array lengths, texel pointers, and pointers passed to calls). Other
/// operand words may be literals, which must not be mistaken for ids.
fn pointer_operands(op: u16, ops: &[u32]) -> impl Iterator<Item = u32> + '_ {
    const OP_IMAGE_TEXEL_POINTER: u16 = 60;
    const OP_LOAD: u16 = 61;
    const OP_STORE: u16 = 62;
    const OP_COPY_MEMORY: u16 = 63;
    const OP_COPY_MEMORY_SIZED: u16 = 64;
    const OP_ACCESS_CHAIN: u16 = 65;
    const OP_IN_BOUNDS_ACCESS_CHAIN: u16 = 66;
    const OP_PTR_ACCESS_CHAIN: u16 = 67;
    const OP_ARRAY_LENGTH: u16 = 68;
    const OP_IN_BOUNDS_PTR_ACCESS_CHAIN: u16 = 70;
    const OP_COPY_OBJECT: u16 = 83;
    const OP_ATOMIC_STORE: u16 = 228;
    let range = match op {
        OP_IMAGE_TEXEL_POINTER
        | OP_LOAD
        | OP_ACCESS_CHAIN
        | OP_IN_BOUNDS_ACCESS_CHAIN
        | OP_PTR_ACCESS_CHAIN
        | OP_ARRAY_LENGTH
        | OP_IN_BOUNDS_PTR_ACCESS_CHAIN
        | OP_COPY_OBJECT => 2..3,
        // Atomics on a pointer: result type, result, pointer, … (OpAtomicStore: pointer first).
        227 | 229..=242 => 2..3,
        OP_STORE | OP_ATOMIC_STORE => 0..1,
        OP_COPY_MEMORY | OP_COPY_MEMORY_SIZED => 0..2,
        OP_FUNCTION_CALL => 3..ops.len(),
        _ => 0..0,
    };
    ops.get(range).unwrap_or_default().iter().copied()
}

/// The identity of what [`Module::read`] reads of `words`: the words without the debug instructions it skips (the
/// source text, file names, line numbers, processing notes) and without the header's generator and id bound. A
/// debug module carries its source text, so the library's 931 debug units are 931 different modules, but only 122
/// different ones to reflection: keyed by this, each of those is reflected once.
pub(crate) fn reflection_key(words: &[u32]) -> u128 {
    const OP_SOURCE_CONTINUED: u16 = 2;
    const OP_SOURCE: u16 = 3;
    const OP_SOURCE_EXTENSION: u16 = 4;
    const OP_STRING: u16 = 7;
    const OP_LINE: u16 = 8;
    const OP_NO_LINE: u16 = 317;
    const OP_MODULE_PROCESSED: u16 = 330;
    thread_local! {
        static KEPT: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    if words.len() < 5 {
        // No header: the reader refuses it. Its own words, under another seed, so that they cannot stand for the
        // three header words a longer module keeps.
        return xxhash_rust::xxh3::xxh3_128_with_seed(bytemuck::cast_slice(words), 1);
    }
    KEPT.with_borrow_mut(|kept| {
        kept.clear();
        kept.extend([words[0], words[1], words[4]]);
        let mut i = 5;
        while i < words.len() {
            let count = (words[i] >> 16) as usize;
            if count == 0 || i + count > words.len() {
                // Malformed: the rest as it is (the reader refuses it with its own message).
                kept.extend(&words[i..]);
                break;
            }
            match (words[i] & 0xffff) as u16 {
                OP_SOURCE_CONTINUED | OP_SOURCE | OP_SOURCE_EXTENSION | OP_STRING | OP_LINE
                | OP_NO_LINE | OP_MODULE_PROCESSED => {}
                _ => kept.extend(&words[i..i + count]),
            }
            i += count;
        }
        xxhash_rust::xxh3::xxh3_128(bytemuck::cast_slice(kept))
    })
}

/// How many words the literal string starting at `words[0]` takes, without decoding it.
fn string_words(words: &[u32]) -> Result<usize, Malformed> {
    words
        .iter()
        .position(|w| w.to_le_bytes().contains(&0))
        .map(|i| i + 1)
        .ok_or_else(|| Malformed("a string is not terminated".into()))
}

/// A literal string starting at `words[0]`: its text and how many words it takes.
fn string(words: &[u32]) -> Result<(String, usize), Malformed> {
    let mut bytes = Vec::new();
    for (i, w) in words.iter().enumerate() {
        for b in w.to_le_bytes() {
            if b == 0 {
                let text = String::from_utf8(bytes)
                    .map_err(|_| Malformed("a string is not UTF-8".into()))?;
                return Ok((text, i + 1));
            }
            bytes.push(b);
        }
    }
    Err(Malformed("a string is not terminated".into()))
}

impl Module {
    /// Reads `words`. Every instruction's length is checked against the module and against its opcode's minimum.
    pub(crate) fn read(words: &[u32]) -> Result<Module, Malformed> {
        if words.len() < 5 {
            return Err(Malformed(format!(
                "{} words: shorter than the 5-word header",
                words.len()
            )));
        }
        if words[0] != MAGIC {
            return Err(Malformed(format!(
                "magic number {:#010x}, expected {MAGIC:#010x}",
                words[0]
            )));
        }
        let mut m = Module::sized_for(words);
        // The function being read, kept aside until its end: looked up by id for each of its instructions, it
        // was a hash lookup per instruction of a module.
        let mut current: Option<(u32, Function)> = None;
        // The module's global variables, known once its first function starts (the logical layout puts every
        // global before the functions): a function keeps only the ids it names that are one of them. A debug
        // module's functions name a pointer in most instructions, nearly all of them locals.
        let mut globals: foldhash::HashSet<u32> = foldhash::HashSet::default();
        // (target, member, word of the string): terminated, not yet decoded.
        let mut names: Vec<(u32, usize)> = Vec::new();
        let mut member_names: Vec<(u32, u32, usize)> = Vec::new();
        let mut i = 5;
        while i < words.len() {
            let count = (words[i] >> 16) as usize;
            let op = (words[i] & 0xffff) as u16;
            if count == 0 || i + count > words.len() {
                return Err(Malformed(format!(
                    "instruction {op} at word {i} has length {count}, past the end of the module"
                )));
            }
            let ops = &words[i + 1..i + count];
            let need = |n: usize| -> Result<(), Malformed> {
                if ops.len() < n {
                    Err(Malformed(format!(
                        "instruction {op} at word {i} has {} operands, needs {n}",
                        ops.len()
                    )))
                } else {
                    Ok(())
                }
            };
            match op {
                // Read at the end, for the ids reflection names (a debug module names every local and function).
                OP_NAME => {
                    need(2)?;
                    string_words(&ops[1..])?;
                    names.push((ops[0], i + 2));
                }
                OP_MEMBER_NAME => {
                    need(3)?;
                    string_words(&ops[2..])?;
                    member_names.push((ops[0], ops[1], i + 3));
                }
                OP_ENTRY_POINT => {
                    need(3)?;
                    if m.entry_point.is_none() {
                        let (name, used) = string(&ops[2..])?;
                        let interface = ops.get(2 + used..).unwrap_or_default().to_vec();
                        m.entry_point = Some((ops[1], name, interface));
                    }
                }
                OP_CAPABILITY => {
                    need(1)?;
                    m.capabilities.push(ops[0]);
                }
                OP_EXECUTION_MODE | OP_EXECUTION_MODE_ID => {
                    need(2)?;
                    if m.entry_point.as_ref().is_some_and(|(f, ..)| *f == ops[0]) {
                        m.execution_modes.push((
                            ops[1],
                            ops[2..].to_vec(),
                            op == OP_EXECUTION_MODE_ID,
                        ));
                    }
                }
                OP_TYPE_BOOL => {
                    need(1)?;
                    m.types.insert(ops[0], Ty::Scalar(Scalar::Bool));
                }
                OP_TYPE_INT => {
                    need(3)?;
                    m.types.insert(
                        ops[0],
                        Ty::Scalar(Scalar::Int {
                            bits: ops[1],
                            signed: ops[2] != 0,
                        }),
                    );
                }
                OP_TYPE_FLOAT => {
                    need(2)?;
                    m.types
                        .insert(ops[0], Ty::Scalar(Scalar::Float { bits: ops[1] }));
                }
                OP_TYPE_VECTOR => {
                    need(3)?;
                    m.types.insert(
                        ops[0],
                        Ty::Vector {
                            scalar: ops[1],
                            count: ops[2],
                        },
                    );
                }
                OP_TYPE_MATRIX => {
                    need(3)?;
                    m.types.insert(
                        ops[0],
                        Ty::Matrix {
                            column: ops[1],
                            columns: ops[2],
                        },
                    );
                }
                OP_TYPE_IMAGE => {
                    need(8)?;
                    m.types.insert(
                        ops[0],
                        Ty::Image {
                            dim: ops[2],
                            sampled: ops[6],
                        },
                    );
                }
                OP_TYPE_SAMPLER => {
                    need(1)?;
                    m.types.insert(ops[0], Ty::Sampler);
                }
                OP_TYPE_SAMPLED_IMAGE => {
                    need(2)?;
                    let dim = match m.types.get(&ops[1]) {
                        Some(Ty::Image { dim, .. }) => *dim,
                        _ => 1,
                    };
                    m.types.insert(ops[0], Ty::SampledImage { dim });
                }
                OP_TYPE_ARRAY => {
                    need(3)?;
                    m.types.insert(
                        ops[0],
                        Ty::Array {
                            element: ops[1],
                            length: ops[2],
                        },
                    );
                }
                OP_TYPE_RUNTIME_ARRAY => {
                    need(2)?;
                    m.types.insert(ops[0], Ty::RuntimeArray { element: ops[1] });
                }
                OP_TYPE_STRUCT => {
                    need(1)?;
                    m.types.insert(
                        ops[0],
                        Ty::Struct {
                            members: ops[1..].to_vec(),
                        },
                    );
                }
                OP_TYPE_POINTER => {
                    need(3)?;
                    m.types.insert(
                        ops[0],
                        Ty::Pointer {
                            storage: Storage::from(ops[1]),
                            pointee: ops[2],
                        },
                    );
                }
                OP_TYPE_ACCELERATION_STRUCTURE => {
                    need(1)?;
                    m.types.insert(ops[0], Ty::AccelerationStructure);
                }
                OP_CONSTANT | OP_SPEC_CONSTANT => {
                    need(3)?;
                    // 64-bit literals take two words, low first; wider ones are not lengths or sizes.
                    let value = u64::from(ops[2]) | ops.get(3).map_or(0, |h| u64::from(*h) << 32);
                    m.constants.insert(ops[1], value);
                    if op == OP_SPEC_CONSTANT {
                        m.spec_constants.push(ops[1]);
                    }
                }
                OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE => {
                    need(2)?;
                    m.constants
                        .insert(ops[1], u64::from(op == OP_SPEC_CONSTANT_TRUE));
                    m.spec_constants.push(ops[1]);
                }
                OP_VARIABLE => {
                    need(3)?;
                    if current.is_none() && !m.functions.is_empty() {
                        return Err(Malformed(format!(
                            "global variable %{} is declared after a function: globals come before functions",
                            ops[1]
                        )));
                    }
                    if current.is_none() {
                        let pointee = match m.types.get(&ops[0]) {
                            Some(Ty::Pointer { pointee, .. }) => *pointee,
                            _ => {
                                return Err(Malformed(format!(
                                    "variable %{} has type %{}, which is not a pointer type declared before it",
                                    ops[1], ops[0]
                                )));
                            }
                        };
                        m.variables.push(Var {
                            id: ops[1],
                            ty: pointee,
                            storage: Storage::from(ops[2]),
                        });
                    }
                }
                OP_DECORATE => {
                    need(2)?;
                    m.decorations
                        .insert((ops[0], ops[1]), ops.get(2).copied().unwrap_or(0));
                }
                OP_MEMBER_DECORATE => {
                    need(3)?;
                    m.member_decorations
                        .insert((ops[0], ops[1], ops[2]), ops.get(3).copied().unwrap_or(0));
                }
                OP_FUNCTION => {
                    need(4)?;
                    m.end_function(current.take());
                    if globals.is_empty() {
                        globals.extend(m.variables.iter().map(|v| v.id));
                    }
                    current = Some((ops[1], Function::default()));
                }
                OP_FUNCTION_END => m.end_function(current.take()),
                _ => {}
            }
            if let Some((_, func)) = &mut current
                && op != OP_FUNCTION
            {
                if op == OP_FUNCTION_CALL && ops.len() >= 3 {
                    func.calls.push(ops[2]);
                }
                func.refs
                    .extend(pointer_operands(op, ops).filter(|id| globals.contains(id)));
            }
            i += count;
        }
        m.end_function(current);
        // Reflection names global variables, specialization constants and struct members. An empty name is no name
        // (an anonymous block's instance).
        // A debug module names every local: each name was checked against every global by a list scan.
        globals.extend(m.variables.iter().map(|v| v.id));
        globals.extend(m.spec_constants.iter().copied());
        for (id, at) in names {
            if globals.contains(&id) {
                let name = string(&words[at..])?.0;
                if !name.is_empty() {
                    m.names.insert(id, name);
                }
            }
        }
        for (ty, member, at) in member_names {
            if matches!(m.types.get(&ty), Some(Ty::Struct { .. })) {
                let name = string(&words[at..])?.0;
                if !name.is_empty() {
                    m.member_names.insert((ty, member), name);
                }
            }
        }
        Ok(m)
    }

    /// An empty module whose tables hold what `words` declares without growing: a pass over the instructions'
    /// lengths and opcodes, against a rehash of each table as it grew (a third of reading a debug module).
    fn sized_for(words: &[u32]) -> Module {
        let (mut types, mut decorations, mut member_decorations, mut constants, mut functions) =
            (0, 0, 0, 0, 0);
        let mut i = 5;
        while i < words.len() {
            let count = (words[i] >> 16) as usize;
            match (words[i] & 0xffff) as u16 {
                OP_TYPE_BOOL..=OP_TYPE_POINTER | OP_TYPE_ACCELERATION_STRUCTURE => types += 1,
                OP_DECORATE => decorations += 1,
                OP_MEMBER_DECORATE => member_decorations += 1,
                OP_CONSTANT | OP_SPEC_CONSTANT_TRUE..=OP_SPEC_CONSTANT => constants += 1,
                OP_FUNCTION => functions += 1,
                _ => {}
            }
            // A zero length is refused by `read`; here it only must not stop the scan.
            i += count.max(1);
        }
        fn map<K, V>(n: usize) -> HashMap<K, V> {
            HashMap::with_capacity_and_hasher(n, Default::default())
        }
        Module {
            types: map(types),
            decorations: map(decorations),
            member_decorations: map(member_decorations),
            constants: map(constants),
            functions: map(functions),
            ..Module::default()
        }
    }

    /// Files a function read to its end (or to the next function or the module's end, in a malformed module)
    /// under its id; a second definition of one id adds to the first.
    fn end_function(&mut self, function: Option<(u32, Function)>) {
        if let Some((id, f)) = function {
            let entry = self.functions.entry(id).or_default();
            entry.calls.extend(f.calls);
            entry.refs.extend(f.refs);
        }
    }

    /// The global variables the entry point's call tree accesses. (Not the 1.4+ interface list: glslang lists
    /// every global of a ray-tracing stage there, used or not.)
    pub(crate) fn used_variables(&self) -> Vec<u32> {
        let Some((entry, _, _)) = &self.entry_point else {
            return Vec::new();
        };
        let mut seen = vec![*entry];
        let mut stack = vec![*entry];
        // A set: a debug module's functions name thousands of pointers, each variable was looked up among them.
        let mut refs = foldhash::HashSet::default();
        while let Some(f) = stack.pop() {
            let Some(func) = self.functions.get(&f) else {
                continue;
            };
            refs.extend(func.refs.iter().copied());
            for c in &func.calls {
                if !seen.contains(c) {
                    seen.push(*c);
                    stack.push(*c);
                }
            }
        }
        self.variables
            .iter()
            .map(|v| v.id)
            .filter(|id| refs.contains(id))
            .collect()
    }

    pub(crate) fn decoration(&self, id: u32, decoration: u32) -> Option<u32> {
        self.decorations.get(&(id, decoration)).copied()
    }

    pub(crate) fn member_decoration(&self, ty: u32, member: u32, decoration: u32) -> Option<u32> {
        self.member_decorations
            .get(&(ty, member, decoration))
            .copied()
    }

    pub(crate) fn is_buffer_block(&self, ty: u32) -> bool {
        self.decoration(ty, BUFFER_BLOCK).is_some()
    }

    pub(crate) fn is_builtin(&self, var: &Var) -> bool {
        if self.decoration(var.id, BUILT_IN).is_some() {
            return true;
        }
        match self.types.get(&var.ty) {
            Some(Ty::Struct { members }) => (0..members.len() as u32)
                .any(|i| self.member_decoration(var.ty, i, BUILT_IN).is_some()),
            _ => false,
        }
    }

    /// The `BuiltIn` of a variable decorated as one (not of a block whose members are).
    pub(crate) fn builtin(&self, id: u32) -> Option<u32> {
        self.decoration(id, BUILT_IN)
    }

    pub(crate) fn location(&self, id: u32) -> Option<u32> {
        self.decoration(id, LOCATION)
    }

    pub(crate) fn binding(&self, id: u32) -> Option<(u32, u32)> {
        Some((
            self.decoration(id, DESCRIPTOR_SET).unwrap_or(0),
            self.decoration(id, BINDING)?,
        ))
    }

    pub(crate) fn input_attachment_index(&self, id: u32) -> Option<u32> {
        self.decoration(id, INPUT_ATTACHMENT_INDEX)
    }

    pub(crate) fn spec_id(&self, id: u32) -> Option<u32> {
        self.decoration(id, SPEC_ID)
    }

    pub(crate) fn offset(&self, ty: u32, member: u32) -> Option<u32> {
        self.member_decoration(ty, member, OFFSET)
    }

    pub(crate) fn matrix_stride(&self, ty: u32, member: u32) -> Option<u32> {
        self.member_decoration(ty, member, MATRIX_STRIDE)
    }

    pub(crate) fn array_stride(&self, ty: u32) -> Option<u32> {
        self.decoration(ty, ARRAY_STRIDE)
    }

    /// The local size, from `LocalSize` or `LocalSizeId` (constants at their defaults).
    pub(crate) fn local_size(&self) -> Option<[u32; 3]> {
        self.execution_modes
            .iter()
            .find_map(|(mode, operands, by_id)| {
                if operands.len() < 3 {
                    return None;
                }
                match (*mode, by_id) {
                    (LOCAL_SIZE, false) => Some([operands[0], operands[1], operands[2]]),
                    (LOCAL_SIZE_ID, true) => {
                        let c =
                            |id: &u32| self.constants.get(id).and_then(|v| u32::try_from(*v).ok());
                        Some([c(&operands[0])?, c(&operands[1])?, c(&operands[2])?])
                    }
                    _ => None,
                }
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Vec<u32> {
        vec![MAGIC, 0x0001_0500, 0, 100, 0]
    }

    fn inst(op: u16, ops: &[u32]) -> Vec<u32> {
        let mut v = vec![((ops.len() as u32 + 1) << 16) | u32::from(op)];
        v.extend_from_slice(ops);
        v
    }

    #[test]
    fn strings_are_read_and_unterminated_ones_refused() {
        let word = u32::from_le_bytes(*b"main");
        assert_eq!(string(&[word, 0]).unwrap(), ("main".to_string(), 2));
        assert!(string(&[word]).is_err());
    }

    #[test]
    fn malformed_modules_are_refused_with_a_message() {
        assert!(Module::read(&[1, 2]).unwrap_err().0.contains("header"));
        assert!(
            Module::read(&[0, 0, 0, 0, 0])
                .unwrap_err()
                .0
                .contains("magic")
        );
        let mut w = header();
        w.push((9 << 16) | u32::from(OP_NAME));
        assert!(Module::read(&w).unwrap_err().0.contains("past the end"));
        let mut w = header();
        w.extend(inst(OP_TYPE_INT, &[1]));
        assert!(Module::read(&w).unwrap_err().0.contains("needs 3"));
        let mut w = header();
        w.extend(inst(OP_VARIABLE, &[7, 8, 0]));
        assert!(
            Module::read(&w)
                .unwrap_err()
                .0
                .contains("not a pointer type")
        );
        let mut w = header();
        w.push(0);
        assert!(Module::read(&w).unwrap_err().0.contains("length 0"));
    }

    #[test]
    fn types_names_and_variables_are_collected() {
        let mut w = header();
        w.extend(inst(OP_TYPE_FLOAT, &[1, 32]));
        w.extend(inst(OP_TYPE_VECTOR, &[2, 1, 4]));
        w.extend(inst(OP_TYPE_POINTER, &[3, 3, 2]));
        w.extend(inst(OP_VARIABLE, &[3, 4, 3]));
        w.extend(inst(
            OP_NAME,
            &[
                4,
                u32::from_le_bytes(*b"colo"),
                u32::from_le_bytes(*b"r\0\0\0"),
            ],
        ));
        w.extend(inst(OP_DECORATE, &[4, LOCATION, 2]));
        let m = Module::read(&w).unwrap();
        assert_eq!(
            m.types[&2],
            Ty::Vector {
                scalar: 1,
                count: 4
            }
        );
        assert_eq!(m.names[&4], "color");
        assert_eq!(m.variables[0].storage, Storage::Output);
        assert_eq!(m.location(4), Some(2));
    }

    #[test]
    fn a_global_after_a_function_is_refused() {
        let mut w = header();
        w.extend(inst(OP_TYPE_FLOAT, &[1, 32]));
        w.extend(inst(OP_TYPE_POINTER, &[2, 3, 1]));
        w.extend(inst(OP_FUNCTION, &[1, 5, 0, 1]));
        w.extend(inst(OP_FUNCTION_END, &[]));
        w.extend(inst(OP_VARIABLE, &[2, 6, 3]));
        assert!(Module::read(&w).unwrap_err().0.contains("after a function"));
    }

    /// Debug modules of one code under two file names (their source text and names differ) share the key and the
    /// reflection; a module whose declaration differs does not share the key.
    #[test]
    fn the_reflection_key_skips_debug_instructions_only() {
        let compile = |text: &str, name: &str| {
            let mut o = shaderc::CompileOptions::new().unwrap();
            o.set_generate_debug_info();
            o.set_target_env(
                shaderc::TargetEnv::Vulkan,
                shaderc::EnvVersion::Vulkan1_3 as u32,
            );
            shaderc::Compiler::new()
                .unwrap()
                .compile_into_spirv(text, shaderc::ShaderKind::Fragment, name, "main", Some(&o))
                .unwrap()
                .as_binary()
                .to_vec()
        };
        let text = "#version 450\nlayout(set = 0, binding = 1) uniform sampler2D tex;\n\
                    layout(location = 0) out vec4 color;\nvoid main() { color = texture(tex, vec2(0.5)); }\n";
        let a = compile(text, "a.frag.glsl");
        let b = compile(&format!("// another file\n{text}"), "another/b.frag.glsl");
        let c = compile(&text.replace("binding = 1", "binding = 2"), "a.frag.glsl");
        assert_ne!(a, b, "the debug modules differ in their source and names");
        assert_eq!(reflection_key(&a), reflection_key(&b));
        assert_eq!(
            format!("{:?}", crate::reflect::reflect(&a).unwrap()),
            format!("{:?}", crate::reflect::reflect(&b).unwrap())
        );
        assert_ne!(reflection_key(&a), reflection_key(&c));
    }
}
