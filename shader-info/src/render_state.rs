//! Render state declared with the shader: blending and color writes per output, depth, stencil, rasterization,
//! topology and which states are dynamic — the fixed-function half of a *technique*. Declared once in the info
//! (inherited through `additional_info`, changed per permutation by the specialize function), validated with the
//! rest of the declaration, carried by the [`crate::PipelinePlan`], and mapped by each backend (Vulkan, wgpu).
//!
//! Attachment formats and the sample count stay pipeline-time choices of the renderer (they belong to the render
//! targets, not to the shader); everything else a pipeline needs is here.
//!
//! ```
//! use shader_info::*;
//! let info = ShaderCreateInfo::new("glass")
//!     .blend(Blend::Alpha)
//!     .depth(DepthState::test(CompareOp::LessOrEqual))
//!     .cull(CullMode::Back);
//! let state = RenderState::from_items(&info.render_state);
//! assert_eq!(state.blend_at(0), Blend::Alpha);
//! assert!(state.depth.is_some_and(|d| !d.write));
//! ```

use crate::item::Item;
use serde::Serialize;
use std::hash::{Hash, Hasher};

/// A blend factor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BlendFactor {
    Zero,
    One,
    SrcColor,
    OneMinusSrcColor,
    DstColor,
    OneMinusDstColor,
    SrcAlpha,
    OneMinusSrcAlpha,
    DstAlpha,
    OneMinusDstAlpha,
    ConstantColor,
    OneMinusConstantColor,
    SrcAlphaSaturate,
    /// The second output of dual-source blending.
    Src1Color,
    OneMinusSrc1Color,
    Src1Alpha,
    OneMinusSrc1Alpha,
}

impl BlendFactor {
    /// Whether the factor reads the second output of dual-source blending.
    pub fn is_dual_source(self) -> bool {
        matches!(
            self,
            BlendFactor::Src1Color
                | BlendFactor::OneMinusSrc1Color
                | BlendFactor::Src1Alpha
                | BlendFactor::OneMinusSrc1Alpha
        )
    }

    /// Whether the factor reads the blend constants.
    pub fn is_constant(self) -> bool {
        matches!(
            self,
            BlendFactor::ConstantColor | BlendFactor::OneMinusConstantColor
        )
    }
}

/// A blend operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum BlendOp {
    Add,
    Subtract,
    ReverseSubtract,
    Min,
    Max,
}

/// `result = src * src_factor <op> dst * dst_factor` for one of color or alpha.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct BlendComponent {
    pub src: BlendFactor,
    pub dst: BlendFactor,
    pub op: BlendOp,
}

impl BlendComponent {
    /// `src * src_factor + dst * dst_factor`.
    pub const fn add(src: BlendFactor, dst: BlendFactor) -> BlendComponent {
        BlendComponent {
            src,
            dst,
            op: BlendOp::Add,
        }
    }
}

/// How one color output is blended with the attachment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum Blend {
    /// No blending: the output replaces the attachment.
    #[default]
    Opaque,
    /// Straight alpha: `src * a + dst * (1 - a)`; alpha `a + dst_a * (1 - a)`.
    Alpha,
    /// Premultiplied alpha: `src + dst * (1 - a)`.
    Premultiplied,
    /// `src * a + dst` (glows, particles).
    Additive,
    /// `src * dst` (tinting, decals).
    Multiply,
    /// Full factors and operations.
    Custom {
        color: BlendComponent,
        alpha: BlendComponent,
    },
}

impl Blend {
    /// The color and alpha components, or `None` for [`Blend::Opaque`].
    pub fn components(self) -> Option<(BlendComponent, BlendComponent)> {
        use BlendFactor::*;
        let over = BlendComponent::add(One, OneMinusSrcAlpha);
        Some(match self {
            Blend::Opaque => return None,
            Blend::Alpha => (BlendComponent::add(SrcAlpha, OneMinusSrcAlpha), over),
            Blend::Premultiplied => (over, over),
            Blend::Additive => (
                BlendComponent::add(SrcAlpha, One),
                BlendComponent::add(One, One),
            ),
            Blend::Multiply => (
                BlendComponent::add(DstColor, Zero),
                BlendComponent::add(DstAlpha, Zero),
            ),
            Blend::Custom { color, alpha } => (color, alpha),
        })
    }

    pub(crate) fn factors(self) -> Vec<BlendFactor> {
        self.components()
            .map(|(c, a)| vec![c.src, c.dst, a.src, a.dst])
            .unwrap_or_default()
    }
}

/// Which channels a color output writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct ColorWrites(pub u8);

impl ColorWrites {
    pub const NONE: ColorWrites = ColorWrites(0);
    pub const R: ColorWrites = ColorWrites(1);
    pub const G: ColorWrites = ColorWrites(2);
    pub const B: ColorWrites = ColorWrites(4);
    pub const A: ColorWrites = ColorWrites(8);
    pub const RGB: ColorWrites = ColorWrites(7);
    pub const ALL: ColorWrites = ColorWrites(15);

    pub fn contains(self, other: ColorWrites) -> bool {
        self.0 & other.0 == other.0
    }
}

impl Default for ColorWrites {
    fn default() -> Self {
        ColorWrites::ALL
    }
}

impl std::ops::BitOr for ColorWrites {
    type Output = ColorWrites;
    fn bitor(self, rhs: ColorWrites) -> ColorWrites {
        ColorWrites(self.0 | rhs.0)
    }
}

/// A depth or stencil comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum CompareOp {
    Never,
    Less,
    Equal,
    LessOrEqual,
    Greater,
    NotEqual,
    GreaterOrEqual,
    Always,
}

/// The depth test. Declaring one means the pipeline needs a depth attachment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct DepthState {
    pub compare: CompareOp,
    /// Whether passing fragments write their depth.
    pub write: bool,
}

impl DepthState {
    /// Test only (transparent surfaces, decals, skyboxes).
    pub const fn test(compare: CompareOp) -> DepthState {
        DepthState {
            compare,
            write: false,
        }
    }

    /// Test and write (opaque geometry, depth-only passes).
    pub const fn test_write(compare: CompareOp) -> DepthState {
        DepthState {
            compare,
            write: true,
        }
    }
}

/// What a stencil test does to the stored value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum StencilOp {
    Keep,
    Zero,
    Replace,
    IncrementClamp,
    DecrementClamp,
    Invert,
    IncrementWrap,
    DecrementWrap,
}

/// The stencil test of one face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct StencilFace {
    pub compare: CompareOp,
    pub fail: StencilOp,
    pub depth_fail: StencilOp,
    pub pass: StencilOp,
}

impl StencilFace {
    /// Compare, and on pass apply `pass` (fail and depth-fail keep).
    pub const fn new(compare: CompareOp, pass: StencilOp) -> StencilFace {
        StencilFace {
            compare,
            fail: StencilOp::Keep,
            depth_fail: StencilOp::Keep,
            pass,
        }
    }
}

/// The stencil test. Declaring one means the pipeline needs a depth-stencil attachment with stencil.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct StencilState {
    pub front: StencilFace,
    pub back: StencilFace,
    pub read_mask: u8,
    pub write_mask: u8,
    /// The reference value; `None`: set while recording ([`DynamicStates::STENCIL_REFERENCE`]).
    pub reference: Option<u8>,
}

/// Which faces are culled.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum CullMode {
    #[default]
    None,
    Front,
    Back,
}

/// Which winding is front-facing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum FrontFace {
    #[default]
    CounterClockwise,
    Clockwise,
}

/// How polygons are rasterized.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum PolygonMode {
    #[default]
    Fill,
    Line,
    Point,
}

/// How vertices form primitives.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub enum Topology {
    PointList,
    LineList,
    LineStrip,
    #[default]
    TriangleList,
    TriangleStrip,
    TriangleFan,
    /// Lines with their neighbours, for a geometry stage that takes `PrimitiveIn::LinesAdjacency`.
    LineListWithAdjacency,
    LineStripWithAdjacency,
    /// Triangles with their neighbours, for a geometry stage that takes `PrimitiveIn::TrianglesAdjacency`.
    TriangleListWithAdjacency,
    TriangleStripWithAdjacency,
    /// Patches for tessellation.
    PatchList,
}

impl Topology {
    /// The topologies that draw what a geometry stage taking `input` reads, the list first: what the plan draws
    /// when no topology is declared, and what a declared one must be.
    ///
    /// ```
    /// use shader_info::{PrimitiveIn, Topology};
    /// assert_eq!(Topology::feeding(PrimitiveIn::Lines)[0], Topology::LineList);
    /// assert!(!Topology::feeding(PrimitiveIn::LinesAdjacency).contains(&Topology::LineList));
    /// ```
    pub fn feeding(input: crate::types::PrimitiveIn) -> &'static [Topology] {
        use crate::types::PrimitiveIn as I;
        match input {
            I::Points => &[Topology::PointList],
            I::Lines => &[Topology::LineList, Topology::LineStrip],
            I::Triangles => &[
                Topology::TriangleList,
                Topology::TriangleStrip,
                Topology::TriangleFan,
            ],
            I::LinesAdjacency => &[
                Topology::LineListWithAdjacency,
                Topology::LineStripWithAdjacency,
            ],
            I::TrianglesAdjacency => &[
                Topology::TriangleListWithAdjacency,
                Topology::TriangleStripWithAdjacency,
            ],
        }
    }

    /// Whether it is a list (primitive restart on a list needs a device feature).
    pub fn is_list(self) -> bool {
        matches!(
            self,
            Topology::PointList
                | Topology::LineList
                | Topology::TriangleList
                | Topology::LineListWithAdjacency
                | Topology::TriangleListWithAdjacency
                | Topology::PatchList
        )
    }
}

/// Depth bias: `constant + slope * max_depth_slope`, clamped to `clamp` (0: no clamp).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct DepthBias {
    pub constant: f32,
    pub slope: f32,
    pub clamp: f32,
}

// Compared and hashed by bit pattern, so states can key pipeline caches and variants (f32 has no `Eq`).
impl Eq for DepthBias {}
impl Hash for DepthBias {
    fn hash<H: Hasher>(&self, state: &mut H) {
        [self.constant, self.slope, self.clamp]
            .map(f32::to_bits)
            .hash(state);
    }
}

/// States set while recording instead of baked into the pipeline (viewport and scissor always are).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
pub struct DynamicStates(pub u8);

impl DynamicStates {
    pub const NONE: DynamicStates = DynamicStates(0);
    pub const DEPTH_BIAS: DynamicStates = DynamicStates(1);
    pub const STENCIL_REFERENCE: DynamicStates = DynamicStates(2);
    pub const BLEND_CONSTANTS: DynamicStates = DynamicStates(4);
    pub const LINE_WIDTH: DynamicStates = DynamicStates(8);

    pub fn contains(self, other: DynamicStates) -> bool {
        self.0 & other.0 == other.0
    }
}

impl std::ops::BitOr for DynamicStates {
    type Output = DynamicStates;
    fn bitor(self, rhs: DynamicStates) -> DynamicStates {
        DynamicStates(self.0 | rhs.0)
    }
}

/// One declared piece of render state (what a builder call records). Each has a slot: a second declaration of
/// the same slot through `additional_info` is a conflict; a variant's replaces the info's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum StateItem {
    Topology(Topology),
    PrimitiveRestart(bool),
    PolygonMode(PolygonMode),
    Cull(CullMode),
    FrontFace(FrontFace),
    /// Line width in pixels (bits of an `f32`).
    LineWidth(u32),
    /// Blending of every color output without its own.
    Blend(Blend),
    /// Blending of the color output at a location.
    BlendAt(u32, Blend),
    ColorWrites(u32, ColorWrites),
    /// The depth test; `None` declares that the technique has none.
    Depth(Option<DepthState>),
    Stencil(Option<StencilState>),
    DepthBias(Option<DepthBias>),
    AlphaToCoverage(bool),
    Dynamic(DynamicStates),
}

impl StateItem {
    /// The slot a declaration fills: equal slots conflict (or are replaced by a variant).
    pub fn slot(&self) -> (u8, u32) {
        match self {
            StateItem::Topology(_) => (0, 0),
            StateItem::PrimitiveRestart(_) => (1, 0),
            StateItem::PolygonMode(_) => (2, 0),
            StateItem::Cull(_) => (3, 0),
            StateItem::FrontFace(_) => (4, 0),
            StateItem::LineWidth(_) => (5, 0),
            StateItem::Blend(_) => (6, 0),
            StateItem::BlendAt(l, _) => (7, *l),
            StateItem::ColorWrites(l, _) => (8, *l),
            StateItem::Depth(_) => (9, 0),
            StateItem::Stencil(_) => (10, 0),
            StateItem::DepthBias(_) => (11, 0),
            StateItem::AlphaToCoverage(_) => (12, 0),
            StateItem::Dynamic(_) => (13, 0),
        }
    }

    /// The builder call that declares it, for messages.
    pub fn describe(&self) -> String {
        match self {
            StateItem::Topology(t) => format!("topology({t:?})"),
            StateItem::PrimitiveRestart(b) => format!("primitive_restart({b})"),
            StateItem::PolygonMode(m) => format!("polygon_mode({m:?})"),
            StateItem::Cull(c) => format!("cull({c:?})"),
            StateItem::FrontFace(f) => format!("front_face({f:?})"),
            StateItem::LineWidth(w) => format!("line_width({})", f32::from_bits(*w)),
            StateItem::Blend(b) => format!("blend({b:?})"),
            StateItem::BlendAt(l, b) => format!("blend_at({l}, {b:?})"),
            StateItem::ColorWrites(l, w) => format!("color_writes({l}, {:#06b})", w.0),
            StateItem::Depth(d) => format!("depth({d:?})"),
            StateItem::Stencil(s) => format!("stencil({s:?})"),
            StateItem::DepthBias(b) => format!("depth_bias({b:?})"),
            StateItem::AlphaToCoverage(b) => format!("alpha_to_coverage({b})"),
            StateItem::Dynamic(d) => format!("dynamic({:#06b})", d.0),
        }
    }
}

/// The render state of a graphics pipeline: the declared items applied over the defaults (triangle lists, no
/// culling, counter-clockwise front faces, filled polygons, no depth or stencil test, opaque writes of every
/// channel, nothing dynamic but viewport and scissor).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct RenderState {
    pub topology: Topology,
    pub primitive_restart: bool,
    pub polygon_mode: PolygonMode,
    pub cull: CullMode,
    pub front_face: FrontFace,
    /// Bits of the `f32` line width (1.0 when not declared).
    pub line_width_bits: u32,
    /// Blending of outputs without their own.
    pub blend: Blend,
    /// Per-location blending, sorted by location.
    pub blend_at: Vec<(u32, Blend)>,
    /// Per-location write masks, sorted by location (every channel where absent).
    pub color_writes: Vec<(u32, ColorWrites)>,
    pub depth: Option<DepthState>,
    pub stencil: Option<StencilState>,
    pub depth_bias: Option<DepthBias>,
    pub alpha_to_coverage: bool,
    pub dynamic: DynamicStates,
}

impl Default for RenderState {
    fn default() -> Self {
        RenderState {
            topology: Topology::default(),
            primitive_restart: false,
            polygon_mode: PolygonMode::default(),
            cull: CullMode::default(),
            front_face: FrontFace::default(),
            line_width_bits: 1.0f32.to_bits(),
            blend: Blend::default(),
            blend_at: Vec::new(),
            color_writes: Vec::new(),
            depth: None,
            stencil: None,
            depth_bias: None,
            alpha_to_coverage: false,
            dynamic: DynamicStates::NONE,
        }
    }
}

impl RenderState {
    /// The state the items declare (a later item of one slot replaces an earlier one).
    pub fn from_items(items: &[Item<StateItem>]) -> RenderState {
        let mut s = RenderState::default();
        for it in items {
            s.apply(it.value);
        }
        s
    }

    /// Applies one item.
    pub fn apply(&mut self, item: StateItem) {
        match item {
            StateItem::Topology(t) => self.topology = t,
            StateItem::PrimitiveRestart(b) => self.primitive_restart = b,
            StateItem::PolygonMode(m) => self.polygon_mode = m,
            StateItem::Cull(c) => self.cull = c,
            StateItem::FrontFace(f) => self.front_face = f,
            StateItem::LineWidth(w) => self.line_width_bits = w,
            StateItem::Blend(b) => self.blend = b,
            StateItem::BlendAt(l, b) => {
                self.blend_at.retain(|(x, _)| *x != l);
                self.blend_at.push((l, b));
                self.blend_at.sort_by_key(|(x, _)| *x);
            }
            StateItem::ColorWrites(l, w) => {
                self.color_writes.retain(|(x, _)| *x != l);
                self.color_writes.push((l, w));
                self.color_writes.sort_by_key(|(x, _)| *x);
            }
            StateItem::Depth(d) => self.depth = d,
            StateItem::Stencil(s) => self.stencil = s,
            StateItem::DepthBias(b) => self.depth_bias = b,
            StateItem::AlphaToCoverage(b) => self.alpha_to_coverage = b,
            StateItem::Dynamic(d) => self.dynamic = d,
        }
    }

    /// The line width in pixels.
    pub fn line_width(&self) -> f32 {
        f32::from_bits(self.line_width_bits)
    }

    /// The blending of the output at `location`.
    pub fn blend_at(&self, location: u32) -> Blend {
        self.blend_at
            .iter()
            .find(|(l, _)| *l == location)
            .map_or(self.blend, |(_, b)| *b)
    }

    /// The write mask of the output at `location`.
    pub fn color_writes_at(&self, location: u32) -> ColorWrites {
        self.color_writes
            .iter()
            .find(|(l, _)| *l == location)
            .map_or(ColorWrites::ALL, |(_, w)| *w)
    }

    /// Whether any output blends with a dual-source factor.
    pub fn uses_dual_source(&self, locations: &[u32]) -> bool {
        locations.iter().any(|l| {
            self.blend_at(*l)
                .factors()
                .iter()
                .any(|f| f.is_dual_source())
        })
    }

    /// The optional device features this state needs, each with why: `(feature, reason)`. Checked against the
    /// device before a pipeline is created.
    pub fn required_features(&self, locations: &[u32]) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        let width = self.line_width();
        if width != 1.0 && !self.dynamic.contains(DynamicStates::LINE_WIDTH) {
            out.push(("wideLines", format!("line_width({width})")));
        }
        if self.dynamic.contains(DynamicStates::LINE_WIDTH) {
            out.push(("wideLines", "a dynamic line width".to_string()));
        }
        if self.polygon_mode != PolygonMode::Fill {
            out.push((
                "fillModeNonSolid",
                format!("polygon_mode({:?})", self.polygon_mode),
            ));
        }
        if self.depth_bias.is_some_and(|b| b.clamp != 0.0) {
            out.push(("depthBiasClamp", "a depth bias clamp".to_string()));
        }
        if self.uses_dual_source(locations) {
            out.push(("dualSrcBlend", "a dual-source blend factor".to_string()));
        }
        let first = locations
            .first()
            .map(|l| (self.blend_at(*l), self.color_writes_at(*l)));
        if locations
            .iter()
            .any(|l| Some((self.blend_at(*l), self.color_writes_at(*l))) != first)
        {
            out.push((
                "independentBlend",
                "different blending or write masks per color output".to_string(),
            ));
        }
        if self.primitive_restart && self.topology.is_list() {
            out.push((
                "primitiveTopologyListRestart",
                format!("primitive restart on {:?}", self.topology),
            ));
        }
        out
    }
}
