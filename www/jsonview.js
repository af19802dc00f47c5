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
 * Compares two JSON values; returns the relative pointers that differ on each
 * side: `{a: Set, b: Set}`. A key present on one side only marks that subtree.
 */
export function diffJson(a, b) {
  const out = { a: new Set(), b: new Set(), keys: new Set() };
  const walk = (x, y, p, key) => {
    const xo = x !== null && typeof x === 'object';
    const yo = y !== null && typeof y === 'object';
    if (xo && yo && Array.isArray(x) === Array.isArray(y)) {
      const keys = Array.isArray(x)
        ? [...Array(Math.max(x.length, y.length)).keys()].map(String)
        : [...new Set([...Object.keys(x), ...Object.keys(y)])];
      for (const k of keys) {
        const inX = Object.prototype.hasOwnProperty.call(x, k);
        const inY = Object.prototype.hasOwnProperty.call(y, k);
        const sub = `${p}/${ptrToken(k)}`;
        if (inX && inY) walk(x[k], y[k], sub, k);
        else {
          if (inX) out.a.add(sub);
          if (inY) out.b.add(sub);
          out.keys.add(Array.isArray(x) ? key : k);
        }
      }
      return;
    }
    if (xo || yo || roleName(x) !== roleName(y)) {
      out.a.add(p);
      out.b.add(p);
      out.keys.add(key);
    }
  };
  walk(a, b, '', '');
  out.keys.delete('');
  return out;
}

// Values are plain text (only keys get a span): the browser builds the view
// about three times faster with fewer elements, which keeps an update inside
// one animation frame for large KCP plans.
function scalarHtml(v) {
  if (typeof v === 'string') return `"${escapeHtml(v)}"`;
  if (v === null || typeof v === 'number' || typeof v === 'boolean') return String(v);
  return escapeHtml(JSON.stringify(v));
}

/**
 * Renders `value` as pretty JSON, one block <span> per line (put it in a
 * <pre>). Each line carries `data-ptr` = base + the pointer of the value on it
 * (when `tag` is true), and class `d` when its relative pointer, or an
 * ancestor's, is in `marks` (diff highlighting).
 */
export function renderJson(value, opts) {
  return renderJsonLines(value, opts).join('');
}

/** Like renderJson, as an array with one string per line. */
export function renderJsonLines(value, { base = '', tag = true, marks = null } = {}) {
  const out = [];
  const hasMarks = !!(marks && marks.size);
  const line = (depth, rel, html, marked) => {
    out.push(
      `<span class="jl${marked ? ' d' : ''}"${tag ? ` data-ptr="${escapeHtml(base + rel)}"` : ''}>${INDENT[depth] ?? '  '.repeat(depth)}${html}</span>`,
    );
  };
  const walk = (v, rel, depth, label, comma, parentMarked) => {
    const marked = parentMarked || (hasMarks && marks.has(rel));
    const pre = label === null ? '' : `<span class="jk">"${escapeHtml(label)}"</span>: `;
    const c = comma ? ',' : '';
    if (v !== null && typeof v === 'object') {
      const arr = Array.isArray(v);
      const keys = arr ? v.map((_, i) => String(i)) : Object.keys(v);
      if (keys.length === 0) {
        line(depth, rel, `${pre}${arr ? '[]' : '{}'}${c}`, marked);
        return;
      }
      line(depth, rel, `${pre}${arr ? '[' : '{'}`, marked);
      keys.forEach((k, i) => walk(v[k], `${rel}/${ptrToken(k)}`, depth + 1, arr ? null : k, i < keys.length - 1, marked));
      line(depth, rel, `${arr ? ']' : '}'}${c}`, false);
    } else {
      line(depth, rel, `${pre}${scalarHtml(v)}${c}`, marked);
    }
  };
  walk(value, '', 0, null, false, false);
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
