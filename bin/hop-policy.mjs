#!/usr/bin/env node
// hop-policy command line: plan, check, simulate and replay flvx/GOST tunnels.
// Runs the package's Node build; every answer comes from the WebAssembly core.
import { createRequire } from 'node:module';
import { closeSync, fstatSync, openSync, readSync, writeSync } from 'node:fs';
import { SourceError, isPostgresUrl, postgresParts, isSqliteFile, readPostgres, readSqlite } from './panel-sources.mjs';

const require = createRequire(import.meta.url);
const hp = require('../node/hop_policy.js');

const EXIT_OK = 0;
const EXIT_FINDINGS = 1;
const EXIT_UNREADABLE = 2;

/**
 * The most bytes each input is read to: what the core accepts of it
 * (`maxInputBytes`, src/limits/mod.rs, for one document; the panel limit,
 * src/api/backup.rs `panel_limits`, for a backup export). Reading stops as
 * soon as an input is over, so /dev/zero or an endless pipe costs one limit.
 */
const DOCUMENT_LIMIT = {
  bytes: 16 * 1024 * 1024,
  raise: 'raise limits.maxInputBytes through the library (planTunnel, checkDocument); the CLI keeps the default',
};
const PANEL_LIMIT = { bytes: 256 * 1024 * 1024, raise: 'the panel limit of audit, which cannot be raised' };
/** --jsonl streams: each line is one document; the whole stream is bounded too, in bytes and lines. */
const JSONL_LIMIT = { bytes: 256 * 1024 * 1024, lines: 100000 };
/** The simulator's most requests (src/simulate/mod.rs MAX_REQUESTS). */
const MAX_REQUESTS = 10000;

const HELP = `hop-policy ${hp.version()}: plan, check and simulate flvx/GOST relay tunnels

Usage:
  hop-policy plan [FILE|-] [--mode create|update|redeploy|forward-create|forward-update] [--jsonl] [--compact]
  hop-policy check FILE|- [--format text|json|sarif] [--kind tunnel|plan|config|commands] [--mode MODE]
  hop-policy simulate FILE|- --dead ID[,ID...] [--dead-targets T[,T...]] [--forward F] [--requests N] [--format text|json]
  hop-policy lifecycle FILE|-
  hop-policy audit BACKUP|-|DATABASE.sqlite|postgres://... [--format text|json|sarif] [--tunnel ID]... [--only errors]
  hop-policy --help | --version

Commands:
  plan       Print the plan of a tunnel input: what the server sends to its own nodes
             ("local") and to provider panels ("federation"), along the request path
             of --mode: create ({tunnel, nodes, federation?}), update (the same plus
             "before", the tunnel as it was created) or redeploy ({db: {tunnel,
             chain_tunnel, node, federation_tunnel_binding?}, tunnelId?}, the rows as
             the panel's database stores them); forward-create (a create input plus
             "forward", the forward form's body, and the forward context: user,
             speedLimits, userTunnel, forwards, agents, config, offline, now) or
             forward-update (the same plus "createForwards", the forwards created
             first). Without --mode: redeploy when the input has "db" (and no
             "tunnel"), update when it has "before", forward-update when it has
             "forward" and "createForwards", forward-create when it has "forward",
             else create.
             A golden-vector object {name, mode?, input, expected} is read through its
             "input", in its "mode".
             --jsonl: one JSON object per input line, one plan per output line, in order
             (a golden-vector line in its own "mode", unless --mode is given);
             read as a stream: a line of at most 16 MiB (longer: a LIMIT_EXCEEDED
             line), at most 100000 lines and 256 MiB in all (then exit 2).
  check      Check a tunnel input, a plan, one node's GOST config or a command list for
             failover, linkage and parity defects.
  simulate   Replay requests through a tunnel input or plan with some nodes dead, the way
             GOST fails over. --dead takes node ids or host:port, comma separated;
             --requests N from 1 to 10000 (default 3). With forwards, requests enter at
             a forward service: --forward takes its id, name or service name (default:
             the first); --dead-targets its targets' addresses or 1-based positions.
  lifecycle  Replay apply / release / failure steps and report what they leave behind.
  audit      Plan and check every tunnel of a whole panel the way a redeploy would push
             it, and print a table of tunnels and their findings. The panel is read from
             its backup export (the panel's "backup" button: {version, exportedAt, nodes,
             tunnels}), its SQLite database file (opened read-only; needs the npm package
             better-sqlite3) or its PostgreSQL database (a postgres:// URL, read in a READ
             ONLY transaction; needs the npm package pg). The export has no connect IPs
             and no federation bindings; what a tunnel's audit assumes is printed with it.
             --tunnel ID (a whole number, repeatable) audits only those tunnels.

Input:
  FILE may be a file, a FIFO or a device; - reads standard input. Reading stops at
  the byte limit: 16 MiB (maxInputBytes) for plan, check, simulate and lifecycle,
  256 MiB for an audit's backup export; a larger input exits 2 naming the limit.
  The SARIF artifact uri is the FILE path percent-encoded (RFC 3986).

Options:
  -                 read standard input instead of a file (the default for plan)
  --mode M          the request path: create, update, redeploy, forward-create or
                    forward-update (plan, check, simulate)
  --format F        output format (plan: json; check: text, json, sarif; simulate: text, json)
  --quiet, -q       print nothing on standard output; only the exit code and errors
  --no-color        never colour output (colour is used only on a terminal; NO_COLOR honoured)
  --help, -h        this text
  --version, -v     the package version

Exit codes:
  0  done; no error finding (check, lifecycle), every request delivered (simulate)
  1  check or lifecycle found an error finding, or a simulated request failed
  2  the input cannot be read (missing file, not JSON, wrong shape: IN001, over the
     byte limit), bad usage (unknown option, a number out of range), or the output
     cannot be written (no space left on device, an I/O error)

Examples:
  hop-policy plan examples/seed-federated-middle.json
  hop-policy plan --jsonl tests/data/plan-vectors.jsonl > plans.jsonl
  cat tunnel.json | hop-policy check - --format text
  hop-policy check plan.json --format sarif > hop-policy.sarif
  hop-policy simulate examples/seed-federated-middle.json --dead 3 --requests 3
  hop-policy simulate examples/tunnel-with-forwards.json --mode forward-create --dead 2
  hop-policy lifecycle steps.json
`;

class UsageError extends Error {}

/** Standard output cannot be written (a full disk, an I/O error): exit 2. */
class OutputError extends Error {}

/** Exit after flushing: process.exit would cut off piped output. */
function finish(code) {
  process.exitCode = code;
}

function out(text) {
  if (!opts.quiet) writeAll(1, text.endsWith('\n') ? text : text + '\n');
}

function err(text) {
  writeAll(2, text.endsWith('\n') ? text : text + '\n');
}

/** Set once standard output failed: what follows is not written either. */
let outputFailed = false;

/**
 * Writes all of `text`. A reader that went away (EPIPE) ends the output
 * quietly; any other failure on standard output is an OutputError naming
 * the cause; standard error that cannot be written is given up silently
 * (there is nowhere left to say so).
 */
function writeAll(fd, text) {
  if (fd === 1 && outputFailed) return;
  const buf = Buffer.from(text, 'utf8');
  let off = 0;
  while (off < buf.length) {
    try {
      off += writeSync(fd, buf, off, buf.length - off);
    } catch (e) {
      if (e.code === 'EAGAIN') continue;
      if (e.code === 'EPIPE' || fd !== 1) return;
      outputFailed = true;
      throw new OutputError(`cannot write the output: ${systemReason(e)}`);
    }
  }
}

/** "no space left on device (ENOSPC)" from a Node system error. */
function systemReason(e) {
  const m = /^[A-Z0-9_]+: ([^,]+)/.exec(e.message || '');
  const what = m ? m[1] : e.message || String(e);
  return e.code ? `${what} (${e.code})` : what;
}

const SEVERITY_COLOUR = { error: '31', warning: '33', info: '36' };

function useColour() {
  if (opts.noColor) return false;
  if ('NO_COLOR' in process.env && process.env.NO_COLOR !== '') return false;
  return Boolean(process.stdout.isTTY);
}

/** Colours severities and rule codes of a text report, on a terminal only. */
function colourise(text) {
  if (!useColour()) return text;
  return text
    .replace(/\b(error|warning|info)\b/g, (m) => `\x1b[${SEVERITY_COLOUR[m]}m${m}\x1b[0m`)
    .replace(/\b(FAIL(?:ED)?|failed)\b/g, '\x1b[31m$1\x1b[0m')
    .replace(/\b([A-Z]{2}\d{3})\b/g, '\x1b[1m$1\x1b[0m');
}

// ----- arguments -----

const opts = { quiet: false, noColor: false, jsonl: false, compact: false, format: null, kind: null, mode: null, dead: [], deadTargets: [], forward: null, requests: null, files: [], given: new Set() };

const MODES = ['create', 'update', 'redeploy', 'forward-create', 'forward-update'];

/** The options each command takes (every command takes --quiet, --no-color). */
const COMMAND_OPTIONS = {
  plan: ['--mode', '--jsonl', '--compact', '--format'],
  check: ['--format', '--kind', '--mode'],
  simulate: ['--dead', '--dead-targets', '--forward', '--requests', '--format', '--mode'],
  lifecycle: [],
  audit: ['--format', '--tunnel', '--only'],
};

/**
 * A flag's whole-number value from min to max, or a UsageError: digits only
 * (no sign, fraction, exponent or hex), so a huge value is refused, never
 * rounded to a float.
 */
function wholeNumber(flag, text, min, max, what) {
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!(n >= min && n <= max)) throw new UsageError(`${flag} takes ${what}: a whole number from ${min} to ${max}, not ${JSON.stringify(text)}`);
  return n;
}

function parseArgs(argv) {
  let command = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (name) => {
      const eq = a.indexOf('=');
      if (eq >= 0) return a.slice(eq + 1);
      if (i + 1 >= argv.length) throw new UsageError(`${name} needs a value`);
      return argv[++i];
    };
    if (a === '--help' || a === '-h') return { command: 'help' };
    if (a === '--version' || a === '-v') return { command: 'version' };
    if (a === '--quiet' || a === '-q') opts.quiet = true;
    else if (a === '--no-color' || a === '--no-colour') opts.noColor = true;
    else if (a === '--jsonl') opts.jsonl = opts.given.add('--jsonl') && true;
    else if (a === '--compact') opts.compact = opts.given.add('--compact') && true;
    else if (a === '--format' || a.startsWith('--format=')) opts.format = (opts.given.add('--format'), value('--format'));
    else if (a === '--kind' || a.startsWith('--kind=')) opts.kind = (opts.given.add('--kind'), value('--kind'));
    else if (a === '--tunnel' || a.startsWith('--tunnel=')) {
      opts.given.add('--tunnel');
      (opts.tunnels ??= []).push(wholeNumber('--tunnel', value('--tunnel'), 0, Number.MAX_SAFE_INTEGER, 'a tunnel id'));
    } else if (a === '--only' || a.startsWith('--only=')) {
      opts.given.add('--only');
      opts.only = value('--only');
      if (opts.only !== 'errors') throw new UsageError(`--only takes errors, not ${JSON.stringify(opts.only)}`);
    } else if (a === '--mode' || a.startsWith('--mode=')) {
      opts.given.add('--mode');
      opts.mode = value('--mode');
      if (!MODES.includes(opts.mode)) throw new UsageError(`--mode must be create, update, redeploy, forward-create or forward-update, not ${JSON.stringify(opts.mode)}`);
    }
    else if (a === '--dead' || a.startsWith('--dead=')) {
      opts.given.add('--dead');
      // Digits are a node id; anything else is a node name or host:port for the core to match.
      for (const d of value('--dead').split(',').map((s) => s.trim()).filter(Boolean)) {
        opts.dead.push(/^\d+$/.test(d) ? wholeNumber('--dead', d, 0, Number.MAX_SAFE_INTEGER, 'a node id') : d);
      }
    } else if (a === '--dead-targets' || a.startsWith('--dead-targets=')) {
      opts.given.add('--dead-targets');
      // Digits are a 1-based position in the forward's targets; anything else its address.
      for (const d of value('--dead-targets').split(',').map((s) => s.trim()).filter(Boolean)) {
        opts.deadTargets.push(/^\d+$/.test(d) ? wholeNumber('--dead-targets', d, 1, Number.MAX_SAFE_INTEGER, 'a target position') : d);
      }
    } else if (a === '--forward' || a.startsWith('--forward=')) {
      opts.given.add('--forward');
      opts.forward = value('--forward');
    } else if (a === '--requests' || a.startsWith('--requests=')) {
      opts.given.add('--requests');
      opts.requests = wholeNumber('--requests', value('--requests'), 1, MAX_REQUESTS, 'the number of requests (the simulator replays at most 10000)');
    } else if (a === '--') {
      opts.files.push(...argv.slice(i + 1));
      break;
    } else if (a.startsWith('-') && a !== '-') throw new UsageError(`unknown option ${a}`);
    else if (command === null) command = a;
    else opts.files.push(a);
  }
  return { command };
}

// ----- input -----

/** The offset of the first byte that does not belong to valid UTF-8, or -1. */
function invalidUtf8At(buf) {
  for (let i = 0; i < buf.length; ) {
    const b = buf[i];
    const len = b < 0x80 ? 1 : b >= 0xc2 && b <= 0xdf ? 2 : b >= 0xe0 && b <= 0xef ? 3 : b >= 0xf0 && b <= 0xf4 ? 4 : 0;
    if (len === 0 || i + len > buf.length) return i;
    for (let k = 1; k < len; k++) if ((buf[i + k] & 0xc0) !== 0x80) return i;
    const c1 = buf[i + 1];
    if ((b === 0xe0 && c1 < 0xa0) || (b === 0xed && c1 > 0x9f) || (b === 0xf0 && c1 < 0x90) || (b === 0xf4 && c1 > 0x8f)) return i;
    i += len;
  }
  return -1;
}

function hasBom(buf) {
  return buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf;
}

function notUtf8(buf, at, base, within = '') {
  return `not UTF-8: invalid byte 0x${buf[at].toString(16).padStart(2, '0')} at byte offset ${at + base}${within} (IN001)`;
}

function overLimit(limit) {
  return `input is larger than the byte limit (${limit.bytes} bytes; ${limit.raise})`;
}

/** Why a file cannot be opened or read. */
function readFailure(e) {
  return e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'is a directory' : e.message;
}

const SLEEP = new Int32Array(new SharedArrayBuffer(4));

/** readSync that waits for a non-blocking descriptor (stdin set so by a parent) instead of failing. */
function readChunk(fd, buf, off, len) {
  for (;;) {
    try {
      return readSync(fd, buf, off, len, null);
    } catch (e) {
      if (e.code !== 'EAGAIN') throw e;
      Atomics.wait(SLEEP, 0, 0, 5);
    }
  }
}

/** An open FILE ('-': standard input, never closed here). */
function openInput(file) {
  return file === '-' ? 0 : openSync(file, 'r');
}

function closeInput(file, fd) {
  if (file !== '-') closeSync(fd);
}

/**
 * FILE's bytes up to `limit.bytes` (past a leading byte order mark), read in
 * chunks from a file, pipe, FIFO or device alike: `{buf}`, or `{over: true}`
 * as soon as more than the limit has been read, so an endless source stops.
 */
function readBounded(fd, limit) {
  // A byte order mark is not counted; one byte more than allowed tells "over".
  const cap = limit.bytes + 3 + 1;
  let allowed = limit.bytes;
  let size = 1 << 16;
  try {
    const st = fstatSync(fd);
    // A regular file says its size: one buffer holds it (and sees the end).
    if (st.isFile()) size = Math.min(Math.max(st.size + 1, size), cap);
  } catch {
    // no size known: the buffer grows as bytes arrive
  }
  let buf = Buffer.allocUnsafe(size);
  let len = 0;
  let bomSeen = false;
  for (;;) {
    if (len === buf.length) {
      const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, cap));
      buf.copy(bigger, 0, 0, len);
      buf = bigger;
    }
    const n = readChunk(fd, buf, len, buf.length - len);
    if (n === 0) break;
    len += n;
    if (!bomSeen && len >= 3) {
      bomSeen = true;
      if (hasBom(buf)) allowed += 3;
    }
    if (len > allowed) return { over: true };
  }
  return { buf: buf.subarray(0, len) };
}

/**
 * Reads FILE or stdin ('-') as UTF-8, at most `limit.bytes`; a failure is
 * reported and becomes exit 2. A UTF-8 byte order mark is accepted (and
 * dropped); bytes that are not UTF-8 are refused with their offset, never
 * read as U+FFFD.
 */
function readInput(file, limit = DOCUMENT_LIMIT) {
  const name = file === '-' ? '<stdin>' : file;
  let read;
  let fd;
  try {
    fd = openInput(file);
    read = readBounded(fd, limit);
  } catch (e) {
    return { name, error: readFailure(e) };
  } finally {
    if (fd !== undefined) closeInput(file, fd);
  }
  if (read.over) return { name, error: overLimit(limit), over: true };
  let buf = read.buf;
  const bom = hasBom(buf);
  if (bom) buf = buf.subarray(3);
  const bad = invalidUtf8At(buf);
  if (bad >= 0) return { name, error: notUtf8(buf, bad, bom ? 3 : 0) };
  return { name, text: buf.toString('utf8') };
}

/** How a read failure reads on stderr: an input over the limit is named with the limit. */
function readError(input) {
  return input.over ? `hop-policy: ${input.name}: ${input.error}` : `hop-policy: cannot read ${input.name}: ${input.error}`;
}

/** readInput, with a failure reported on stderr (then `null`: the command exits 2). */
function readOrReport(file, limit) {
  const input = readInput(file, limit);
  if (!input.error) return input;
  err(readError(input));
  return null;
}

/** "FILE:LINE:COL: message" from a HopPolicyError about text that is not JSON. */
function where(name, e, lineOffset = 0) {
  const m = /at line (\d+) column (\d+)/.exec(e.message || '');
  if (m) return `${name}:${Number(m[1]) + lineOffset}:${m[2]}`;
  return lineOffset ? `${name}:${lineOffset + 1}` : name;
}

function isObject(v) {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A golden-vector object is read through its "input". */
function unwrapVector(value) {
  if (isObject(value) && !('tunnel' in value) && !('db' in value) && isObject(value.input)) return value.input;
  return value;
}

/** The plan options for a document: --mode, else a vector's own "mode". */
function planOptions(value) {
  const mode = opts.mode ?? (isObject(value) && MODES.includes(value.mode) && isObject(value.input) ? value.mode : null);
  return mode ? { mode } : undefined;
}

function oneFile() {
  if (opts.files.length > 1) throw new UsageError(`one FILE expected, got ${opts.files.length}`);
  return opts.files[0];
}

// ----- commands -----

function cmdPlan() {
  if (opts.format !== null && opts.format !== 'json') throw new UsageError(`plan prints JSON: --format must be json, not ${opts.format}`);
  const file = oneFile() ?? '-';
  if (opts.jsonl) return planLines(file);
  const input = readOrReport(file);
  if (!input) return EXIT_UNREADABLE;
  return planOne(input);
}

/**
 * The input's JSON value, or `{error}`: where the text stops being JSON, as
 * the core reads it (its message names line and column).
 */
function readJson({ name, text }) {
  try {
    return { doc: JSON.parse(text) };
  } catch {
    try {
      hp.planTunnelJson(text);
    } catch (e) {
      return { error: `${where(name, e)}: ${e.message}` };
    }
    return { doc: undefined };
  }
}

function planOne({ name, text }) {
  const { doc, error } = readJson({ name, text });
  if (error) {
    err(`hop-policy: ${error}`);
    return EXIT_UNREADABLE;
  }
  const input = unwrapVector(doc);
  // A bare input goes to the core as the text it already is (its limits are those of the text).
  const plan = JSON.parse(hp.planTunnelJson(input === doc ? text : JSON.stringify(input), JSON.stringify(planOptions(doc) ?? {})));
  out(opts.compact ? JSON.stringify(plan) : JSON.stringify(plan, null, 2));
  // Over a size limit the planner read nothing: like text that is not JSON, exit 2.
  if (plan.error && plan.error.code === 'LIMIT_EXCEEDED') {
    err(`hop-policy: ${name}: ${plan.error.messageEn} (LIMIT_EXCEEDED)`);
    return EXIT_UNREADABLE;
  }
  return EXIT_OK;
}

/** A plan-shaped line for an input line that cannot be read, so output lines stay aligned. */
function unreadablePlanLine(message, code = 'IN001') {
  return JSON.stringify({ error: { code, message, messageEn: message }, federation: [], local: [], nodes: [] });
}

/**
 * The plan line of one --jsonl input line (`i` counts from 0), or a
 * plan-shaped error line; `fail` is told when the line cannot be planned.
 */
function planLine(name, line, i, fail) {
  let planText;
  try {
    let value;
    try {
      value = JSON.parse(line);
    } catch {
      hp.planTunnelJson(line); // not JSON: the core throws, saying where
    }
    if (!isObject(value)) throw Object.assign(new Error('not a JSON object'), { code: 'IN001' });
    const input = unwrapVector(value);
    const options = planOptions(value);
    // A bare input goes to the core as the text it already is.
    planText = hp.planTunnelJson(input === value ? line : JSON.stringify(input), options ? JSON.stringify(options) : undefined);
  } catch (e) {
    const msg = e.message.replace(/ at line \d+ column \d+$/, '');
    fail(`${where(name, e, i)}: ${msg}`);
    return unreadablePlanLine(`line ${i + 1}: ${msg}`);
  }
  if (planText.startsWith('{"error":{"code":"LIMIT_EXCEEDED"')) fail(`${name}:${i + 1}: ${JSON.parse(planText).error.messageEn} (LIMIT_EXCEEDED)`);
  return planText;
}

/**
 * plan --jsonl: FILE read as a stream, each line planned as soon as it is
 * complete, so memory holds one line. A line over DOCUMENT_LIMIT is skipped
 * (its output line is a LIMIT_EXCEEDED error); past JSONL_LIMIT in bytes or
 * lines reading stops: what was read is planned, then exit 2.
 */
function planLines(file) {
  const name = file === '-' ? '<stdin>' : file;
  let fd;
  try {
    fd = openInput(file);
  } catch (e) {
    err(`hop-policy: cannot read ${name}: ${readFailure(e)}`);
    return EXIT_UNREADABLE;
  }
  const chunks = [];
  let size = 0;
  let status = EXIT_OK;
  const flush = () => {
    if (chunks.length) out(chunks.join(''));
    chunks.length = 0;
    size = 0;
  };
  const emit = (planText) => {
    chunks.push(planText, '\n');
    size += planText.length;
    if (size > 1 << 20) flush();
  };
  const fail = (message) => {
    err(`hop-policy: ${message}`);
    status = EXIT_UNREADABLE;
  };
  // The line being read: its parts so far (dropped once it is too long).
  let parts = [];
  let length = 0;
  let lineNo = 0;
  let total = 0;
  const endLine = () => {
    const i = lineNo - 1;
    if (length > DOCUMENT_LIMIT.bytes) {
      const msg = `line ${lineNo} is larger than the byte limit (${DOCUMENT_LIMIT.bytes} bytes; ${DOCUMENT_LIMIT.raise})`;
      fail(`${name}:${lineNo}: ${msg} (LIMIT_EXCEEDED)`);
      emit(unreadablePlanLine(msg, 'LIMIT_EXCEEDED'));
    } else {
      let buf = parts.length === 1 ? parts[0] : Buffer.concat(parts, length);
      const bom = lineNo === 1 && hasBom(buf);
      if (bom) buf = buf.subarray(3);
      if (buf.length && buf[buf.length - 1] === 0x0d) buf = buf.subarray(0, -1);
      const bad = invalidUtf8At(buf);
      if (bad >= 0) {
        const msg = notUtf8(buf, bad, bom ? 3 : 0, ' of the line');
        fail(`${name}:${lineNo}: ${msg}`);
        emit(unreadablePlanLine(`line ${lineNo}: ${msg}`));
      } else {
        const line = buf.toString('utf8');
        if (line.trim() !== '') emit(planLine(name, line, i, fail));
      }
    }
    parts = [];
    length = 0;
  };
  const chunk = Buffer.allocUnsafe(1 << 20);
  try {
    let inLine = false;
    for (;;) {
      let n = readChunk(fd, chunk, 0, chunk.length);
      if (n === 0) break;
      // Past the whole-stream limit only the bytes within it are used.
      const overBytes = total + n > JSONL_LIMIT.bytes;
      if (overBytes) n = JSONL_LIMIT.bytes - total;
      total += n;
      let start = 0;
      let stop = false;
      while (start < n) {
        if (!inLine) {
          if (lineNo === JSONL_LIMIT.lines) {
            stop = true;
            break;
          }
          lineNo++;
          inLine = true;
        }
        let nl = chunk.indexOf(0x0a, start);
        if (nl < 0 || nl >= n) nl = -1;
        const end = nl < 0 ? n : nl;
        if (length + (end - start) > DOCUMENT_LIMIT.bytes) parts = [];
        else parts.push(Buffer.from(chunk.subarray(start, end)));
        length += end - start;
        if (nl < 0) break;
        endLine();
        inLine = false;
        start = nl + 1;
      }
      if (stop || overBytes) {
        // The line cut off by the limit is not planned: it was not read whole.
        fail(`${name}: input is larger than the --jsonl limit (${JSONL_LIMIT.bytes} bytes and ${JSONL_LIMIT.lines} lines in all; split it): line ${inLine ? lineNo : lineNo + 1} and after were not read`);
        inLine = false;
        break;
      }
    }
    if (inLine) endLine();
  } catch (e) {
    if (e instanceof OutputError) throw e;
    fail(`cannot read ${name}: ${readFailure(e)}`);
  } finally {
    closeInput(file, fd);
  }
  flush();
  return status;
}

function checkOptionsJson() {
  const o = {};
  if (opts.kind) o.kind = opts.kind;
  if (opts.mode) o.mode = opts.mode;
  return Object.keys(o).length ? JSON.stringify(o) : undefined;
}

function exitForFindings(findings) {
  if (findings.some((f) => f.code === 'IN001')) return EXIT_UNREADABLE;
  if (findings.some((f) => f.severity === 'error')) return EXIT_FINDINGS;
  return EXIT_OK;
}

function cmdCheck() {
  const format = opts.format ?? 'text';
  if (!['text', 'json', 'sarif'].includes(format)) throw new UsageError(`--format must be text, json or sarif, not ${format}`);
  const file = oneFile();
  if (file === undefined) throw new UsageError('check needs a FILE (or - for standard input)');
  const input = readInput(file);
  const options = checkOptionsJson();
  let reportText;
  if (input.error) {
    err(readError(input));
    reportText = hp.checkUnreadableJson(`${input.name}: ${input.error}`, options);
  } else {
    reportText = hp.checkDocumentJson(input.text, options);
  }
  const report = JSON.parse(reportText);
  if (format === 'json') {
    out(JSON.stringify({ findings: report.findings, summary: report.summary }, null, 2));
  } else {
    const uri = file === '-' ? 'stdin' : file;
    if (typeof hp.checkDocumentFormatted !== 'function') throw new UsageError(`--format ${format} is not available in this build`);
    const rendered = hp.checkDocumentFormatted(input.text ?? '', format, options, uri, input.error ? `${input.name}: ${input.error}` : undefined);
    out(format === 'text' ? colourise(rendered) : format === 'sarif' ? JSON.stringify(JSON.parse(rendered), null, 2) : rendered);
  }
  const status = exitForFindings(report.findings);
  if (status === EXIT_UNREADABLE && !input.error) {
    const in001 = report.findings.find((f) => f.code === 'IN001');
    err(`hop-policy: ${where(input.name, in001)}: ${in001.message}`);
  }
  return status;
}

/** A tunnel input is planned first; the plan (with its node table) is simulated. */
function simulationDocument({ name, text }) {
  const read = readJson({ name, text });
  if (read.error) return { error: read.error };
  let doc = read.doc;
  const options = planOptions(doc);
  doc = unwrapVector(doc);
  if (isObject(doc) && ('tunnel' in doc || 'db' in doc)) {
    const plan = hp.planTunnel(doc, options);
    if (plan.error && plan.error.code === 'LIMIT_EXCEEDED') return { error: `${name}: ${plan.error.messageEn} (LIMIT_EXCEEDED)` };
    if (plan.error) return { rejected: `the server rejects this tunnel: ${plan.error.message} (${plan.error.code})` };
    return { doc: plan };
  }
  return { doc };
}

function cmdSimulate() {
  const format = opts.format ?? 'text';
  if (!['text', 'json'].includes(format)) throw new UsageError(`--format must be text or json, not ${format}`);
  const file = oneFile();
  if (file === undefined) throw new UsageError('simulate needs a FILE (or - for standard input)');
  if (opts.dead.length === 0 && opts.deadTargets.length === 0) throw new UsageError('simulate needs --dead ID[,ID...] or --dead-targets T[,T...]');
  const input = readOrReport(file);
  if (!input) return EXIT_UNREADABLE;
  const d = simulationDocument(input);
  if (d.error) {
    err(`hop-policy: ${d.error}`);
    return EXIT_UNREADABLE;
  }
  if (d.rejected) {
    err(`hop-policy: ${input.name}: ${d.rejected}`);
    return EXIT_FINDINGS;
  }
  const scenario = { dead: opts.dead };
  if (opts.deadTargets.length > 0) scenario.deadTargets = opts.deadTargets;
  if (opts.forward !== null) scenario.forward = opts.forward;
  if (opts.requests !== null) scenario.requests = opts.requests;
  let trace;
  try {
    trace = hp.simulate(d.doc, scenario);
  } catch (e) {
    err(`hop-policy: ${input.name}: ${e.message}${e.code ? ` (${e.code})` : ''}`);
    return e.code === 'IN001' ? EXIT_UNREADABLE : EXIT_FINDINGS;
  }
  if (format === 'json') out(JSON.stringify(trace, null, 2));
  else {
    if (typeof hp.simulateText !== 'function') throw new UsageError('--format text is not available in this build');
    out(colourise(hp.simulateText(JSON.stringify(d.doc), JSON.stringify(scenario))));
  }
  const requests = Array.isArray(trace.requests) ? trace.requests : [];
  return requests.every((r) => r && r.ok === true) ? EXIT_OK : EXIT_FINDINGS;
}

function cmdLifecycle() {
  const file = oneFile();
  if (file === undefined) throw new UsageError('lifecycle needs a FILE (or - for standard input)');
  const input = readOrReport(file);
  if (!input) return EXIT_UNREADABLE;
  let reportText;
  try {
    reportText = hp.lifecycleJson(input.text);
  } catch (e) {
    err(`hop-policy: ${e.code === 'IN001' ? where(input.name, e) : input.name}: ${e.message}${e.code ? ` (${e.code})` : ''}`);
    return EXIT_UNREADABLE;
  }
  const report = JSON.parse(reportText);
  out(JSON.stringify(report, null, 2));
  return exitForFindings(Array.isArray(report.findings) ? report.findings : []);
}

const SEVERITY_RANK = { error: 0, warning: 1, info: 2 };

/**
 * `path` as a SARIF artifact uri, encoded by the core (check's SARIF
 * encodes its uri in src/check/report.rs; asking it keeps one encoding).
 */
function artifactUri(path) {
  return JSON.parse(hp.checkDocumentFormatted('', 'sarif', undefined, path)).runs[0].artifacts[0].location.uri;
}

function decoded(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** postgres://host:port/database of a PostgreSQL URL, with no user, password or query. */
function postgresUri(url) {
  const p = postgresParts(url);
  if (!p) return 'postgres://localhost';
  const host = p.host.startsWith('[') ? p.host : artifactUri(decoded(p.host));
  return `postgres://${host}:${p.port}${artifactUri(decoded(p.path))}`;
}

/**
 * The panel behind an audit SOURCE as JSON text for backupTunnelsJson: a
 * backup export as it is, a database as the rows of its tables.
 */
async function readPanel(source) {
  try {
    if (isPostgresUrl(source)) return { name: 'PostgreSQL', text: await readPostgres(source), kind: 'database' };
    if (source !== '-' && isSqliteFile(source)) return { name: source, text: readSqlite(source), kind: 'database' };
  } catch (e) {
    if (!(e instanceof SourceError)) throw e;
    err(`hop-policy: ${e.message}`);
    return null;
  }
  const input = readOrReport(source, PANEL_LIMIT);
  return input && { ...input, kind: 'backup' };
}

/** A tunnel plan's forward rows (the rows its redeploy stores; none without forwards). */
function forwardsOf(plan) {
  return (plan && plan.db && plan.db.forward) || [];
}

/** Where forward `id` listens: node:port of each of its rows. */
function forwardPorts(plan, id) {
  const ports = ((plan.db && plan.db.forward_port) || []).filter((p) => p.forward_id === id);
  return ports.map((p) => `node ${p.node_id}:${p.port}`).join(', ') || 'no port';
}

async function cmdAudit() {
  const format = opts.format ?? 'text';
  if (!['text', 'json', 'sarif'].includes(format)) throw new UsageError(`--format must be text, json or sarif, not ${format}`);
  const file = oneFile();
  if (file === undefined) throw new UsageError('audit needs a SOURCE: a backup FILE (or - for standard input), a SQLite database file or a postgres:// URL');
  const input = await readPanel(file);
  if (!input) return EXIT_UNREADABLE;
  // One call reads the panel once and audits every tunnel with its forwards,
  // then what no single tunnel shows (two tunnels' services on one port).
  let audited;
  try {
    audited = JSON.parse(hp.auditPanelJson(input.text));
  } catch (e) {
    err(`hop-policy: ${input.kind === 'backup' ? where(input.name, e) : input.name}: ${e.message}${e.code ? ` (${e.code})` : ''}`);
    return EXIT_UNREADABLE;
  }
  if (opts.tunnels) {
    const missing = opts.tunnels.filter((id) => !audited.some((t) => t.id === id));
    if (missing.length) {
      err(`hop-policy: ${input.name}: no tunnel ${missing.join(', ')} in the ${input.kind}`);
      return EXIT_UNREADABLE;
    }
    audited = audited.filter((t) => opts.tunnels.includes(t.id));
  }
  const rows = audited.map((t) => {
    const { plan, findings } = t;
    const shown = opts.only === 'errors' ? findings.filter((f) => f.severity === 'error') : findings;
    const worst = [...findings].sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity])[0];
    return { t, plan, findings: shown, all: findings, worst };
  });
  const count = (r, sev) => r.all.filter((f) => f.severity === sev).length;
  const summary = {
    tunnels: rows.length,
    forwards: rows.reduce((n, r) => n + forwardsOf(r.plan).length, 0),
    withErrors: rows.filter((r) => count(r, 'error') > 0).length,
    errors: rows.reduce((n, r) => n + count(r, 'error'), 0),
    warnings: rows.reduce((n, r) => n + count(r, 'warning'), 0),
  };
  if (format === 'json') {
    out(JSON.stringify({ tunnels: rows.map((r) => ({ id: r.t.id, name: r.t.name, type: r.t.type, assumed: r.t.assumed, plan: r.plan, findings: r.findings })), summary }, null, 2));
  } else if (format === 'sarif') {
    // One run with every finding; each location names its tunnel (and the JSON Pointer into its plan).
    const level = { error: 'error', warning: 'warning', info: 'note' };
    const uri = file === '-' ? 'stdin' : isPostgresUrl(file) ? postgresUri(file) : artifactUri(file);
    const results = rows.flatMap((r) =>
      r.findings.map((f) => ({
        ruleId: f.code,
        level: level[f.severity] ?? 'warning',
        message: { text: `tunnel ${r.t.id} (${r.t.name}): ${f.message}` },
        locations: [{
          physicalLocation: { artifactLocation: { uri } },
          logicalLocations: [{ name: String(r.t.name), fullyQualifiedName: `tunnel/${r.t.id}${f.path}`, kind: 'resource' }],
        }],
        properties: { tunnelId: r.t.id, nodeId: f.nodeId ?? null, path: f.path, messageZh: f.messageZh },
      })),
    );
    const rules = hp.rules().map((r) => ({ id: r.code, name: r.rule, shortDescription: { text: r.description }, defaultConfiguration: { level: level[r.severity] ?? 'warning' } }));
    out(JSON.stringify({ $schema: 'https://json.schemastore.org/sarif-2.1.0.json', version: '2.1.0', runs: [{ tool: { driver: { name: 'hop-policy', version: hp.version(), rules } }, results }] }, null, 2));
  } else {
    const lines = ['id     name                 type  nodes  forwards  errors  warnings  worst'];
    for (const r of rows) {
      const nodes = new Set((r.plan.nodes || []).map((n) => n.nodeId)).size;
      const worst = r.worst ? `${r.worst.code} ${r.worst.message}`.slice(0, 80) : '-';
      lines.push(`${String(r.t.id).padEnd(6)} ${String(r.t.name).slice(0, 20).padEnd(20)} ${String(r.t.type).padEnd(5)} ${String(nodes).padEnd(6)} ${String(forwardsOf(r.plan).length).padEnd(9)} ${String(count(r, 'error')).padEnd(7)} ${String(count(r, 'warning')).padEnd(9)} ${worst}`);
    }
    lines.push('');
    for (const r of rows) {
      if (!r.findings.length) continue;
      lines.push(`tunnel ${r.t.id} ${r.t.name} (assumed: ${r.t.assumed.join('; ')})`);
      for (const f of forwardsOf(r.plan)) lines.push(`  forward ${f.id} ${f.name}: ${forwardPorts(r.plan, f.id)} -> ${f.remote_addr}`);
      for (const f of r.findings) lines.push(`  ${f.severity.padEnd(7)} ${f.code} ${f.nodeId !== undefined ? `node ${f.nodeId} ` : ''}${f.path} ${f.message}`);
    }
    lines.push(`${summary.tunnels} tunnels, ${summary.forwards} forwards, ${summary.withErrors} tunnels with errors; ${summary.errors} errors, ${summary.warnings} warnings`);
    out(colourise(lines.join('\n')));
  }
  return summary.errors > 0 ? EXIT_FINDINGS : EXIT_OK;
}

function main(argv) {
  let command;
  try {
    ({ command } = parseArgs(argv));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`hop-policy: ${e.message}\nTry 'hop-policy --help'.`);
    return EXIT_UNREADABLE;
  }
  const allowed = COMMAND_OPTIONS[command];
  if (allowed) {
    const wrong = [...opts.given].filter((o) => !allowed.includes(o));
    if (wrong.length) {
      err(`hop-policy: ${command} does not take ${wrong.join(', ')}\nTry 'hop-policy --help'.`);
      return EXIT_UNREADABLE;
    }
  }
  try {
    switch (command) {
      case 'help':
        writeAll(1, HELP);
        return EXIT_OK;
      case 'version':
        writeAll(1, `${hp.version()}\n`);
        return EXIT_OK;
      case 'plan':
        return cmdPlan();
      case 'check':
        return cmdCheck();
      case 'simulate':
        return cmdSimulate();
      case 'lifecycle':
        return cmdLifecycle();
      case 'audit':
        return cmdAudit().catch((e) => {
          err(`hop-policy: ${e && e.code ? `${e.code}: ` : ''}${e && e.message ? e.message : String(e)}`);
          return EXIT_UNREADABLE;
        });
      case null:
        err(`hop-policy: no command given\nTry 'hop-policy --help'.`);
        return EXIT_UNREADABLE;
      default:
        err(`hop-policy: unknown command ${JSON.stringify(command)}\nTry 'hop-policy --help'.`);
        return EXIT_UNREADABLE;
    }
  } catch (e) {
    if (e instanceof UsageError) {
      err(`hop-policy: ${e.message}\nTry 'hop-policy --help'.`);
      return EXIT_UNREADABLE;
    }
    err(`hop-policy: ${e && e.code ? `${e.code}: ` : ''}${e && e.message ? e.message : String(e)}`);
    return EXIT_UNREADABLE;
  }
}

Promise.resolve(main(process.argv.slice(2))).then(finish, (e) => {
  err(`hop-policy: ${e && e.message ? e.message : String(e)}`);
  finish(EXIT_UNREADABLE);
});
