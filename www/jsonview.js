// JSON helpers for the page: JSON Pointers (RFC 6901), a line renderer that
// tags every line with the pointer of the value it shows (so a finding's path
// can be scrolled to and highlighted), and a structural diff used to compare a
// federated hop with its local twin.

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
}

export function ptrToken(k) {
  return String(k).replace(/~/g, '~0').replace(/\//g, '~1');
}

export function parsePointer(ptr) {
  if (ptr === '') return [];
  if (typeof ptr !== 'string' || ptr[0] !== '/') throw new Error(`not a JSON Pointer: ${ptr}`);
  return ptr.slice(1).split('/').map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function getPointer(doc, ptr) {
  let cur = doc;
  for (const tok of parsePointer(ptr)) {
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, tok)) return undefined;
    cur = cur[tok];
  }
  return cur;
}

/** Sets `value` at `ptr` in a copy of `doc` (the caller's object is left alone). */
export function setPointer(doc, ptr, value) {
  const toks = parsePointer(ptr);
  if (toks.length === 0) return structuredClone(value);
  const copy = structuredClone(doc);
  let cur = copy;
  for (let i = 0; i < toks.length - 1; i++) {
    const tok = toks[i];
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, tok)) {
      throw new Error(`${ptr}: no ${toks.slice(0, i + 1).join('/')}`);
    }
    cur = cur[tok];
  }
  const last = toks[toks.length - 1];
  if (cur === null || typeof cur !== 'object') throw new Error(`${ptr}: parent is not an object`);
  if (Array.isArray(cur)) {
    const i = last === '-' ? cur.length : Number(last);
    if (!Number.isInteger(i) || i < 0 || i > cur.length) throw new Error(`${ptr}: bad index`);
    cur[i] = value;
  } else {
    // defineProperty keeps keys such as "__proto__" as plain data.
    Object.defineProperty(cur, last, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

// Names that differ only by runtime/tunnel id are equal "by role":
// fed_chain_R ~ chains_T, hop_R ~ hop_T, fed_svc_R ~ tunnel_T.
function roleName(v) {
  if (typeof v !== 'string') return v;
  if (/^(fed_chain|chains)_\d+$/.test(v)) return '<chain>';
  if (/^hop_\d+$/.test(v)) return '<hop>';
  if (/^(fed_svc|tunnel)_\d+$/.test(v)) return '<service>';
  return v;
}

/**
 * Whether a difference at relative pointer `rel` changes what the node does
 * (retries, selector, addresses, names of what is dialed...) or only tunes a
 * transport (anything under a `metadata` object: mux sizes, keepalives).
 */
export function isMetadataOnly(rel) {
  return parsePointer(rel).includes('metadata');
}

/**
 * Aligns two JSON values row by row for a split view: `rows` has one entry
 * per shown line, `{a, b, kind}` with the line's markup on each side (null:
 * a gap, the key is missing on that side) and kind 'same' | 'changed' |
 * 'added' (on side a only) | 'removed' (on side b only), plus `meta` when the
 * difference is metadata-only. `diffs` lists each differing value once:
 * `{rel, kind, meta}`. Names that differ only by runtime/tunnel id are equal
 * (compared by role). Side a's lines carry `data-ptr` = baseA + pointer.
 */
export function alignedDiff(a, b, { baseA = '', tagA = true, hasA = a !== undefined, hasB = b !== undefined } = {}) {
  const rows = [];
  const diffs = [];
  const lineA = (depth, rel, html) => lineMarkup(depth, html, tagA ? baseA + rel : null);
  const lineB = (depth, rel, html) => lineMarkup(depth, html, null);
  const walk = (x, y, inX, inY, rel, depth, label, commaX, commaY) => {
    const pre = label === null ? '' : `<span class="jk">"${escapeHtml(label)}"</span>: `;
    if (!inY || !inX) {
      const kind = inX ? 'added' : 'removed';
      const meta = isMetadataOnly(rel);
      diffs.push({ rel, kind, meta });
      const lines = [];
      valueLines(inX ? x : y, rel, depth, label, inX ? commaX : commaY, (d, r, h) => lines.push(inX ? lineA(d, r, h) : lineB(d, r, h)));
      for (const l of lines) rows.push(inX ? { a: l, b: null, kind, meta } : { a: null, b: l, kind, meta });
      return;
    }
    const xo = x !== null && typeof x === 'object';
    const yo = y !== null && typeof y === 'object';
    if (xo && yo && Array.isArray(x) === Array.isArray(y)) {
      const arr = Array.isArray(x);
      const kx = arr ? x.map((_, i) => String(i)) : Object.keys(x);
      const ky = arr ? y.map((_, i) => String(i)) : Object.keys(y);
      if (!kx.length && !ky.length) {
        const h = `${pre}${arr ? '[]' : '{}'}`;
        rows.push({ a: lineA(depth, rel, h + (commaX ? ',' : '')), b: lineB(depth, rel, h + (commaY ? ',' : '')), kind: 'same' });
        return;
      }
      rows.push({ a: lineA(depth, rel, `${pre}${arr ? '[' : '{'}`), b: lineB(depth, rel, `${pre}${arr ? '[' : '{'}`), kind: 'same' });
      // Keys in a's order; a key only b has comes where b has it.
      const keys = [...kx];
      ky.forEach((k, i) => {
        if (keys.includes(k)) return;
        const prev = ky.slice(0, i).reverse().find((p) => keys.includes(p));
        keys.splice(prev === undefined ? 0 : keys.indexOf(prev) + 1, 0, k);
      });
      const lastX = kx[kx.length - 1];
      const lastY = ky[ky.length - 1];
      for (const k of keys) {
        const hx = Object.prototype.hasOwnProperty.call(x, k);
        const hy = Object.prototype.hasOwnProperty.call(y, k);
        walk(x[k], y[k], hx, hy, `${rel}/${ptrToken(k)}`, depth + 1, arr ? null : k, hx && k !== lastX, hy && k !== lastY);
      }
      const close = arr ? ']' : '}';
      rows.push({ a: lineA(depth, rel, close + (commaX ? ',' : '')), b: lineB(depth, rel, close + (commaY ? ',' : '')), kind: 'same' });
      return;
    }
    if (!xo && !yo && roleName(x) === roleName(y)) {
      rows.push({ a: lineA(depth, rel, `${pre}${scalarHtml(x, label)}${commaX ? ',' : ''}`), b: lineB(depth, rel, `${pre}${scalarHtml(y, label)}${commaY ? ',' : ''}`), kind: 'same' });
      return;
    }
    const meta = isMetadataOnly(rel);
    diffs.push({ rel, kind: 'changed', meta });
    const la = [];
    const lb = [];
    valueLines(x, rel, depth, label, commaX, (d, r, h) => la.push(lineA(d, r, h)));
    valueLines(y, rel, depth, label, commaY, (d, r, h) => lb.push(lineB(d, r, h)));
    for (let i = 0; i < Math.max(la.length, lb.length); i++) rows.push({ a: la[i] ?? null, b: lb[i] ?? null, kind: 'changed', meta });
  };
  walk(a, b, hasA, hasB, '', 0, null, false, false);
  return { rows, diffs };
}

function lineMarkup(depth, html, ptr) {
  return `<span class="jl"${ptr !== null ? ` data-ptr="${escapeHtml(ptr)}"` : ''}>${INDENT[depth] ?? '  '.repeat(depth)}${html}</span>`;
}

/** Calls `line(depth, rel, html)` for every line of `v` pretty-printed. */
function valueLines(v, rel, depth, label, comma, line) {
  const pre = label === null ? '' : `<span class="jk">"${escapeHtml(label)}"</span>: `;
  const c = comma ? ',' : '';
  if (v !== null && typeof v === 'object') {
    const arr = Array.isArray(v);
    const keys = arr ? v.map((_, i) => String(i)) : Object.keys(v);
    if (keys.length === 0) {
      line(depth, rel, `${pre}${arr ? '[]' : '{}'}${c}`);
      return;
    }
    line(depth, rel, `${pre}${arr ? '[' : '{'}`);
    keys.forEach((k, i) => valueLines(v[k], `${rel}/${ptrToken(k)}`, depth + 1, arr ? null : k, i < keys.length - 1, line));
    line(depth, rel, `${arr ? ']' : '}'}${c}`);
  } else {
    line(depth, rel, `${pre}${scalarHtml(v, label)}${c}`);
  }
}

/**
 * A Go duration's text (time.Duration.String) for nanoseconds: 600000000000
 * is "10m0s", 1500000000 "1.5s", 250000000 "250ms".
 */
export function goDuration(ns) {
  if (!Number.isFinite(ns)) return String(ns);
  if (ns < 0) return `-${goDuration(-ns)}`;
  if (ns === 0) return '0s';
  const trim = (x) => String(Number(x.toFixed(9)));
  if (ns < 1e3) return `${trim(ns)}ns`;
  if (ns < 1e6) return `${trim(ns / 1e3)}µs`;
  if (ns < 1e9) return `${trim(ns / 1e6)}ms`;
  const s = ns / 1e9;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = `${trim(s % 60)}s`;
  return h ? `${h}h${m}m${sec}` : m ? `${m}m${sec}` : sec;
}

// Durations the agent reads as nanoseconds: shown as Go writes them.
const NS_KEYS = new Set(['failTimeout']);

// Values are plain text (only keys and durations get a span): the browser
// builds the view about three times faster with fewer elements, which keeps
// an update inside one animation frame for large KCP plans.
function scalarHtml(v, label) {
  if (typeof v === 'number' && NS_KEYS.has(label)) return `<span class="dur" title="${v} ns">${goDuration(v)}</span>`;
  if (typeof v === 'string') return `"${escapeHtml(v)}"`;
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return String(v);
  return escapeHtml(JSON.stringify(v));
}

/**
 * Renders `value` as pretty JSON, one block <span> per line (put it in a
 * <pre>). Each line carries `data-ptr` = base + the pointer of the value on it
 * (when `tag` is true).
 */
export function renderJson(value, opts) {
  return renderJsonLines(value, opts).join('');
}

/** Like renderJson, as an array with one string per line. */
export function renderJsonLines(value, { base = '', tag = true } = {}) {
  const out = [];
  valueLines(value, '', 0, null, false, (depth, rel, html) => out.push(lineMarkup(depth, html, tag ? base + rel : null)));
  return out;
}

const INDENT = Array.from({ length: 16 }, (_, i) => '  '.repeat(i));

/**
 * Finds where the value a JSON Pointer names sits in JSON `text`:
 * `{start, end}` character offsets, or null (bad JSON or no such value).
 * Scans the text without building values, so it works on what the user typed.
 */
export function locatePointer(text, ptr) {
  let toks;
  try {
    toks = parsePointer(ptr);
  } catch {
    return null;
  }
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const str = () => {
    // at '"'; returns the decoded string
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    i++;
    try {
      return JSON.parse(text.slice(start, i));
    } catch {
      return null;
    }
  };
  // Skips one value; returns false on malformed input.
  const skip = () => {
    ws();
    const c = text[i];
    if (c === '"') {
      str();
      return true;
    }
    if (c === '{' || c === '[') {
      const close = c === '{' ? '}' : ']';
      i++;
      ws();
      if (text[i] === close) {
        i++;
        return true;
      }
      for (let guard = 0; guard < 1e6; guard++) {
        ws();
        if (c === '{') {
          if (text[i] !== '"') return false;
          str();
          ws();
          if (text[i] !== ':') return false;
          i++;
        }
        if (!skip()) return false;
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === close) {
          i++;
          return true;
        }
        return false;
      }
      return false;
    }
    const m = /^(-?\d+(\.\d+)?([eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 64));
    if (!m) return false;
    i += m[0].length;
    return true;
  };
  for (let depth = 0; depth <= toks.length; depth++) {
    ws();
    if (depth === toks.length) {
      const start = i;
      return skip() ? { start, end: i } : null;
    }
    const tok = toks[depth];
    const c = text[i];
    if (c !== '{' && c !== '[') return null;
    i++;
    let found = false;
    for (let idx = 0; !found; idx++) {
      ws();
      if (text[i] === '}' || text[i] === ']') return null;
      let hit;
      if (c === '{') {
        if (text[i] !== '"') return null;
        const key = str();
        ws();
        if (text[i] !== ':') return null;
        i++;
        hit = key === tok;
      } else {
        hit = String(idx) === tok;
      }
      if (hit) {
        found = true;
        break;
      }
      if (!skip()) return null;
      ws();
      if (text[i] === ',') i++;
      else return null;
    }
  }
  return null;
}

/**
 * Splits diff rows into shown rows and folds: a run of more than
 * 2 * context + min unchanged rows keeps `context` rows at each end (none at
 * the start or end of the view) and folds the rest. Returns segments
 * `{fold: bool, start, rows}` in order.
 */
export function foldRuns(rows, { context = 3, min = 4 } = {}) {
  const out = [];
  let i = 0;
  while (i < rows.length) {
    let j = i;
    while (j < rows.length && rows[j].kind === 'same') j++;
    const lead = i === 0 ? 0 : context;
    const tail = j === rows.length ? 0 : context;
    if (j - i - lead - tail >= min) {
      if (lead) out.push({ fold: false, start: i, rows: rows.slice(i, i + lead) });
      out.push({ fold: true, start: i + lead, rows: rows.slice(i + lead, j - tail) });
      if (tail) out.push({ fold: false, start: j - tail, rows: rows.slice(j - tail, j) });
    } else if (j > i) out.push({ fold: false, start: i, rows: rows.slice(i, j) });
    let k = j;
    while (k < rows.length && rows[k].kind !== 'same') k++;
    if (k > j) out.push({ fold: false, start: j, rows: rows.slice(j, k) });
    i = k;
  }
  return out;
}
