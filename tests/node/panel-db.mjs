// A flvx panel's database for the audit tests, built the way the panel's
// gorm AutoMigrate would build it. The tables and columns follow the gorm
// tags of go-backend/internal/store/model/model.go (upstream 2d0c993): Node
// (:66-96), Tunnel (:122-139), ChainTunnel (:158-170), User (:12-28),
// Forward (:33-52), ForwardPort (:56-62), SpeedLimit (:98-107), UserTunnel
// (:172-184), PeerShare (:281-298), PeerShareRuntime (:300-320),
// FederationTunnelBinding (:322-337). Types are gorm's for each dialect: int/int64 are `integer` in
// SQLite and `bigint` in PostgreSQL, float64 `real` / `decimal`, string its
// `type:` tag; sql.Null* fields are nullable, the rest NOT NULL.
import { readFileSync } from 'node:fs';

// [column, Go type, gorm `type:` (or null), default (SQL text, or undefined)]
const SCHEMA = {
  user: [
    ['id', 'pk'], ['user', 'string', 'varchar(100)'], ['pwd', 'string', 'varchar(100)'], ['role_id', 'int'],
    ['exp_time', 'int64'], ['flow', 'int64'], ['in_flow', 'int64', null, '0'], ['out_flow', 'int64', null, '0'],
    ['flow_reset_time', 'int64'], ['num', 'int'], ['created_time', 'int64'], ['updated_time', 'nullint64'],
    ['status', 'int'], ['password_changed_at', 'int64', null, '0'], ['max_conn', 'int', null, '0'],
  ],
  node: [
    ['id', 'pk'], ['name', 'string', 'varchar(100)'], ['remark', 'nullstring', 'text'], ['expiry_time', 'nullint64'],
    ['renewal_cycle', 'nullstring', 'varchar(20)'], ['secret', 'string', 'varchar(100)'],
    ['server_ip', 'string', 'varchar(100)'], ['server_ip_v4', 'nullstring', 'varchar(100)'],
    ['server_ip_v6', 'nullstring', 'varchar(100)'], ['extra_ips', 'nullstring', 'text'], ['port', 'string', 'text'],
    ['interface_name', 'nullstring', 'varchar(200)'], ['version', 'nullstring', 'varchar(100)'],
    ['http', 'int', null, '0'], ['tls', 'int', null, '0'], ['socks', 'int', null, '0'], ['created_time', 'int64'],
    ['updated_time', 'nullint64'], ['status', 'int'], ['tcp_listen_addr', 'string', 'varchar(100)', "'[::]'"],
    ['udp_listen_addr', 'string', 'varchar(100)', "'[::]'"], ['inx', 'int', null, '0'],
    ['is_remote', 'nullableint', null, '0'], ['remote_url', 'nullstring', 'text'], ['remote_token', 'nullstring', 'text'],
    ['remote_config', 'nullstring', 'text'], ['expiry_reminder_dismissed', 'int', null, '0'],
  ],
  tunnel: [
    ['id', 'pk'], ['name', 'string', 'varchar(100)'], ['traffic_ratio', 'float64', null, '1.0'], ['type', 'int'],
    ['protocol', 'string', 'varchar(10)', "'tls'"], ['flow', 'int64'], ['created_time', 'int64'],
    ['updated_time', 'int64'], ['status', 'int'], ['in_ip', 'nullstring', 'text'], ['inx', 'int', null, '0'],
    ['ip_preference', 'string', 'varchar(10)', "''"], ['probe_target_host', 'string', 'text', "''"],
    ['probe_target_port', 'int', null, '0'],
  ],
  chain_tunnel: [
    ['id', 'pk'], ['tunnel_id', 'int64'], ['chain_type', 'string', 'varchar(10)'], ['node_id', 'int64'],
    ['port', 'nullint64'], ['strategy', 'nullstring', 'varchar(10)'], ['inx', 'nullint64'],
    ['protocol', 'nullstring', 'varchar(10)'], ['connect_ip', 'nullstring', 'varchar(45)'],
  ],
  forward: [
    ['id', 'pk'], ['user_id', 'int64'], ['user_name', 'string', 'varchar(100)'], ['name', 'string', 'varchar(100)'],
    ['tunnel_id', 'int64'], ['remote_addr', 'string', 'text'], ['strategy', 'string', 'varchar(100)', "'fifo'"],
    ['in_flow', 'int64', null, '0'], ['out_flow', 'int64', null, '0'], ['created_time', 'int64'], ['updated_time', 'int64'],
    ['status', 'int'], ['inx', 'int', null, '0'], ['speed_id', 'nullint64'], ['max_conn', 'int', null, '0'],
    ['ip_max_conn', 'int', null, '0'], ['ip_speed_id', 'nullint64'], ['proxy_protocol', 'int', null, '0'],
  ],
  forward_port: [
    ['id', 'pk'], ['forward_id', 'int64'], ['node_id', 'int64'], ['port', 'int'], ['in_ip', 'nullstring', 'text'],
  ],
  speed_limit: [
    ['id', 'pk'], ['name', 'string', 'varchar(100)'], ['speed', 'int'], ['tunnel_id', 'nullint64'],
    ['tunnel_name', 'nullstring', 'varchar(100)'], ['created_time', 'int64'], ['updated_time', 'nullint64'], ['status', 'int'],
  ],
  user_tunnel: [
    ['id', 'pk'], ['user_id', 'int64'], ['tunnel_id', 'int64'], ['speed_id', 'nullint64'], ['num', 'int'], ['flow', 'int64'],
    ['in_flow', 'int64', null, '0'], ['out_flow', 'int64', null, '0'], ['flow_reset_time', 'int64'], ['exp_time', 'int64'],
    ['status', 'int'],
  ],
  peer_share: [
    ['id', 'pk'], ['name', 'string', 'text'], ['node_id', 'int64'], ['token', 'string', 'text'],
    ['max_bandwidth', 'nullableint', null, '0'], ['expiry_time', 'nullableint', null, '0'],
    ['port_range_start', 'nullableint', null, '0'], ['port_range_end', 'nullableint', null, '0'],
    ['current_flow', 'nullableint', null, '0'], ['is_active', 'nullableint', null, '1'], ['created_time', 'int64'],
    ['updated_time', 'int64'], ['allowed_domains', 'nullablestring', 'text', "''"], ['allowed_ips', 'nullablestring', 'text', "''"],
  ],
  peer_share_runtime: [
    ['id', 'pk'], ['share_id', 'int64'], ['node_id', 'int64'], ['reservation_id', 'string', 'text'],
    ['resource_key', 'string', 'text'], ['binding_id', 'string', 'text', "''"], ['role', 'string', 'text', "''"],
    ['chain_name', 'string', 'text', "''"], ['service_name', 'string', 'text', "''"], ['protocol', 'string', 'text', "'tls'"],
    ['strategy', 'string', 'text', "'round'"], ['port', 'int', null, '0'], ['target', 'string', 'text', "''"],
    ['applied', 'int', null, '0'], ['status', 'int', null, '1'], ['created_time', 'int64'], ['updated_time', 'int64'],
  ],
  federation_tunnel_binding: [
    ['id', 'pk'], ['tunnel_id', 'int64'], ['node_id', 'int64'], ['chain_type', 'int'], ['hop_inx', 'int', null, '0'],
    ['remote_url', 'string', 'text'], ['resource_key', 'string', 'text'], ['remote_binding_id', 'string', 'text'],
    ['allocated_port', 'int'], ['status', 'int', null, '1'], ['created_time', 'int64'], ['updated_time', 'int64'],
  ],
};

// Unique indexes of model.go (uniqueIndex tags).
const UNIQUE = {
  user_tunnel: [['user_id', 'tunnel_id']],
  peer_share: [['token']],
  peer_share_runtime: [['reservation_id'], ['resource_key']],
  federation_tunnel_binding: [['tunnel_id', 'node_id', 'chain_type', 'hop_inx'], ['resource_key']],
};

function columnSql(dialect, [name, go, type, dflt]) {
  if (go === 'pk') return `"${name}" ${dialect === 'sqlite' ? 'integer PRIMARY KEY AUTOINCREMENT' : 'bigserial PRIMARY KEY'}`;
  const integer = dialect === 'sqlite' ? 'integer' : 'bigint';
  const sqlType = go === 'float64' ? (dialect === 'sqlite' ? 'real' : 'decimal') : type ?? integer;
  // Fields without `not null` in their tag (nullable*, sql.Null*) may hold NULL.
  const notNull = go.startsWith('null') ? '' : ' NOT NULL';
  return `"${name}" ${sqlType}${notNull}${dflt !== undefined ? ` DEFAULT ${dflt}` : ''}`;
}

/** CREATE TABLE / CREATE UNIQUE INDEX statements for 'sqlite' or 'postgres'. */
export function panelDdl(dialect) {
  const out = [];
  for (const [table, columns] of Object.entries(SCHEMA)) {
    out.push(`CREATE TABLE "${table}" (${columns.map((c) => columnSql(dialect, c)).join(', ')})`);
    (UNIQUE[table] || []).forEach((cols, i) => out.push(`CREATE UNIQUE INDEX "idx_${table}_${i}" ON "${table}" (${cols.map((c) => `"${c}"`).join(', ')})`));
  }
  return out;
}

const camel = (column) => column.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const BACKUP_KEYS = { server_ip_v4: 'serverIpV4', server_ip_v6: 'serverIpV6', server_ip: 'serverIp' };

/** A backup object's value for `column`, or the column's default / NULL. */
function valueOf(item, [name, go, , dflt]) {
  const key = BACKUP_KEYS[name] ?? camel(name);
  const v = item[key];
  if (v !== undefined && v !== null) return v;
  if (dflt !== undefined) return dflt.startsWith("'") ? dflt.slice(1, -1) : Number(dflt);
  if (go.startsWith('null')) return null;
  return go === 'string' ? '' : 0;
}

/**
 * The rows the panel's database holds for a backup export, table by table,
 * plus `extra`: rows and column values the export leaves out
 * ({chain_tunnel: {ID: {connect_ip}}, federation_tunnel_binding: [rows], peer_share: [rows]}).
 */
export function panelRows(backup, extra = {}) {
  const rows = { user: [], node: [], tunnel: [], chain_tunnel: [], forward: [], forward_port: [], speed_limit: [], user_tunnel: [], peer_share: [], peer_share_runtime: [], federation_tunnel_binding: [] };
  const fill = (table, item) => Object.fromEntries(SCHEMA[table].map((c) => [c[0], c[1] === 'pk' ? item.id : valueOf(item, c)]));
  for (const u of backup.users || []) rows.user.push(fill('user', u));
  for (const n of backup.nodes || []) rows.node.push(fill('node', n));
  for (const t of backup.tunnels || []) {
    rows.tunnel.push(fill('tunnel', t));
    for (const c of t.chainTunnels || []) {
      const row = fill('chain_tunnel', { ...c, tunnelId: t.id });
      Object.assign(row, extra.chain_tunnel?.[c.id] ?? {});
      rows.chain_tunnel.push(row);
    }
  }
  // An import numbers forward ports in export order (the export carries no ids).
  for (const f of backup.forwards || []) {
    rows.forward.push(fill('forward', f));
    for (const p of f.forwardPorts || []) rows.forward_port.push(fill('forward_port', { ...p, id: rows.forward_port.length + 1, forwardId: f.id }));
  }
  for (const s of backup.speedLimits || []) rows.speed_limit.push(fill('speed_limit', s));
  for (const g of backup.userTunnels || []) rows.user_tunnel.push(fill('user_tunnel', g));
  for (const table of ['federation_tunnel_binding', 'peer_share']) {
    for (const r of extra[table] || []) rows[table].push(fill(table, Object.fromEntries(Object.entries(r).map(([k, v]) => [camel(k), v]))));
  }
  return rows;
}

function insertSql(table, row, placeholder) {
  const cols = Object.keys(row);
  return [`INSERT INTO "${table}" (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map((_, i) => placeholder(i)).join(', ')})`, cols.map((c) => row[c])];
}

/** A new SQLite file at `file` with the panel's schema and `rows`. */
export function writeSqlite(Database, file, rows) {
  const db = new Database(file);
  try {
    for (const s of panelDdl('sqlite')) db.exec(s);
    const load = db.transaction(() => {
      for (const [table, list] of Object.entries(rows)) {
        for (const row of list) {
          const [sql, values] = insertSql(table, row, () => '?');
          db.prepare(sql).run(values);
        }
      }
    });
    load();
  } finally {
    db.close();
  }
}

/** The panel's schema and `rows` in a fresh schema `schema` of the server at `url`; returns its URL. */
export async function writePostgres(pg, url, schema, rows) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(`SET search_path TO "${schema}"`);
    for (const s of panelDdl('postgres')) await client.query(s);
    for (const [table, list] of Object.entries(rows)) {
      for (const row of list) {
        const [sql, values] = insertSql(table, row, (i) => `$${i + 1}`);
        await client.query(sql, values);
      }
    }
  } finally {
    await client.end();
  }
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

export function readBackup(file) {
  return JSON.parse(readFileSync(file, 'utf8'));
}
