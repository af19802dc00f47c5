// The local twin of a federated node: what the panel's local builder would
// send to that same node if it were one of the panel's own nodes, with the
// same ports and targets. Built by planning the input again with the node made
// local (its port pinned to the port the federated plan gives it, and the
// provider's listen address and interface taken as the node's own), then
// taking the local commands for it.

function sameId(a, b) {
  return a !== null && a !== undefined && String(a).trim() === String(b);
}

/**
 * An edit upserts (`UpdateChains {chain, data}`, `UpdateService`) where a
 * provider always adds: the twin is shown in the provider's terms.
 */
function asAdd(c) {
  if (c.command === 'UpdateChains' && c.data && typeof c.data === 'object') return { ...c, command: 'AddChains', data: c.data.data };
  if (c.command === 'UpdateService') return { ...c, command: 'AddService' };
  return c;
}

/** A redeploy input (database rows) with the nodes in `planNodes` local. */
function twinRows(input, byId) {
  const db = input.db;
  const node = (Array.isArray(db.node) ? db.node : []).map((row) => {
    if (!row || typeof row !== 'object' || !byId.has(String(row.id).trim())) return row;
    const copy = { ...row, is_remote: 0, status: 1, remote_url: null, remote_config: null };
    delete copy.remote_token;
    const fed = input.federation && input.federation[String(row.id).trim()];
    if (fed && typeof fed === 'object') {
      if (fed.tcpListenAddr !== undefined) copy.tcp_listen_addr = fed.tcpListenAddr;
      if (fed.interfaceName !== undefined) copy.interface_name = fed.interfaceName;
    }
    return copy;
  });
  // Hop and exit rows keep the port the federated plan gives the node.
  const chain = (Array.isArray(db.chain_tunnel) ? db.chain_tunnel : []).map((row) => {
    const n = row && byId.get(String(row.node_id).trim());
    return n && n.port > 0 && String(row.chain_type).trim() !== '1' ? { ...row, port: n.port } : row;
  });
  const out = { ...input, db: { ...db, node, chain_tunnel: chain, federation_tunnel_binding: [] } };
  if (input.federation) out.federation = Object.fromEntries(Object.entries(input.federation).filter(([k]) => !byId.has(k)));
  return out;
}

/** A copy of `input` where the nodes in `planNodes` are local (caller data untouched). */
export function twinInput(input, planNodes) {
  const byId = new Map(planNodes.map((n) => [String(n.nodeId), n]));
  if (input && input.db && typeof input.db === 'object' && !('tunnel' in input)) return twinRows(input, byId);
  const fedMap = input.federation && typeof input.federation === 'object' ? input.federation : {};
  const nodes = input.nodes.map((row) => {
    if (!row || typeof row !== 'object' || !byId.has(String(row.id).trim())) return row;
    const copy = { ...row, isRemote: 0, status: 1, remoteUrl: null, remoteConfig: null };
    delete copy.remoteToken;
    const fed = fedMap[String(row.id).trim()];
    if (fed && typeof fed === 'object') {
      if (fed.tcpListenAddr !== undefined) copy.tcpListenAddr = fed.tcpListenAddr;
      if (fed.interfaceName !== undefined) copy.interfaceName = fed.interfaceName;
    }
    return copy;
  });
  const pin = (item) => {
    if (!item || typeof item !== 'object') return item;
    const n = [...byId.values()].find((x) => sameId(item.nodeId, x.nodeId));
    return n && n.port > 0 ? { ...item, port: n.port } : item;
  };
  const tunnel = { ...input.tunnel };
  if (Array.isArray(tunnel.outNodeId)) tunnel.outNodeId = tunnel.outNodeId.map(pin);
  if (Array.isArray(tunnel.chainNodes)) tunnel.chainNodes = tunnel.chainNodes.map((hop) => (Array.isArray(hop) ? hop.map(pin) : hop));
  const out = { ...input, tunnel, nodes };
  if (input.federation && typeof input.federation === 'object') {
    out.federation = Object.fromEntries(Object.entries(input.federation).filter(([k]) => !byId.has(k)));
  }
  return out;
}

/**
 * Twins of every federated node of `plan`: Map nodeId -> {commands} | {error}.
 * All federated nodes are made local in one planning pass: a node's local
 * commands depend only on its own row, port and its targets' hosts and ports,
 * which the pass keeps as they are (tests/e2e checks this against one pass per
 * node on the golden vectors).
 */
export function buildTwins(planTunnel, input, plan, { perNode = false, options } = {}) {
  const remote = (plan.nodes || []).filter((n) => n && n.remote);
  const twins = new Map();
  if (!remote.length) return twins;
  const run = (nodes) => {
    try {
      // The same request path as the plan: an edit's twin is what the edit would deploy.
      const p = planTunnel(twinInput(input, nodes), options);
      if (p.error) {
        const msg = typeof p.error === 'string' ? p.error : p.error.message;
        for (const n of nodes) twins.set(n.nodeId, { error: msg });
        return;
      }
      for (const n of nodes) twins.set(n.nodeId, { commands: (p.local || []).filter((c) => c.nodeId === n.nodeId).map(asAdd) });
    } catch (e) {
      for (const n of nodes) twins.set(n.nodeId, { error: `${e && e.code ? e.code + ': ' : ''}${e && e.message ? e.message : e}` });
    }
  };
  if (perNode) for (const n of remote) run([n]);
  else run(remote);
  return twins;
}
