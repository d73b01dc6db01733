//! What is done to naga's HLSL after it is written, each for a reason of this library's:
//!
//! - **Samplers at plain registers.** naga writes HLSL samplers through a sampler heap indexed by a per-set buffer of
//!   heap indices (a D3D12 root-signature layout). The binding maps of this library give samplers plain registers
//!   (`s<n>, space<set>`), which every HLSL compiler and both D3D11 and D3D12 take, so the heap declarations are
//!   rewritten into plain declarations at those registers. naga is given each sampler's register as its index into
//!   the heap buffer, so the index in each line is the register.
//! - **Helpers once.** naga 30 writes an image-size helper per image type *and access*, and two accesses of one
//!   HLSL type (a read-only and a write-only `RWTexture2D<float4>`) give two identical definitions of one function,
//!   which every HLSL compiler rejects. A top-level function identical to one already written is dropped.
//! - **Clip and cull distances as arrays.** naga 30 declares an `SV_ClipDistance` / `SV_CullDistance` member of an
//!   interface struct with its element type only (`float gl_ClipDistance : SV_ClipDistance;`) while the value it
//!   stores there is the whole array; the member is given the array's length.

/// The register naga is told to put each set's sampler index buffer at (its declaration is removed).
pub(crate) const INDEX_BUFFER_REGISTER: u32 = 0xffff;

/// The HLSL text with every heap sampler declared at a plain register.
///
/// naga's lines (30.0.1) are, per sampler, `static const SamplerState name = nagaSamplerHeap[nagaGroup<set>
/// SamplerIndexArray[<register>]];` (`SamplerComparisonState` / `nagaComparisonSamplerHeap` for comparison
/// samplers), plus the two heaps and one index buffer per set. A line of that family in any other shape is an error,
/// never passed through: the output would not bind.
pub(crate) fn plain_registers(text: &str) -> Result<String, String> {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let t = line.trim();
        let is_heap = (t.starts_with("SamplerState nagaSamplerHeap[")
            || t.starts_with("SamplerComparisonState nagaComparisonSamplerHeap["))
            && t.contains(": register(");
        let is_index_buffer =
            t.starts_with("StructuredBuffer<uint> nagaGroup") && t.contains("SamplerIndexArray");
        if is_heap || is_index_buffer {
            continue;
        }
        if t.starts_with("static const Sampler") && t.contains("SamplerHeap[nagaGroup") {
            out.push_str(&rewrite(t).ok_or_else(|| {
                format!("naga wrote a sampler line this library cannot rewrite to a plain register: `{t}`")
            })?);
            out.push('\n');
            continue;
        }
        if t.contains("nagaSamplerHeap") || t.contains("SamplerIndexArray") {
            return Err(format!(
                "naga uses the sampler heap in a way this library cannot rewrite: `{t}`"
            ));
        }
        out.push_str(line);
        out.push('\n');
    }
    Ok(out)
}

/// `static const SamplerState name = nagaSamplerHeap[nagaGroup1SamplerIndexArray[3]];` →
/// `SamplerState name : register(s3, space1);`
fn rewrite(line: &str) -> Option<String> {
    let rest = line.strip_prefix("static const ")?;
    let (ty, rest) = rest.split_once(' ')?;
    if ty != "SamplerState" && ty != "SamplerComparisonState" {
        return None;
    }
    let (name, rest) = rest.split_once(" = ")?;
    let rest = rest.split_once("[nagaGroup")?.1;
    let (set, rest) = rest.split_once("SamplerIndexArray[")?;
    let register = rest.strip_suffix("]];")?;
    let set: u32 = set.parse().ok()?;
    let register: u32 = register.parse().ok()?;
    let space = if set == 0 {
        String::new()
    } else {
        format!(", space{set}")
    };
    Some(format!("{ty} {name} : register(s{register}{space});"))
}

/// The text with every top-level function that repeats an earlier one, word for word, left out.
///
/// naga writes a function as a signature line at column 0, a `{` line and a `}` line at column 0.
pub(crate) fn helpers_once(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut seen = std::collections::HashSet::new();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < lines.len() {
        let starts_function = !lines[i].starts_with([' ', '}', '{', '#', '/'])
            && lines[i].ends_with(')')
            && lines.get(i + 1) == Some(&"{");
        if starts_function && let Some(len) = lines[i..].iter().position(|l| *l == "}") {
            let function = lines[i..=i + len].join("\n");
            let repeat = !seen.insert(function);
            i += len + 1;
            // The blank line naga writes after a function goes with it.
            if repeat {
                if lines.get(i) == Some(&"") {
                    i += 1;
                }
                continue;
            }
            for l in &lines[i - len - 1..i] {
                out.push_str(l);
                out.push('\n');
            }
            continue;
        }
        out.push_str(lines[i]);
        out.push('\n');
        i += 1;
    }
    out
}

/// The text with each `SV_ClipDistance` / `SV_CullDistance` interface member declared as an array of `lengths`
/// (semantic → length, from the naga module).
pub(crate) fn distance_arrays(text: &str, lengths: &[(&str, u32)]) -> String {
    if lengths.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let rewritten = lengths.iter().find_map(|(semantic, n)| {
            let head = line.strip_suffix(&format!(" : {semantic};"))?;
            (!head.ends_with(']')).then(|| format!("{head}[{n}] : {semantic};"))
        });
        out.push_str(rewritten.as_deref().unwrap_or(line));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heap_samplers_become_plain_registers() {
        let naga = "\
Texture2D<float4> albedo_tex_texture : register(t0, space1);
SamplerState nagaSamplerHeap[2048]: register(s0, space0);
SamplerComparisonState nagaComparisonSamplerHeap[2048]: register(s0, space1);
StructuredBuffer<uint> nagaGroup1SamplerIndexArray : register(t65535, space1);
static const SamplerState albedo_tex_sampler = nagaSamplerHeap[nagaGroup1SamplerIndexArray[0]];
StructuredBuffer<uint> nagaGroup0SamplerIndexArray : register(t65535);
static const SamplerComparisonState shadow_map_sampler = nagaComparisonSamplerHeap[nagaGroup0SamplerIndexArray[1]];
";
        let out = plain_registers(naga).unwrap();
        assert_eq!(
            out,
            "Texture2D<float4> albedo_tex_texture : register(t0, space1);\n\
             SamplerState albedo_tex_sampler : register(s0, space1);\n\
             SamplerComparisonState shadow_map_sampler : register(s1);\n"
        );
    }

    #[test]
    fn an_unknown_heap_use_is_an_error() {
        let e = plain_registers("float4 x = nagaSamplerHeap[i].Sample(t, uv);\n").unwrap_err();
        assert!(e.contains("cannot rewrite"), "{e}");
    }

    #[test]
    fn a_repeated_helper_is_written_once() {
        let helper = "uint2 NagaRWDimensions2D(RWTexture2D<float4> tex)\n{\n    uint4 ret;\n    return ret.xy;\n}\n\n";
        let text = format!(
            "RWTexture2D<float4> a : register(u0);\n\n{helper}{helper}void main()\n{{\n    return;\n}}\n"
        );
        assert_eq!(
            helpers_once(&text),
            format!(
                "RWTexture2D<float4> a : register(u0);\n\n{helper}void main()\n{{\n    return;\n}}\n"
            )
        );
        let different = helper.replace("ret.xy", "ret.yx");
        let text = format!("{helper}{different}");
        assert_eq!(helpers_once(&text), text);
    }

    #[test]
    fn clip_distances_are_declared_as_arrays() {
        let text = "struct VertexOutput_main {\n    float gl_ClipDistance : SV_ClipDistance;\n};\n";
        assert_eq!(
            distance_arrays(text, &[("SV_ClipDistance", 2)]),
            "struct VertexOutput_main {\n    float gl_ClipDistance[2] : SV_ClipDistance;\n};\n"
        );
        let done = "    float c[2] : SV_ClipDistance;\n";
        assert_eq!(distance_arrays(done, &[("SV_ClipDistance", 2)]), done);
    }
}
