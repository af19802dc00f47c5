#!/usr/bin/env node
// Benchmark workloads: the one generator used by both the native
// bench (examples/bench_native.rs) and the Node bench (scripts/bench.mjs), so
// both time byte-identical inputs.
//
//   node scripts/workloads.mjs OUT_DIR
//
// writes OUT_DIR/{median,large,large-x4}.json (planner inputs
// `{tunnel, nodes, federation}`), OUT_DIR/ids-plain.json and ids-fx32.json
// (20,000 node rows, ordinary ids and ids colliding under 32-bit FxHash),
// OUT_DIR/config-10k.json (one node's GOST
// config `{services, chains}` with 10,000 services) and OUT_DIR/manifest.json
// (what each file is). Everything is deterministic: no clock, no randomness.

import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const VECTORS = join(ROOT, 'tests', 'data', 'plan-vectors.jsonl');

/** The golden vector whose expected plan is the median by JSON size
 *  (ties broken by name; lower middle of an even count). */
export function medianVector(path = VECTORS) {
  const rows = readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l))
    .map((v) => ({ v, size: Buffer.byteLength(JSON.stringify(v.expected)) }));
  rows.sort((a, b) => a.size - b.size || (a.v.name < b.v.name ? -1 : a.v.name > b.v.name ? 1 : 0));
  const pick = rows[Math.floor((rows.length - 1) / 2)];
  return { name: pick.v.name, expectedBytes: pick.size, input: pick.v.input };
}

/** A panel node row. Remote rows carry a share URL, a token and a port range. */
function nodeRow(id, ip, remote) {
  return {
    id,
    name: `bench-${id}`,
    serverIp: ip,
    serverIpV4: ip,
    serverIpV6: null,
    port: '40000-49999',
    tcpListenAddr: '[::]',
    udpListenAddr: '[::]',
    interfaceName: '',
    status: 1,
    isRemote: remote ? 1 : 0,
    remoteUrl: remote ? `https://provider-${id % 7}.example.net` : null,
    remoteToken: remote ? `bench-share-token-${id}` : null,
    remoteConfig: remote ? JSON.stringify({ shareId: id, portRangeStart: 50000, portRangeEnd: 59999 }) : null,
  };
}

/**
 * A type-2 tunnel: `entries` entry nodes, `hops` hops of `width` nodes each,
 * `exits` exit nodes; every other hop node and exit (odd index) is federated;
 * every item is `tls`/`fifo` with an explicit port.
 */
export function tunnelWorkload({ entries, hops, width, exits, tunnelId = 4242 }) {
  const nodes = [];
  const federation = {};
  let nextId = 1;
  const ip = (id) => `10.${(id >> 16) & 255}.${(id >> 8) & 255}.${id & 255}`;
  const item = (id, port) => {
    const it = { nodeId: id, protocol: 'tls', strategy: 'fifo' };
    if (port !== undefined) it.port = port;
    return it;
  };
  const member = (index) => {
    const id = nextId++;
    const remote = index % 2 === 1;
    nodes.push(nodeRow(id, ip(id), remote));
    const port = (remote ? 50000 : 40000) + id;
    if (remote) {
      federation[String(id)] = { runtimeId: 100000 + id, allocatedPort: port, tcpListenAddr: '[::]', interfaceName: '' };
    }
    return item(id, port);
  };
  const inNodeId = [];
  for (let i = 0; i < entries; i++) {
    const id = nextId++;
    nodes.push(nodeRow(id, ip(id), false));
    inNodeId.push(item(id));
  }
  const chainNodes = [];
  for (let h = 0; h < hops; h++) {
    const hop = [];
    for (let i = 0; i < width; i++) hop.push(member(i));
    chainNodes.push(hop);
  }
  const outNodeId = [];
  for (let i = 0; i < exits; i++) outNodeId.push(member(i));
  return {
    tunnel: { id: tunnelId, name: `bench-tunnel-${tunnelId}`, type: 2, ipPreference: '', inNodeId, chainNodes, outNodeId },
    nodes,
    federation,
  };
}

/**
 * One node's GOST config with `count` services: every other service is a
 * middle hop whose chain has 1 to 4 nodes; most chained services carry the
 * right retries, every 10th lacks them (a real FO001 finding), every 50th has
 * extra retries (FO003). Exits (the other half) have no chain.
 */
export function configWorkload(count = 10000) {
  const mux = { nodelay: true, 'mux.keepaliveInterval': '15s', 'mux.keepaliveTimeout': '45s' };
  const services = [];
  const chains = [];
  for (let i = 0; i < count; i++) {
    const port = 20000 + i;
    const svc = {
      name: `tunnel_${i}`,
      addr: `[::]:${port}`,
      handler: { type: 'relay', metadata: { ...mux } },
      listener: { type: 'tls' },
    };
    if (i % 2 === 0) {
      const n = 1 + ((i / 2) % 4);
      const chain = `chains_${i}`;
      svc.handler.chain = chain;
      if (i % 10 !== 0 && n > 1) svc.handler.retries = n - 1 + (i % 50 === 2 ? 1 : 0);
      const hopNodes = [];
      for (let k = 0; k < n; k++) {
        hopNodes.push({
          name: `node_${k + 1}`,
          addr: `192.0.2.${(i + k) % 250 + 1}:${30000 + ((i + k) % 20000)}`,
          connector: { type: 'relay', metadata: { ...mux } },
          dialer: { type: 'tls' },
        });
      }
      chains.push({
        name: chain,
        hops: [{ name: `hop_${i}`, selector: { strategy: 'fifo', maxFails: 1, failTimeout: 600000000000 }, nodes: hopNodes }],
      });
    }
    services.push(svc);
  }
  return { services, chains };
}

/**
 * A panel backup export of `tunnels` type-2 tunnels over `nodes` nodes, a
 * quarter of them federated (ids 4k+3). Tunnel i runs entry -> one hop of two
 * nodes -> exit; each node serves two tunnels, on a port of its own per
 * tunnel. Each tunnel carries `forwards` forwards on its entry (ports
 * 10001...), alternately one target and two, every third one with a speed
 * limit, as user 2 with a grant of every tunnel.
 */
export function panelWorkload({ tunnels = 1000, nodes = 2000, forwards = 3 } = {}) {
  const ip = (id) => `10.${(id >> 16) & 255}.${(id >> 8) & 255}.${id & 255}`;
  const rows = [];
  for (let id = 1; id <= nodes; id++) {
    const { serverIpV6, ...row } = nodeRow(id, ip(id), id % 4 === 3);
    rows.push({ ...row, serverIpV6: serverIpV6 ?? '', secret: `bench-node-secret-${id}`, remoteUrl: row.remoteUrl ?? '', remoteToken: row.remoteToken ?? '', remoteConfig: row.remoteConfig ?? '' });
  }
  const local = rows.filter((r) => !r.isRemote).map((r) => r.id);
  const at = (k) => 1 + (k % nodes);
  const list = [];
  const forwardRows = [];
  for (let i = 0; i < tunnels; i++) {
    const id = i + 1;
    const port = 40000 + id;
    const entry = local[i % local.length];
    const chain = (k, chainType, nodeId, inx, withPort = true) => ({
      id: k, tunnelId: id, chainType, nodeId, ...(withPort ? { port } : {}), strategy: 'fifo', inx, protocol: 'tls',
    });
    list.push({
      id, name: `bench-panel-tunnel-${id}`, type: 2, status: 1, ipPreference: '', chainTunnels: [
        chain(1, '1', entry, 1, false),
        chain(2, '2', at(4 * i + 1), 1),
        chain(3, '2', at(4 * i + 2), 1),
        chain(4, '3', at(4 * i + 3), 1),
      ],
    });
    for (let k = 0; k < forwards; k++) {
      const fid = forwardRows.length + 1;
      const targets = k % 2 ? `198.51.100.${fid % 250}:443,198.51.100.${(fid + 1) % 250}:443` : `198.51.100.${fid % 250}:443`;
      forwardRows.push({
        id: fid, userId: 2, userName: 'bench', name: `bench-forward-${fid}`, tunnelId: id, remoteAddr: targets,
        strategy: 'fifo', inFlow: 0, outFlow: 0, createdTime: 1, updatedTime: 1, status: 1, inx: k,
        ...(k % 3 === 2 ? { speedId: 1 } : {}), forwardPorts: [{ nodeId: entry, port: 10001 + k }], proxyProtocol: 0,
      });
    }
  }
  const users = [{ id: 2, user: 'bench', pwd: 'bench-password-hash', roleId: 1, expTime: 0, flow: 0, num: 0, createdTime: 1, status: 1 }];
  const userTunnels = list.map((t, k) => ({ id: k + 1, userId: 2, tunnelId: t.id, num: 0, flow: 0, expTime: 0, status: 1 }));
  const speedLimits = [{ id: 1, name: '100M', speed: 100, createdTime: 1, status: 1 }];
  return { version: '1', exportedAt: 1, users, nodes: rows, tunnels: list, forwards: forwardRows, userTunnels, speedLimits };
}

/**
 * Node ids whose hashes all collide under rustc-hash 2's FxHash on 32-bit
 * targets (wasm32): an `i64` key hashes as `h = ((lo * K) + hi) * K` (mod 2^32,
 * K = 0x93d765dd; lo, hi the id's 32-bit halves), then `rotate_left(15)`.
 * For hi = 1, 2, ... the lo with `lo * K = T * K^-1 - hi` gives every id the
 * same h = T. All ids stay below 2^53 (exact as JavaScript numbers).
 */
export function fx32CollidingIds(count) {
  const M = 1n << 32n;
  const K = 0x93d765ddn;
  // K^-1 mod 2^32 by Newton's iteration (each step doubles the correct bits).
  let inv = K;
  for (let i = 0; i < 5; i++) inv = (inv * (2n - K * inv)) % M;
  inv = ((inv % M) + M) % M;
  const T = 0x2545f491n;
  const ids = [];
  for (let hi = 1n; ids.length < count; hi++) {
    const lo = ((((T * inv - hi) % M) + M) % M * inv) % M;
    ids.push(Number(hi * M + lo));
  }
  return ids;
}

/**
 * A planner input with `count` node rows (ids from `ids`) of which the tunnel
 * uses three (entry -> one hop -> exit): the time goes into reading the rows
 * and building the node table. Plan it with `{limits: {maxNodes: count}}` or more.
 */
export function nodeTableWorkload(ids) {
  const ip = (k) => `10.${(k >> 16) & 255}.${(k >> 8) & 255}.${k & 255}`;
  const nodes = ids.map((id, k) => nodeRow(id, ip(k + 1), false));
  const item = (id, port) => ({ nodeId: id, protocol: 'tls', strategy: 'fifo', ...(port ? { port } : {}) });
  return {
    tunnel: {
      id: 4243, name: 'bench-node-table', type: 2, ipPreference: '',
      inNodeId: [item(ids[0])], chainNodes: [[item(ids[1], 40001)]], outNodeId: [item(ids[2], 40002)],
    },
    nodes,
    federation: {},
  };
}

/** Rows in the node-table workloads, and the options that admit them. */
export const NODE_TABLE_ROWS = 20000;
export const NODE_TABLE_OPTIONS = { limits: { maxNodes: 100000 } };

export const SHAPES = {
  large: { entries: 8, hops: 4, width: 16, exits: 16 },
  'large-x4': { entries: 32, hops: 4, width: 64, exits: 64 },
};

/** Writes every workload into `dir`; returns the manifest. */
export function writeWorkloads(dir) {
  mkdirSync(dir, { recursive: true });
  const median = medianVector();
  const manifest = { workloads: [], config: null };
  const put = (name, value) => {
    const text = JSON.stringify(value);
    writeFileSync(join(dir, `${name}.json`), text);
    return { name, file: `${name}.json`, inputBytes: Buffer.byteLength(text) };
  };
  manifest.workloads.push({ ...put('median', median.input), source: `golden vector ${median.name}`, goldenPlanBytes: median.expectedBytes });
  for (const [name, shape] of Object.entries(SHAPES)) {
    manifest.workloads.push({ ...put(name, tunnelWorkload(shape)), source: `generated ${JSON.stringify(shape)}` });
  }
  const panelOf = (name, panel) => ({ ...put(name, panel), tunnels: panel.tunnels.length, nodes: panel.nodes.length, forwards: panel.forwards.length, federated: panel.nodes.filter((n) => n.isRemote).length });
  manifest.panel = panelOf('panel-1000', panelWorkload());
  // Half the panel: the audit's time per tunnel must not grow with the panel.
  manifest.panelHalf = panelOf('panel-500', panelWorkload({ tunnels: 500, nodes: 1000 }));
  // The same node table with ordinary ids and with ids that collide under
  // 32-bit FxHash: the planner's time should not depend on which.
  const plain = Array.from({ length: NODE_TABLE_ROWS }, (_, k) => k + 1);
  manifest.nodeTable = {
    rows: NODE_TABLE_ROWS,
    options: NODE_TABLE_OPTIONS,
    plain: put('ids-plain', nodeTableWorkload(plain)),
    colliding: { ...put('ids-fx32', nodeTableWorkload(fx32CollidingIds(NODE_TABLE_ROWS))), source: 'ids colliding under 32-bit FxHash' },
  };
  const cfg = configWorkload(10000);
  manifest.config = { ...put('config-10k', cfg), services: cfg.services.length, chains: cfg.chains.length };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return manifest;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('usage: node scripts/workloads.mjs OUT_DIR');
    process.exit(2);
  }
  const m = writeWorkloads(dir);
  for (const w of m.workloads) console.log(`${w.name.padEnd(10)} input ${w.inputBytes} B  (${w.source})`);
  console.log(`config-10k input ${m.config.inputBytes} B  (${m.config.services} services, ${m.config.chains} chains)`);
}
