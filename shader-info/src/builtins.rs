//! What a declared builtin does: the GLSL extensions a stage needs to use it and the device features a pipeline
//! needs to run it. Generation writes the extensions, the Vulkan backend checks and enables the features, and
//! validation reports a builtin no stage of the info can use; all of them read these two functions.

use crate::types::{BuiltinBits, Stage};

/// One device feature a declared builtin needs, with the reason a diagnostic gives.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BuiltinFeature {
    /// The Vulkan feature's name (`shaderOutputLayer`, `fragmentShaderBarycentric`, …).
    pub feature: &'static str,
    pub why: String,
}

/// The stage that writes `gl_Layer`/`gl_ViewportIndex` when there is no geometry stage: the last stage before the
/// rasterizer.
fn last_pre_raster(stages: &[Stage]) -> Option<Stage> {
    [Stage::Geometry, Stage::TessEvaluation, Stage::Vertex]
        .into_iter()
        .find(|s| stages.contains(s))
}

impl BuiltinBits {
    /// The GLSL names through which shader code uses a builtin (prefixes: `subgroup` covers `subgroupAdd`, …).
    ///
    /// ```
    /// use shader_info::BuiltinBits;
    /// assert_eq!(BuiltinBits::LAYER.glsl_identifiers(), ["gl_Layer"]);
    /// ```
    pub fn glsl_identifiers(self) -> &'static [&'static str] {
        match self {
            BuiltinBits::VERTEX_ID => &["gl_VertexIndex", "gl_VertexID"],
            BuiltinBits::INSTANCE_ID => &["gl_InstanceIndex", "gl_InstanceID"],
            BuiltinBits::POINT_SIZE => &["gl_PointSize"],
            BuiltinBits::POINT_COORD => &["gl_PointCoord"],
            BuiltinBits::FRAG_COORD => &["gl_FragCoord"],
            BuiltinBits::FRONT_FACING => &["gl_FrontFacing"],
            BuiltinBits::CLIP_DISTANCES => &["gl_ClipDistance"],
            BuiltinBits::LAYER => &["gl_Layer"],
            BuiltinBits::VIEWPORT_INDEX => &["gl_ViewportIndex"],
            BuiltinBits::PRIMITIVE_ID => &["gl_PrimitiveID"],
            BuiltinBits::BARYCENTRIC_COORD => &["gl_BaryCoord"],
            BuiltinBits::GLOBAL_INVOCATION_ID => &["gl_GlobalInvocationID"],
            BuiltinBits::LOCAL_INVOCATION_ID => {
                &["gl_LocalInvocationID", "gl_LocalInvocationIndex"]
            }
            BuiltinBits::LOCAL_INVOCATION_INDEX => &["gl_LocalInvocationIndex"],
            BuiltinBits::NUM_WORK_GROUP => &["gl_NumWorkGroups"],
            BuiltinBits::WORK_GROUP_SIZE => &["gl_WorkGroupSize"],
            BuiltinBits::WORK_GROUP_ID => &["gl_WorkGroupID"],
            BuiltinBits::SUBGROUP => &["gl_Subgroup", "gl_NumSubgroups", "subgroup"],
            BuiltinBits::TEXTURE_ATOMIC => &["imageAtomic"],
            _ => &[],
        }
    }

    /// The first line of `text` (1-based) where code uses one of these builtins, and the word that uses it there
    /// (`subgroupAdd` for [`BuiltinBits::SUBGROUP`]). Comments are skipped, and a name counts only as a whole word
    /// or, for a family, followed by the next camel-case part.
    ///
    /// ```
    /// use shader_info::BuiltinBits;
    /// let text = "// gl_Layer is set below\nvoid main() {\n  gl_Layer = 1;\n}";
    /// assert_eq!(BuiltinBits::LAYER.first_use(text), Some((3, "gl_Layer".to_string())));
    /// let sum = "uint s = subgroupAdd(x);";
    /// assert_eq!(BuiltinBits::SUBGROUP.first_use(sum), Some((1, "subgroupAdd".to_string())));
    /// assert_eq!(BuiltinBits::LAYER.first_use("int my_gl_Layer;"), None);
    /// assert_eq!(BuiltinBits::SUBGROUP.first_use("uint subgroup_count = 4u;"), None);
    /// ```
    pub fn first_use(self, text: &str) -> Option<(u32, String)> {
        let names: Vec<&'static str> = BuiltinBits::NAMED
            .iter()
            .filter(|(bit, _)| self.contains(*bit))
            .flat_map(|(bit, _)| bit.glsl_identifiers().iter().copied())
            .collect();
        let mut in_block_comment = false;
        for (i, line) in text.lines().enumerate() {
            let mut code = String::new();
            let mut rest = line;
            loop {
                if in_block_comment {
                    match rest.find("*/") {
                        Some(end) => {
                            in_block_comment = false;
                            rest = &rest[end + 2..];
                        }
                        None => break,
                    }
                } else {
                    let block = rest.find("/*");
                    let single = rest.find("//");
                    match (block, single) {
                        (Some(b), s) if s.is_none_or(|s| b < s) => {
                            code.push_str(&rest[..b]);
                            in_block_comment = true;
                            rest = &rest[b + 2..];
                        }
                        (_, Some(s)) => {
                            code.push_str(&rest[..s]);
                            break;
                        }
                        _ => {
                            code.push_str(rest);
                            break;
                        }
                    }
                }
            }
            for name in &names {
                let word = code.match_indices(name).find_map(|(at, _)| {
                    let before = code[..at].chars().next_back();
                    if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_') {
                        return None;
                    }
                    let len = code[at..]
                        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .unwrap_or(code.len() - at);
                    let word = &code[at..at + len];
                    // A prefix names a family (`subgroupAdd`, `gl_BaryCoordEXT`): what follows it starts a new
                    // camel-case word, so `subgroup_count` or `gl_Layers` is someone else's identifier.
                    let rest = &word[name.len()..];
                    (rest.is_empty() || rest.starts_with(|c: char| c.is_ascii_uppercase()))
                        .then(|| word.to_string())
                });
                if let Some(word) = word {
                    return Some((i as u32 + 1, word));
                }
            }
        }
        None
    }

    /// The names of the set bits, for messages (`LAYER`, `BARYCENTRIC_COORD`, …).
    pub fn names(self) -> Vec<&'static str> {
        BuiltinBits::NAMED
            .iter()
            .filter(|(bit, _)| self.contains(*bit))
            .map(|(_, name)| *name)
            .collect()
    }

    /// The `#extension` lines `stage` of a pipeline with `stages` needs for these builtins.
    ///
    /// ```
    /// use shader_info::{BuiltinBits, Stage};
    /// let stages = [Stage::Vertex, Stage::Fragment];
    /// let b = BuiltinBits::LAYER | BuiltinBits::BARYCENTRIC_COORD;
    /// assert_eq!(b.glsl_extensions(Stage::Vertex, &stages), ["GL_ARB_shader_viewport_layer_array"]);
    /// assert_eq!(b.glsl_extensions(Stage::Fragment, &stages), ["GL_EXT_fragment_shader_barycentric"]);
    /// ```
    pub fn glsl_extensions(self, stage: Stage, stages: &[Stage]) -> Vec<&'static str> {
        let mut out = Vec::new();
        // Outside a geometry stage, writing the layer or viewport needs the vertex-stage extension.
        if (self.contains(BuiltinBits::LAYER) || self.contains(BuiltinBits::VIEWPORT_INDEX))
            && stage != Stage::Geometry
            && last_pre_raster(stages) == Some(stage)
        {
            out.push("GL_ARB_shader_viewport_layer_array");
        }
        if self.contains(BuiltinBits::BARYCENTRIC_COORD) && stage == Stage::Fragment {
            out.push("GL_EXT_fragment_shader_barycentric");
        }
        if self.contains(BuiltinBits::SUBGROUP) {
            out.extend([
                "GL_KHR_shader_subgroup_basic",
                "GL_KHR_shader_subgroup_vote",
                "GL_KHR_shader_subgroup_ballot",
                "GL_KHR_shader_subgroup_arithmetic",
                "GL_KHR_shader_subgroup_shuffle",
                "GL_KHR_shader_subgroup_shuffle_relative",
                "GL_KHR_shader_subgroup_clustered",
                "GL_KHR_shader_subgroup_quad",
            ]);
        }
        out
    }

    /// The device features a pipeline with `stages` needs for these builtins.
    ///
    /// ```
    /// use shader_info::{BuiltinBits, Stage};
    /// let f = BuiltinBits::LAYER.device_features(&[Stage::Vertex, Stage::Fragment]);
    /// assert_eq!(f[0].feature, "shaderOutputLayer");
    /// // A geometry stage writes the layer without it.
    /// assert!(BuiltinBits::LAYER.device_features(&[Stage::Vertex, Stage::Geometry, Stage::Fragment]).is_empty());
    /// ```
    pub fn device_features(self, stages: &[Stage]) -> Vec<BuiltinFeature> {
        let mut out = Vec::new();
        let mut need = |feature: &'static str, why: String| {
            out.push(BuiltinFeature { feature, why });
        };
        let writer = last_pre_raster(stages);
        if let Some(w) = writer.filter(|w| *w != Stage::Geometry) {
            if self.contains(BuiltinBits::LAYER) {
                need(
                    "shaderOutputLayer",
                    format!("BuiltinBits::LAYER written by the {w} stage"),
                );
            }
            if self.contains(BuiltinBits::VIEWPORT_INDEX) {
                need(
                    "shaderOutputViewportIndex",
                    format!("BuiltinBits::VIEWPORT_INDEX written by the {w} stage"),
                );
            }
        }
        if self.contains(BuiltinBits::VIEWPORT_INDEX) && writer.is_some() {
            need(
                "multiViewport",
                "BuiltinBits::VIEWPORT_INDEX (more than one viewport)".into(),
            );
        }
        let fragment = stages.contains(&Stage::Fragment);
        if self.contains(BuiltinBits::BARYCENTRIC_COORD) && fragment {
            need(
                "fragmentShaderBarycentric",
                "BuiltinBits::BARYCENTRIC_COORD".into(),
            );
        }
        if let Some(w) = writer.filter(|w| *w != Stage::Vertex)
            && self.contains(BuiltinBits::POINT_SIZE)
        {
            need(
                "shaderTessellationAndGeometryPointSize",
                format!("BuiltinBits::POINT_SIZE written by the {w} stage"),
            );
        }
        if self.contains(BuiltinBits::CLIP_DISTANCES) && writer.is_some() {
            need("shaderClipDistance", "BuiltinBits::CLIP_DISTANCES".into());
        }
        // SPIR-V gives the fragment stage `PrimitiveId` through the Geometry capability (or Tessellation's).
        if self.contains(BuiltinBits::PRIMITIVE_ID)
            && fragment
            && !stages
                .iter()
                .any(|s| matches!(s, Stage::Geometry | Stage::TessControl))
        {
            need(
                "geometryShader",
                "BuiltinBits::PRIMITIVE_ID read by the fragment stage".into(),
            );
        }
        out
    }

    /// The names of the declared builtins no stage of `stages` can use (a fragment-only builtin on a compute
    /// info, …): a slip validation reports.
    pub fn unusable_in(self, stages: &[Stage]) -> Vec<&'static str> {
        let has = |s: Stage| stages.contains(&s);
        let graphics = stages.iter().any(|s| s.is_graphics());
        let compute = has(Stage::Compute);
        BuiltinBits::NAMED
            .iter()
            .filter(|(bit, _)| self.contains(*bit))
            .filter(|(bit, _)| {
                let b = *bit;
                let fragment_only = [
                    BuiltinBits::POINT_COORD,
                    BuiltinBits::FRAG_COORD,
                    BuiltinBits::FRONT_FACING,
                    BuiltinBits::BARYCENTRIC_COORD,
                ];
                let compute_only = [
                    BuiltinBits::GLOBAL_INVOCATION_ID,
                    BuiltinBits::LOCAL_INVOCATION_ID,
                    BuiltinBits::LOCAL_INVOCATION_INDEX,
                    BuiltinBits::NUM_WORK_GROUP,
                    BuiltinBits::WORK_GROUP_SIZE,
                    BuiltinBits::WORK_GROUP_ID,
                ];
                if fragment_only.contains(&b) {
                    !has(Stage::Fragment)
                } else if compute_only.contains(&b) {
                    !compute
                } else if [BuiltinBits::VERTEX_ID, BuiltinBits::INSTANCE_ID].contains(&b) {
                    !has(Stage::Vertex)
                } else if b == BuiltinBits::SUBGROUP || b == BuiltinBits::TEXTURE_ATOMIC {
                    false
                } else {
                    !graphics
                }
            })
            .map(|(_, name)| *name)
            .collect()
    }
}
