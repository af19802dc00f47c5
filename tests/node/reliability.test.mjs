// Failing calls leak nothing: every object-form entry point with arguments
// JSON.stringify cannot convert, every text entry point with wrong argument
// types, and the error paths, many times over in a process whose externref
// table is capped (a leak of one slot per call exhausts it within the run),
// then a normal call answers exactly what a fresh process answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { PKG, SEED_FILE } from './helpers.mjs';

const CALLS = Number(process.env.HOP_POLICY_LEAK_CALLS || 4000);

const script = `
const hp = require(${JSON.stringify(path.join(PKG, 'node', 'hop_policy.js'))});
const fs = require('fs');
const seed = fs.readFileSync(${JSON.stringify(SEED_FILE)}, 'utf8');
const cyclic = {}; cyclic.self = cyclic;
const getter = { get tunnel() { throw new Error('no'); } };
const nastyError = { get tunnel() { const e = new Error('x'); Object.defineProperty(e, 'message', { get() { throw new Error('again'); } }); throw e; } };
const unserialisable = [{ tunnel: 1n }, cyclic, getter, nastyError, { toJSON() { throw 5; } }, new Proxy({}, { ownKeys() { throw new Error('trap'); } })];
const wrongText = [{ kind: 'plan' }, 5, true, Symbol('s'), 10n, [1], () => 1];
const kinds = [];
for (const u of unserialisable) {
  kinds.push(() => hp.planTunnel(u), () => hp.checkTunnel(u), () => hp.simulate(u), () => hp.lifecycle(u));
  kinds.push(() => hp.checkDocument({}, u), () => hp.simulate({}, u), () => hp.planTunnel({}, u));
}
for (const w of wrongText) {
  kinds.push(() => hp.planTunnelJson(w), () => hp.planTunnelJson('{}', w), () => hp.checkDocumentJson('{}', w),
    () => hp.simulateJson('{}', w), () => hp.simulateText('{}', w), () => hp.checkDocumentFormatted('{}', 'text', w),
    () => hp.checkDocumentFormatted('{}', w), () => hp.checkUnreadableJson('x', w), () => hp.checkUnreadableJson(w), () => hp.lifecycleJson(w));
}
kinds.push(() => hp.planTunnelJson('{'), () => hp.simulateJson('nope', '{}'), () => hp.lifecycleJson('[1,'),
  () => hp.checkDocumentJson('{}', '{"limits": 1}'), () => hp.planTunnelJson(seed, '{"limits": {"maxInputBytes": 10}}'));
const before = process.memoryUsage().rss;
let foreign = 0;
for (let i = 0; i < ${CALLS}; i++) {
  for (const call of kinds) {
    try { call(); } catch (e) { if (!e || e.name !== 'HopPolicyError' || typeof e.code !== 'string') { foreign++; if (foreign < 4) console.error('not a HopPolicyError:', e && e.message); } }
  }
}
const after = process.memoryUsage().rss;
process.stdout.write(JSON.stringify({ kinds: kinds.length, foreign, rssGrowthMb: (after - before) / 1048576, plan: hp.planTunnelJson(seed) }));
`;

test(`${CALLS} rounds of failing calls of every kind leak no table slot and no memory`, () => {
  const r = spawnSync(process.execPath, ['--wasm-max-table-size=2000', '-e', script], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.stderr);
  const out = JSON.parse(r.stdout);
  assert.equal(out.foreign, 0, 'every failure is a HopPolicyError with a code');
  assert.ok(out.kinds > 50, `${out.kinds} kinds of failing call`);
  const fresh = spawnSync(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(path.join(PKG, 'node', 'hop_policy.js'))}).planTunnelJson(require('fs').readFileSync(${JSON.stringify(SEED_FILE)}, 'utf8')))`], { encoding: 'utf8' });
  assert.equal(out.plan, fresh.stdout, 'the next normal call answers what a fresh process answers');
  assert.ok(out.rssGrowthMb < 64, `RSS grew ${out.rssGrowthMb.toFixed(1)} MB`);
  console.log(`  ${out.kinds} kinds x ${CALLS} calls; RSS growth ${out.rssGrowthMb.toFixed(1)} MB`);
});

test('wrong argument types are a HopPolicyError BAD_ARGUMENT naming the argument', async () => {
  const hp = (await import(path.join(PKG, 'node', 'index.mjs'))).default;
  for (const [call, name] of [
    [() => hp.checkDocumentJson('{}', { kind: 'plan' }), 'optionsJson'],
    [() => hp.simulateJson('{}', 5), 'scenarioJson'],
    [() => hp.checkDocumentFormatted('{}', 7), 'format'],
    [() => hp.planTunnelJson(['x']), 'the tunnel input'],
  ]) {
    assert.throws(call, (e) => e.name === 'HopPolicyError' && e.code === 'BAD_ARGUMENT' && e.message.includes(name), name);
  }
});
