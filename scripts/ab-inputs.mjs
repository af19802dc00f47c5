#!/usr/bin/env node
// A/B of two builds of the Node package on what scripts/ab.mjs does not
// vary: the panel operations on damaged panels, the scenario fields, and
// the lifecycle replay's speed. Not part of the tests.
//
//   node scripts/ab-inputs.mjs OLD_PKG_NODE NEW_PKG_NODE [WORKLOAD_DIR] [--rounds N]
//
// 1. Panels: `auditPanelJson` and `backupTunnelsJson` on the shipped backup,
//    the database rows of www/examples/redeploy-from-rows.json and the audit
//    seeds, each also with about 60 of its leaves set to each of 8 wrong
//    values and cut in half; answers (or thrown code, message, path) compared.
// 2. Scenarios: `simulateJson` on the forward example and the simulate
//    seeds with `dead`, `entry`, `forward`, `deadTargets` and `failTimeout`
//    each set to 17 values (alone, and beside a valid one); answers compared.
// 3. Options: 42 option texts (wrong types, ranges, `null`s, nested limits,
//    two wrong fields) through `planTunnelJson`, `checkDocumentJson`,
//    `simulateJson` and `backupTunnelsJson`; answers compared.
// 4. Counts: inputs and documents over `maxNodes`, `maxHops` and
//    `maxNodesPerHop` through every entry point that reads them; answers
//    compared.
// 5. Speed: `lifecycleJson` of apply, release, apply on the `large` and
//    `large-x4` workloads (scripts/workloads.mjs), the builds alternating
//    (scripts/timing.mjs); the median of the per-round ratios NEW/OLD.

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { roundRobin, fmtMs } from './timing.mjs';
import { abArgs, ROOT } from './ab-args.mjs';

const usage = 'node scripts/ab-inputs.mjs OLD_PKG_NODE NEW_PKG_NODE [WORKLOAD_DIR] [--rounds N]';
const { oldM, newM, wl, rounds } = abArgs(usage, 30);

const text = (path) => readFileSync(join(ROOT, path), 'utf8');
const filesIn = (dir) => readdirSync(join(ROOT, dir)).map((f) => join(dir, f));

/** The answer of `fn`, or what it throws. */
function answer(fn) {
  try {
    return fn();
  } catch (e) {
    return `THROW ${e?.code ?? ''} ${e?.message ?? e} ${e?.path ?? ''}`;
  }
}

/** Calls `call(module, ...args)` on both builds; prints the first differences. */
function compare(what, cases, call) {
  let calls = 0;
  let differ = 0;
  for (const c of cases) {
    calls++;
    const [a, b] = [answer(() => call(oldM, c)), answer(() => call(newM, c))];
    if (a !== b && differ++ < 5) {
      // Where the two answers part, with some text before it.
      let at = 0;
      while (a[at] === b[at]) at++;
      const from = Math.max(0, at - 60);
      console.log(`differs: ${what} ${JSON.stringify(c).slice(0, 160)}\n  old (from ${from}): ${a.slice(from, from + 260)}\n  new (from ${from}): ${b.slice(from, from + 260)}`);
    }
  }
  console.log(`${what}: ${calls} calls, ${differ} differ`);
}

/** `doc` and its damaged copies: leaves set to wrong values, cut in half. */
function damaged(doc) {
  const out = [doc];
  const leaves = [];
  (function walk(v, path) {
    if (v && typeof v === 'object') for (const k of Object.keys(v)) walk(v[k], [...path, k]);
    else leaves.push(path);
  })(JSON.parse(doc), []);
  const step = Math.max(1, Math.floor(leaves.length / 60));
  for (let i = 0; i < leaves.length; i += step) {
    for (const wrong of [null, 'x', 1.5, 12345678901234567890, [], {}, true, -1]) {
      const copy = JSON.parse(doc);
      const path = leaves[i];
      let at = copy;
      for (const k of path.slice(0, -1)) at = at[k];
      at[path[path.length - 1]] = wrong;
      out.push(JSON.stringify(copy));
    }
  }
  out.push(doc.slice(0, doc.length >> 1));
  return out;
}

// 1. Panels.
const rows = JSON.parse(text('www/examples/redeploy-from-rows.json')).db;
for (const t of ['tunnel', 'chain_tunnel', 'node', 'federation_tunnel_binding']) {
  if (!Array.isArray(rows[t])) rows[t] = rows[t] ? [rows[t]] : [];
}
const panels = [text('examples/panel-backup.json'), JSON.stringify(rows), ...filesIn('fuzz/corpus/seed-audit').map(text)];
const panelCases = panels.flatMap(damaged).flatMap((doc) => [['auditPanelJson', doc], ['backupTunnelsJson', doc]]);
compare('panel operations', panelCases, (m, [op, doc]) => m[op](doc));

// 2. Scenarios.
const values = [1, '1', ' 2 ', 2.0, 1.5, 'x:1', '10.0.0.1:443', { a: 1 }, [1], [], true, null, '10s', 5e9, 'bad', -1, 'n1'];
const lists = new Set(['dead', 'deadTargets']);
const scenarioCases = [];
for (const doc of ['examples/tunnel-with-forwards.json', ...filesIn('fuzz/corpus/seed-simulate')]) {
  for (const field of ['dead', 'entry', 'forward', 'deadTargets', 'failTimeout']) {
    for (const v of values) {
      const alone = lists.has(field) ? [v] : v;
      const beside = lists.has(field) ? [v, 1] : v;
      scenarioCases.push([doc, { [field]: alone }], [doc, { [field]: beside, requests: 2 }]);
    }
  }
}
const docs = new Map();
compare('scenarios', scenarioCases, (m, [doc, scenario]) => {
  if (!docs.has(doc)) docs.set(doc, text(doc));
  return m.simulateJson(docs.get(doc), JSON.stringify(scenario));
});

// 3. Options.
const tunnel = JSON.stringify({
  tunnel: { name: 't', inNodeId: [{ nodeId: 1 }], outNodeId: [{ nodeId: 2, port: 40001 }] },
  nodes: [1, 2].map((id) => ({ id, status: 1, serverIp: `10.0.0.${id}`, port: '40000-40100' })),
});
const options = [
  '[1]', '"x"', '5', 'null', '{}', '{"mode": 5}', '{"mode": "nope"}', '{"mode": " update "}', '{"mode": null}',
  '{"limits": 7}', '{"limits": null}', '{"limits": [1]}', '{"limits": {"maxNodes": -1}}', '{"limits": {"maxNodes": 1.5}}',
  '{"limits": {"maxNodes": "5"}}', '{"limits": {"maxNodes": null}}', '{"limits": {"maxDepth": 99999999999999999999}}',
  '{"kind": 5}', '{"kind": "plan"}', '{"kind": "zzz"}', '{"kind": null, "limits": {"maxHops": 2}}',
  '{"requests": -1}', '{"requests": 5000000000}', '{"seed": 1.5}', '{"seed": -2}', '{"startMs": "1"}', '{"gapMs": 1.5}',
  '{"dead": null}', '{"dead": 5}', '{"dead": [1, "a"]}', '{"entry": null}', '{"clientIp": 5}', '{"deadTargets": {}}',
  '{"failTimeout": "3s"}', '{"retries": true}', '{"reviveAtMs": [1]}', '{"limits": {"maxOutputBytes": 10}}',
  '{"x": 1, "mode": "create"}', `{"limits": {"maxNodes": "${'y'.repeat(50)}"}}`, '{"kind": 1, "limits": 2}',
  '{"mode": 1, "limits": 2}', '{"seed": 1.5, "requests": -1}',
];
const emptyBackup = '{"version":"1","nodes":[],"tunnels":[]}';
const optionCases = ['planTunnelJson', 'checkDocumentJson', 'simulateJson', 'backupTunnelsJson']
  .flatMap((op) => options.map((o) => [op, o]));
compare('options', optionCases, (m, [op, o]) => m[op](op === 'backupTunnelsJson' ? emptyBackup : tunnel, o));

// 4. Counts: a tunnel input over each count (node rows, hops, one hop's
// nodes, entries, exits), a plan and a node config with wide chains, and a
// step list carrying an input, through every entry point that reads them
// (the lifecycle replay: an input over the default node count).
const seedInput = JSON.parse(text('examples/seed-federated-middle.json'));
const seedPlan = newM.planTunnelJson(JSON.stringify(seedInput));
const wideConfig = JSON.stringify({ chains: [{ name: 'c', hops: [{ name: 'h', nodes: [1, 2, 3].map((i) => ({ name: `n${i}`, addr: `10.0.0.${i}:1` })) }] }] });
const countDocs = [JSON.stringify(seedInput), seedPlan, wideConfig, JSON.stringify([{ op: 'apply', input: seedInput }])];
const countLimits = [{ maxNodes: 1 }, { maxHops: 0 }, { maxNodesPerHop: 0 }, { maxNodesPerHop: 2 }]
  .map((limits) => JSON.stringify({ limits }));
const countCases = ['planTunnelJson', 'checkTunnelJson', 'checkDocumentJson', 'simulateJson']
  .flatMap((op) => countDocs.flatMap((doc) => countLimits.map((o) => [op, doc, o])));
const crowded = structuredClone(seedInput);
crowded.nodes.push(...Array.from({ length: 1000 }, (_, i) => ({ id: 9000 + i, name: `x${i}` })));
countCases.push(['lifecycleJson', JSON.stringify([{ op: 'apply', input: crowded }])]);
compare('counts', countCases, (m, [op, doc, o]) => m[op](doc, o));

// 5. Speed.
for (const name of ['large', 'large-x4']) {
  const input = readFileSync(join(wl, `${name}.json`), 'utf8');
  const steps = `[{"op":"apply","input":${input}},{"op":"release"},{"op":"apply","input":${input}}]`;
  const rr = roundRobin([() => oldM.lifecycleJson(steps), () => newM.lifecycleJson(steps)], 0, rounds);
  console.log(`lifecycleJson ${name}: old ${fmtMs(rr.ms[0])}, new ${fmtMs(rr.ms[1])}, median ratio new/old ${rr.ratio[1].toFixed(3)} (${rounds} rounds)`);
}
