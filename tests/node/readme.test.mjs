// Executes every ```js example of README.md against the built package.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync, cpSync } from 'node:fs';
import path from 'node:path';
import { ROOT, linkedProject } from './helpers.mjs';

const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

test('README has runnable JS examples', () => {
  assert.ok(blocks.length >= 5, `only ${blocks.length} examples`);
});

blocks.forEach((code, i) => {
  const firstLine = code.split('\n').find((l) => l.trim()) ?? '';
  test(`README example ${i + 1}: ${firstLine.slice(0, 60)}`, () => {
    const dir = linkedProject('hop-policy-readme-');
    cpSync(path.join(ROOT, 'examples'), path.join(dir, 'examples'), { recursive: true });
    const file = path.join(dir, /\brequire\(/.test(code) ? `example${i}.cjs` : `example${i}.mjs`);
    writeFileSync(file, code);
    const r = spawnSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' });
    assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
    assert.ok(r.stdout.trim().length > 0, 'example printed nothing');
  });
});
