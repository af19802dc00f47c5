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
// fresh token planted into every node row. Node rows (a tunnel input's, a
// backup's, a database's, a redeploy input's) also get a remote URL with a
// userinfo password and a `?token=` value, and a remote config holding a
// token; a redeploy input's rows are also read as a panel's database. Each document goes through every
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
// URL parameters that carry a credential: the keys above, and the names URLs use for keys and signatures.
const PARAM_KEY = new RegExp(`${CREDENTIAL_KEY.source}|^auths?$|key$|signature$|^(pass|sig)$`, 'i');

/** Every string of 4 or more characters inside `v`. */
function strings(v, acc) {
  if (typeof v === 'string' && v.length >= 4) acc.add(v);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) strings(x, acc);
  return acc;
}

/**
 * Credential values (strings of 4 or more characters) anywhere in `v`: URL
 * userinfo (and its password alone), secret URL parameters' values, and
 * those of JSON held in a string (a node's remote config).
 */
function credentials(v, acc = new Set()) {
  if (typeof v === 'string') {
    for (const m of v.matchAll(/:\/\/([^/?#@\s"]{4,})@/g)) {
      acc.add(m[1]);
      const password = m[1].slice(m[1].indexOf(':') + 1);
      if (m[1].includes(':') && password.length >= 4) acc.add(password);
    }
    for (const m of v.matchAll(/[?&;#]([^=?&;#\s"]+)=([^?&;#\s"]{4,})/g)) if (PARAM_KEY.test(m[1])) acc.add(m[2]);
    if (/^\s*[{[]/.test(v)) {
      try {
        credentials(JSON.parse(v), acc);
      } catch {
        // not JSON
      }
    }
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

/** `url` (the row's, or a stand-in) with a fresh userinfo password and `?token=` value. */
function plantedUrl(url, tag) {
  let u;
  try {
    u = new URL(url);
  } catch {
    u = new URL('https://panel.example:8443/api?region=eu');
  }
  u.username = `PLANTED-USER-${tag}`;
  u.password = `PLANTED-URLPW-${tag}`;
  u.searchParams.set('token', `PLANTED-QTOKEN-${tag}`);
  return u.href;
}

/** The row's remote config (JSON in a string) with a fresh token, top-level and nested. */
function plantedConfig(config, tag) {
  let cfg = {};
  try {
    const parsed = JSON.parse(config);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) cfg = parsed;
  } catch {
    // not JSON: a config of its own
  }
  return JSON.stringify({ ...cfg, token: `PLANTED-CFGTOKEN-${tag}`, provider: { password: `PLANTED-CFGPW-${tag}` } });
}

/** Plants a remote URL and config into a node row, under the API's keys or the database's. */
function plantRemote(row, tag, database) {
  const [url, config] = database ? ['remote_url', 'remote_config'] : ['remoteUrl', 'remoteConfig'];
  row[url] = plantedUrl(row[url], tag);
  row[config] = plantedConfig(row[config], tag);
}

/** Plants a URL into each federation binding row (each its own, so each is checked). */
function plantBindings(rows, n) {
  for (const b of Array.isArray(rows) ? rows : []) if (b && typeof b === 'object') b.remote_url = plantedUrl(b.remote_url, `${n}-b${b.id}`);
}

/** A copy of a tunnel input with a fresh token, remote URL and config in every node row. */
function planted(input, n) {
  const v = structuredClone(input);
  for (const row of v.nodes) {
    if (!row || typeof row !== 'object') continue;
    row.remoteToken = `PLANTED-${n}-${row.id ?? 'x'}`;
    plantRemote(row, `${n}-${row.id ?? 'x'}`, false);
  }
  return v;
}

/** A copy of a backup export with fresh node secrets, share tokens and password hashes. */
function plantedBackup(backup, n) {
  const v = structuredClone(backup);
  for (const row of v.nodes) {
    if (!row || typeof row !== 'object') continue;
    Object.assign(row, { secret: `PLANTED-SECRET-${n}-${row.id}`, remoteToken: row.isRemote ? `PLANTED-TOKEN-${n}-${row.id}` : row.remoteToken });
    plantRemote(row, `${n}-${row.id}`, false);
  }
  for (const u of v.users || []) if (u && typeof u === 'object') u.pwd = `PLANTED-PWD-${n}-${u.id}`;
  return v;
}

/** A copy of a panel's database rows (or a redeploy input's `db`) with fresh node secrets, share tokens, remote URLs and configs. */
function plantedTables(tables, n) {
  const v = structuredClone(tables);
  for (const row of v.node) {
    if (!row || typeof row !== 'object') continue;
    Object.assign(row, { secret: `PLANTED-SECRET-${n}-${row.id}`, remote_token: row.is_remote ? `PLANTED-TOKEN-${n}-${row.id}` : row.remote_token });
    plantRemote(row, `${n}-${row.id}`, true);
  }
  plantBindings(v.federation_tunnel_binding, n);
  return v;
}

/** A redeploy input's rows as a panel's database (one tunnel row in a list). */
function tablesOf(db) {
  const list = (x) => (Array.isArray(x) ? x : x && typeof x === 'object' ? [x] : []);
  return { node: list(db.node), tunnel: list(db.tunnel), chain_tunnel: list(db.chain_tunnel), federation_tunnel_binding: list(db.federation_tunnel_binding) };
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
    if (v && typeof v === 'object' && v.db && typeof v.db === 'object' && Array.isArray(v.db.node)) {
      items.push(JSON.stringify({ ...v, db: plantedTables(v.db, docs + items.length) }));
      items.push(JSON.stringify(plantedTables(tablesOf(v.db), docs + items.length)));
    }
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
