// The packaged CLI (pkg/bin/hop-policy.mjs): plans over every golden vector,
// exit codes, stdin, errors naming file and line, colour rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT as ROOT_DIR, CLI, SEED_FILE, VECTORS_FILE, VECTOR_FILES, cli, vectors, allVectors, vector, compareToExpected, crateVersion, withoutFederatedRetries, tempDir } from './helpers.mjs';

const tmp = tempDir('hop-policy-cli-');
const write = (name, text) => {
  const p = path.join(tmp, name);
  writeFileSync(p, text);
  return p;
};
const SEED = vector('seed-federated-middle-fifo-3-exits');

test('--version and --help', () => {
  const v = cli(['--version']);
  assert.equal(v.code, 0);
  assert.equal(v.stdout.trim(), crateVersion());
  const h = cli(['--help']);
  assert.equal(h.code, 0);
  for (const part of ['Usage:', 'Examples:', 'Exit codes:', 'hop-policy plan', 'hop-policy check', '--format', 'NO_COLOR']) assert.ok(h.stdout.includes(part), part);
});

test('bad usage exits 2', () => {
  for (const args of [[], ['frobnicate'], ['plan', '--bogus'], ['check'], ['simulate', SEED_FILE], ['check', SEED_FILE, '--format', 'xml'], ['simulate', SEED_FILE, '--dead', '3', '--requests', 'x']]) {
    const r = cli(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, /^hop-policy: /);
  }
});

test('plan FILE and plan - print the seed plan', () => {
  const fromFile = cli(['plan', SEED_FILE]);
  assert.equal(fromFile.code, 0, fromFile.stderr);
  assert.equal(compareToExpected(JSON.parse(fromFile.stdout), SEED.expected), null);
  const fromStdin = cli(['plan', '-'], { input: readFileSync(SEED_FILE) });
  assert.equal(fromStdin.code, 0);
  assert.deepEqual(JSON.parse(fromStdin.stdout), JSON.parse(fromFile.stdout));
  const vectorObject = cli(['plan', '--compact', '-'], { input: JSON.stringify(SEED) });
  assert.deepEqual(JSON.parse(vectorObject.stdout), JSON.parse(fromFile.stdout));
  assert.equal(vectorObject.stdout.trim().split('\n').length, 1);
});

test('plan --jsonl over every golden vector (create, update, redeploy), in order, each line in its mode', () => {
  const all = allVectors();
  assert.equal(all.length, 613 + 200 + 300);
  const t0 = process.hrtime.bigint();
  const r = cli(['plan', '--jsonl', '-'], { input: VECTOR_FILES.map((f) => readFileSync(f, 'utf8')).join('') });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n').filter((l) => l);
  assert.equal(lines.length, all.length);
  const failures = [];
  lines.forEach((line, i) => {
    const why = compareToExpected(JSON.parse(line), all[i].expected);
    if (why) failures.push(`${all[i].name}: ${why}`);
  });
  console.log(`# CLI --jsonl: ${all.length - failures.length}/${all.length} vectors match (${ms.toFixed(0)} ms incl. node start)`);
  assert.deepEqual(failures.slice(0, 5), [], `${failures.length} vectors differ`);
  // Bare inputs give the same plans as vector objects.
  const bare = cli(['plan', '--jsonl', '-'], { input: all.slice(0, 40).map((v) => JSON.stringify(v.input)).join('\n') + '\n' });
  assert.deepEqual(bare.stdout.split('\n').filter((l) => l), lines.slice(0, 40));
  // --mode overrides what a line asks for; a bare redeploy input is detected.
  const redeploy = all.find((v) => v.mode === 'redeploy' && v.expected.error === null);
  const asCreate = JSON.parse(cli(['plan', '--compact', '--mode', 'create', '-'], { input: JSON.stringify(redeploy) }).stdout);
  assert.equal(asCreate.mode, 'create');
  const detected = JSON.parse(cli(['plan', '--compact', '-'], { input: JSON.stringify(redeploy.input) }).stdout);
  assert.equal(detected.mode, 'redeploy');
  assert.equal(compareToExpected(detected, redeploy.expected), null);
  const bad = cli(['plan', '--mode', 'delete', SEED_FILE]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--mode must be create, update or redeploy/);
});

test('input files: a byte order mark is accepted, bytes that are not UTF-8 are refused with their offset', () => {
  const bom = write('bom.json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(SEED_FILE)]));
  const r = cli(['plan', '--compact', bom]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).error, null);
  const bad = write('bad.json', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]));
  for (const cmd of ['plan', 'check', 'simulate', 'lifecycle']) {
    const out = cli(cmd === 'simulate' ? [cmd, bad, '--dead', '3'] : [cmd, bad]);
    assert.equal(out.code, 2, cmd);
    assert.match(out.stderr, /not UTF-8: invalid byte 0xff at byte offset 6/, cmd);
  }
});

test('every command refuses options it does not take', () => {
  for (const args of [['plan', SEED_FILE, '--format', 'xml'], ['plan', SEED_FILE, '--dead', '3'], ['lifecycle', SEED_FILE, '--mode', 'create'], ['check', SEED_FILE, '--jsonl']]) {
    const r = cli(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.stderr, /Try 'hop-policy --help'/);
  }
});

test('plan --jsonl: an unreadable line is named on stderr, output stays aligned, exit 2', () => {
  const good = JSON.stringify(SEED.input);
  const file = write('mixed.jsonl', `${good}\n{"tunnel": [1,\n\n42\n${good}\n`);
  const r = cli(['plan', '--jsonl', file]);
  assert.equal(r.code, 2);
  const lines = r.stdout.split('\n').filter((l) => l);
  assert.equal(lines.length, 4);
  assert.equal(JSON.parse(lines[0]).error, null);
  assert.equal(JSON.parse(lines[1]).error.code, 'IN001');
  assert.equal(JSON.parse(lines[2]).error.code, 'IN001');
  assert.equal(JSON.parse(lines[3]).error, null);
  assert.ok(r.stderr.includes(`${file}:2`), r.stderr);
  assert.ok(r.stderr.includes(`${file}:4`), r.stderr);
});

test('plan: unreadable file or text exits 2 naming the file and line', () => {
  const missing = cli(['plan', path.join(tmp, 'nope.json')]);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /nope\.json: no such file/);
  const bad = write('bad.json', '{\n  "tunnel": {,\n}\n');
  const r = cli(['plan', bad]);
  assert.equal(r.code, 2);
  assert.ok(r.stderr.includes(`${bad}:2:`), r.stderr);
});

test('check --format json: exit 0 when clean, 1 on an error finding, 2 when unreadable (IN001 printed)', () => {
  const clean = cli(['check', write('clean-plan.json', JSON.stringify(SEED.expected)), '--format', 'json']);
  const cleanReport = JSON.parse(clean.stdout);
  assert.deepEqual(Object.keys(cleanReport).sort(), ['findings', 'summary']);
  assert.ok(!cleanReport.findings.some((f) => f.severity === 'error'), clean.stdout);
  assert.equal(clean.code, 0);

  const broken = cli(['check', write('broken-plan.json', JSON.stringify(withoutFederatedRetries(SEED.expected))), '--format', 'json']);
  assert.equal(broken.code, 1, broken.stdout);
  assert.ok(JSON.parse(broken.stdout).findings.some((f) => f.code === 'FO001' && f.nodeId === 2));

  const notJson = cli(['check', write('not.json', 'services: []'), '--format', 'json']);
  assert.equal(notJson.code, 2);
  assert.match(notJson.stderr, /not\.json:1:1: /);
  assert.deepEqual(JSON.parse(notJson.stdout).findings.map((f) => f.code), ['IN001']);

  const missing = cli(['check', path.join(tmp, 'missing.json'), '--format', 'json']);
  assert.equal(missing.code, 2);
  const report = JSON.parse(missing.stdout);
  assert.deepEqual(report.findings.map((f) => f.code), ['IN001']);
  assert.match(report.findings[0].message, /missing\.json/);
  assert.match(missing.stderr, /missing\.json/);

  const stdin = cli(['check', '-', '--format', 'json'], { input: JSON.stringify(withoutFederatedRetries(SEED.expected)) });
  assert.equal(stdin.code, 1);
  assert.equal(cli(['check', '-', '--format', 'json', '--quiet'], { input: '{}' }).stdout, '');
});

test('check --format sarif is SARIF 2.1.0 with rule metadata', () => {
  const r = cli(['check', write('broken2.json', JSON.stringify(withoutFederatedRetries(SEED.expected))), '--format', 'sarif']);
  assert.equal(r.code, 1, r.stderr);
  const sarif = JSON.parse(r.stdout);
  assert.equal(sarif.version, '2.1.0');
  const run = sarif.runs[0];
  assert.ok(run.tool.driver.rules.some((rule) => rule.id === 'FO001'));
  assert.ok(run.results.some((res) => res.ruleId === 'FO001' && res.level === 'error'));
});

test('check --format text: colour only on a terminal, never with NO_COLOR', () => {
  const file = write('broken3.json', JSON.stringify(withoutFederatedRetries(SEED.expected)));
  const piped = cli(['check', file]);
  assert.equal(piped.code, 1, piped.stderr);
  assert.match(piped.stdout, /FO001/);
  assert.ok(!piped.stdout.includes('\x1b['), 'colour on a pipe');
  const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;
  if (!hasScript) return;
  const tty = (env) => spawnSync('script', ['-qec', `${process.execPath} ${CLI} check ${file}`, '/dev/null'], { encoding: 'utf8', env: { ...process.env, ...env } });
  const coloured = tty({ NO_COLOR: '' });
  assert.ok(coloured.stdout.includes('\x1b['), 'no colour on a terminal');
  const plain = tty({ NO_COLOR: '1' });
  assert.match(plain.stdout, /FO001/);
  assert.ok(!plain.stdout.includes('\x1b['), 'colour despite NO_COLOR');
});

test('simulate: seed with a dead first exit fails over (exit 0); without retries request 1 fails (exit 1)', () => {
  const ok = cli(['simulate', SEED_FILE, '--dead', '3', '--requests', '3', '--format', 'json']);
  assert.equal(ok.code, 0, ok.stderr);
  const trace = JSON.parse(ok.stdout);
  assert.equal(trace.requests.length, 3);
  assert.ok(trace.requests.every((r) => r.ok));
  assert.equal(trace.requests[0].exitNodeId, 4);
  const broken = write('sim-broken.json', JSON.stringify(withoutFederatedRetries(SEED.expected)));
  const bad = cli(['simulate', broken, '--dead=3', '--requests=2', '--format=json']);
  assert.equal(bad.code, 1, bad.stderr);
  const badTrace = JSON.parse(bad.stdout);
  assert.equal(badTrace.requests[0].ok, false);
  assert.equal(badTrace.requests[1].ok, true);
  const text = cli(['simulate', SEED_FILE, '--dead', '3']);
  assert.equal(text.code, 0, text.stderr);
  assert.ok(text.stdout.length > 0);
  assert.equal(cli(['simulate', path.join(tmp, 'none.json'), '--dead', '3']).code, 2);
});

test('lifecycle: LC001 exits 1, a clean create exits 0', () => {
  const oneExit = structuredClone(SEED.input);
  oneExit.tunnel.outNodeId = oneExit.tunnel.outNodeId.slice(0, 1);
  const stale = cli(['lifecycle', write('stale.json', JSON.stringify([
    { op: 'apply', input: oneExit },
    { op: 'release', unreachable: [2] },
    { op: 'apply', input: SEED.input },
  ]))]);
  assert.equal(stale.code, 1, stale.stderr);
  assert.ok(JSON.parse(stale.stdout).findings.some((f) => f.code === 'LC001'));
  const clean = cli(['lifecycle', '-'], { input: JSON.stringify([{ op: 'apply', input: SEED.input }]) });
  assert.equal(clean.code, 0, clean.stdout + clean.stderr);
});

test('lifecycle: unreadable steps exit 2', () => {
  const r = cli(['lifecycle', write('steps.json', '[{"op": "apply",')]);
  assert.equal(r.code, 2);
  assert.ok(r.stderr.includes('steps.json'), r.stderr);
});

test('an input over the byte limit is refused by every command before any work, exit 2 naming the limit', () => {
  const seed = JSON.parse(readFileSync(SEED_FILE, 'utf8'));
  const big = write('big.json', JSON.stringify({ ...seed, pad: 'x'.repeat(17 * 1024 * 1024) }));
  for (const args of [['plan', big], ['simulate', big, '--dead', '3'], ['lifecycle', big], ['check', big, '--format', 'json']]) {
    const r = cli(args);
    assert.equal(r.code, 2, args[0]);
    if (args[0] !== 'check') assert.match(r.stderr, /maxInputBytes/, args[0]);
    else assert.match(r.stdout, /maxInputBytes/);
  }
});

test('audit: every tunnel of a panel backup, planned as a redeploy pushes it, with no secret in any output', () => {
  const file = path.join(ROOT_DIR, 'examples', 'panel-backup.json');
  const backup = JSON.parse(readFileSync(file, 'utf8'));
  const r = cli(['audit', file, '--format', 'json']);
  assert.equal(r.code, 1, r.stderr); // the fixture has tunnels the server refuses
  const out = JSON.parse(r.stdout);
  assert.equal(out.tunnels.length, backup.tunnels.length);
  assert.equal(out.summary.tunnels, backup.tunnels.length);
  for (const t of out.tunnels) {
    assert.equal(t.plan.mode, 'redeploy');
    assert.ok(t.assumed.some((a) => a.includes('connect IP')));
  }
  // Each tunnel's plan is the one its rows give through planTunnel in redeploy mode.
  const text = cli(['audit', file]);
  for (const secret of [...backup.nodes.flatMap((n) => [n.secret, n.remoteToken]), ...backup.users.map((u) => u.pwd)].filter((s) => s && s.length >= 4)) {
    assert.ok(!r.stdout.includes(secret) && !text.stdout.includes(secret), 'a secret reached the audit output');
  }
  assert.match(text.stdout, /tunnels, \d+ with errors/);
  const one = JSON.parse(cli(['audit', file, '--format', 'json', '--tunnel', String(backup.tunnels[0].id)]).stdout);
  assert.deepEqual(one.tunnels.map((t) => t.id), [backup.tunnels[0].id]);
  const notBackup = cli(['audit', SEED_FILE]);
  assert.equal(notBackup.code, 2);
  assert.match(notBackup.stderr, /not a panel backup: the key "version" is missing/);
  // The export leaves empty lists out (omitempty): a panel without tunnels is
  // an empty audit; a partial export with tunnels but no nodes exits 2.
  const noTunnels = cli(['audit', '-', '--format', 'json'], { input: JSON.stringify({ version: '1.0', exportedAt: 1, nodes: backup.nodes }) });
  assert.equal(noTunnels.code, 0, noTunnels.stderr);
  assert.deepEqual(JSON.parse(noTunnels.stdout).tunnels, []);
  const partial = cli(['audit', '-'], { input: JSON.stringify({ version: '1.0', exportedAt: 1, tunnels: backup.tunnels }) });
  assert.equal(partial.code, 2);
  assert.match(partial.stderr, /the key "nodes" is missing \(a partial export/);
  assert.equal(cli(['audit', file, '--tunnel', '999999']).code, 2);
  const sarif = JSON.parse(cli(['audit', file, '--format', 'sarif']).stdout);
  assert.equal(sarif.version, '2.1.0');
  const results = sarif.runs[0].results;
  assert.equal(results.length, out.tunnels.reduce((n, t) => n + t.findings.length, 0));
  assert.ok(results.every((x) => /^tunnel\/\d+/.test(x.locations[0].logicalLocations[0].fullyQualifiedName)));
});
