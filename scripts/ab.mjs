#!/usr/bin/env node
// A/B of two builds of the Node package, for measuring one change.
// Not part of the tests.
//
//   node scripts/ab.mjs OLD_PKG_NODE NEW_PKG_NODE [WORKLOAD_DIR] [--rounds N]
//
// OLD/NEW are `pkg/node` directories (for example a copy of pkg/node taken
// before the change, and pkg/node after `scripts/build`). WORKLOAD_DIR holds
// the bench workloads (`node scripts/workloads.mjs DIR`; written to a fresh
// temporary directory when omitted).
//
// 1. Same outputs: the five text entry points of both builds are called on
//    every file under tests/data, fuzz/corpus and www/examples (and on each
//    JSON line of those files, with its `input`, `expected` and `steps`), and
//    the answers (or thrown code, path and message) compared. With
//    `--ignore-codes A,B` findings of those codes (a rule added by the change)
//    are taken out of both answers first, their summary counts with them.
// 2. Speed: `planTunnelJson` on `large` and `JSON.parse(checkDocumentJson())`
//    on `config-10k`, the two builds alternating in one process (the order
//    flips every round: the bench's round robin, scripts/timing.mjs), so
//    both share the machine's load. Prints the median time of each and the
//    median of the per-round ratios NEW/OLD.

import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { roundRobin, fmtMs } from './timing.mjs';
import { corpusFiles, jsonLines } from './corpus.mjs';
import { abArgs, ROOT } from './ab-args.mjs';

const usage = 'node scripts/ab.mjs OLD_PKG_NODE NEW_PKG_NODE [WORKLOAD_DIR] [--rounds N] [--ignore-codes A,B]';
const { oldM, newM, wl, rounds, flags } = abArgs(usage, 40, ['--ignore-codes']);
const ignored = new Set(flags['--ignore-codes'] ? flags['--ignore-codes'].split(',') : []);

// 1. Same outputs.
const ENTRY = ['checkDocumentJson', 'checkTunnelJson', 'planTunnelJson', 'simulateJson', 'lifecycleJson'];
/** A report (or a checkTunnel answer) without the ignored codes' findings. */
function withoutIgnored(text) {
  if (!ignored.size) return text;
  let v;
  try {
    v = JSON.parse(text);
  } catch {
    return text;
  }
  const strip = (r) => {
    if (!r || !Array.isArray(r.findings)) return;
    const gone = r.findings.filter((f) => ignored.has(f.code));
    r.findings = r.findings.filter((f) => !ignored.has(f.code));
    const s = r.summary;
    if (s && gone.length) {
      for (const f of gone) {
        const key = { error: 'errors', warning: 'warnings', info: 'infos' }[f.severity];
        if (typeof s[key] === 'number') s[key]--;
        if (typeof s.total === 'number') s.total--;
        if (s.byCode && s.byCode[f.code] !== undefined && --s.byCode[f.code] === 0) delete s.byCode[f.code];
      }
    }
  };
  strip(v);
  return JSON.stringify(v);
}
const answer = (m, f, doc) => {
  try {
    return 'ok ' + withoutIgnored(m[f](doc));
  } catch (e) {
    return `throws ${e.code} ${e.path} ${e.message}`;
  }
};
let calls = 0;
const diffs = [];
/** The file, each JSON-looking line (a line that is not JSON too), and the
 *  input, plan and steps inside each line. */
function docsOf(text) {
  const docs = [text];
  for (const { line, parts } of jsonLines(text)) docs.push(line, ...parts.map((v) => JSON.stringify(v)));
  return docs;
}
for (const d of ['tests/data', 'fuzz/corpus', 'www/examples']) {
  if (!existsSync(join(ROOT, d))) continue;
  for (const [p, text] of corpusFiles(join(ROOT, d))) {
    for (const doc of docsOf(text)) {
      for (const f of ENTRY) {
        calls++;
        const a = answer(oldM, f, doc);
        const b = answer(newM, f, doc);
        if (a !== b) diffs.push(`${f} on ${p}: ${a.slice(0, 120)} | ${b.slice(0, 120)}`);
      }
    }
  }
}
console.log(`same outputs: ${calls} calls, ${diffs.length} differ`);
const byEntry = {};
for (const d of diffs) byEntry[d.split(" ")[0]] = (byEntry[d.split(" ")[0]] || 0) + 1;
if (diffs.length) console.log(`  by entry point: ${JSON.stringify(byEntry)}`);
if (process.env.AB_DIFFS) require("fs").writeFileSync(process.env.AB_DIFFS, diffs.join("\n") + "\n");
for (const d of diffs.slice(0, 5)) console.log('  ' + d);

// 2. Speed: the two builds in round robin (scripts/timing.mjs), exactly
// `rounds` rounds after a short warm-up; ratio[1] is new/old per round.
function ab(name, call) {
  const rr = roundRobin([() => call(oldM), () => call(newM)], 0, rounds);
  console.log(`${name}: old ${fmtMs(rr.ms[0])}, new ${fmtMs(rr.ms[1])}, median ratio new/old ${rr.ratio[1].toFixed(3)} (${rounds} rounds)`);
}
const large = readFileSync(join(wl, 'large.json'), 'utf8');
const config = readFileSync(join(wl, 'config-10k.json'), 'utf8');
ab('planTunnelJson large', (m) => m.planTunnelJson(large));
ab('JSON.parse(checkDocumentJson) config-10k', (m) => JSON.parse(m.checkDocumentJson(config)));
process.exitCode = diffs.length ? 1 : 0;
