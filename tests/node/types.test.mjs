// Strict `tsc --noEmit` over real calls, resolving `hop-policy` through the
// package's exports map (NodeNext and Bundler resolution).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { NODE_MODULES, linkedProject } from './helpers.mjs';

const HERE = path.join(path.dirname(new URL(import.meta.url).pathname), 'types');
const TSC = path.join(NODE_MODULES, 'typescript', 'bin', 'tsc');

function project(files) {
  const dir = linkedProject('hop-policy-types-');
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'types-check', private: true, type: 'module' }));
  for (const f of files) copyFileSync(path.join(HERE, f), path.join(dir, f));
  return dir;
}

function tsc(dir, config, extra = []) {
  const r = spawnSync(process.execPath, [TSC, '-p', path.join(dir, config), ...extra], { encoding: 'utf8' });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

test('usage.ts type-checks under strict NodeNext; every @ts-expect-error is a real error', () => {
  const dir = project(['usage.ts', 'tsconfig.json']);
  const r = tsc(dir, 'tsconfig.json');
  assert.equal(r.code, 0, r.out);
});

test('web entry and usage.ts type-check under Bundler resolution', () => {
  const dir = project(['usage.ts', 'web-usage.ts', 'tsconfig.bundler.json']);
  const r = tsc(dir, 'tsconfig.bundler.json');
  assert.equal(r.code, 0, r.out);
});

test("the flvx frontend's own payload and node types type-check without casts", () => {
  const dir = project(['frontend.ts', 'tsconfig.json']);
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ ...JSON.parse(readFileSync(path.join(HERE, 'tsconfig.json'), 'utf8')), files: ['frontend.ts'] }));
  const r = tsc(dir, 'tsconfig.json');
  assert.equal(r.code, 0, r.out);
});

test("README's usePlanPreview hook compiles under strict tsc with React's types", () => {
  const readme = readFileSync(path.join(HERE, '..', '..', '..', 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]).find((b) => b.includes('export function usePlanPreview'));
  assert.ok(block, 'README has the hook');
  const dir = project(['tsconfig.bundler.json']);
  writeFileSync(path.join(dir, 'hook.ts'), block);
  const config = JSON.parse(readFileSync(path.join(HERE, 'tsconfig.bundler.json'), 'utf8'));
  config.compilerOptions.types = ['react'];
  config.compilerOptions.typeRoots = [path.join(NODE_MODULES, '@types')];
  config.files = ['hook.ts'];
  delete config.include;
  writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
  const r = tsc(dir, 'tsconfig.json');
  assert.equal(r.code, 0, r.out);
});

test('a wrong field fails the strict check', () => {
  const dir = project(['wrong.ts', 'tsconfig.json']);
  const r = tsc(dir, 'tsconfig.json');
  assert.notEqual(r.code, 0);
  assert.match(r.out, /wrong\.ts\(4,7\): error TS2322: Type 'number' is not assignable to type 'string'/);
});
