// Small inputs that ask for large results, through the built package: each
// answer is a bounded error that names its limit, no call traps, and the
// instance answers normally afterwards. Times are printed, not asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PKG, SEED_FILE } from './helpers.mjs';
import { fx32CollidingIds, nodeTableWorkload } from '../../scripts/workloads.mjs';

const require = createRequire(import.meta.url);
const hp = require(path.join(PKG, 'node', 'hop_policy.js'));
const seed = readFileSync(SEED_FILE, 'utf8');

/** A stored type-2 tunnel: `entries` entry rows and `exits` exit rows, all local. */
function redeployRows(entries, exits) {
  const node = [];
  const chain = [];
  for (let id = 1; id <= entries + exits; id++) {
    const ip = `10.${id >> 16}.${(id >> 8) & 255}.${id & 255}`;
    node.push({ id, name: `n${id}`, server_ip: ip, port: '10000-60000', status: 1, tcp_listen_addr: '[::]', udp_listen_addr: '[::]', is_remote: 0 });
    const entry = id <= entries;
    chain.push({ id, tunnel_id: 7, chain_type: entry ? '1' : '3', node_id: id, port: entry ? null : 20000 + id, strategy: 'fifo', inx: 0, protocol: 'tls' });
  }
  return { tunnelId: 7, db: { tunnel: { id: 7, name: 'wide', type: 2, status: 1, ip_preference: '' }, chain_tunnel: chain, node } };
}

function timed(what, f) {
  const t = performance.now();
  const out = f();
  console.log(`${what}: ${(performance.now() - t).toFixed(1)} ms`);
  return out;
}

test('a redeploy of 1000 entries and 1000 exits is refused from its rows, in every entry point', () => {
  const text = JSON.stringify(redeployRows(1000, 1000));
  console.log(`redeploy input ${text.length} bytes`);
  const plan = JSON.parse(timed('planTunnelJson', () => hp.planTunnelJson(text, '{"mode":"redeploy"}')));
  assert.equal(plan.error.code, 'LIMIT_EXCEEDED');
  assert.match(plan.error.messageEn, /at \/db\/node: 2000 > 1000 \(raise option limits\.maxNodes/);
  const report = JSON.parse(timed('checkDocumentJson', () => hp.checkDocumentJson(text, '{"kind":"tunnel","mode":"redeploy"}')));
  assert.deepEqual(report.findings.map((f) => f.code), ['IN001']);
  const checked = JSON.parse(hp.checkTunnelJson(text, '{"mode":"redeploy"}'));
  assert.equal(checked.plan.error.code, 'LIMIT_EXCEEDED');
  // Raised node limits: the plan's size is refused from its dial count.
  const wide = '{"mode":"redeploy","limits":{"maxNodes":5000,"maxNodesPerHop":5000}}';
  const big = JSON.parse(timed('planTunnelJson, node limits raised', () => hp.planTunnelJson(text, wide)));
  assert.equal(big.error.code, 'LIMIT_EXCEEDED');
  assert.match(big.error.messageEn, /limits\.maxOutputBytes/);
  assert.equal(JSON.parse(hp.planTunnelJson(seed)).error, null);
});

test('a panel of wide tunnels is audited tunnel by tunnel within the tunnel limits', () => {
  const nodes = [];
  for (let id = 1; id <= 400; id++) {
    nodes.push({ id, name: `n${id}`, secret: 's', serverIp: `10.0.${id >> 8}.${id & 255}`, port: '10000-60000', status: 1, tcpListenAddr: '[::]', udpListenAddr: '[::]', isRemote: 0 });
  }
  const tunnels = [];
  for (let t = 1; t <= 20; t++) {
    const chainTunnels = nodes.map((n, k) => ({ tunnelId: t, chainType: k < 200 ? 1 : 3, nodeId: n.id, port: k < 200 ? 0 : 20000 + k, strategy: 'fifo', inx: 0, protocol: 'tls' }));
    tunnels.push({ id: t, name: `t${t}`, type: 2, status: 1, chainTunnels });
  }
  const backup = JSON.stringify({ version: '1', exportedAt: 0, nodes, tunnels });
  console.log(`backup ${backup.length} bytes`);
  const audit = JSON.parse(timed('auditPanelJson', () => hp.auditPanelJson(backup)));
  assert.equal(audit.length, 20);
  for (const t of audit) {
    assert.equal(t.plan.error.code, 'LIMIT_EXCEEDED');
    assert.deepEqual(t.findings.map((f) => f.code), ['IN001']);
  }
  // The panel limits are options of both panel calls.
  for (const call of [hp.auditPanelJson, hp.backupTunnelsJson]) {
    assert.throws(() => call(backup, '{"limits":{"maxOutputBytes":1000}}'),
      (e) => e.name === 'HopPolicyError' && e.code === 'LIMIT_EXCEEDED' && /limits\.maxOutputBytes/.test(e.message));
    assert.throws(() => call(backup, '{"limits":{"maxInputBytes":1000}}'),
      (e) => e.code === 'LIMIT_EXCEEDED' && /limits\.maxInputBytes/.test(e.message));
  }
});

test('a trace is refused at the output limit while it is recorded', () => {
  const scenario = JSON.stringify({ dead: [3], requests: 10000, limits: { maxOutputBytes: 100000 } });
  assert.throws(() => hp.simulateJson(seed, scenario), (e) => e.name === 'HopPolicyError' && e.code === 'LIMIT_EXCEEDED' && /maxOutputBytes/.test(e.message));
  const trace = JSON.parse(hp.simulateJson(seed, '{"dead":[3],"requests":3}'));
  assert.equal(trace.requests.length, 3);
});

test('node ids that collide under 32-bit FxHash plan like ordinary ones (times printed)', () => {
  const rows = 20000;
  const colliding = JSON.stringify(nodeTableWorkload(fx32CollidingIds(rows)));
  const plain = JSON.stringify(nodeTableWorkload(Array.from({ length: rows }, (_, i) => i + 1)));
  const options = '{"limits":{"maxNodes":100000}}';
  const times = {};
  for (const [name, text] of [['plain', plain], ['colliding', colliding]]) {
    const t = performance.now();
    const plan = JSON.parse(hp.planTunnelJson(text, options));
    times[name] = performance.now() - t;
    assert.equal(plan.error, null, name);
  }
  console.log(`node table of ${rows} rows: plain ${times.plain.toFixed(0)} ms, colliding ${times.colliding.toFixed(0)} ms (ratio ${(times.colliding / times.plain).toFixed(2)})`);
});
