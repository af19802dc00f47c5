// `hop-policy audit` over a whole panel from each of its real sources: the
// backup export, a SQLite database file and a PostgreSQL server, all loaded
// with the same fixture panel (examples/panel-backup.json) under the panel's
// schema (tests/node/panel-db.mjs, after upstream model.go). scripts/test runs
// this file under scripts/with-postgres, which starts a throwaway server and
// sets HOP_POLICY_PG_URL; without it (outside CI) the PostgreSQL half is skipped.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT, cli, tempDir } from './helpers.mjs';
import { panelRows, readBackup, writePostgres, writeSqlite } from './panel-db.mjs';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');
const pg = require('pg');
const HERE = path.dirname(new URL(import.meta.url).pathname);
const BACKUP_FILE = path.join(ROOT, 'examples', 'panel-backup.json');
const backup = readBackup(BACKUP_FILE);
const tmp = tempDir('hop-policy-audit-');
const PG_URL = process.env.HOP_POLICY_PG_URL;
const pgSkip = PG_URL ? false : process.env.CI ? false : 'HOP_POLICY_PG_URL not set (scripts/test sets it through scripts/with-postgres)';

// The CLI finds its database drivers from the working directory, as in a
// project that installed them next to hop-policy.
const audit = (args, options = {}) => cli(['audit', ...args], { ...options, cwd: HERE });

// Chain row ids are unique in a database; the fixture numbers them per tunnel.
const chainId = (tunnelIndex, id) => (tunnelIndex + 1) * 1000 + id;
function databaseRows(extra = {}) {
  const renumbered = { ...backup, tunnels: backup.tunnels.map((t, i) => ({ ...t, chainTunnels: t.chainTunnels.map((c) => ({ ...c, id: chainId(i, c.id) })) })) };
  return panelRows(renumbered, extra);
}

function sqliteFile(name, rows) {
  const file = path.join(tmp, name);
  writeSqlite(Database, file, rows);
  return file;
}

const byId = (report) => new Map(report.tunnels.map((t) => [t.id, t]));
const secrets = [
  ...backup.nodes.flatMap((n) => [n.secret, n.remoteToken]),
  ...backup.users.map((u) => u.pwd),
].filter((s) => s && s.length >= 4);

function assertNoSecret(r, extra = []) {
  for (const s of [...secrets, ...extra]) {
    assert.ok(!r.stdout.includes(s) && !r.stderr.includes(s), `a credential reached the audit output: ${s.slice(0, 3)}...`);
  }
}

test('a SQLite database audits as its backup does where they carry the same facts, and says less is assumed', () => {
  const file = sqliteFile('same-facts.sqlite', databaseRows());
  const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
  const fromBackup = JSON.parse(audit([BACKUP_FILE, '--format', 'json']).stdout);
  const r = audit([file, '--format', 'json']);
  assert.equal(r.code, 1, r.stderr); // the fixture has tunnels the server refuses
  const fromDb = JSON.parse(r.stdout);
  assert.deepEqual([...byId(fromDb).keys()].sort(), [...byId(fromBackup).keys()].sort());
  for (const [id, t] of byId(fromBackup)) {
    const d = byId(fromDb).get(id);
    assert.deepEqual(d.plan, t.plan, `tunnel ${id}: plan`);
    assert.deepEqual(d.findings, t.findings, `tunnel ${id}: findings`);
    assert.ok(t.assumed.some((a) => a.includes('connect IP')), `tunnel ${id}: the backup assumes connect IPs`);
    assert.ok(!d.assumed.some((a) => a.includes('connect IP') || a.includes('binding')), `tunnel ${id}: the database assumes ${d.assumed}`);
  }
  assert.deepEqual(fromDb.summary, fromBackup.summary);
  assert.equal(fromDb.summary.forwards, backup.forwards.length, 'the forward tables are read');
  const t9 = byId(fromBackup).get(199);
  assert.ok(t9.assumed.some((a) => a.includes('forward_port.in_ip')), 'the backup assumes what its forwards leave out');
  assert.ok(!byId(fromDb).get(199).assumed.some((a) => a.includes('forward_port.in_ip')));
  // Opened read-only: the file is untouched.
  assert.ok(readFileSync(file).equals(before.bytes));
  assert.equal(statSync(file).mtimeMs, before.mtime);
  for (const format of ['text', 'json', 'sarif']) assertNoSecret(audit([file, '--format', format]));
});

test('what only the database has (a connect IP, an active binding) reaches the plan', () => {
  const t98 = backup.tunnels.findIndex((t) => t.id === 98);
  const exit98 = backup.tunnels[t98].chainTunnels.find((c) => c.chainType === '3');
  const rows = databaseRows({
    chain_tunnel: { [chainId(t98, exit98.id)]: { connect_ip: '198.51.100.77' } },
    federation_tunnel_binding: [{ id: 1, tunnel_id: 18, node_id: 407, chain_type: 3, hop_inx: 0, remote_url: 'https://peer2.example.com', resource_key: 'rk-18-407', remote_binding_id: '4070', allocated_port: 45123, status: 1, created_time: 1, updated_time: 1 }],
  });
  const file = sqliteFile('more-facts.sqlite', rows);
  const fromDb = byId(JSON.parse(audit([file, '--format', 'json']).stdout));
  const fromBackup = byId(JSON.parse(audit([BACKUP_FILE, '--format', 'json']).stdout));
  assert.ok(JSON.stringify(fromDb.get(98).plan).includes('198.51.100.77'), 'the connect IP is dialled');
  assert.ok(!JSON.stringify(fromBackup.get(98).plan).includes('198.51.100.77'));
  assert.notDeepEqual(fromDb.get(18).plan, fromBackup.get(18).plan, 'the stored binding changes the redeploy');
  assert.ok(fromBackup.get(18).assumed.some((a) => a.includes('no federation binding to release')));
  assert.ok(!fromDb.get(18).assumed.some((a) => a.includes('binding')), fromDb.get(18).assumed.join('; '));
});

test('what only the database has for forwards (a listen IP, a connection limit) reaches the plan', () => {
  const rows = databaseRows();
  const ssh = rows.forward.find((f) => f.name === 'ssh');
  ssh.max_conn = 50;
  rows.forward_port.find((p) => p.forward_id === ssh.id).in_ip = '10.0.0.9';
  const fromDb = byId(JSON.parse(audit([sqliteFile('forward-facts.sqlite', rows), '--format', 'json']).stdout)).get(199);
  const services = fromDb.plan.local.find((c) => c.command === 'UpdateService' && c.data[0].name.startsWith(`${ssh.id}_`));
  assert.equal(services.data[0].addr, '10.0.0.9:50001', 'the stored listen IP is the address');
  assert.equal(services.data[0].climiter, `rule_conn_limit_${ssh.id}`, 'the stored connection limit is sent');
  assert.ok(fromDb.plan.local.some((c) => c.command === 'AddCLimiters' && c.data.name === `rule_conn_limit_${ssh.id}`));
  const fromBackup = byId(JSON.parse(audit([BACKUP_FILE, '--format', 'json']).stdout)).get(199);
  assert.ok(!JSON.stringify(fromBackup.plan).includes(`rule_conn_limit_${ssh.id}`), 'the export has no max_conn');
});

test('bad SQLite sources: not the panel, a row that cannot be read', () => {
  const empty = path.join(tmp, 'other.sqlite');
  const db = new Database(empty);
  db.exec('CREATE TABLE node (id integer primary key); CREATE TABLE notes (id integer)');
  db.close();
  const r = audit([empty]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /is not a flvx panel database: no table tunnel, chain_tunnel, federation_tunnel_binding/);
  const rows = databaseRows();
  rows.chain_tunnel[3].node_id = 'two';
  const bad = sqliteFile('bad-row.sqlite', rows);
  const b = audit([bad]);
  assert.equal(b.code, 2, b.stderr);
  assert.match(b.stderr, new RegExp(`table chain_tunnel, row id ${rows.chain_tunnel[3].id}: column node_id must be an integer, not text`));
  assertNoSecret(b);
  const notBackup = path.join(tmp, 'not-backup.json');
  writeFileSync(notBackup, JSON.stringify({ nodes: [], tunnels: [] }));
  const n = audit([notBackup]);
  assert.equal(n.code, 2);
  assert.match(n.stderr, /the key "version" is missing/);
});

test('PostgreSQL: the same audit as the backup, in a read-only transaction, no password anywhere', { skip: pgSkip }, async () => {
  assert.ok(PG_URL, 'CI must run this test under scripts/with-postgres');
  const password = decodeURIComponent(new URL(PG_URL).password);
  const url = await writePostgres(pg, PG_URL, 'panel_same_facts', databaseRows());
  const r = audit([url, '--format', 'json']);
  assert.equal(r.code, 1, r.stderr);
  const fromPg = byId(JSON.parse(r.stdout));
  const fromSqlite = byId(JSON.parse(audit([sqliteFile('pg-twin.sqlite', databaseRows()), '--format', 'json']).stdout));
  for (const [id, t] of fromSqlite) {
    assert.deepEqual(fromPg.get(id).plan, t.plan, `tunnel ${id}`);
    assert.deepEqual(fromPg.get(id).findings, t.findings, `tunnel ${id}`);
    assert.deepEqual(fromPg.get(id).assumed, t.assumed, `tunnel ${id}`);
  }
  for (const format of ['text', 'json', 'sarif']) assertNoSecret(audit([url, '--format', format]), [password]);
  // The rows are unchanged (the read is a rolled-back READ ONLY transaction).
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const count = (await client.query('SELECT count(*)::int AS n FROM chain_tunnel')).rows[0].n;
  await client.end();
  assert.equal(count, databaseRows().chain_tunnel.length);
  // A schema without the panel's tables, a wrong password, a closed port.
  const other = new URL(PG_URL);
  other.searchParams.set('options', '-c search_path=pg_catalog');
  const notPanel = audit([other.toString()]);
  assert.equal(notPanel.code, 2);
  assert.match(notPanel.stderr, /not a flvx panel database: no table node, tunnel, chain_tunnel, federation_tunnel_binding/);
  const wrong = new URL(PG_URL);
  wrong.password = 'not-the-password-31337';
  const denied = audit([wrong.toString()]);
  assert.equal(denied.code, 2);
  assert.match(denied.stderr, /cannot reach PostgreSQL at 127\.0\.0\.1:\d+\/postgres: .*password authentication failed/);
  assertNoSecret(denied, [password, 'not-the-password-31337']);
  const closed = new URL(PG_URL);
  closed.port = '1';
  const refused = audit([closed.toString()]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, /cannot reach PostgreSQL at 127\.0\.0\.1:1\/postgres: .*ECONNREFUSED/);
  assertNoSecret(refused, [password]);
});
