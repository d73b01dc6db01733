//! What a specialize function is and what it sees: one permutation of an info's static branches, which it may fold,
//! extend with defines, point at other stage sources, or declare never used (see the variants module).

use crate::render_state::StateItem;
use crate::types::Stage;
use crate::vertex::VertexRate;
use std::fmt;

/// A specialize function, comparable by address so infos stay `PartialEq`.
#[derive(Clone, Copy)]
pub struct SpecializeFn(pub fn(&mut VariantBuilder));

impl PartialEq for SpecializeFn {
    fn eq(&self, other: &SpecializeFn) -> bool {
        std::ptr::fn_addr_eq(self.0, other.0)
    }
}

impl fmt::Debug for SpecializeFn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SpecializeFn")
    }
}

/// What the specialize function sees and changes for one permutation.
pub struct VariantBuilder<'a> {
    pub(crate) names: &'a [String],
    /// The info's compilation constants with their declared values, and those used as array sizes.
    pub(crate) declared: &'a [crate::constant::SharedConstant],
    pub(crate) sizes: &'a [String],
    pub(crate) constants: Vec<crate::constant::ConstOverride>,
    /// What the specialize function asked for that cannot be done, said with the permutation.
    pub(crate) rejected: Vec<String>,
    /// Branch names read or set that the info does not declare; in a cell because `get` reads through `&self`
    /// (so `v.set("A", v.get("B"))` keeps compiling).
    pub(crate) unknown_branches: std::cell::RefCell<Vec<String>>,
    pub(crate) bits: u64,
    pub(crate) defines: Vec<(String, String)>,
    pub(crate) sources: Vec<(Stage, String)>,
    pub(crate) state: Vec<StateItem>,
    pub(crate) vertex_inputs: Vec<crate::vertex::VertexInput>,
    pub(crate) never_used: bool,
}

impl<'a> VariantBuilder<'a> {
    /// The builder of permutation `bits` over `names`, with the info's compilation constants.
    pub(crate) fn new(
        names: &'a [String],
        declared: &'a [crate::constant::SharedConstant],
        sizes: &'a [String],
        bits: u64,
    ) -> VariantBuilder<'a> {
        VariantBuilder {
            names,
            declared,
            sizes,
            constants: Vec::new(),
            rejected: Vec::new(),
            unknown_branches: Default::default(),
            bits,
            defines: Vec::new(),
            sources: Vec::new(),
            state: Vec::new(),
            vertex_inputs: Vec::new(),
            never_used: false,
        }
    }

    fn index(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Whether the info declares branch `name`: a function shared by infos with different branches asks this
    /// before [`Self::get`], which reports a name the info does not declare.
    pub fn has(&self, name: &str) -> bool {
        self.index(name).is_some()
    }

    /// The value of branch `name`. An unknown name (a typo) reads `false` and is reported with the permutation.
    pub fn get(&self, name: &str) -> bool {
        match self.index(name) {
            Some(i) => self.bits & (1 << i) != 0,
            None => {
                self.unknown_branch("get", name);
                false
            }
        }
    }

    fn unknown_branch(&self, call: &str, name: &str) {
        let message = format!(
            "{call}(\"{name}\"): the info has no branch of that name (its branches: {})",
            if self.names.is_empty() {
                "none".to_string()
            } else {
                self.names.join(", ")
            }
        );
        let mut unknown = self.unknown_branches.borrow_mut();
        if !unknown.contains(&message) {
            unknown.push(message);
        }
    }

    /// Folds branch `name` to `value`. An unknown name (a typo) is reported with the permutation.
    pub fn set(&mut self, name: &str, value: bool) {
        let Some(i) = self.index(name) else {
            self.unknown_branch("set", name);
            return;
        };
        {
            if value {
                self.bits |= 1 << i;
            } else {
                self.bits &= !(1 << i);
            }
        }
    }

    /// The value of compilation constant `name` in this variant (its declared value unless changed here); `None`
    /// for an unknown name.
    pub fn constant(&self, name: &str) -> Option<crate::constant::ConstValue> {
        self.constants
            .iter()
            .find(|c| c.name == name)
            .map(|c| c.value)
            .or_else(|| {
                self.declared
                    .iter()
                    .find(|c| c.name == name)
                    .map(|c| c.value)
            })
    }

    /// Gives compilation constant `name` another value in this variant. The value must have the constant's type,
    /// and a constant that sizes an array keeps its value; anything else is reported with the permutation.
    pub fn set_constant(&mut self, name: &str, value: impl Into<crate::constant::ConstValue>) {
        let value = value.into();
        let Some(declared) = self.declared.iter().find(|c| c.name == name) else {
            let known: Vec<&str> = self.declared.iter().map(|c| c.name.as_str()).collect();
            self.rejected.push(format!(
                "set_constant(\"{name}\"): the info has no compilation constant of that name (it has: {})",
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            ));
            return;
        };
        if declared.value.ty() != value.ty() {
            self.rejected.push(format!(
                "set_constant(\"{name}\", {}): `{name}` is a `{}`, not a `{}`",
                value.glsl_literal(),
                declared.value.ty(),
                value.ty()
            ));
            return;
        }
        if self.sizes.iter().any(|s| s == name) {
            self.rejected.push(format!(
                "set_constant(\"{name}\"): `{name}` sizes an array of the declaration, so it has one value in every variant"
            ));
            return;
        }
        self.constants.retain(|c| c.name != name);
        // The declared value is no change: such a variant is the same as one that does not set it.
        if declared.value.to_bits() != value.to_bits() {
            self.constants.push(crate::constant::ConstOverride {
                name: name.to_string(),
                value,
            });
        }
    }

    /// Adds `#define name value` to this variant.
    pub fn define(&mut self, name: &str, value: &str) {
        self.defines.push((name.to_string(), value.to_string()));
    }

    /// Uses another source file for `stage` in this variant (e.g. a depth-only fragment shader).
    pub fn source(&mut self, stage: Stage, file: &str) {
        self.sources.retain(|(s, _)| *s != stage);
        self.sources.push((stage, file.to_string()));
    }

    /// Changes one piece of this variant's render state (replacing what the info declares for that slot): a
    /// transparent variant blends, a depth-only one writes no color.
    ///
    /// ```
    /// use shader_info::*;
    /// fn specialize(v: &mut VariantBuilder) {
    ///     if v.get("TRANSPARENT") {
    ///         v.state(StateItem::Blend(Blend::Alpha));
    ///         v.state(StateItem::Depth(Some(DepthState::test(CompareOp::LessOrEqual))));
    ///     }
    /// }
    /// ```
    pub fn state(&mut self, item: StateItem) {
        self.state.retain(|s| s.slot() != item.slot());
        self.state.push(item);
    }

    /// Adds a vertex input to this variant only (a skinned variant reads joints and weights): its vertex layout,
    /// pipeline and generated declarations follow, and it is validated like a declared `vertex_in`.
    ///
    /// ```
    /// use shader_info::*;
    /// fn specialize(v: &mut VariantBuilder) {
    ///     if v.get("SKINNING") {
    ///         v.vertex_in_packed(5, Type::UVec4, VertexFormat::Uint8x4, "joints");
    ///         v.vertex_in_packed(6, Type::Vec4, VertexFormat::Unorm8x4, "weights");
    ///     }
    /// }
    /// ```
    pub fn vertex_in(&mut self, location: u32, ty: crate::types::Type, name: &str) {
        self.push_input(location, ty, None, name, VertexRate::Vertex);
    }

    /// This permutation reads its per-vertex buffer as host struct `V` ([`crate::ShaderCreateInfo::vertex_struct`]),
    /// in place of the info's per-vertex inputs: a skinned permutation's vertex carries joints and weights the
    /// others do not.
    ///
    /// ```
    /// use shader_info::*;
    /// #[derive(Clone, Copy, ShaderVertex)]
    /// #[repr(C)]
    /// struct Vertex { pos: [f32; 3], nor: [f32; 3] }
    /// #[derive(Clone, Copy, ShaderVertex)]
    /// #[repr(C)]
    /// struct SkinnedVertex {
    ///     pos: [f32; 3],
    ///     nor: [f32; 3],
    ///     #[vertex(format = "Uint8x4")]
    ///     joints: [u8; 4],
    ///     #[vertex(format = "Unorm8x4")]
    ///     weights: [u8; 4],
    /// }
    /// fn specialize(v: &mut VariantBuilder) {
    ///     if v.get("SKINNING") {
    ///         v.vertex_struct::<SkinnedVertex>(0);
    ///     }
    /// }
    /// let mut reg = Registry::new();
    /// reg.add_info(ShaderCreateInfo::new("mesh").vertex_struct::<Vertex>(0).branch("SKINNING")
    ///     .specialize(specialize).vertex_source("m.vert").fragment_source("m.frag"));
    /// let info = reg.validated("mesh").unwrap();
    /// let set = enumerate_variants(&info, DEFAULT_BRANCH_LIMIT).unwrap();
    /// let skinned = info.variant(&set, set.lookup(1).unwrap(), &reg).unwrap();
    /// let plan = PipelinePlan::new(&skinned, &reg);
    /// assert_eq!(plan.vertex_buffers(VertexArrangement::Interleaved)[0].stride, 32);
    /// assert!(plan.vertex_problems::<SkinnedVertex>().is_empty());
    /// ```
    pub fn vertex_struct<V: crate::vertex::ShaderVertex>(&mut self, first_location: u32) {
        self.vertex_inputs.extend(crate::vertex::struct_inputs::<V>(
            first_location,
            VertexRate::Vertex,
        ));
    }

    /// [`Self::vertex_struct`] for the per-instance buffer.
    pub fn instance_struct<I: crate::vertex::ShaderVertex>(&mut self, first_location: u32) {
        self.vertex_inputs.extend(crate::vertex::struct_inputs::<I>(
            first_location,
            VertexRate::Instance,
        ));
    }

    /// A per-instance attribute of this permutation (see [`crate::ShaderCreateInfo::instance_in`]).
    pub fn instance_in(&mut self, location: u32, ty: crate::types::Type, name: &str) {
        self.push_input(location, ty, None, name, VertexRate::Instance);
    }

    /// [`Self::instance_in`] stored in a packed format (see [`crate::ShaderCreateInfo::instance_in_packed`]).
    pub fn instance_in_packed(
        &mut self,
        location: u32,
        ty: crate::types::Type,
        format: crate::vertex::VertexFormat,
        name: &str,
    ) {
        self.push_input(location, ty, Some(format), name, VertexRate::Instance);
    }

    /// [`Self::vertex_in`] stored in a packed format (see [`crate::ShaderCreateInfo::vertex_in_packed`]).
    pub fn vertex_in_packed(
        &mut self,
        location: u32,
        ty: crate::types::Type,
        format: crate::vertex::VertexFormat,
        name: &str,
    ) {
        self.push_input(location, ty, Some(format), name, VertexRate::Vertex);
    }

    fn push_input(
        &mut self,
        location: u32,
        ty: crate::types::Type,
        format: Option<crate::vertex::VertexFormat>,
        name: &str,
        rate: VertexRate,
    ) {
        self.vertex_inputs.push(crate::vertex::VertexInput {
            location,
            ty,
            name: name.to_string(),
            format,
            rate,
            host: None,
        });
    }

    /// Declares that the renderer never asks for this permutation; looking it up is an error.
    pub fn never_used(&mut self) {
        self.never_used = true;
    }
}
