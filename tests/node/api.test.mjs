// The package API as Node users get it from pkg/: CommonJS require and ESM import.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PKG, vectors, allVectors, ALL_VECTOR_COUNT, vector, compareToExpected, crateVersion, withoutFederatedRetries } from './helpers.mjs';

const require = createRequire(import.meta.url);
const hpCjs = require(path.join(PKG, 'node', 'hop_policy.js'));
const hp = await import(path.join(PKG, 'node', 'index.mjs'));

test('ESM and CommonJS entries export the same functions', () => {
  for (const name of ['planTunnel', 'planTunnelJson', 'checkDocument', 'checkDocumentJson', 'checkTunnel', 'checkTunnelJson', 'simulate', 'simulateJson', 'lifecycle', 'lifecycleJson', 'rules', 'version']) {
    assert.equal(typeof hp[name], 'function', `ESM ${name}`);
    assert.equal(hp[name], hpCjs[name], `CJS ${name}`);
  }
});

test('every golden vector (create, update, redeploy, forwards): planTunnel and planTunnelJson match expected', () => {
  const failures = [];
  const all = allVectors();
  assert.equal(all.length, ALL_VECTOR_COUNT);
  const byMode = {};
  for (const v of all) {
    const options = { mode: v.mode ?? 'create' };
    const viaObject = hp.planTunnel(v.input, options);
    const viaText = JSON.parse(hp.planTunnelJson(JSON.stringify(v.input), JSON.stringify(options)));
    // Without options the mode is read off the input (before: update, db: redeploy).
    assert.deepEqual(hp.planTunnel(v.input), viaObject, `${v.name}: the detected mode differs from ${options.mode}`);
    assert.equal(viaObject.mode, options.mode, v.name);
    assert.deepEqual(viaObject, viaText, `${v.name}: object and text plans differ`);
    const why = compareToExpected(viaObject, v.expected);
    if (why) failures.push(`${v.name}: ${why}`);
    byMode[options.mode] = (byMode[options.mode] ?? 0) + 1;
  }
  console.log(`# planTunnel: ${all.length - failures.length}/${all.length} vectors match (${Object.entries(byMode).map(([m, n]) => `${m} ${n}`).join(', ')})`);
  assert.deepEqual(failures.slice(0, 5), [], `${failures.length} of ${all.length} vectors differ`);
});

test('plans are plain objects; the input is not modified', () => {
  const v = vector('seed-federated-middle-fifo-3-exits');
  const before = structuredClone(v.input);
  const plan = hp.planTunnel(v.input);
  assert.deepEqual(v.input, before);
  assert.equal(Object.getPrototypeOf(plan), Object.prototype);
  assert.ok(Array.isArray(plan.federation) && Array.isArray(plan.local) && Array.isArray(plan.nodes));
  assert.ok(!(plan instanceof Map));
});

/** `value`, and every object and array inside it, frozen: writing to it throws in strict code. */
function deepFreeze(value) {
  if (value && typeof value === 'object') {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

test('no object form changes its arguments (the native tests cannot see this: there the borrow checker does)', () => {
  const v = vector('seed-federated-middle-fifo-3-exits');
  const plan = hp.planTunnel(v.input);
  const calls = {
    planTunnel: [v.input, { mode: 'create', limits: { maxNodes: 50 } }],
    checkDocument: [withoutFederatedRetries(plan), { kind: 'plan', limits: { maxDepth: 40 } }],
    checkTunnel: [v.input, { mode: 'create' }],
    simulate: [plan, { dead: [3], requests: 3, limits: { maxNodes: 50 } }],
    lifecycle: [[{ op: 'apply', input: v.input }, { op: 'release', unreachable: [2] }, { op: 'apply', plan }]],
  };
  for (const [name, args] of Object.entries(calls)) {
    const given = structuredClone(args);
    const answer = hp[name](...given);
    assert.deepEqual(given, args, `${name} changed its arguments`);
    // Frozen arguments (a caller's immutable state) are read the same way.
    assert.deepEqual(hp[name](...deepFreeze(structuredClone(args))), answer, `${name} of frozen arguments`);
  }
});

test('remoteToken never appears in a plan', () => {
  for (const v of vectors()) {
    const input = structuredClone(v.input);
    for (const n of input.nodes) n.remoteToken = 'TOKEN-do-not-leak-91c2';
    assert.ok(!hp.planTunnelJson(JSON.stringify(input)).includes('TOKEN-do-not-leak-91c2'), v.name);
  }
});

test('bad input throws HopPolicyError with code and path', () => {
  const cases = [
    () => hp.planTunnel(undefined),
    () => { const o = {}; o.self = o; return hp.planTunnel(o); },
    () => hp.planTunnel({ tunnel: { id: 1n } }),
    () => hp.planTunnelJson('{"tunnel": '),
    () => hp.simulateJson('nope', '{}'),
    () => hp.lifecycleJson('[1,'),
  ];
  for (const run of cases) {
    assert.throws(run, (e) => e instanceof Error && e.name === 'HopPolicyError' && e.code === 'IN001' && e.path === '' && e.message.length > 0);
  }
  assert.throws(() => hp.checkDocument({}, { kind: 42 }), (e) => e.code === 'BAD_OPTIONS');
  assert.throws(() => hp.checkDocumentJson('{}', '{"kind":'), (e) => e.code === 'BAD_OPTIONS');
});

test('any JSON value is planned or rejected, never trapped', () => {
  for (const input of [null, 0, 'x', [], {}, { tunnel: null, nodes: 7 }, { tunnel: { inNodeId: [{ nodeId: '1e999' }] }, nodes: [] }, { __proto__: null, tunnel: {} }]) {
    const plan = hp.planTunnel(input);
    assert.notEqual(plan.error, null, JSON.stringify(input));
    assert.deepEqual(plan.federation, []);
  }
});

test('__proto__ keys are data: no prototype pollution, same plan as the text path', () => {
  const v = vector('seed-federated-middle-fifo-3-exits');
  const text = JSON.stringify({ ...v.input, ['__proto__']: { polluted: true } }).replace('{', '{"__proto__":{"polluted":true},');
  const input = JSON.parse(text);
  assert.ok(Object.hasOwn(input, '__proto__'));
  const plan = hp.planTunnel(input);
  assert.equal({}.polluted, undefined);
  assert.deepEqual(plan, JSON.parse(hp.planTunnelJson(text)));
  assert.equal(compareToExpected(plan, v.expected), null);
});

test('checkDocument: unreadable documents are IN001 findings, not throws', () => {
  const o = {};
  o.self = o;
  const r1 = hp.checkDocument(o);
  assert.deepEqual(r1.findings.map((f) => f.code), ['IN001']);
  const r2 = JSON.parse(hp.checkDocumentJson('{not json'));
  assert.deepEqual(r2.findings.map((f) => f.code), ['IN001']);
  assert.equal(r2.summary.errors, 1);
  assert.equal(r1.findings[0].severity, 'error');
  assert.ok(r1.findings[0].messageZh.length > 0);
});

test('checkDocument: object and JSON forms agree; FO001 on a federated middle without retries', () => {
  const v = vector('seed-federated-middle-fifo-3-exits');
  const broken = withoutFederatedRetries(v.expected);
  const viaObject = hp.checkDocument(broken, { kind: 'plan' });
  const viaText = JSON.parse(hp.checkDocumentJson(JSON.stringify(broken), JSON.stringify({ kind: 'plan' })));
  assert.deepEqual(viaObject, viaText);
  const fo = viaObject.findings.filter((f) => f.code === 'FO001');
  assert.equal(fo.length, 1, JSON.stringify(viaObject.findings));
  assert.equal(fo[0].nodeId, 2);
  assert.equal(fo[0].fix.value, 2);
  const clean = hp.checkDocument(v.expected, { kind: 'plan' });
  assert.ok(!clean.findings.some((f) => f.code === 'FO001'));
});

test('version is the crate version and the package.json version', () => {
  const manifest = JSON.parse(readFileSync(path.join(PKG, 'package.json'), 'utf8'));
  assert.equal(hp.version(), crateVersion());
  assert.equal(manifest.version, crateVersion());
});

test('pkg/package.json is derived from pkg.json with the full exports map', () => {
  const manifest = JSON.parse(readFileSync(path.join(PKG, 'package.json'), 'utf8'));
  const source = JSON.parse(readFileSync(path.join(PKG, '..', 'pkg.json'), 'utf8'));
  assert.deepEqual({ ...manifest, version: null }, { ...source, version: null });
  const dot = manifest.exports['.'];
  assert.equal(dot.node.import, './node/index.mjs');
  assert.equal(dot.node.require, './node/hop_policy.js');
  assert.equal(Object.keys(dot.node)[0], 'types');
  assert.equal(manifest.exports['./web'].default, './web/hop_policy.js');
  assert.equal(manifest.exports['./bundler'].default, './bundler/hop_policy.js');
  assert.equal(manifest.bin['hop-policy'], 'bin/hop-policy.mjs');
  const files = (p) => readFileSync(path.join(PKG, p), 'utf8');
  for (const entry of ['node/hop_policy.d.ts', 'web/hop_policy.d.ts', 'bundler/hop_policy.d.ts']) {
    // The raw wasm exports of InitOutput are wasm-bindgen's internals; the API must not use any.
    const dts = files(entry).replace(/export interface InitOutput \{[\s\S]*?\n\}/, '');
    assert.match(dts, /export interface Plan \{/);
    assert.match(dts, /export function planTunnel\(input: PlanInput, options\?: PlanOptions\): Plan;/);
    assert.match(dts, /export type PlanInput = TunnelInput \| RedeployInput;/);
    assert.doesNotMatch(dts, /: any\b/, `${entry} uses any`);
  }
  assert.match(files('web/hop_policy.d.ts'), /export default function __wbg_init/);
});

test('checkTunnel: plan and findings in one call, same as planTunnel + checkDocument', () => {
  const v = vector('seed-federated-middle-fifo-3-exits');
  const tc = hp.checkTunnel(v.input);
  assert.deepEqual(Object.keys(tc).sort(), ['findings', 'plan']);
  assert.deepEqual(tc.plan, hp.planTunnel(v.input));
  assert.deepEqual(tc, JSON.parse(hp.checkTunnelJson(JSON.stringify(v.input))));
  assert.ok(!tc.findings.some((f) => f.code === 'FO001'));
  const rejected = hp.checkTunnel({ tunnel: { id: 1, type: 2, inNodeId: [] }, nodes: [] });
  assert.notEqual(rejected.plan.error, null);
  assert.deepEqual(rejected.findings.map((f) => f.code), ['IN002']);
});

test('rules(): every rule family with codes, severities and both languages', () => {
  const rules = hp.rules();
  const codes = rules.map((r) => r.code);
  for (const code of ['AC001', 'AC006', 'FO001', 'FO004', 'LK001', 'LK003', 'PA001', 'PA005', 'LC001', 'IN001', 'IN002']) assert.ok(codes.includes(code), code);
  const fo1 = rules.find((r) => r.code === 'FO001');
  assert.equal(fo1.rule, 'missing-retries');
  assert.equal(fo1.severity, 'error');
  assert.ok(fo1.description.length > 0 && fo1.descriptionZh.length > 0);
});

test('simulate: the seed with exit 1 dead fails over to exit 2 (object and JSON forms agree)', () => {
  const v = vector('seed-federated-middle-fifo-3-exits');
  const plan = hp.planTunnel(v.input);
  const trace = hp.simulate(plan, { dead: [3], requests: 3 });
  assert.deepEqual(trace, JSON.parse(hp.simulateJson(JSON.stringify(plan), JSON.stringify({ dead: [3], requests: 3 }))));
  assert.equal(trace.requests.length, 3);
  assert.ok(trace.requests.every((r) => r.ok));
  assert.equal(trace.requests[0].exitNodeId, 4);
  const broken = hp.simulate(withoutFederatedRetries(plan), { dead: [3], requests: 2 });
  assert.deepEqual(broken.requests.map((r) => r.ok), [false, true]);
  assert.throws(() => hp.simulate(plan, { requests: 'many' }), (e) => e.code === 'BAD_SCENARIO');
});

test('lifecycle: release lost at the provider, then an edit to three exits: LC001', () => {
  const v = vector('seed-federated-middle-fifo-3-exits');
  const oneExit = structuredClone(v.input);
  oneExit.tunnel.outNodeId = oneExit.tunnel.outNodeId.slice(0, 1);
  const report = hp.lifecycle([
    { op: 'apply', input: oneExit },
    { op: 'release', unreachable: [2] },
    { op: 'apply', input: v.input },
  ]);
  assert.ok(report.findings.some((f) => f.code === 'LC001'), JSON.stringify(report.findings));
  assert.deepEqual(report, JSON.parse(hp.lifecycleJson(JSON.stringify([
    { op: 'apply', input: oneExit },
    { op: 'release', unreachable: [2] },
    { op: 'apply', input: v.input },
  ]))));
});
