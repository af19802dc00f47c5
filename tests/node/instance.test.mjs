// The wasm instance survives its callers: hostile arguments (revoked
// Proxies, throwing getters and traps, toJSON that throws, symbols, bigints)
// are a HopPolicyError before wasm state changes, however often; a call made
// near the JS stack limit succeeds or is a HopPolicyError and the module is
// reset for the next call; text over the byte limit is refused before it is
// copied into wasm memory. Each runs in a child process (its own instance).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { PKG, SEED_FILE } from './helpers.mjs';

const GLUE = path.join(PKG, 'node', 'hop_policy.js');

// Runs `body` in a child with `hp` (the package), `seed` (the seed input
// text) and `memory()` (the bytes of every wasm memory the package made);
// the child writes its answer as JSON.
function child(body, args = []) {
  const script = `
const instances = [];
WebAssembly.Instance = new Proxy(WebAssembly.Instance, {
  construct(target, a) { const i = Reflect.construct(target, a); instances.push(i); return i; },
});
const memory = () => instances.reduce((n, i) => n + i.exports.memory.buffer.byteLength, 0);
const hp = require(${JSON.stringify(GLUE)});
const seed = require('fs').readFileSync(${JSON.stringify(SEED_FILE)}, 'utf8');
const out = (() => { ${body} })();
process.stdout.write(JSON.stringify({ ...out, seedPlan: hp.planTunnelJson(seed) }));
`;
  const r = spawnSync(process.execPath, [...args, '-e', script], { encoding: 'utf8', maxBuffer: 64 << 20 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const fresh = () => spawnSync(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(GLUE)}).planTunnelJson(require('fs').readFileSync(${JSON.stringify(SEED_FILE)}, 'utf8')))`], { encoding: 'utf8' }).stdout;

test('hostile arguments in every position are a HopPolicyError with a code, 3000 times over', () => {
  const out = child(`
const hostile = () => {
  const { proxy, revoke } = Proxy.revocable({}, {}); revoke();
  const thrower = () => { throw new Error('trap'); };
  return {
    revoked: proxy,
    getter: { get tunnel() { throw new Error('getter'); } },
    traps: new Proxy({}, { getPrototypeOf: thrower, ownKeys: thrower, get: thrower, has: thrower, getOwnPropertyDescriptor: thrower }),
    toJSON: { toJSON() { throw new Error('toJSON'); } },
    symbol: Symbol('s'),
    bigint: 10n,
  };
};
const calls = (v) => [
  () => hp.planTunnelJson(v), () => hp.planTunnelJson('{}', v), () => hp.planTunnel(v), () => hp.planTunnel({}, v),
  () => hp.checkTunnelJson(v), () => hp.checkTunnel({}, v), () => hp.checkDocument(v, v), () => hp.checkDocumentJson('{}', v),
  () => hp.checkDocumentFormatted(v, 'text'), () => hp.checkDocumentFormatted('{}', v), () => hp.checkDocumentFormatted('{}', 'text', v),
  () => hp.checkDocumentFormatted('{}', 'text', null, v), () => hp.checkDocumentFormatted('{}', 'text', null, null, v),
  () => hp.checkUnreadableJson(v), () => hp.checkUnreadableJson('x', v), () => hp.simulate(v), () => hp.simulate({}, v),
  () => hp.simulateJson(v), () => hp.simulateJson('{}', v), () => hp.simulateText(v), () => hp.simulateText('{}', v),
  () => hp.lifecycle(v), () => hp.lifecycleJson(v), () => hp.backupTunnelsJson(v), () => hp.auditPanelJson(v),
];
const codes = {};
let foreign = 0, answered = 0, total = 0;
for (let i = 0; i < 3000; i++) {
  for (const [name, v] of Object.entries(hostile())) {
    for (const call of calls(v)) {
      total++;
      try { call(); answered++; } catch (e) {
        if (e instanceof hp.HopPolicyError && typeof e.code === 'string' && e.message && typeof e.path === 'string') codes[e.code] = (codes[e.code] || 0) + 1;
        else if (foreign++ < 3) console.error(name, e);
      }
    }
  }
}
return { codes, foreign, answered, total };
`, ['--wasm-max-table-size=2000']);
  assert.equal(out.foreign, 0, 'every failure is a HopPolicyError with code, message and path');
  assert.deepEqual(Object.keys(out.codes).sort(), ['BAD_ARGUMENT', 'IN001']);
  // checkDocument and checkDocumentJson report an unreadable document as a finding.
  assert.ok(out.answered > 0 && out.answered < out.total / 5, `${out.answered} of ${out.total} answered`);
  assert.equal(out.seedPlan, fresh(), 'the next normal call answers what a fresh process answers');
});

test('a call near the stack limit succeeds or is a HopPolicyError, and the next call is right', () => {
  const out = child(`
const want = hp.planTunnelJson(seed);
let up;
// Recurses until the stack is exhausted, then calls \`f\` k levels above that.
function nearLimit(k, f) {
  try { return nearLimit(k, f); } catch (e) {
    if (up < k) { up++; throw e; }
    up = Infinity;
    return f();
  }
}
const outcomes = {};
const outside = [];
let wrong = 0;
for (let i = 0; i < 600; i++) {
  up = 0;
  const r = nearLimit(i % 60, () => {
    try { return hp.planTunnelJson(seed) === want ? 'right' : 'wrong'; } catch (e) { return e; }
  });
  const key = typeof r === 'string' ? r : r instanceof hp.HopPolicyError ? r.code : r.name;
  // A RangeError raised on entering the exported function (its frame the
  // only package frame, on top) is the caller's: none of its body ran, so
  // nothing there could catch it. Any other is one that escaped.
  if (key === 'RangeError') {
    const frames = String(r.stack).split('\\n').slice(1);
    const inPackage = frames.map((f, i) => f.includes(${JSON.stringify(PKG)}) ? i : -1).filter((i) => i >= 0);
    if (inPackage.length !== 1 || inPackage[0] !== 0) outside.push(String(r.stack));
  }
  outcomes[key] = (outcomes[key] || 0) + 1;
  if (hp.planTunnelJson(seed) !== want) wrong++;
}
return { outcomes, outside, wrong };
`);
  assert.equal(out.wrong, 0, 'every next call answers right');
  assert.deepEqual(out.outside, [], 'no RangeError escapes from inside the package');
  assert.equal(out.outcomes.wrong, undefined);
  for (const k of Object.keys(out.outcomes)) assert.ok(['right', 'STACK_EXHAUSTED', 'INTERNAL', 'RangeError'].includes(k), k);
  assert.ok(out.outcomes.STACK_EXHAUSTED > 0, `the limit was reached inside the package: ${JSON.stringify(out.outcomes)}`);
  assert.equal(out.seedPlan, fresh());
});

test('text over the byte limit is refused before it is copied into wasm memory', () => {
  const out = child(`
const big = ' '.repeat(17 << 20);
hp.planTunnelJson(seed);
hp.checkDocumentJson(seed);
const before = memory();
const plan = JSON.parse(hp.planTunnelJson(big));
const report = JSON.parse(hp.checkDocumentJson(big));
const objectPlan = hp.planTunnel({ pad: big });
let simulate, options;
try { hp.simulateJson(big); } catch (e) { simulate = e.code + ': ' + e.message; }
try { hp.planTunnelJson('{}', big); } catch (e) { options = e.code + ': ' + e.message; }
const refused = memory();
let raised;
try { hp.planTunnelJson(big, JSON.stringify({ limits: { maxInputBytes: 18 << 20 } })); } catch (e) { raised = e.code; }
return { before, refused, after: memory(), plan: plan.error, report: report.findings, objectPlan: objectPlan.error.code, simulate, options, raised };
`);
  assert.equal(out.plan.code, 'LIMIT_EXCEEDED');
  assert.match(out.plan.messageEn, /byte limit: 17825792 > 16777216 \(raise option limits\.maxInputBytes/);
  assert.equal(out.report.length, 1);
  assert.equal(out.report[0].code, 'IN001');
  assert.match(out.report[0].message, /limits\.maxInputBytes/);
  assert.equal(out.objectPlan, 'LIMIT_EXCEEDED');
  assert.match(out.simulate, /^LIMIT_EXCEEDED: .*maxInputBytes/);
  assert.match(out.options, /^BAD_ARGUMENT: optionsJson is too long/);
  assert.ok(out.refused - out.before < 1 << 20, `refusing grew the wasm memory by ${out.refused - out.before} bytes`);
  // With the limit raised the text is read (all spaces: not JSON), and the
  // memory measured grows by at least its size.
  assert.equal(out.raised, 'IN001');
  assert.ok(out.after - out.refused >= 17 << 20, `reading grew the wasm memory by ${out.after - out.refused} bytes`);
  assert.equal(out.seedPlan, fresh());
});

test('hash keys come from crypto when the first keyed map is built (a small tunnel\'s plan builds none), else from Math.random, and no answer depends on them', () => {
  // A config whose services share ports and names (LK004 and the last
  // config per name go through the keyed maps of src/lookup.rs).
  const services = [];
  for (let i = 0; i < 300; i++) {
    const listener = { type: i % 3 ? 'tcp' : 'udp' };
    services.push({ name: `svc_${i % 250}`, addr: `:${8000 + (i % 40)}`, handler: { type: 'tcp', chain: `chains_${i % 60}` }, listener });
  }
  const chains = [];
  for (let i = 0; i < 60; i++) {
    const nodes = [{ name: 'a', addr: `10.0.${i}.1:443` }, { name: 'b', addr: `10.0.${i}.2:443` }];
    chains.push({ name: `chains_${i}`, hops: [{ name: `hop_${i}`, nodes }] });
  }
  const doc = JSON.stringify({ services, chains });
  // `setup` runs before the package is loaded; `loaded` after it, before the
  // first call; `small` after planning the seed tunnel (a few nodes: its
  // node table is searched in order, so no keyed map is built yet).
  const run = (setup) => {
    const script = `
let words = 0, randoms = 0;
const random = Math.random;
Math.random = () => { randoms++; return random(); };
${setup}
const hp = require(${JSON.stringify(GLUE)});
const loaded = { words, randoms };
const seedPlan = hp.planTunnelJson(require('fs').readFileSync(${JSON.stringify(SEED_FILE)}, 'utf8'));
const small = { words, randoms };
const report = hp.checkDocumentJson(${JSON.stringify(doc)});
process.stdout.write(JSON.stringify({ report, seedPlan, words, randoms, loaded, small }));
`;
    const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', maxBuffer: 64 << 20 });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  // (`crypto` alone is node:crypto in a -e script; the page's is globalThis.crypto.)
  const counted = 'const c = globalThis.crypto, get = c.getRandomValues.bind(c); c.getRandomValues = (a) => { words += a.length; return get(a); };';
  const withCrypto = run(counted);
  const without = run(`Object.defineProperty(globalThis, 'crypto', { value: undefined, configurable: true });`);
  const zeros = run('globalThis.crypto.getRandomValues = (a) => { words += a.length; return a.fill(0); };');
  assert.deepEqual(withCrypto.loaded, { words: 0, randoms: 0 }, 'loading the package draws nothing');
  assert.deepEqual(withCrypto.small, { words: 0, randoms: 0 }, 'a small tunnel\'s plan builds no keyed map: nothing drawn');
  assert.deepEqual(without.small, { words: 0, randoms: 0 });
  assert.equal(withCrypto.words, 4, 'four random words from crypto, once');
  assert.equal(withCrypto.randoms, 0);
  assert.ok(without.randoms >= 4, 'Math.random stands in without crypto');
  assert.equal(zeros.words, 4);
  const codes = JSON.parse(withCrypto.report).summary.byCode;
  assert.ok(codes.LK004 > 0 && codes.FO001 > 0, JSON.stringify(codes));
  assert.equal(without.report, withCrypto.report);
  assert.equal(zeros.report, withCrypto.report);
  assert.equal(without.seedPlan, withCrypto.seedPlan);
  assert.equal(zeros.seedPlan, withCrypto.seedPlan);
});
