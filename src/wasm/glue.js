// The JavaScript side of the bindings (src/wasm.rs): what wasm calls on a
// caller's value, and the error class and call guard every export uses.
// Every function here that wasm calls with a caller's value answers instead
// of throwing: an exception unwinding through wasm leaves its state behind
// (externref table slots, its stack pointer), so that later calls fail.

// JSON.stringify: the JSON text; "\u0002" when the value has no JSON form;
// "\u0001" and what went wrong; "\u0003" and the text's length when that is
// over `max` (JSON text never starts with a control character).
export function jsonTextOf(value, max) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    return '\u0001' + whatWentWrong(e);
  }
  if (typeof text !== 'string') return '\u0002';
  return text.length > max ? '\u0003' + text.length : text;
}
function whatWentWrong(e) {
  try {
    return e !== null && typeof e === 'object' && 'message' in e ? String(e.message) : String(e);
  } catch (_) {
    return 'an exception that cannot be described';
  }
}
// A text the module wrote into its memory (`ptr`, the end of each piece
// in `ends`), as a JS string: each piece decoded on its own. V8 decodes
// ASCII bytes on a fast path that it leaves for the rest of the text at the
// first other byte, so a result whose long ASCII stretches are their own
// pieces decodes several times faster (BENCH.md, "the answers' decoding").
// `undefined` when the engine cannot make the string (too long).
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true });
let memoryBytes = new Uint8Array(0);
export function textAt(memory, ptr, ends) {
  try {
    // A view of the whole memory, made again only when it has grown.
    if (memoryBytes.buffer !== memory.buffer) memoryBytes = new Uint8Array(memory.buffer);
    const bytes = memoryBytes;
    let text = '';
    let start = ptr;
    for (const end of ends) {
      text += utf8.decode(bytes.subarray(start, ptr + end));
      start = ptr + end;
    }
    return text;
  } catch (_) {
    return undefined;
  }
}
// Four random 32-bit words: the keys of the module's hash maps
// (src/lookup.rs), drawn when its first map is built, from the engine's
// crypto where it has one.
export function randomWords() {
  const words = new Uint32Array(4);
  try {
    globalThis.crypto.getRandomValues(words);
    return words;
  } catch (_) {
    for (let i = 0; i < 4; i++) words[i] = Math.floor(Math.random() * 0x100000000);
    return words;
  }
}
// Errors made here (not a caller's or the engine's): what a guarded export
// passes on as they are.
const made = new WeakSet();
// What every entry point throws; the package exports the class.
export class HopPolicyError extends Error {
  constructor(code, message, path) {
    super(message);
    this.name = 'HopPolicyError';
    this.code = code;
    this.path = path === undefined ? '' : path;
    made.add(this);
  }
}
export function makeError(code, message, path) {
  return new HopPolicyError(code, message, path);
}
// The type of an argument, for messages.
export function typeNameOf(value) {
  if (value === null) return 'null';
  const t = typeof value;
  if (t !== 'object') return t === 'undefined' ? 'undefined' : `a ${t}`;
  try {
    return Array.isArray(value) ? 'an array' : 'an object';
  } catch (_) {
    return 'a revoked Proxy';
  }
}
// Thrown when even a new error cannot be made (no stack left).
const noStack = new HopPolicyError('STACK_EXHAUSTED', 'the call was abandoned: the JavaScript stack is exhausted; the next call starts afresh', '');
// A guard for the exports of one instance: a call that fails with anything
// but a HopPolicyError (a trap, stack exhaustion inside wasm, an exception
// thrown through it) may have left the instance broken, so `reset` makes a
// new one from the same module before the next call, and the failure is a
// HopPolicyError saying so. Near the stack limit any call can fail, so the
// catch block falls back on errors made in advance.
export function guardWith(reset) {
  let broken = false;
  return (f) => {
    const guarded = function (...args) {
      try {
        if (broken) {
          reset();
          broken = false;
        }
        return f.apply(this, args);
      } catch (e) {
        let own = false;
        try {
          own = made.has(e);
        } catch (_) {
          broken = true;
          throw noStack;
        }
        if (own) throw e;
        broken = true;
        try {
          reset();
          broken = false;
        } catch (_) {
          // Tried again before the next call.
        }
        let error = noStack;
        try {
          error = abandoned(e, broken);
        } catch (_) {
          // noStack says what happened.
        }
        throw error;
      }
    };
    Object.defineProperty(guarded, 'name', { value: f.name.replace(/^__guarded_/, '') });
    return guarded;
  };
}
function abandoned(e, broken) {
  const why = whatWentWrong(e);
  const code = e instanceof RangeError && /call stack/i.test(why) ? 'STACK_EXHAUSTED' : 'INTERNAL';
  const after = broken ? 'the module will be reset before the next call' : 'the module was reset';
  const error = new HopPolicyError(code, `the call was abandoned (${why}); ${after}`, '');
  error.cause = e;
  return error;
}
