// The arguments both A/B scripts take (scripts/ab.mjs, scripts/ab-inputs.mjs):
// two `pkg/node` builds, an optional workload directory, `--rounds N` and any
// flag the script names in `flags` (each followed by its value).

import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** `{ oldM, newM, wl, rounds, flags }` from the command line; exits with
 *  `usage` when it is wrong. Without a workload directory the workloads are
 *  written to a temporary one, removed at exit. */
export function abArgs(usage, defaultRounds, flagNames = []) {
  const args = process.argv.slice(2);
  const take = (name) => {
    const at = args.indexOf(name);
    return at >= 0 ? args.splice(at, 2)[1] : undefined;
  };
  const rounds = Number(take('--rounds') ?? defaultRounds);
  const flags = Object.fromEntries(flagNames.map((name) => [name, take(name)]));
  if (args.length < 2 || !(rounds > 0)) {
    console.error(`usage: ${usage}`);
    process.exit(2);
  }
  const require = createRequire(import.meta.url);
  const load = (dir) => require(resolve(dir, 'hop_policy.js'));
  let wl = args[2];
  if (!wl) {
    const dir = mkdtempSync(join(tmpdir(), 'hop-policy-ab.'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    execFileSync(process.execPath, [join(ROOT, 'scripts', 'workloads.mjs'), dir], { stdio: 'ignore' });
    wl = dir;
  }
  return { oldM: load(args[0]), newM: load(args[1]), wl, rounds, flags };
}
