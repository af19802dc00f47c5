// Every wasm entry point over the whole committed fuzz seed corpus and the
// hostile documents, through the real Node build: each call returns a result
// or throws a structured error (never a WebAssembly trap), the instance keeps
// working afterwards, Object.prototype is untouched, and output is
// byte-identical when the call is repeated.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { PKG, ROOT, vector } from './helpers.mjs';

const hp = await import(path.join(PKG, 'node', 'index.mjs'));

function files(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const p = path.join(dir, name);
    // A running fuzzer adds and removes files of its working corpus meanwhile.
    const stat = statSync(p, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isDirectory()) out.push(...files(p));
    else out.push(p);
  }
  return out;
}

const corpus = [
  ...files(path.join(ROOT, 'fuzz', 'corpus')),
  ...files(path.join(ROOT, 'tests', 'data', 'hostile')),
].sort();

function call(fn) {
  try {
    return { ok: fn() };
  } catch (e) {
    assert.ok(!(e instanceof WebAssembly.RuntimeError), `trap: ${e && e.stack}`);
    assert.equal(typeof e.code, 'string', `thrown error without a code: ${e}`);
    return { err: `${e.code} ${e.message}` };
  }
}

test('every JSON entry point survives the fuzz corpus and hostile documents', () => {
  assert.ok(corpus.length > 300, `${corpus.length} files`);
  const seedPlan = hp.planTunnelJson(JSON.stringify(vector('seed-federated-middle-fifo-3-exits').input));
  for (const file of corpus) {
    let text;
    try {
      text = readFileSync(file, 'latin1');
    } catch (e) {
      if (e.code === 'ENOENT') continue; // taken out of a working corpus meanwhile
      throw e;
    }
    const runs = [
      () => hp.planTunnelJson(text),
      () => hp.checkDocumentJson(text),
      () => hp.checkTunnelJson(text),
      () => hp.simulateJson(text, '{"dead":[3],"requests":2}'),
      () => hp.simulateJson(seedPlan, text),
      () => hp.lifecycleJson(text),
    ];
    for (const run of runs) {
      const first = call(run);
      const again = call(run);
      assert.deepEqual(again, first, `${path.relative(ROOT, file)}: output differs on repeat`);
    }
  }
  // the instance is still alive and correct
  const plan = JSON.parse(hp.planTunnelJson(JSON.stringify(vector('seed-federated-middle-fifo-3-exits').input)));
  assert.equal(plan.error, null);
  assert.equal(plan.federation[0].commands[1].data[0].handler.retries, 2);
  assert.equal({}.polluted, undefined);
  assert.equal(Object.prototype.hasOwnProperty('x'), false);
});
