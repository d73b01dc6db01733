//! Pipelines fetched with their host types named: the vertex struct and the push-constant block are checked
//! against the declaration once, when the pipeline is fetched, and a typed pipeline's push takes only its block's
//! type and its vertex binding only a [`VertexBuffer`] of its vertex type — so a push or vertex struct that drifted
//! from its declaration is an error at the fetch that names the member, and a buffer of another struct does not
//! compile: never a wrong frame. The backends add the push and the binding themselves (on Vulkan they record
//! commands, on wgpu they make the pass data or set the pass's buffer).

use super::{Backend, Library};
use shader_info::{NoVertices, PushBlock, VertexData, VertexRate};
use std::any::TypeId;
use std::borrow::Cow;
use std::marker::PhantomData;
use std::ops::Deref;
use std::sync::Arc;

/// A pipeline whose push-constant block is `P`, vertex buffer `V` and instance buffer `I` (each checked when it
/// was fetched; [`NoVertices`] where the info reads none, as a compute pipeline). It derefs to the pipeline.
pub struct Typed<Pipeline, P, V = NoVertices, I = NoVertices> {
    pipeline: Arc<Pipeline>,
    /// Where the pipeline reads the per-vertex and the per-instance buffer.
    bindings: Bindings,
    push: PhantomData<fn(&P)>,
    vertices: PhantomData<fn(&V, &I)>,
}

/// The bindings (Vulkan) or slots (wgpu) of a graphics pipeline's per-vertex and per-instance buffers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Bindings {
    vertex: u32,
    instance: u32,
}

impl<Pipeline, P, V, I> Clone for Typed<Pipeline, P, V, I> {
    fn clone(&self) -> Self {
        Typed {
            pipeline: self.pipeline.clone(),
            bindings: self.bindings,
            push: PhantomData,
            vertices: PhantomData,
        }
    }
}

/// A vertex buffer of `V`s, made from a slice of them by a backend (`vk::VertexBuffer::new`,
/// `wgpu::VertexBuffer::new`): a typed pipeline binds only a buffer of its own vertex type, so a buffer of another
/// struct (one the pipeline was not checked with) does not compile.
pub struct VertexBuffer<Buffer, V> {
    buffer: Buffer,
    count: u32,
    vertices: PhantomData<fn() -> V>,
}

impl<Buffer, V> VertexBuffer<Buffer, V> {
    /// Wraps `buffer`, which holds `count` values of `V` (the backends' constructors write them).
    pub(crate) fn from_parts(buffer: Buffer, count: u32) -> Self {
        VertexBuffer {
            buffer,
            count,
            vertices: PhantomData,
        }
    }

    /// The backend's buffer.
    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }

    /// How many vertices it holds (what a draw of all of them counts).
    pub fn len(&self) -> u32 {
        self.count
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }
}

impl<Pipeline, P: PushBlock, V, I> Typed<Pipeline, P, V, I> {
    /// The pipeline shared with the library's cache.
    pub fn pipeline(&self) -> &Arc<Pipeline> {
        &self.pipeline
    }

    /// The bytes of a push of `value`: the block's Rust twin, whose tail padding the backends' push drops.
    pub fn push_bytes(value: &P) -> &[u8] {
        bytemuck::bytes_of(value)
    }
}

impl<Pipeline, P, V, I> Typed<Pipeline, P, V, I> {
    /// The binding (Vulkan) or slot (wgpu) of the per-vertex buffer, from the plan in the pipeline's arrangement
    /// (0 for an interleaved one).
    pub fn vertex_binding(&self) -> u32 {
        self.bindings.vertex
    }

    /// The binding (Vulkan) or slot (wgpu) of the per-instance buffer: interleaved, 1 beside a per-vertex buffer
    /// and 0 without one; with a buffer per input, in location order.
    pub fn instance_binding(&self) -> u32 {
        self.bindings.instance
    }
}

impl<Pipeline, P, V, I> Deref for Typed<Pipeline, P, V, I> {
    type Target = Pipeline;
    fn deref(&self) -> &Pipeline {
        &self.pipeline
    }
}

/// What a check of host types found: the arrangement the pipeline reads the structs with, and the buffers'
/// bindings.
pub(super) type Checked = (Option<shader_info::VertexArrangement>, Bindings);

/// The host types a key was checked with: (key, vertex type, instance type, push type, vertex arrangement asked
/// for a graphics pipeline); the library keeps the arrangement the pipeline reads them with.
pub(super) type HostTypes = (
    String,
    TypeId,
    TypeId,
    TypeId,
    Option<shader_info::VertexArrangement>,
);

/// `options` with `arrangement` where it differs (a fetch of unpadded structs, every frame, copies nothing).
fn arranged<B: Backend>(
    options: &B::GraphicsOptions,
    arrangement: Option<shader_info::VertexArrangement>,
) -> Cow<'_, B::GraphicsOptions> {
    match arrangement {
        Some(a) if a != B::vertex_arrangement(options) => {
            let mut arranged = options.clone();
            B::set_vertex_arrangement(&mut arranged, a);
            Cow::Owned(arranged)
        }
        _ => Cow::Borrowed(options),
    }
}

impl<B: Backend> Library<B> {
    /// The graphics pipeline of `key` whose vertex buffer is `V` and push-constant block `P` (`NoVertices`,
    /// `NoPush` where the info has none). The types are checked against the declaration the first time they are
    /// named for the key: a field that drifted (name, order, format, offset) is an error here, naming it.
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary) -> shader_info_gpu::vk::VkResult<()> {
    /// use shader_info_gpu::vk::GraphicsOptions;
    /// use shader_info::NoPush;
    /// # #[derive(Clone, Copy, shader_info::ShaderVertex)] #[repr(C)] struct Vertex { pos: [f32; 2] }
    /// let p = lib.typed_graphics::<Vertex, NoPush>("gpu_shader_2D_uniform_color", &GraphicsOptions::default())?;
    /// # Ok(()) }
    /// ```
    pub fn typed_graphics<V: VertexData, P: PushBlock>(
        &mut self,
        key: impl AsRef<str>,
        options: &B::GraphicsOptions,
    ) -> Result<Typed<B::Graphics, P, V>, B::Error> {
        self.typed_instanced::<V, NoVertices, P>(key, options)
    }

    /// [`Self::typed_graphics`] for an info with per-instance inputs (`instance_in`): `I` is the struct of its
    /// instance buffer, checked against them as `V` is against the `vertex_in`s. A struct padded to its alignment
    /// (a `glam::Mat4` with a smaller field after it) is read with its own stride
    /// ([`shader_info::typed_arrangement`]).
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary) -> shader_info_gpu::vk::VkResult<()> {
    /// use shader_info_gpu::vk::GraphicsOptions;
    /// use shader_info::NoPush;
    /// # #[derive(Clone, Copy, shader_info::ShaderVertex)] #[repr(C)] struct Corner { corner: [f32; 2] }
    /// # #[derive(Clone, Copy, shader_info::ShaderVertex)] #[repr(C)] struct Sprite { rect: [f32; 4] }
    /// let p = lib.typed_instanced::<Corner, Sprite, NoPush>("sprites", &GraphicsOptions::default())?;
    /// # Ok(()) }
    /// ```
    pub fn typed_instanced<V: VertexData, I: VertexData, P: PushBlock>(
        &mut self,
        key: impl AsRef<str>,
        options: &B::GraphicsOptions,
    ) -> Result<Typed<B::Graphics, P, V, I>, B::Error> {
        let key = key.as_ref();
        let (arrangement, bindings) =
            self.check_host_types::<V, I, P>(key, Some(B::vertex_arrangement(options)))?;
        let options = arranged::<B>(options, arrangement);
        Ok(Typed {
            pipeline: self.graphics_pipeline(key, &options)?,
            bindings,
            push: PhantomData,
            vertices: PhantomData,
        })
    }

    /// The options a typed fetch of `key` whose vertex and instance structs are `V` and `I` creates its pipeline
    /// with: `options`, or for structs padded to their alignment `options` with
    /// [`shader_info::VertexArrangement::Strided`] ([`shader_info::typed_arrangement`]). Warm these up
    /// ([`Self::warm_up`]) and the typed fetch finds its pipeline made, in strict mode too.
    ///
    /// ```no_run
    /// # fn f(lib: &mut shader_info_gpu::vk::ShaderLibrary) -> shader_info_gpu::vk::VkResult<()> {
    /// use shader_info_gpu::vk::{GraphicsOptions, WarmUp};
    /// # #[derive(Clone, Copy, shader_info::ShaderVertex)] #[repr(C)] struct Corner { corner: [f32; 2] }
    /// # #[derive(Clone, Copy, shader_info::ShaderVertex)] #[repr(C)] struct Sprite { rect: [f32; 4], layer: u32 }
    /// let options = lib.typed_options::<Corner, Sprite>("sprites", &GraphicsOptions::default())?;
    /// lib.warm_up(&[WarmUp::Graphics { key: "sprites".into(), options }]);
    /// # Ok(()) }
    /// ```
    pub fn typed_options<V: VertexData, I: VertexData>(
        &mut self,
        key: impl AsRef<str>,
        options: &B::GraphicsOptions,
    ) -> Result<B::GraphicsOptions, B::Error> {
        let info = self.validated(key.as_ref())?;
        let plan = self.flow().plan(&info);
        let arrangement =
            shader_info::typed_arrangement::<V, I>(&plan, B::vertex_arrangement(options));
        Ok(arranged::<B>(options, Some(arrangement)).into_owned())
    }

    /// The compute pipeline of `key` whose push-constant block is `P` (checked as in [`Self::typed_graphics`]).
    pub fn typed_compute<P: PushBlock>(
        &mut self,
        key: impl AsRef<str>,
    ) -> Result<Typed<B::Compute, P>, B::Error> {
        let key = key.as_ref();
        self.check_host_types::<NoVertices, NoVertices, P>(key, None)?;
        Ok(Typed {
            pipeline: self.compute_pipeline(key)?,
            bindings: Bindings::default(),
            push: PhantomData,
            vertices: PhantomData,
        })
    }

    /// Checks `V` and `I` (for a graphics pipeline whose vertex inputs are arranged so) and `P` against `key`'s
    /// plan, once per key, types and arrangement; the arrangement the pipeline reads the structs with, and where.
    fn check_host_types<V: VertexData, I: VertexData, P: PushBlock>(
        &mut self,
        key: &str,
        requested: Option<shader_info::VertexArrangement>,
    ) -> Result<Checked, B::Error> {
        let id = (
            key.to_string(),
            TypeId::of::<V>(),
            TypeId::of::<I>(),
            TypeId::of::<P>(),
            requested,
        );
        if let Some(checked) = self.host_types.get(&id) {
            return Ok(*checked);
        }
        let info = self.validated(key)?;
        let plan = self.flow().plan(&info);
        let arrangement = requested.map(|r| shader_info::typed_arrangement::<V, I>(&plan, r));
        let mut problems = P::push_problems(&plan, self.registry());
        if let Some(arrangement) = arrangement {
            problems.extend(V::arranged_problems(&plan, arrangement, VertexRate::Vertex));
            problems.extend(I::arranged_problems(
                &plan,
                arrangement,
                VertexRate::Instance,
            ));
        }
        if !problems.is_empty() {
            return Err(B::error(problems));
        }
        let binding_of = |rate| {
            arrangement
                .and_then(|a| plan.vertex_buffers(a).into_iter().find(|b| b.rate == rate))
                .map_or(0, |b| b.binding)
        };
        let checked = (
            arrangement,
            Bindings {
                vertex: binding_of(VertexRate::Vertex),
                instance: binding_of(VertexRate::Instance),
            },
        );
        self.host_types.insert(id, checked);
        Ok(checked)
    }
}
