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
