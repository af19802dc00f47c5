// Shared helpers of the node tests: paths, golden vectors, the golden comparison.
import { readFileSync, mkdtempSync, mkdirSync, symlinkSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const PKG = path.join(ROOT, 'pkg');
export const CLI = path.join(PKG, 'bin', 'hop-policy.mjs');
export const VECTORS_FILE = path.join(ROOT, 'tests', 'data', 'plan-vectors.jsonl');
export const SEED_FILE = path.join(ROOT, 'examples', 'seed-federated-middle.json');
export const NODE_MODULES = path.join(ROOT, 'tests', 'node', 'node_modules');

function readVectors(file) {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/** The create vectors. */
export function vectors() {
  return readVectors(VECTORS_FILE);
}

/** The forward vectors: forward-create, forward-update, and redeploys and edits of tunnels with forwards. */
export const FORWARD_VECTORS_FILE = path.join(ROOT, 'tests', 'data', 'forward-vectors.jsonl');

/** The 650 forward vectors, each with its `mode`. */
export function forwardVectors() {
  return readVectors(FORWARD_VECTORS_FILE);
}

/** The vector files of every mode: create, update, redeploy, then the forward vectors. */
export const VECTOR_FILES = ['plan', 'update', 'redeploy', 'forward'].map((m) => path.join(ROOT, 'tests', 'data', `${m}-vectors.jsonl`));

/** Every vector of every mode (1,772: 613 create, 200 update, 309 redeploy, 650 forward). */
export function allVectors() {
  return VECTOR_FILES.flatMap(readVectors);
}

/** How many vectors `allVectors()` reads. */
export const ALL_VECTOR_COUNT = 613 + 200 + 309 + 650;

export function vector(name) {
  const v = vectors().find((x) => x.name === name);
  if (!v) throw new Error(`no vector ${name}`);
  return v;
}

export function crateVersion() {
  const toml = readFileSync(path.join(ROOT, 'Cargo.toml'), 'utf8');
  const m = /\[package\][^[]*?\nversion\s*=\s*"([^"]+)"/.exec(toml);
  if (!m) throw new Error('no version in Cargo.toml');
  return m[1];
}

/**
 * The golden comparison: expected `error` string === plan.error.message, null === null;
 * `local`, and `federation`, `warnings` and `db` where the vector has them (the
 * forward vectors' `federation` only on redeploy and update), as JSON values.
 * Returns null when equal, else a reason.
 */
export function compareToExpected(plan, expected) {
  if (expected.error === null) {
    if (plan.error !== null) return `error: want null, got ${JSON.stringify(plan.error)}`;
  } else if (!plan.error || plan.error.message !== expected.error) {
    return `error: want ${JSON.stringify(expected.error)}, got ${JSON.stringify(plan.error)}`;
  }
  for (const key of ['federation', 'local', 'warnings', 'db']) {
    if (key !== 'local' && !Object.hasOwn(expected, key)) continue;
    if (!isDeepStrictEqual(plan[key], expected[key])) return `${key} differs`;
  }
  return null;
}

/** Runs the packaged CLI. */
export function cli(args, { input, env, cwd } = {}) {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    input,
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
    env: { ...process.env, ...env },
    cwd,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A new empty directory under the OS temp dir, removed when this test process
 * exits (node --test runs each file in its own process), so test runs do not
 * pile up directories (an `npm pack` install is several MB).
 */
export function tempDir(prefix) {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A temporary directory where `hop-policy` resolves to the built pkg/. */
export function linkedProject(prefix = 'hop-policy-') {
  const dir = tempDir(prefix);
  mkdirSync(path.join(dir, 'node_modules'));
  symlinkSync(PKG, path.join(dir, 'node_modules', 'hop-policy'), 'dir');
  return dir;
}

/** A seed plan document with `handler.retries` removed from federated middle services. */
export function withoutFederatedRetries(plan) {
  const copy = structuredClone(plan);
  for (const fed of copy.federation) {
    if (fed.role !== 'middle') continue;
    for (const cmd of fed.commands) {
      if (cmd.command !== 'AddService') continue;
      for (const svc of cmd.data) delete svc.handler.retries;
    }
  }
  return copy;
}
