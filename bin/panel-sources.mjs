// The sources `hop-policy audit` reads a whole panel from: its backup export
// (a file, or - for standard input), its SQLite database file, or its
// PostgreSQL database (a postgres:// URL). A database answers with the rows of
// the four tables a redeploy reads, and of the tables its forward sync reads
// where the database has them, as JSON text for the core's backupTunnelsJson
// and auditPanelJson, which check every column they need. Nothing here writes:
// SQLite is opened read-only, PostgreSQL is read in a READ ONLY transaction
// that is rolled back.
import { createRequire } from 'node:module';
import { closeSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';

/** The tables a redeploy reads (go-backend/internal/store/model/model.go). */
export const PANEL_TABLES = ['node', 'tunnel', 'chain_tunnel', 'federation_tunnel_binding'];

/**
 * The tables the forward sync after each tunnel reads (model.go Forward,
 * ForwardPort, SpeedLimit, User, UserTunnel); a dump without them is a panel
 * without forwards.
 */
export const FORWARD_TABLES = ['forward', 'forward_port', 'speed_limit', 'user', 'user_tunnel'];

/** The tables to read: every panel table and the forward tables present. */
function tablesToRead(present) {
  const have = new Set(present);
  return [...PANEL_TABLES, ...FORWARD_TABLES.filter((t) => have.has(t))];
}

/** A source that cannot be read: the CLI prints `message` and exits 2. */
export class SourceError extends Error {}

const SQLITE_MAGIC = 'SQLite format 3\u0000';

export function isPostgresUrl(source) {
  return /^postgres(ql)?:\/\//i.test(source);
}

/** Whether `file` starts with SQLite's header (false for anything unreadable). */
export function isSqliteFile(file) {
  let fd;
  try {
    fd = openSync(file, 'r');
    const head = Buffer.alloc(16);
    return readSync(fd, head, 0, 16, 0) === 16 && head.toString('latin1') === SQLITE_MAGIC;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * An optional driver: resolved next to this package first, then from the
 * working directory (a project that installed it beside hop-policy).
 */
function loadDriver(name, why) {
  for (const base of [import.meta.url, join(process.cwd(), 'package.json')]) {
    try {
      return createRequire(base)(name);
    } catch (e) {
      if (e && e.code !== 'MODULE_NOT_FOUND') throw e;
    }
  }
  throw new SourceError(`${why} needs the npm package ${name}: npm install ${name}`);
}

function missingTables(present) {
  const have = new Set(present);
  return PANEL_TABLES.filter((t) => !have.has(t));
}

function notThePanel(where, missing) {
  return new SourceError(`${where} is not a flvx panel database: no table ${missing.join(', ')} (a panel has ${PANEL_TABLES.join(', ')})`);
}

/** The panel's rows from a SQLite file, opened read-only. */
export function readSqlite(file) {
  const Database = loadDriver('better-sqlite3', 'reading a SQLite database');
  let db;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw new SourceError(`cannot open ${file} as SQLite: ${e.message}`);
  }
  try {
    const names = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all().map((r) => r.name);
    const missing = missingTables(names);
    if (missing.length) throw notThePanel(file, missing);
    const tables = {};
    for (const t of tablesToRead(names)) tables[t] = db.prepare(`SELECT * FROM "${t}" ORDER BY id`).all();
    return JSON.stringify(tables);
  } catch (e) {
    if (e instanceof SourceError) throw e;
    throw new SourceError(`cannot read ${file}: ${e.message}`);
  } finally {
    db.close();
  }
}

/**
 * Where a PostgreSQL URL points: host, port and database path as the URL
 * writes them (percent-encoded), never its user, password or query (which
 * may carry a password too); null when it is not a URL.
 */
export function postgresParts(url) {
  try {
    const u = new URL(url);
    return { host: u.hostname || 'localhost', port: u.port || '5432', path: u.pathname && u.pathname !== '/' ? u.pathname : '' };
  } catch {
    return null;
  }
}

/** host:port/database of a PostgreSQL URL, never its user or password. */
export function postgresLocation(url) {
  const p = postgresParts(url);
  return p ? `${p.host}:${p.port}${p.path}` : 'the PostgreSQL URL';
}

/** `text` with every credential of `url` replaced (drivers may echo them). */
function scrub(text, url) {
  let out = String(text);
  try {
    const u = new URL(url);
    for (const secret of [u.password, decodeURIComponent(u.password)]) {
      if (secret) out = out.split(secret).join('***');
    }
  } catch {
    // not a URL: nothing to scrub but the URL itself
  }
  return out.split(url).join(postgresLocation(url));
}

/** The panel's rows from PostgreSQL, read in a READ ONLY transaction. */
export async function readPostgres(url) {
  const pg = loadDriver('pg', 'reading a PostgreSQL database');
  const where = postgresLocation(url);
  // bigint (OID 20) arrives as text by default; ids and ports are numbers here.
  const types = {
    getTypeParser(oid, format) {
      if (oid === 20) return (v) => (Number.isSafeInteger(Number(v)) ? Number(v) : v);
      return pg.types.getTypeParser(oid, format);
    },
  };
  const client = new pg.Client({ connectionString: url, types, connectionTimeoutMillis: 10000, statement_timeout: 60000 });
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (e) {
    throw new SourceError(`cannot reach PostgreSQL at ${where}: ${scrub(e.message || e.code || e, url)}`);
  }
  try {
    await client.query('BEGIN READ ONLY');
    const present = await client.query(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = ANY (current_schemas(false))',
    );
    const names = present.rows.map((r) => r.table_name);
    const missing = missingTables(names);
    if (missing.length) throw notThePanel(`PostgreSQL at ${where}`, missing);
    const tables = {};
    for (const t of tablesToRead(names)) tables[t] = (await client.query(`SELECT * FROM "${t}" ORDER BY id`)).rows;
    await client.query('ROLLBACK');
    return JSON.stringify(tables);
  } catch (e) {
    if (e instanceof SourceError) throw e;
    throw new SourceError(`cannot read PostgreSQL at ${where}: ${scrub(e.message, url)}`);
  } finally {
    await client.end().catch(() => {});
  }
}
