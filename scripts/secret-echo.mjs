#!/usr/bin/env node
// Checks that no output echoes a credential the input carried (a
// `remoteToken`, or any token / secret / password / API-key field). Not part
// of the tests (tests/hostile_secrets.rs plants canaries natively); this runs
// the built package over whole directories.
//
//   node scripts/secret-echo.mjs [PKG_NODE_DIR] DIR|postgres://...
//
// A panel's sources count too: a backup export is also audited tunnel by tunnel
// (backupTunnelsJson, then checkTunnel in redeploy mode, and auditPanelJson) with fresh secrets
// planted into every node and user; a SQLite file under DIR and a postgres://
// URL are read as `hop-policy audit` reads them (the drivers are found from
// the working directory, as the CLI finds them).
//
// Every file under each DIR (and each JSON line of it, with its `input`,
// `expected` and `steps`) is a document; a tunnel input is also run with a
// fresh token planted into every node row. Each document goes through every
// entry point, text and object forms, errors included. A credential value
// counts only when it appears once in its document (a value that is also a
// name elsewhere may rightly be printed). Exits 1 when any output echoes one.

import { createRequire } from 'node:module';
import { existsSync, statSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { corpusFiles, jsonLines } from './corpus.mjs';
import { isPostgresUrl, isSqliteFile, readPostgres, readSqlite } from '../bin/panel-sources.mjs';
import { readdirSync } from 'node:fs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
let args = process.argv.slice(2);
let pkg = join(ROOT, 'pkg', 'node');
if (args.length && existsSync(join(args[0], 'hop_policy.js'))) [pkg, ...args] = args;
if (!args.length) {
  console.error('usage: node scripts/secret-echo.mjs [PKG_NODE_DIR] DIR...');
  process.exit(2);
}
const m = createRequire(import.meta.url)(resolve(pkg, 'hop_policy.js'));

const CREDENTIAL_KEY = /token|secret|password|passwd|^pwd$|credential|apikey|api_key|privatekey|private_key/i;
// GOST's credential carriers whose whole value is secret: auth blocks and authers' auths lists.
const CARRIER_KEY = /^(auth|auths)$/i;

/** Every string of 4 or more characters inside `v`. */
function strings(v, acc) {
  if (typeof v === 'string' && v.length >= 4) acc.add(v);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, acc);
  return acc;
}

/** Credential values (strings of 4 or more characters) anywhere in `v`, URL userinfo included. */
function credentials(v, acc = new Set()) {
  if (typeof v === 'string') {
    for (const m of v.matchAll(/:\/\/([^/?#@\s"]{4,})@/g)) acc.add(m[1]);
  } else if (v && typeof v === 'object') {
    for (const [k, x] of Object.entries(v)) {
      if (CARRIER_KEY.test(k)) strings(x, acc);
      else if (CREDENTIAL_KEY.test(k) && typeof x === 'string' && x.length >= 4) acc.add(x);
      credentials(x, acc);
    }
  }
  return acc;
}

/** A copy of a plan or config with every GOST credential carrier planted on each handler. */
function plantedCarriers(doc, n) {
  const v = structuredClone(doc);
  let planted = 0;
  const visit = (x) => {
    if (!x || typeof x !== 'object') return;
    if (x.handler && typeof x.handler === 'object' && !Array.isArray(x.handler)) {
      x.handler.auth = { username: `PLANTED-USER-${n}`, password: `PLANTED-PASS-${n}` };
      x.handler.metadata = { ...(x.handler.metadata || {}), auth: `PLANTED-META-${n}:pw` };
      x.handler.auther = `auther-${n}`;
      planted++;
    }
    Object.values(x).forEach(visit);
  };
  visit(v);
  if (v && typeof v === 'object' && !Array.isArray(v) && Array.isArray(v.services)) {
    v.authers = [{ name: `auther-${n}`, auths: [{ username: `PLANTED-AUSER-${n}`, password: `PLANTED-APASS-${n}` }] }];
    v.note = `see socks5://PLANTED-URLUSER-${n}:pw@10.0.0.1:1080`;
    planted++;
  }
  return planted ? v : null;
}

/** A copy of a tunnel input with a fresh token in every node row. */
function planted(input, n) {
  const v = structuredClone(input);
  for (const row of v.nodes) if (row && typeof row === 'object') row.remoteToken = `PLANTED-${n}-${row.id ?? 'x'}`;
  return v;
}

/** A copy of a backup export with fresh node secrets, share tokens and password hashes. */
function plantedBackup(backup, n) {
  const v = structuredClone(backup);
  for (const row of v.nodes) if (row && typeof row === 'object') Object.assign(row, { secret: `PLANTED-SECRET-${n}-${row.id}`, remoteToken: row.isRemote ? `PLANTED-TOKEN-${n}-${row.id}` : row.remoteToken });
  for (const u of v.users || []) if (u && typeof u === 'object') u.pwd = `PLANTED-PWD-${n}-${u.id}`;
  return v;
}

/** A copy of a panel's database rows with fresh node secrets and share tokens. */
function plantedTables(tables, n) {
  const v = structuredClone(tables);
  for (const row of v.node) Object.assign(row, { secret: `PLANTED-SECRET-${n}-${row.id}`, remote_token: row.is_remote ? `PLANTED-TOKEN-${n}-${row.id}` : row.remote_token });
  return v;
}

/** SQLite files under `dir`. */
function sqliteFiles(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !(e.parentPath ?? e.path).includes('node_modules'))
    .map((e) => join(e.parentPath ?? e.path, e.name))
    .filter(isSqliteFile);
}

/** What every entry point answers for `text` (thrown errors as text too). */
function outputs(text) {
  const out = [];
  const call = (f) => {
    try {
      out.push(String(f()));
    } catch (e) {
      out.push(`${e && e.message} ${e && e.path}`);
    }
  };
  for (const f of ['planTunnelJson', 'checkDocumentJson', 'checkTunnelJson', 'simulateJson', 'lifecycleJson', 'simulateText']) call(() => m[f](text));
  for (const format of ['text', 'sarif']) call(() => m.checkDocumentFormatted(text, format));
  // A panel (backup export or database rows): every tunnel audited as a redeploy.
  call(() => {
    const tunnels = JSON.parse(m.backupTunnelsJson(text));
    return JSON.stringify(tunnels) + tunnels.map((t) => JSON.stringify(m.checkTunnel(t.input, { mode: 'redeploy' }))).join('');
  });
  call(() => m.auditPanelJson(text));
  const v = JSON.parse(text);
  for (const f of ['planTunnel', 'checkDocument', 'checkTunnel', 'simulate', 'lifecycle']) call(() => JSON.stringify(m[f](v)));
  return out;
}

let docs = 0;
let carrying = 0;
let checked = 0;
let echoes = 0;
const distinct = new Set();

function run(text, file) {
  docs++;
  let v;
  try {
    v = JSON.parse(text);
  } catch {
    return;
  }
  // Only values that appear once in the document: the credential field itself.
  const secrets = [...credentials(v)].filter((s) => text.split(JSON.stringify(s).slice(1, -1)).length === 2);
  if (!secrets.length) return;
  carrying++;
  for (const s of secrets) distinct.add(s);
  for (const out of outputs(text)) {
    checked++;
    for (const s of secrets) {
      if (out.includes(s)) {
        echoes++;
        if (echoes <= 10) console.log(`ECHO ${file}: ${s}`);
      }
    }
  }
}

function documents(text) {
  const items = [text];
  const add = (v) => {
    items.push(JSON.stringify(v));
    if (v && typeof v === 'object' && v.tunnel && Array.isArray(v.nodes)) items.push(JSON.stringify(planted(v, docs + items.length)));
    if (v && typeof v === 'object' && Array.isArray(v.chain_tunnel) && Array.isArray(v.node)) items.push(JSON.stringify(plantedTables(v, docs + items.length)));
    if (v && typeof v === 'object' && 'version' in v && Array.isArray(v.nodes) && Array.isArray(v.tunnels)) items.push(JSON.stringify(plantedBackup(v, docs + items.length)));
    const carriers = plantedCarriers(v, docs + items.length);
    if (carriers) items.push(JSON.stringify(carriers));
  };
  try {
    add(JSON.parse(text));
  } catch {
    // not one JSON document: maybe JSON lines
  }
  for (const { value, parts } of jsonLines(text)) {
    if (value === undefined) continue; // not JSON
    add(value);
    parts.forEach(add);
  }
  return items;
}

for (const d of args) {
  if (isPostgresUrl(d)) {
    for (const doc of documents(await readPostgres(d))) run(doc, 'postgres');
    continue;
  }
  if (!existsSync(d) || !statSync(d).isDirectory()) {
    console.error(`not a directory: ${d}`);
    process.exit(2);
  }
  for (const [p, text] of corpusFiles(d)) for (const doc of documents(text)) run(doc, p);
  for (const p of sqliteFiles(d)) for (const doc of documents(readSqlite(p))) run(doc, p);
}
console.log(`${docs} documents, ${carrying} carry a credential (${distinct.size} distinct values); ${checked} outputs checked, ${echoes} echo one`);
process.exitCode = echoes ? 1 : 0;
