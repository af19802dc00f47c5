// Times the package API in Node over every golden input (create, update,
// redeploy), each planned in its mode, against the floor
// (JSON.parse of the plan text): node examples/measure.mjs  (after scripts/build)
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const t0 = performance.now();
const hp = require(path.join(root, 'pkg', 'node', 'hop_policy.js'));
const loadMs = performance.now() - t0;

const wasmFile = path.join(root, 'pkg', 'web', 'hop_policy_bg.wasm');
const wasm = readFileSync(wasmFile);
const t1 = performance.now();
await WebAssembly.compile(wasm);
const compileMs = performance.now() - t1;

const vectors = ['plan', 'update', 'redeploy'].flatMap((m) =>
  readFileSync(path.join(root, 'tests', 'data', `${m}-vectors.jsonl`), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)),
);
// Each input asks for its own mode (before: update, db: redeploy).
const inputs = vectors.map((v) => v.input);
const texts = inputs.map((i) => JSON.stringify(i));
const plans = texts.map((t) => hp.planTunnelJson(t));
const bytes = plans.reduce((n, t) => n + Buffer.byteLength(t), 0);

function time(f) {
  for (let w = 0; w < 3; w++) f();
  const runs = [];
  for (let i = 0; i < 7; i++) {
    const s = performance.now();
    f();
    runs.push(performance.now() - s);
  }
  runs.sort((a, b) => a - b);
  return runs[3]; // median
}

const rows = [
  ['floor: JSON.parse(plan text)', time(() => { for (const t of plans) JSON.parse(t); })],
  ['planTunnel(object)', time(() => { for (const i of inputs) hp.planTunnel(i); })],
  ['JSON.parse(planTunnelJson(text))', time(() => { for (const t of texts) JSON.parse(hp.planTunnelJson(t)); })],
  ['planTunnelJson(text)', time(() => { for (const t of texts) hp.planTunnelJson(t); })],
  ['checkDocumentJson(plan text)', time(() => { for (const t of plans) hp.checkDocumentJson(t); })],
];
const floor = rows[0][1];
console.log(`.wasm ${wasm.length} bytes raw, ${gzipSync(wasm, { level: 9 }).length} gzip; require ${loadMs.toFixed(1)} ms, WebAssembly.compile ${compileMs.toFixed(1)} ms`);
console.log(`${vectors.length} golden inputs, ${bytes} bytes of plan JSON; median of 7 runs`);
for (const [name, ms] of rows) {
  console.log(`${name.padEnd(36)} ${ms.toFixed(1).padStart(8)} ms  ${(ms * 1e6 / bytes).toFixed(0).padStart(5)} ns/plan byte  ${(ms / floor).toFixed(1).padStart(5)}x floor`);
}

