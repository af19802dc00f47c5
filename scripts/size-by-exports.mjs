#!/usr/bin/env node
// Size of the release .wasm by the entry points it exports. Not part
// of the tests.
//
//   node scripts/size-by-exports.mjs
//
// Builds the crate five times from a copy of the working tree, each time with
// only some exports kept (an export function not kept becomes an ordinary
// dead function, an export macro block not kept is dropped, so their code
// leaves the module), and prints each .wasm's size after the same
// `wasm-opt -Oz` as scripts/build, raw and gzip -9:
//   plan        planTunnel, planTunnelJson, version
//   + check     checkDocument*, checkTunnel*, rules, checkUnreadableJson
//   + simulate  simulate, simulateJson, simulateText
//   + lifecycle lifecycle, lifecycleJson
//   + panel     backupTunnelsJson, auditPanelJson (everything: the shipped module)
// Needs what scripts/build needs (cargo with the wasm32 target, wasm-bindgen,
// wasm-opt); builds into target/size-by-exports. About a minute per build.

import { cpSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { gzipSync } from 'node:zlib';
import { join, resolve, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const PLAN = ['planTunnel', 'planTunnelJson', 'version'];
const CHECK = ['checkDocument', 'checkDocumentJson', 'checkDocumentFormatted', 'checkTunnel', 'checkTunnelJson', 'rules', 'checkUnreadableJson'];
const SIMULATE = ['simulate', 'simulateJson', 'simulateText'];
const LIFECYCLE = ['lifecycle', 'lifecycleJson'];
const PANEL = ['backupTunnelsJson', 'auditPanelJson'];
// `start` (the module's start function) is always there.
const ALWAYS = ['start'];
const variants = [
  ['plan', [...ALWAYS, ...PLAN]],
  ['+ check', [...ALWAYS, ...PLAN, ...CHECK]],
  ['+ simulate', [...ALWAYS, ...PLAN, ...CHECK, ...SIMULATE]],
  ['+ lifecycle', [...ALWAYS, ...PLAN, ...CHECK, ...SIMULATE, ...LIFECYCLE]],
  ['+ panel (all)', [...ALWAYS, ...PLAN, ...CHECK, ...SIMULATE, ...LIFECYCLE, ...PANEL]],
];

/// src/wasm.rs with the exports not in `keep` turned into plain functions
/// (the `#[wasm_bindgen(...)]` line above a `pub fn` becomes
/// `#[allow(dead_code)]`, and the attributes on its parameters go) and the
/// export macro blocks (`text_export! { ... = jsName(...) ... }`) not in
/// `keep` dropped.
function keepOnly(source, keep) {
  const lines = source.split('\n');
  const out = [];
  let stripping = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^(text|object)_export! \{$/.test(line)) {
      const end = lines.indexOf('}', i);
      const name = /= (\w+)\(/.exec(lines.slice(i, end).join('\n'))?.[1];
      if (name && !keep.has(name)) {
        i = end;
        continue;
      }
    }
    const attr = /^(\s*)#\[wasm_bindgen(?:\((.*)\))?\]\s*$/.exec(line);
    const fn = /^\s*pub fn (\w+)/.exec(lines[i + 1] ?? '');
    if (attr && fn) {
      const name = /js_name = (\w+)/.exec(attr[2] ?? '')?.[1] ?? fn[1];
      if (!keep.has(name)) {
        out.push(`${attr[1]}#[allow(dead_code)]`);
        stripping = true;
        continue;
      }
    }
    if (stripping) {
      out.push(line.replace(/#\[wasm_bindgen\(.*?\)\]\s*/g, ''));
      if (line.trimEnd().endsWith('{')) stripping = false;
      continue;
    }
    out.push(line);
  }
  return out.join('\n');
}

function wasmOpt() {
  const local = join(root, 'tests/node/node_modules/.bin/wasm-opt');
  return existsSync(local) ? local : 'wasm-opt';
}

const work = mkdtempSync(join(tmpdir(), 'hop-policy-size-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
for (const f of ['Cargo.toml', 'Cargo.lock', '.cargo', 'src']) cpSync(join(root, f), join(work, f), { recursive: true });
const original = readFileSync(join(root, 'src/wasm.rs'), 'utf8');
const target = join(root, 'target/size-by-exports');
const rows = [];
for (const [label, names] of variants) {
  const keep = new Set(names);
  writeFileSync(join(work, 'src/wasm.rs'), keepOnly(original, keep));
  process.stderr.write(`size-by-exports: building "${label}" (${names.length} exports)\n`);
  // From the copy's directory, so its .cargo/config.toml (the wasm32 flags) applies.
  execFileSync('cargo', ['build', '--quiet', '--release', '--target', 'wasm32-unknown-unknown', '--lib'], {
    cwd: work, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CARGO_TARGET_DIR: target },
  });
  const out = join(work, 'out');
  rmSync(out, { recursive: true, force: true });
  execFileSync('wasm-bindgen', ['--target', 'nodejs', '--out-dir', out, join(target, 'wasm32-unknown-unknown/release/hop_policy.wasm')], { stdio: 'inherit' });
  const wasm = join(out, 'hop_policy_bg.wasm');
  execFileSync(wasmOpt(), ['-Oz', '--one-caller-inline-max-function-size', '1000', '--strip-debug', '--strip-producers', wasm, '-o', wasm], { stdio: 'inherit' });
  // The generated glue must export exactly the kept names.
  const exported = [...readFileSync(join(out, 'hop_policy.js'), 'utf8').matchAll(/^exports\.(\w+) = /gm)].map((m) => m[1]).sort();
  if (exported.join() !== [...keep].sort().join()) {
    throw new Error(`"${label}": the module exports ${exported.join(', ')}, expected ${[...keep].sort().join(', ')}`);
  }
  const bytes = readFileSync(wasm);
  rows.push([label, statSync(wasm).size, gzipSync(bytes, { level: 9 }).length]);
}
console.log('exports kept          .wasm bytes   gzip -9');
for (const [label, raw, gz] of rows) console.log(`${label.padEnd(20)} ${String(raw).padStart(12)} ${String(gz).padStart(9)}`);
console.log('(budget: 573,440 raw, 235,520 gzip; sizes after wasm-opt -Oz --one-caller-inline-max-function-size 1000 --strip-debug --strip-producers)');
