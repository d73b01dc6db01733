//! The SPIR-V entry point's name. GLSL always calls it `main`, and glslang writes that name; an info may name a
//! stage's entry point otherwise (`entry_point`), so the compiled module's `OpEntryPoint` is renamed here — the
//! one instruction Vulkan (`pName`), the reflection and the translators read the name from. The function's debug
//! name (`OpName`) is left as compiled.

const OP_ENTRY_POINT: u32 = 15;

/// The words of a SPIR-V literal string (UTF-8, NUL-terminated, zero-padded to whole words).
fn literal(name: &str) -> Vec<u32> {
    let mut bytes = name.as_bytes().to_vec();
    bytes.push(0);
    bytes.resize(bytes.len().next_multiple_of(4), 0);
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// The name of the first `OpEntryPoint`, if the module has one and it is well formed.
///
/// ```
/// use shader_info_gpu::compiler::entry_point::{entry_point_name, rename_entry_point};
/// let header = [0x0723_0203, 0x0001_0000, 0, 8, 0];
/// let entry = [(5 << 16) | 15, 0, 4, u32::from_le_bytes(*b"main"), 0];
/// let words = [&header[..], &entry].concat();
/// assert_eq!(entry_point_name(&words).as_deref(), Some("main"));
/// let renamed = rename_entry_point(&words, "vertex_main").unwrap();
/// assert_eq!(entry_point_name(&renamed).as_deref(), Some("vertex_main"));
/// assert_eq!(renamed.len(), words.len() + 1);
/// ```
pub fn entry_point_name(words: &[u32]) -> Option<String> {
    let (offset, count) = find(words)?;
    let bytes: Vec<u8> = words[offset + 3..offset + count]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    let end = bytes.iter().position(|b| *b == 0)?;
    String::from_utf8(bytes[..end].to_vec()).ok()
}

/// `words` with the first `OpEntryPoint` named `name`; `None` when the module has no well-formed entry point.
pub fn rename_entry_point(words: &[u32], name: &str) -> Option<Vec<u32>> {
    let (offset, count) = find(words)?;
    let operands = &words[offset + 3..offset + count];
    // The old literal ends with the word holding its NUL; the interface ids follow it.
    let old_len = operands.iter().position(|w| w.to_le_bytes().contains(&0))? + 1;
    let new_name = literal(name);
    let interface = &operands[old_len..];
    let new_count = 3 + new_name.len() + interface.len();
    let mut out = Vec::with_capacity(words.len() + new_name.len());
    out.extend_from_slice(&words[..offset]);
    out.push(((new_count as u32) << 16) | OP_ENTRY_POINT);
    out.extend_from_slice(&words[offset + 1..offset + 3]);
    out.extend(new_name);
    out.extend_from_slice(interface);
    out.extend_from_slice(&words[offset + count..]);
    Some(out)
}

/// Offset and word count of the first `OpEntryPoint`.
fn find(words: &[u32]) -> Option<(usize, usize)> {
    let mut offset = 5;
    while offset < words.len() {
        let count = (words[offset] >> 16) as usize;
        if count == 0 || offset + count > words.len() {
            return None;
        }
        if words[offset] & 0xFFFF == OP_ENTRY_POINT {
            return (count >= 4).then_some((offset, count));
        }
        offset += count;
    }
    None
}
