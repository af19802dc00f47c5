// The package's TypeScript declarations against real inputs and outputs,
// checked by TypeScript itself (`tsc --strict`, `skipLibCheck: false`):
// every golden vector's input, options and plan, every kind of output the
// package writes, each written as a typed object literal, so an undeclared
// key, a missing required key, a value outside a closed set or a name the
// `.d.ts` does not resolve fails. HOP_POLICY_DECL_EVERY=N keeps every Nth
// vector only (default: all of them, about 20 s of tsc).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PKG, ROOT, NODE_MODULES, SEED_FILE, allVectors, vectors, linkedProject } from './helpers.mjs';

const require = createRequire(import.meta.url);
const m = require(path.join(PKG, 'node', 'hop_policy.js'));
const TSC = path.join(NODE_MODULES, 'typescript', 'bin', 'tsc');
const DTS = readFileSync(path.join(PKG, 'node', 'hop_policy.d.ts'), 'utf8');
const EVERY = Math.max(1, Number(process.env.HOP_POLICY_DECL_EVERY ?? 1));

/** Every name the package's TypeScript declares. */
const DECLARED_NAMES = [
  'AgentState', 'Apply', 'Assumption', 'Attempt', 'AuditedTunnel', 'BackupTunnel', 'Candidate', 'Chain', 'ChainNode',
  'CheckDocument', 'CheckOptions', 'CheckReport', 'Command', 'CommandData', 'CommandName', 'CommandSelector',
  'DbRow', 'DeleteChainData', 'DeleteServicesData', 'DocumentKind', 'ErrorCode', 'FederationAllocation',
  'FederationStep', 'Finding', 'FindingCode', 'Fix', 'ForwardContext', 'ForwardDb', 'ForwardPayload', 'ForwardPortRow',
  'ForwardRow', 'ForwardService', 'ForwardStep', 'ForwardUser', 'Forwarder', 'ForwarderNode', 'ForwarderSelector', 'Handler',
  'Hop', 'HopPolicyError', 'HopPolicyErrorFields', 'JsonValue', 'LifecycleOp', 'LifecycleReport', 'LifecycleStep',
  'LimiterData', 'Limits', 'Loose', 'MetaValue', 'NodeConfig', 'NodeRole', 'NodeRow', 'NodeSelector', 'NumberOrText', 'Plan',
  'PlanDocument', 'PlanError', 'PlanErrorCode', 'PlanInput', 'PlanMode', 'PlanNode', 'PlanOptions', 'Plugin',
  'Protocol', 'RedeployInput', 'RedeployRequest', 'ReportStep', 'RequestTrace', 'Reserve', 'Role', 'RuleInfo', 'Scenario',
  'Selector', 'Service', 'Severity', 'SimulateDocument', 'SkippedTarget', 'StepHead', 'StoredTables',
  'Strategy', 'Summary', 'Target', 'TargetTry', 'Token', 'Trace', 'TraceForward', 'TraceSummary', 'TunnelCheck',
  'TunnelDeploy', 'TunnelInput', 'TunnelNodeRef', 'TunnelPayload', 'TunnelRequest', 'TunnelStep', 'TunnelType', 'UpdateChainData',
  'UpdateLimiterData',
].sort();

/** The declared types (and classes) of the `.d.ts`. */
function declaredNames() {
  const names = [...DTS.matchAll(/^export (?:declare )?(?:type|interface|class) (\w+)/gm)].map((x) => x[1]);
  return [...new Set(names)].sort();
}

/** The string literals of a declared union, its escape `(string & {})` left out. */
function literals(name) {
  const decl = DTS.match(new RegExp(`^export type ${name} =([^;]*);`, 'm'));
  assert.ok(decl, `${name} is declared as a union`);
  return [...decl[1].matchAll(/['"]([^'"]+)['"]/g)].map((x) => x[1]).sort();
}

/** A TypeScript module of typed constants: `[type, value]` pairs. */
function module(pairs) {
  const used = new Set(pairs.map(([type]) => type.replace(/\[\]$/, '')).filter((t) => /^[A-Z]/.test(t)));
  const lines = [`import type { ${[...used].sort().join(', ')} } from 'hop-policy';`];
  pairs.forEach(([type, value], i) => lines.push(`export const v${i}: ${type} = ${JSON.stringify(value)};`));
  return lines.join('\n') + '\n';
}

/** Runs strict tsc over `files` ({name: source}) resolving `hop-policy` to pkg/. */
function tsc(files) {
  const dir = linkedProject('hop-policy-decl-');
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'decl-check', private: true, type: 'module' }));
  const config = JSON.parse(readFileSync(path.join(ROOT, 'tests', 'node', 'types', 'tsconfig.json'), 'utf8'));
  config.files = Object.keys(files);
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
  for (const [name, source] of Object.entries(files)) writeFileSync(path.join(dir, name), source);
  const r = spawnSync(process.execPath, [TSC, '-p', path.join(dir, 'tsconfig.json')], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return { code: r.status, out: `${r.stdout}${r.stderr}`.slice(0, 4000) };
}

const json = (text) => JSON.parse(text);
const seed = () => vectors().find((v) => v.name === 'seed-federated-middle-fifo-3-exits');

/** Golden inputs, options and plans, as `vectorsDeclared` types them. */
function vectorPairs() {
  const pairs = [];
  allVectors().filter((_, i) => i % EVERY === 0).forEach((v) => {
    const mode = v.mode ?? 'create';
    const options = { mode };
    pairs.push([mode === 'redeploy' ? 'RedeployInput' : 'TunnelInput', v.input], ['PlanInput', v.input], ['PlanOptions', options]);
    const plan = json(m.planTunnelJson(JSON.stringify(v.input), JSON.stringify(options)));
    assert.equal(plan.mode, mode, v.name);
    pairs.push(['Plan', plan], ['SimulateDocument', plan]);
    const expected = v.expected;
    if (mode === 'create' && expected.error === null) {
      pairs.push(['PlanDocument', expected], ['CheckDocument', expected]);
      pairs.push(['Plan', { ...expected, nodes: [], mode: 'create', assumed: [], warnings: [] }]);
    }
    if (mode.startsWith('forward') || expected.db !== undefined) {
      pairs.push(['Command[]', expected.local]);
      if (expected.warnings) pairs.push(['string[]', expected.warnings]);
      if (expected.db) pairs.push(['ForwardDb', expected.db]);
      if (expected.federation) pairs.push(['FederationStep[]', expected.federation]);
    }
  });
  return pairs;
}

/** Every kind of output the package writes besides plans, with the inputs that ask for them. */
function outputPairs() {
  const s = seed();
  const pairs = [];
  for (const doc of [JSON.stringify(s.input), JSON.stringify(s.expected), '{"services":[]}', '[1,2', '42']) {
    pairs.push(['CheckReport', json(m.checkDocumentJson(doc))]);
  }
  vectors().slice(0, 150).forEach((v) => {
    pairs.push(['CheckReport', json(m.checkDocumentJson(JSON.stringify(v.input)))]);
    pairs.push(['CheckReport', json(m.checkDocumentJson(JSON.stringify(v.expected)))]);
  });
  pairs.push(['CheckReport', json(m.checkUnreadableJson('gone'))]);
  pairs.push(['TunnelCheck', json(m.checkTunnelJson(JSON.stringify(s.input), '{"mode":"create"}'))]);
  pairs.push(['RuleInfo[]', m.rules()], ['CheckOptions', { kind: 'plan', limits: { maxDepth: 5 } }]);
  for (const scenario of [{ dead: [3], requests: 3 }, { dead: [3, 4, 5], requests: 4 }, { dead: ['203.0.113.4:45002'], seed: 9, entry: '1' }]) {
    pairs.push(['Scenario', scenario], ['Trace', json(m.simulateJson(JSON.stringify(s.expected), JSON.stringify(scenario)))]);
  }
  const example = readFileSync(path.join(ROOT, 'examples', 'tunnel-with-forwards.json'), 'utf8');
  const plan = m.planTunnelJson(example, '{"mode":"forward-create"}');
  const scenario = { dead: [2], deadTargets: [2], forward: 'web', maxFails: 2, failTimeout: '30s', retries: 1, reviveAtMs: 2000, requests: 3 };
  const trace = json(m.simulateJson(plan, JSON.stringify(scenario)));
  assert.ok(trace.forward, 'the trace of requests entering at a forward');
  pairs.push(['Scenario', scenario], ['Trace', trace]);
  const steps = lifecycleSteps(s.input);
  const report = json(m.lifecycleJson(JSON.stringify(steps)));
  pairs.push(['LifecycleStep[]', steps], ['LifecycleReport', report]);
  const backup = readFileSync(path.join(ROOT, 'examples', 'panel-backup.json'), 'utf8');
  const tunnels = json(m.backupTunnelsJson(backup));
  assert.ok(tunnels.length > 0);
  pairs.push(['BackupTunnel[]', tunnels], ['AuditedTunnel[]', json(m.auditPanelJson(backup))]);
  let error;
  try {
    m.planTunnelJson('{');
  } catch (e) {
    error = { code: e.code, message: e.message, path: e.path };
  }
  pairs.push(['HopPolicyErrorFields', error]);
  return { pairs, report };
}

function lifecycleSteps(input) {
  return [
    { op: 'apply', input },
    { op: 'release', unreachable: [2] },
    { op: 'apply', input, timeouts: [0, { nodeId: 1, command: 'AddService' }] },
    { op: 'applyError', input, failAt: 1 },
    { op: 'apply', input },
    { op: 'report', nodeId: 2, providerTunnels: { 2: [31] } },
    { op: 'report' },
    { op: 'forwardCreate', speedLimits: [{ id: 2, speed: 100 }], user: { id: 1, roleId: 0 }, forward: { tunnelId: 7, name: 'web', remoteAddr: '203.0.113.50:443', speedId: 2 } },
    { op: 'forwardEdit', forward: { id: 1, remoteAddr: '203.0.113.51:443' }, offline: [3] },
    { op: 'forwardPause', id: 1 },
    { op: 'forwardResume', id: '1', agents: { 1: { legacy: true } } },
    { op: 'report', nodeId: 1 },
    { op: 'forwardDelete', id: 1 },
    { op: 'delete' },
  ];
}

/** The values of every `command` key in `v`. */
function commandsIn(v, out = []) {
  if (Array.isArray(v)) v.forEach((x) => commandsIn(x, out));
  else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (k === 'command' && typeof x === 'string') out.push(x);
      else commandsIn(x, out);
    }
  }
  return out;
}

test('the .d.ts declares exactly the shipped names', () => {
  assert.deepEqual(declaredNames(), DECLARED_NAMES);
});

test('FindingCode lists exactly the checker rules', () => {
  assert.deepEqual(literals('FindingCode'), m.rules().map((r) => r.code).sort());
});

test('every golden input, option and plan and every kind of output is declared (strict tsc)', () => {
  const golden = vectorPairs();
  if (EVERY === 1) assert.ok(golden.length > 8000, `only ${golden.length} golden values`);
  const { pairs, report } = outputPairs();
  const sent = commandsIn(report);
  assert.ok(sent.includes('ResumeService'), sent.join(' '));
  const names = literals('CommandName');
  for (const c of sent) assert.ok(names.includes(c), `${c} is not a declared CommandName`);
  const r = tsc({ 'golden.ts': module(golden), 'outputs.ts': module(pairs) });
  assert.equal(r.code, 0, r.out);
});

test('the declarations reject what they do not declare', () => {
  const plan = json(m.planTunnelJson(readFileSync(SEED_FILE, 'utf8')));
  const cases = [
    ['Plan', { ...plan, extra: 1 }, "'\"extra\"' does not exist in type 'Plan'"],
    ['Plan', { ...plan, federation: [{ ...plan.federation[0], role: 'entry' }] }, `'"entry"' is not assignable to type 'Role'`],
    ['Plan', { ...plan, local: [(({ nodeId, ...rest }) => rest)(plan.local[0])] }, "Property 'nodeId' is missing"],
    ['Finding', { code: 1 }, "Type 'number' is not assignable to type 'FindingCode'"],
    ['TunnelInput', { nodes: [] }, "Property 'tunnel' is missing"],
    ['TunnelInput', { tunnel: {}, nodes: [], offline: [1], extra: 1 }, "'\"extra\"' does not exist in type 'TunnelInput'"],
    ['RedeployInput', { db: { tunnel: 5 } }, "Type 'number' is not assignable"],
    ['RedeployInput', { db: { node: [] }, tunnelId: [5] }, "is not assignable to type 'Loose"],
    ['LifecycleStep', { op: 'jump' }, "is not assignable to type 'LifecycleOp'"],
    ['LifecycleStep', { op: 'applyError', failAt: 'x' }, "is not assignable to type 'CommandSelector"],
  ];
  assert.equal(tsc({ 'accepted.ts': module([['Plan', plan]]) }).code, 0);
  for (const [type, value, message] of cases) {
    const r = tsc({ 'rejected.ts': module([[type, value]]) });
    assert.notEqual(r.code, 0, `${type} accepted ${JSON.stringify(value).slice(0, 200)}`);
    assert.ok(r.out.includes(message), r.out);
  }
});
