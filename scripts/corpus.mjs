// Walking document corpora, shared by scripts/ab.mjs (same outputs from two
// builds) and scripts/secret-echo.mjs (no credential echoed).

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every corpus file under `dir` (recursively): `.json`, `.jsonl` and `.txt`
 *  files and extensionless ones (fuzz corpus entries), as `[path, text]`. */
export function* corpusFiles(dir) {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* corpusFiles(p);
    else if (/\.(json|jsonl|txt)$/.test(e.name) || !e.name.includes('.')) yield [p, readFileSync(p, 'utf8')];
  }
}

/** Each line of `text` that looks like JSON (starts with `[` or `{`), as
 *  `{line, value, parts}`: `value` is the parsed line (`undefined` when it
 *  is not JSON) and `parts` the `input`, `expected` and `steps` inside it
 *  (a golden vector's or a lifecycle file's). */
export function* jsonLines(text) {
  for (const line of text.split('\n')) {
    if (!/^[[{]/.test(line)) continue;
    let value;
    try {
      value = JSON.parse(line);
    } catch {
      yield { line, value: undefined, parts: [] };
      continue;
    }
    const parts = ['input', 'expected', 'steps'].filter((k) => value && value[k] !== undefined).map((k) => value[k]);
    yield { line, value, parts };
  }
}
