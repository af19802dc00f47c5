// Reads what an operator pastes or loads: a tunnel input `{tunnel, nodes,
// federation?}`, or the panel's own API output (node list response
// `{code, msg, data: [rows]}` and the tunnel payload, in one object, an array,
// or two files), or a plan. Never changes the caller's objects.

function unwrap(v) {
  // The panel's API wraps results as {code, msg, data}; lists may sit in data.list/records/rows.
  let cur = v;
  for (let i = 0; i < 3 && cur && typeof cur === 'object' && !Array.isArray(cur); i++) {
    if ('data' in cur && ('code' in cur || 'msg' in cur || 'message' in cur || Object.keys(cur).length === 1)) cur = cur.data;
    else break;
  }
  if (cur && typeof cur === 'object' && !Array.isArray(cur)) {
    for (const k of ['list', 'records', 'rows', 'items']) if (Array.isArray(cur[k])) return cur[k];
  }
  return cur;
}

function isNodeRows(v) {
  return Array.isArray(v) && v.length > 0 && v.every((r) => r && typeof r === 'object' && 'id' in r && ('serverIp' in r || 'isRemote' in r || 'name' in r));
}

function isTunnel(v) {
  return v && typeof v === 'object' && !Array.isArray(v) && ('inNodeId' in v || 'outNodeId' in v || 'chainNodes' in v);
}

export function isPlan(v) {
  return v && typeof v === 'object' && !Array.isArray(v) && Array.isArray(v.local) && Array.isArray(v.federation) && !('tunnel' in v);
}

/**
 * Returns `{kind: 'input', input, note}`, `{kind: 'plan', plan}`,
 * `{kind: 'partial', found, missing}` (half an export: `missing` is 'tunnel' or 'nodes') or
 * `{kind: 'unknown', input: value}` (passed through: the module reports what is wrong).
 */
export function readDocument(value) {
  if (isPlan(value)) return { kind: 'plan', plan: value };
  // A redeploy input: the tunnel as the panel's database stores it.
  if (value && typeof value === 'object' && !Array.isArray(value) && value.db && typeof value.db === 'object' && !('tunnel' in value)) {
    return { kind: 'input', input: value, note: null };
  }
  const parts = [];
  let tunnel;
  let nodes;
  let federation;
  const visit = (v, depth) => {
    const u = unwrap(v);
    if (isTunnel(u) && !tunnel) {
      tunnel = u;
      if (u !== v) parts.push('tunnel (response envelope)');
      return;
    }
    if (Array.isArray(u) && u.length && u.every(isTunnel) && !tunnel) {
      // A tunnel list response: the first tunnel is previewed.
      tunnel = u[0];
      parts.push(u.length > 1 ? `tunnel list (first of ${u.length}, id ${u[0].id})` : 'tunnel list');
      return;
    }
    if (isNodeRows(u) && !nodes) {
      nodes = u;
      parts.push(u !== v ? 'node list (response envelope)' : 'node rows');
      return;
    }
    if (depth > 0) return;
    if (Array.isArray(u)) u.forEach((x) => visit(x, depth + 1));
  };
  if (value && typeof value === 'object' && !Array.isArray(value) && 'tunnel' in value && 'nodes' in value) {
    let t = unwrap(value.tunnel);
    const n = unwrap(value.nodes);
    if (Array.isArray(t) && t.length && t.every(isTunnel)) {
      parts.push(t.length > 1 ? `tunnel list (first of ${t.length}, id ${t[0].id})` : 'tunnel list');
      t = t[0];
    }
    if (t === value.tunnel && n === value.nodes) return { kind: 'input', input: value, note: null };
    if (t !== value.tunnel && !parts.length) parts.push('tunnel (response envelope)');
    if (n !== value.nodes) parts.push('node list (response envelope)');
    return { kind: 'input', input: { ...value, tunnel: t, nodes: n }, note: parts.join(' + ') };
  }
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const k of ['nodeList', 'nodes', 'node']) if (k in value && !nodes) visit(value[k], 1);
    for (const k of ['tunnel', 'tunnelPayload', 'payload']) if (k in value && !tunnel) visit(value[k], 1);
    if (value.federation && typeof value.federation === 'object') federation = value.federation;
  } else if (Array.isArray(value)) {
    visit(value, 0);
  }
  if (!tunnel && !nodes) {
    // One response on its own: a node list or a tunnel payload, maybe in an envelope.
    const u = unwrap(value);
    if (isNodeRows(u)) nodes = u;
    else if (isTunnel(u)) tunnel = u;
    else if (Array.isArray(u) && u.length && u.every(isTunnel)) tunnel = u[0];
  }
  if (tunnel && nodes) {
    const input = { tunnel, nodes };
    if (federation) input.federation = federation;
    return { kind: 'input', input, note: parts.join(' + ') };
  }
  // Half of an export: say what was read and what is still needed, rather
  // than passing it on for the server's "/tunnel must be an object".
  if (nodes) return { kind: 'partial', found: { nodes: nodes.length }, missing: 'tunnel' };
  if (tunnel && !(value && typeof value === 'object' && !Array.isArray(value) && 'nodes' in value)) {
    return { kind: 'partial', found: { tunnelName: tunnel.name ?? tunnel.id ?? '?' }, missing: 'nodes' };
  }
  return { kind: 'unknown', input: value };
}

/** Merges several loaded files (e.g. node list + tunnel payload) into one value. */
export function mergeFiles(values) {
  if (values.length === 1) return values[0];
  return values;
}
