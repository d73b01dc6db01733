//! SPIR-V → `VkShaderModule`, with the spec's valid-usage rules checked first (seed 002): the driver never sees
//! empty code, a size that is not a multiple of 4, words without the SPIR-V magic number, a malformed header or
//! instruction stream, or code without the `Shader` capability and an entry point.

use super::device::VkContext;
use super::error::{ModuleError, SPIRV_MAGIC, VkError, VkResult};
use ash::vk;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// Checks SPIR-V words against the shader-module valid-usage rules.
///
/// ```
/// use shader_info_gpu::vk::{check_spirv, ModuleError, SPIRV_MAGIC};
/// assert_eq!(check_spirv(&[]), Err(ModuleError::Empty));
/// assert_eq!(check_spirv(&[1, 2, 3, 4, 5]), Err(ModuleError::BadMagic { found: 1 }));
/// assert_eq!(check_spirv(&[SPIRV_MAGIC, 0x0001_0500, 0, 1, 0]), Err(ModuleError::NoShaderCapability));
/// let capability = [(2 << 16) | 17, 1];
/// let entry = [(5 << 16) | 15, 5, 1, u32::from_le_bytes(*b"main"), 0];
/// let words = [&[SPIRV_MAGIC, 0x0001_0500, 0, 2, 0][..], &capability, &entry].concat();
/// assert!(check_spirv(&words).is_ok());
/// assert!(matches!(check_spirv(&words[..words.len() - 1]), Err(ModuleError::BadInstruction { .. })));
/// ```
pub fn check_spirv(words: &[u32]) -> Result<(), ModuleError> {
    if words.is_empty() {
        return Err(ModuleError::Empty);
    }
    if words[0] != SPIRV_MAGIC {
        return Err(ModuleError::BadMagic { found: words[0] });
    }
    if words.len() < 5 {
        return Err(ModuleError::TooShort { words: words.len() });
    }
    // The physical layout, checked here so that malformed code is never handed to the driver (which may crash on
    // it): version, bound, schema, then instructions that each fit, and the two declarations every Vulkan shader
    // module has. Full semantic validation stays with the compiler and the validation layer.
    let version = words[1];
    if version & 0xFF00_00FF != 0 || (version >> 16) & 0xFF != 1 || (version >> 8) & 0xFF > 6 {
        return Err(ModuleError::BadVersion { word: version });
    }
    if words[3] == 0 {
        return Err(ModuleError::ZeroBound);
    }
    if words[4] != 0 {
        return Err(ModuleError::BadSchema { word: words[4] });
    }
    const OP_CAPABILITY: u32 = 17;
    const OP_ENTRY_POINT: u32 = 15;
    let (mut shader, mut entry) = (false, false);
    let mut offset = 5;
    while offset < words.len() {
        let count = (words[offset] >> 16) as usize;
        let opcode = words[offset] & 0xFFFF;
        if count == 0 || offset + count > words.len() {
            return Err(ModuleError::BadInstruction {
                offset,
                count,
                words: words.len(),
            });
        }
        shader |= opcode == OP_CAPABILITY && count >= 2 && declares_shader(words[offset + 1]);
        entry |= opcode == OP_ENTRY_POINT;
        offset += count;
    }
    if !shader {
        return Err(ModuleError::NoShaderCapability);
    }
    if !entry {
        return Err(ModuleError::NoEntryPoint);
    }
    Ok(())
}

/// Whether capability `c` is `Shader` or one that implicitly declares it (SPIR-V spec 3.31: the ray-tracing, ray
/// query, mesh, geometry and tessellation capabilities do; glslang writes only those for ray-tracing stages).
fn declares_shader(c: u32) -> bool {
    const SHADER: u32 = 1;
    const IMPLYING_SHADER: [u32; 8] = [
        2,    // Geometry
        3,    // Tessellation
        4472, // RayQueryKHR
        4479, // RayTracingKHR
        5266, // MeshShadingNV
        5283, // MeshShadingEXT
        5340, // RayTracingNV
        5353, // RayTracingMotionBlurNV
    ];
    c == SHADER || IMPLYING_SHADER.contains(&c)
}

/// Turns bytes (a `.spv` file) into words, checking size and magic first.
///
/// ```
/// use shader_info_gpu::vk::{spirv_from_bytes, ModuleError};
/// assert_eq!(spirv_from_bytes(&[]), Err(ModuleError::Empty));
/// assert_eq!(spirv_from_bytes(&[3, 2, 0x23, 7, 0]), Err(ModuleError::SizeNotMultipleOf4 { len: 5 }));
/// ```
pub fn spirv_from_bytes(bytes: &[u8]) -> Result<Vec<u32>, ModuleError> {
    if bytes.is_empty() {
        return Err(ModuleError::Empty);
    }
    if !bytes.len().is_multiple_of(4) {
        return Err(ModuleError::SizeNotMultipleOf4 { len: bytes.len() });
    }
    // SPIR-V files are written in the producer's byte order; the magic number tells which. Host order (little
    // endian on every platform we run on) is what Vulkan wants.
    let words: Vec<u32> = bytes
        .chunks_exact(4)
        .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    check_spirv(&words)?;
    Ok(words)
}

static NEXT_MODULE_ID: AtomicU64 = AtomicU64::new(1);

/// An owned `VkShaderModule`; destroyed on drop.
///
/// ```no_run
/// # let ctx = shader_info_gpu::vk::VkContext::new(&Default::default())?;
/// let spirv: Vec<u32> = vec![]; // from the compiler
/// match shader_info_gpu::vk::ShaderModule::new(&ctx, &spirv) {
///     Err(shader_info_gpu::vk::VkError::Module(e)) => eprintln!("rejected before the driver saw it: {e}"),
///     other => { other?; }
/// }
/// # Ok::<(), shader_info_gpu::vk::VkError>(())
/// ```
#[derive(Clone)]
pub struct ShaderModule {
    /// The handle, shared by clones (a background pipeline creation holds one) and destroyed with the last.
    owned: Arc<OwnedModule>,
    id: u64,
    hash: u128,
    /// The name of its entry point (`main` unless the info named it), for `pName`.
    entry_point: std::ffi::CString,
    /// The subgroup operations it uses, checked against the device before a pipeline takes it.
    subgroup_ops: crate::reflect::SubgroupOps,
    /// `(set, binding)` pairs its entry point statically uses, or `None` when the SPIR-V could not be reflected:
    /// the module then counts as using every binding, so its stage is never missing from a binding's flags (too
    /// many flags cost nothing; a missing one is a validation error and undefined reads).
    used: Option<Vec<(u32, u32)>>,
    /// The input locations the entry point reads (for a vertex stage: the vertex attributes it consumes), or
    /// `None` when the SPIR-V could not be reflected.
    inputs: Option<Vec<u32>>,
}

impl std::fmt::Debug for ShaderModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShaderModule")
            .field("handle", &self.owned.handle)
            .field("id", &self.id)
            .finish()
    }
}

impl ShaderModule {
    /// The entry point's name, read from the module (what pipelines pass as `pName`).
    pub fn entry_point(&self) -> &std::ffi::CStr {
        &self.entry_point
    }

    /// Creates a module from SPIR-V words after checking the valid-usage rules.
    pub fn new(ctx: &VkContext, spirv: &[u32]) -> VkResult<ShaderModule> {
        check_spirv(spirv)?;
        let info = vk::ShaderModuleCreateInfo::default().code(spirv);
        // SAFETY: the create info borrows `spirv` for the call only, and `check_spirv` guarantees what the size
        // and header rules need (non-empty, whole words, the magic number, a five-word header). Nothing here checks
        // that the rest is valid SPIR-V, which the spec requires of `pCode`: that is the caller's responsibility,
        // in practice the compiler's. The shader library only passes compiler output that was reflected and
        // cross-checked against its declaration, and tests run with the validation layer, which checks the module.
        let handle = unsafe { ctx.device().create_shader_module(&info, None) }
            .map_err(VkError::call("vkCreateShaderModule"))?;
        Ok(ShaderModule {
            owned: Arc::new(OwnedModule {
                ctx: ctx.clone(),
                handle,
            }),
            id: NEXT_MODULE_ID.fetch_add(1, Ordering::Relaxed),
            hash: crate::flow::spirv_key(spirv),
            entry_point: crate::compiler::entry_point::entry_point_name(spirv)
                .and_then(|n| std::ffi::CString::new(n).ok())
                .unwrap_or_else(|| c"main".to_owned()),
            subgroup_ops: crate::reflect::SubgroupOps::of_spirv(spirv),
            inputs: crate::reflect::reflect(spirv)
                .ok()
                .map(|r| r.inputs.iter().map(|i| i.location).collect()),
            used: match crate::reflect::used_bindings(spirv) {
                Ok(used) => Some(used),
                Err(e) => {
                    tracing::warn!(
                        "cannot reflect the bindings a module uses ({e}); assuming it uses all"
                    );
                    None
                }
            },
        })
    }

    /// Whether the module's entry point reads input `location` (true when unknown).
    pub fn reads_input(&self, location: u32) -> bool {
        self.inputs
            .as_ref()
            .is_none_or(|inputs| inputs.contains(&location))
    }

    /// Whether the module's entry point may use `(set, binding)`.
    pub fn uses(&self, set: u32, binding: u32) -> bool {
        self.used
            .as_ref()
            .is_none_or(|used| used.contains(&(set, binding)))
    }

    /// The classes of subgroup operations the module uses (none for most).
    pub fn subgroup_ops(&self) -> crate::reflect::SubgroupOps {
        self.subgroup_ops
    }

    /// Creates a module from the bytes of a `.spv` file after checking the valid-usage rules.
    pub fn from_bytes(ctx: &VkContext, bytes: &[u8]) -> VkResult<ShaderModule> {
        let words = spirv_from_bytes(bytes)?;
        ShaderModule::new(ctx, &words)
    }

    /// The raw handle.
    pub fn handle(&self) -> vk::ShaderModule {
        self.owned.handle
    }

    /// A process-unique id: a new module (even with the same code) gets a new id. Pipelines remember the ids they
    /// were built from, which is how reload knows what to rebuild.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The identity of the SPIR-V the module was created from ([`crate::flow::spirv_key`]).
    pub fn spirv_hash(&self) -> u128 {
        self.hash
    }
}

/// Owns one `VkShaderModule`.
struct OwnedModule {
    ctx: VkContext,
    handle: vk::ShaderModule,
}

impl Drop for OwnedModule {
    fn drop(&mut self) {
        // SAFETY: the handle was created from this device and is owned only by us (every clone of the module
        // shares this owner); pipelines do not need their modules after creation, so destroying it while
        // pipelines live is allowed.
        unsafe { self.ctx.device().destroy_shader_module(self.handle, None) };
    }
}
