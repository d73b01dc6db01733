//! The hot-reload soak on the wgpu library (lavapipe, validation on): the same seeded edits and model as the
//! Vulkan soak (`soak_support`), through WGSL translation, wgpu error scopes and wgpu pipelines. After every step
//! both infos still have a pipeline and a valid tree runs its current source; at the end no validation message or
//! uncaptured wgpu error, and the library equals a freshly built one.
//!
//! `SOAK_STEPS` (default 1,000) and `SOAK_SEED=…` as for the Vulkan soak.

mod soak_support;

use shader_info_gpu::library::LibraryOptions;
use shader_info_gpu::library::ReloadReport;
use shader_info_gpu::wgpu::testing::{assert_quiet, storage_buffer, test_context};
use shader_info_gpu::wgpu::{Bind, GraphicsOptions, WgpuContext, WgpuLibrary, raw as w};
use soak_support::*;
use w::util::DeviceExt;

const SIZE: u32 = 32;

struct Wgpu<'a> {
    ctx: &'a WgpuContext,
    lib: &'a mut WgpuLibrary,
    vb: &'a w::Buffer,
    out: &'a w::Buffer,
}

/// The quad's center pixel and the fill's first value, through `lib`'s current pipelines.
fn observe(
    ctx: &WgpuContext,
    lib: &mut WgpuLibrary,
    vb: &w::Buffer,
    out: &w::Buffer,
) -> ([u8; 4], u32) {
    let quad = lib
        .graphics_pipeline("soak_quad", &GraphicsOptions::default())
        .expect("every info keeps a pipeline");
    let fill = lib
        .compute_pipeline("soak_fill")
        .expect("every info keeps a pipeline");
    let target = shader_info_gpu::wgpu::testing::render_target(ctx, SIZE);
    let view = target.create_view(&Default::default());
    let group = fill
        .bind_group(ctx, &[("data", Bind::Buffer(out))])
        .unwrap();
    let mut enc = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_render_pass(&w::RenderPassDescriptor {
            color_attachments: &[shader_info_gpu::wgpu::testing::cleared(&view)],
            ..Default::default()
        });
        pass.set_pipeline(&quad.pipeline);
        quad.push(ctx, &[]).unwrap().set_render(&mut pass);
        pass.set_vertex_buffer(0, vb.slice(..));
        pass.draw(0..6, 0..1);
    }
    {
        let mut pass = enc.begin_compute_pass(&Default::default());
        pass.set_pipeline(&fill.pipeline);
        group.set_compute(&mut pass);
        pass.dispatch_workgroups(1, 1, 1);
    }
    ctx.queue.submit([enc.finish()]);
    let pixels = ctx.read_texture(&target).unwrap();
    let i = ((16 * SIZE + 16) * 4) as usize;
    let value = u32::from_le_bytes(ctx.read_buffer(out).unwrap()[..4].try_into().unwrap());
    (
        [pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3]],
        value,
    )
}

impl Soaked for Wgpu<'_> {
    fn reload(&mut self) -> Result<ReloadReport, String> {
        self.lib.reload().map_err(|e| e.to_string())
    }

    fn observe(&mut self) -> ([u8; 4], u32) {
        observe(self.ctx, self.lib, self.vb, self.out)
    }
}

#[test]
fn a_thousand_random_edits_never_lose_a_wgpu_pipeline() {
    let Some(ctx) = test_context(true) else {
        return;
    };
    let (seed, steps) = (seed(), env("SOAK_STEPS", 1_000));
    eprintln!("wgpu soak: {steps} steps, SOAK_SEED={seed}");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let (reg, _) = base(root);
    let mut lib = WgpuLibrary::new(&ctx, reg.clone(), LibraryOptions::new(root)).unwrap();
    let vb = ctx
        .device
        .create_buffer_init(&w::util::BufferInitDescriptor {
            label: None,
            contents: bytemuck::cast_slice(&QUAD),
            usage: w::BufferUsages::VERTEX,
        });
    let out = storage_buffer(&ctx, &[0; 4]);
    let mut stats = soak(
        &mut Wgpu {
            ctx: &ctx,
            lib: &mut lib,
            vb: &vb,
            out: &out,
        },
        root,
        seed,
        steps,
    );
    let mut fresh = WgpuLibrary::new(&ctx, reg, LibraryOptions::new(root)).unwrap();
    assert_eq!(
        observe(&ctx, &mut lib, &vb, &out),
        observe(&ctx, &mut fresh, &vb, &out)
    );
    assert_eq!(lib.pipeline_count(), fresh.pipeline_count());
    eprintln!("{}", stats.report("wgpu soak", steps));
    drop((lib, fresh));
    assert_quiet(&ctx);
}
