// Tint (Dawn's WGSL compiler) as an independent check of WGSL: the npm package `webgpu` (Dawn for node) on its
// null backend, which compiles and validates WGSL with no GPU. Started once per pass by `gpu::cross::check`.
//
// Usage: node gpu/src/cross/check/tint-check.mjs <dir holding node_modules/webgpu>
//    or: node --input-type=module --eval "$(cat tint-check.mjs)" -- <dir> (as `tint.rs` runs it: no file to leave)
// Input (stdin): one JSON object a line, `{"id": <any>, "code": "<WGSL>"}`.
// Output (stdout): one JSON object a line per input, in order,
//   `{"id": <same>, "ok": <no error>, "messages": [{"type", "line", "column", "message"}]}`.
// The first line written is `{"ready": true, "features": [...], "maxImmediateSize": N}` once the device exists (or
// `{"ready": false, "error": "..."}`).
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

// The folder is the last argument either way (`--eval` puts no script path in argv).
const dir = process.argv.length > (process.argv[1]?.endsWith('.mjs') ? 2 : 1) ? process.argv.at(-1) : '.tools/webgpu';
const say = (o) => process.stdout.write(JSON.stringify(o) + '\n');

let device;
let features = [];
try {
  const { create, globals } = await import(pathToFileURL(join(dir, 'node_modules', 'webgpu', 'index.js')).href);
  Object.assign(globalThis, globals);
  const gpu = create(['backend=null']);
  const adapter = await gpu.requestAdapter();
  if (!adapter) throw new Error('no adapter on the null backend');
  // Modules that `enable` a feature are refused unless the device has it.
  const wanted = ['clip-distances', 'shader-f16', 'dual-source-blending', 'subgroups'];
  features = wanted.filter((f) => adapter.features.has(f));
  device = await adapter.requestDevice({ requiredFeatures: features });
} catch (e) {
  say({ ready: false, error: String(e?.stack ?? e) });
  process.exit(1);
}
say({ ready: true, features, maxImmediateSize: device.limits.maxImmediateSize ?? 0 });

// Lines are checked one after the other, so verdicts come back in input order.
const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line.trim()) continue;
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    say({ id: null, ok: false, messages: [{ type: 'error', line: 0, column: 0, message: `bad request: ${e}` }] });
    continue;
  }
  device.pushErrorScope('validation');
  const module = device.createShaderModule({ code: req.code });
  const info = await module.getCompilationInfo();
  const scoped = await device.popErrorScope();
  const messages = info.messages.map((m) => ({
    type: m.type,
    line: m.lineNum,
    column: m.linePos,
    message: m.message,
  }));
  if (scoped && !messages.some((m) => m.type === 'error')) {
    messages.push({ type: 'error', line: 0, column: 0, message: scoped.message });
  }
  say({ id: req.id ?? null, ok: !messages.some((m) => m.type === 'error'), messages });
}
device.destroy();
process.exit(0);
