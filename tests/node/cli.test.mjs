// The packaged CLI (pkg/bin/hop-policy.mjs): plans over every golden vector,
// exit codes, stdin, errors naming file and line, colour rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync, readFileSync, openSync, closeSync, mkdirSync, copyFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ROOT as ROOT_DIR, PKG, CLI, SEED_FILE, VECTORS_FILE, VECTOR_FILES, cli, vectors, allVectors, ALL_VECTOR_COUNT, forwardVectors, vector, compareToExpected, crateVersion, withoutFederatedRetries, tempDir } from './helpers.mjs';

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

test('plan --jsonl over every golden vector (create, update, redeploy, forwards), in order, each line in its mode', () => {
  const all = allVectors();
  assert.equal(all.length, ALL_VECTOR_COUNT);
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
  assert.match(bad.stderr, /--mode must be create, update, redeploy, forward-create or forward-update/);
});

test('plan --mode forward-create / forward-update, and --jsonl lines in those modes', () => {
  const fwd = forwardVectors();
  const create = fwd.find((v) => v.mode === 'forward-create' && v.expected.error === null && v.expected.local.length > 0);
  const update = fwd.find((v) => v.mode === 'forward-update' && v.expected.error === null && v.expected.local.length > 0);
  assert.ok(create && update);
  for (const v of [create, update]) {
    const r = cli(['plan', '--compact', '--mode', v.mode, '-'], { input: JSON.stringify(v.input) });
    assert.equal(r.code, 0, r.stderr);
    const plan = JSON.parse(r.stdout);
    assert.equal(plan.mode, v.mode, v.name);
    assert.equal(compareToExpected(plan, v.expected), null, v.name);
  }
  // --jsonl: a forward-create line and a forward-update line, each in its mode.
  const r = cli(['plan', '--jsonl', '-'], { input: `${JSON.stringify(create)}\n${JSON.stringify(update)}\n` });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
  assert.equal(lines.length, 2);
  assert.deepEqual(lines.map((p) => p.mode), ['forward-create', 'forward-update']);
  assert.equal(compareToExpected(lines[0], create.expected), null, create.name);
  assert.equal(compareToExpected(lines[1], update.expected), null, update.name);
  // A line's mode wins over what its input would be detected as
  // (`forward` and `createForwards`: forward-update); --mode wins over both.
  const input = { ...create.input, createForwards: [] };
  const asLine = (mode) => JSON.stringify({ name: 'x', mode, input, expected: create.expected });
  const modes = cli(['plan', '--jsonl', '-'], { input: `${asLine('forward-create')}\n${JSON.stringify(input)}\n` });
  assert.equal(modes.code, 0, modes.stderr);
  assert.deepEqual(modes.stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l).mode), ['forward-create', 'forward-update']);
  const forced = cli(['plan', '--jsonl', '--mode', 'forward-update', '-'], { input: `${asLine('forward-create')}\n` });
  assert.equal(JSON.parse(forced.stdout).mode, 'forward-update');
  // check takes the forward modes too.
  const checked = cli(['check', '-', '--format', 'json', '--mode', 'forward-create'], { input: JSON.stringify(create.input) });
  assert.ok(checked.code === 0 || checked.code === 1, checked.stderr);
  assert.ok(Array.isArray(JSON.parse(checked.stdout).findings));
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
  // The local twin of the seed: a federated middle always has LC004 (its
  // provider's cleanup deletes fed_chain_31).
  const clean = cli(['check', write('clean-plan.json', JSON.stringify(vector('seed-local-middle-fifo-3-exits').expected)), '--format', 'json']);
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
  assert.match(text.stdout, /12 tunnels, 5 forwards, \d+ tunnels with errors/);
  // Each tunnel's forwards are planned after it, as its redeploy syncs them.
  assert.equal(out.summary.forwards, backup.forwards.length);
  const t9 = out.tunnels.find((t) => t.id === 199);
  assert.deepEqual(t9.plan.db.forward.map((f) => f.name), ['ssh', 'game', 'paused']);
  assert.ok(t9.plan.local.some((c) => c.command === 'PauseService'), 'the paused forward is paused after its sync');
  assert.ok(t9.findings.some((f) => f.code === 'FO006' && f.path.includes('/forwarder')), 'two targets over a tunnel: FO006');
  assert.ok(t9.findings.some((f) => f.code === 'LC004' && f.message.includes('rule_traffic_limit_4')), 'the per-IP limiter is cleaned away: LC004');
  assert.match(text.stdout, /forward 3 game: node 901:50002 -> 198\.51\.100\.12:7777,198\.51\.100\.13:7777/);
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

// ----- bounded input, numeric flags, unwritable output, SARIF uris -----

const hp = createRequire(import.meta.url)(path.join(PKG, 'node', 'hop_policy.js'));
const MiB16 = 16 * 1024 * 1024;
/** A shell pipeline, bounded: the timeout is only a safety net against a hang. */
const sh = (script, ...args) => {
  const r = spawnSync('sh', ['-c', script, process.execPath, CLI, ...args], { encoding: 'utf8', timeout: 120000, killSignal: 'SIGKILL' });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};
const OVER_DOCUMENT = /^hop-policy: (\/dev\/zero|<stdin>|.*fifo): input is larger than the byte limit \(16777216 bytes; raise limits\.maxInputBytes/m;

test('the CLI reads a document to the core\'s byte limit: the same number', () => {
  // The core names its default maxInputBytes when a text is one byte over it.
  const core = JSON.parse(hp.planTunnelJson(' '.repeat(MiB16 - 1) + '{}'));
  assert.equal(core.error.code, 'LIMIT_EXCEEDED');
  assert.match(core.error.messageEn, new RegExp(`> ${MiB16} `));
  // One byte under it is read; one byte over (even with a byte order mark before) is not.
  const seed = readFileSync(SEED_FILE, 'utf8');
  const at = write('at-limit.json', '\ufeff' + seed + ' '.repeat(MiB16 - Buffer.byteLength(seed)));
  assert.equal(cli(['plan', '--compact', at]).code, 0);
  const over = write('over-limit.json', seed + ' '.repeat(MiB16 + 1 - Buffer.byteLength(seed)));
  const r = cli(['plan', over]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.ok(r.stderr.startsWith(`hop-policy: ${over}: input is larger than the byte limit (${MiB16} bytes; `), r.stderr);
});

test('/dev/zero as FILE: every command stops at its byte limit and exits 2 naming it', () => {
  for (const args of [['plan', '/dev/zero'], ['simulate', '/dev/zero', '--dead', '3'], ['lifecycle', '/dev/zero'], ['check', '/dev/zero', '--format', 'json']]) {
    const r = cli(args);
    assert.equal(r.code, 2, args[0]);
    assert.match(r.stderr, OVER_DOCUMENT, args[0]);
    if (args[0] === 'check') {
      const f = JSON.parse(r.stdout).findings;
      assert.deepEqual(f.map((x) => x.code), ['IN001']);
      assert.match(f[0].message, /larger than the byte limit \(16777216 bytes/);
    }
  }
  const audit = cli(['audit', '/dev/zero']);
  assert.equal(audit.code, 2);
  assert.match(audit.stderr, /^hop-policy: \/dev\/zero: input is larger than the byte limit \(268435456 bytes; the panel limit/);
});

test('an endless standard input and a FIFO fed forever are read only to the byte limit (exit 2)', () => {
  const stdin = sh('yes | "$0" "$1" plan -');
  assert.equal(stdin.code, 2, stdin.stderr);
  assert.match(stdin.stderr, OVER_DOCUMENT);
  const checked = sh('yes | "$0" "$1" check - --format json');
  assert.equal(checked.code, 2, checked.stderr);
  assert.equal(JSON.parse(checked.stdout).findings[0].code, 'IN001');
  const fifo = path.join(tmp, 'endless.fifo');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  // The writer is killed if the CLI never opened the FIFO (it would block forever).
  const r = sh('yes > "$2" & w=$!; "$0" "$1" simulate "$2" --dead 3; rc=$?; kill $w 2>/dev/null; exit $rc', fifo);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, OVER_DOCUMENT);
});

test('plan --jsonl is bounded per line and in all, and keeps planning after a line over the limit', () => {
  // A line over 16 MiB becomes a LIMIT_EXCEEDED line; the lines around it are planned.
  const good = JSON.stringify(SEED.input);
  const file = write('long-line.jsonl', `${good}\n${' '.repeat(MiB16)}{}\n${good}\n`);
  const r = cli(['plan', '--jsonl', file]);
  assert.equal(r.code, 2);
  const lines = r.stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.error && l.error.code), [null, 'LIMIT_EXCEEDED', null]);
  assert.ok(r.stderr.includes(`${file}:2: line 2 is larger than the byte limit (${MiB16} bytes; `), r.stderr);
  // /dev/zero is one endless line: skipped, then reading stops at 256 MiB in all.
  const zero = cli(['plan', '--jsonl', '/dev/zero']);
  assert.equal(zero.code, 2);
  assert.equal(zero.stdout, '');
  assert.match(zero.stderr, /\/dev\/zero: input is larger than the --jsonl limit \(268435456 bytes and 100000 lines in all; split it\): line 1 and after were not read/);
  // An endless stream of lines stops after 100000 lines; what was read is planned.
  const outFile = path.join(tmp, 'endless.jsonl');
  const endless = sh('yes \'{"tunnel": {}}\' | "$0" "$1" plan --jsonl --compact - > "$2"', outFile);
  assert.equal(endless.code, 2, endless.stderr.slice(0, 500));
  const planned = readFileSync(outFile, 'utf8').split('\n').filter((l) => l);
  assert.equal(planned.length, 100000);
  assert.deepEqual(planned[99999], planned[0]);
  assert.ok(Array.isArray(JSON.parse(planned[99999]).federation));
  assert.match(endless.stderr, /^hop-policy: <stdin>: input is larger than the --jsonl limit \(268435456 bytes and 100000 lines in all; split it\): line 100001 and after were not read\n$/);
});

test('plan --jsonl: a line that is not UTF-8 is one IN001 line, with its offset in the line', () => {
  const good = Buffer.from(JSON.stringify(SEED.input) + '\n');
  const file = write('bad-utf8.jsonl', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), good, Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d, 0x0a]), good]));
  const r = cli(['plan', '--jsonl', file]);
  assert.equal(r.code, 2);
  const lines = r.stdout.split('\n').filter((l) => l).map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.error && l.error.code), [null, 'IN001', null]);
  assert.ok(r.stderr.includes(`${file}:2: not UTF-8: invalid byte 0xff at byte offset 2 of the line (IN001)`), r.stderr);
});

test('numeric flags: a non-integer, negative, zero or huge value is bad usage (exit 2)', () => {
  for (const v of ['99999999999999999999', '10001', '0', '-1', '1.5', '1e3', '0x10', ' 3', '']) {
    const r = cli(['simulate', SEED_FILE, '--dead', '3', '--requests', v]);
    assert.equal(r.code, 2, `--requests ${JSON.stringify(v)}: ${r.stderr}`);
    assert.ok(r.stderr.startsWith(`hop-policy: --requests takes the number of requests (the simulator replays at most 10000): a whole number from 1 to 10000, not ${JSON.stringify(v)}\n`), r.stderr);
  }
  // The CLI's most is the simulator's, which replays no more than 10000.
  const most = cli(['simulate', SEED_FILE, '--dead', '3', '--requests', '10000', '--quiet']);
  assert.equal(most.code, 0, most.stderr);
  assert.equal(most.stderr, '');
  const capped = hp.simulate(hp.planTunnel(SEED.input), { dead: [3], requests: 10001 });
  assert.equal(capped.requests.length, 10000);
  assert.ok(capped.notes.includes('requests capped at 10000'), JSON.stringify(capped.notes));
  // Digits are a node id, never rounded; other entries are names or host:port for the core.
  for (const v of ['99999999999999999999', '9007199254740992']) {
    const r = cli(['simulate', SEED_FILE, '--dead', `4,${v}`]);
    assert.equal(r.code, 2, `--dead ${v}: ${r.stderr}`);
    assert.equal(r.stderr, `hop-policy: --dead takes a node id: a whole number from 0 to 9007199254740991, not "${v}"\nTry 'hop-policy --help'.\n`);
  }
  const notId = cli(['simulate', SEED_FILE, '--dead', '1.5']);
  assert.equal(notId.code, 2);
  assert.match(notId.stderr, /dead entry "1\.5" is neither a node id nor host:port/);
  const backup = path.join(ROOT_DIR, 'examples', 'panel-backup.json');
  for (const v of ['99999999999999999999', '1.5', '-1', 'x']) {
    const r = cli(['audit', backup, '--tunnel', v]);
    assert.equal(r.code, 2, `--tunnel ${v}: ${r.stderr}`);
    assert.match(r.stderr, /^hop-policy: --tunnel takes a tunnel id: a whole number from 0 to 9007199254740991, not /);
  }
});

test('output to a full disk: a clear message and exit 2, never a bare ENOSPC', () => {
  for (const args of [['plan', SEED_FILE], ['--help'], ['check', SEED_FILE, '--format', 'sarif'], ['plan', '--jsonl', VECTORS_FILE]]) {
    const full = openSync('/dev/full', 'w');
    const r = spawnSync(process.execPath, [CLI, ...args], { stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
    closeSync(full);
    assert.equal(r.status, 2, args.join(' '));
    assert.equal(r.stderr, 'hop-policy: cannot write the output: no space left on device (ENOSPC)\n', args.join(' '));
  }
});

test('SARIF artifact uris are percent-encoded RFC 3986 references, relative paths stay relative', () => {
  const dir = path.join(tmp, 'sub dir');
  mkdirSync(dir, { recursive: true });
  const name = 'my plan #2 100%ü.json';
  writeFileSync(path.join(dir, name), JSON.stringify(withoutFederatedRetries(SEED.expected)));
  const expected = 'sub%20dir/my%20plan%20%232%20100%25%C3%BC.json';
  const r = cli(['check', `sub dir/${name}`, '--format', 'sarif'], { cwd: tmp });
  assert.equal(r.code, 1, r.stderr);
  const run = JSON.parse(r.stdout).runs[0];
  assert.equal(run.artifacts[0].location.uri, expected);
  assert.ok(run.results.length > 0);
  for (const res of run.results) assert.equal(res.locations[0].physicalLocation.artifactLocation.uri, expected);
  // The audit's SARIF encodes its backup file the same way.
  const backupName = 'panel backup #1.json';
  copyFileSync(path.join(ROOT_DIR, 'examples', 'panel-backup.json'), path.join(dir, backupName));
  const audit = JSON.parse(cli(['audit', `sub dir/${backupName}`, '--format', 'sarif'], { cwd: tmp }).stdout).runs[0];
  assert.ok(audit.results.length > 0);
  for (const res of audit.results) assert.equal(res.locations[0].physicalLocation.artifactLocation.uri, 'sub%20dir/panel%20backup%20%231.json');
  // Standard input is named stdin.
  const stdin = JSON.parse(cli(['check', '-', '--format', 'sarif'], { input: '{}' }).stdout).runs[0];
  assert.equal(stdin.artifacts[0].location.uri, 'stdin');
});

test('a PostgreSQL source is located by host, port and database only: no user, password or query', async () => {
  const { postgresLocation, postgresParts } = await import(path.join(PKG, 'bin', 'panel-sources.mjs'));
  const url = 'postgres://flvx:s3cr%40t@db.example:6543/flvx?sslmode=require&password=other';
  assert.equal(postgresLocation(url), 'db.example:6543/flvx');
  assert.deepEqual(postgresParts(url), { host: 'db.example', port: '6543', path: '/flvx' });
  assert.equal(postgresLocation('postgresql:///panel'), 'localhost:5432/panel');
  assert.equal(postgresLocation('postgresql://u:p@/panel'), 'the PostgreSQL URL');
  assert.equal(postgresParts('not a url'), null);
});
