// The tunnel picture: hops as columns of nodes, an edge for every chain link,
// federated nodes marked, dead nodes crossed out, and one simulated request's
// dial attempts drawn on top.

import { escapeHtml } from './jsonview.js';
import { t } from './i18n.js';

function splitHostPort(addr) {
  if (typeof addr !== 'string') return null;
  const m = /^\[([^\]]*)\]:(\d+)$/.exec(addr) || /^([^:]*):(\d+)$/.exec(addr);
  return m ? { host: m[1], port: Number(m[2]) } : null;
}

// The port a service listens on, even when its address is malformed (":::44014"
// is still meant as port 44014; the checker reports the address itself).
function listenPort(addr) {
  if (typeof addr !== 'string') return null;
  const m = /:(\d+)$/.exec(addr);
  return m ? Number(m[1]) : null;
}

export function commandGroups(plan) {
  const groups = [];
  // A forward-mode plan sends only forward services: the tunnel they route through is its `deployed` apply.
  for (const p of [plan, plan.deployed]) {
    if (!p || typeof p !== 'object') continue;
    if (Array.isArray(p.local)) groups.push(p.local);
    if (Array.isArray(p.federation)) for (const f of p.federation) if (f && Array.isArray(f.commands)) groups.push(f.commands);
  }
  return groups;
}

/**
 * Works out who is who from a plan: the node list (from the plan's `nodes`
 * table, or guessed from the commands when a hand-edited plan has none), and
 * the chain links between them, resolved by dialed `host:port`.
 */
export function topology(plan) {
  const services = []; // {nodeId, port}
  const chains = []; // {nodeId, addrs: [addr]}
  for (const cmds of commandGroups(plan)) {
    for (const c of cmds) {
      if (!c || typeof c !== 'object') continue;
      const id = c.nodeId;
      if (c.command === 'AddService' && Array.isArray(c.data)) {
        for (const s of c.data) {
          const chain = s && s.handler && s.handler.chain;
          services.push({ nodeId: id, port: listenPort(s && s.addr), hasChain: !!chain, retries: chain ? Number(s.handler.retries ?? 0) : null });
        }
      } else if ((c.command === 'AddChains' || c.command === 'UpdateChains') && c.data) {
        const chain = c.command === 'UpdateChains' ? c.data.data : c.data;
        const hop = chain && Array.isArray(chain.hops) ? chain.hops[0] : null;
        const addrs = hop && Array.isArray(hop.nodes) ? hop.nodes.map((n) => n && n.addr) : [];
        chains.push({ nodeId: id, addrs });
      }
    }
  }

  let nodes;
  if (Array.isArray(plan.nodes) && plan.nodes.length) {
    nodes = plan.nodes.filter((n) => n && typeof n === 'object').map((n) => ({ ...n }));
  } else {
    // No node table: guess roles from what each node receives.
    const ids = [...new Set([...chains.map((c) => c.nodeId), ...services.map((s) => s.nodeId)])];
    const remote = new Set((plan.federation || []).map((f) => f && f.nodeId));
    nodes = ids.map((id) => {
      const hasChain = chains.some((c) => c.nodeId === id);
      const hasSvc = services.some((s) => s.nodeId === id);
      const role = hasChain && !hasSvc ? 'entry' : hasChain ? 'middle' : 'exit';
      const port = (services.find((s) => s.nodeId === id) || {}).port || 0;
      return { nodeId: id, name: `#${id}`, role, hop: 0, remote: remote.has(id), port, addresses: [] };
    });
  }
  const byId = new Map(nodes.map((n) => [n.nodeId, n]));
  // A forwarding node's retries against the candidates of its next hop: the
  // handler tries `retries + 1` times, so fewer than n - 1 retries leaves
  // candidates untried when the first ones fail.
  for (const n of nodes) {
    const svc = services.find((x) => x.nodeId === n.nodeId && x.hasChain);
    const chain = chains.find((c) => c.nodeId === n.nodeId);
    if (svc && chain && chain.addrs.length) n.failover = { retries: svc.retries, candidates: chain.addrs.length, short: svc.retries < chain.addrs.length - 1 };
  }

  const resolve = (addr) => {
    const hp = splitHostPort(addr);
    if (!hp) return null;
    for (const n of nodes) if (n.port === hp.port && Array.isArray(n.addresses) && n.addresses.includes(hp.host)) return n.nodeId;
    const owners = [...new Set(services.filter((s) => s.port === hp.port).map((s) => s.nodeId))];
    return owners.length === 1 ? owners[0] : null;
  };

  const edges = [];
  const unresolved = [];
  for (const c of chains) {
    for (const addr of c.addrs) {
      const to = resolve(addr);
      if (to === null || !byId.has(to)) unresolved.push({ from: c.nodeId, addr });
      else edges.push({ from: c.nodeId, to, addr });
    }
  }

  // Middle hop numbers: from the table, else by distance from the entries.
  if (!nodes.some((n) => n.role === 'middle' && n.hop > 0)) {
    let frontier = nodes.filter((n) => n.role === 'entry').map((n) => n.nodeId);
    const seen = new Set(frontier);
    for (let depth = 1; frontier.length && depth < 64; depth++) {
      const next = [];
      for (const e of edges) {
        if (frontier.includes(e.from) && !seen.has(e.to)) {
          seen.add(e.to);
          const n = byId.get(e.to);
          if (n && n.role === 'middle') n.hop = depth;
          next.push(e.to);
        }
      }
      frontier = next;
    }
  }
  return { nodes, byId, edges, unresolved, resolve };
}

const COL_W = 168;
const BOX_W = 124;
const BOX_H = 60;
const ROW_H = 78;
const PAD = 14;

// Phone layout: hops as rows from top to bottom, nodes of a hop side by side.
const STEP_X = BOX_W + 12;
const STEP_Y = BOX_H + 46;
const LANE_W = 26;

/**
 * Returns SVG markup for the topology, dead set and the chosen request.
 * `vertical` lays the hops out top to bottom (a phone): the picture then
 * scales to the width of its box.
 */
export function renderPicture(topo, { dead, request, issues = new Map(), assumed = new Map(), vertical = false }) {
  const maxHop = Math.max(0, ...topo.nodes.filter((n) => n.role === 'middle').map((n) => n.hop || 1));
  const colOf = (n) => (n.role === 'entry' ? 0 : n.role === 'middle' ? Math.max(1, n.hop || 1) : maxHop + 1);
  const cols = [];
  for (const n of topo.nodes) (cols[colOf(n)] ||= []).push(n);
  const dstCol = maxHop + 2;
  const rows = Math.max(1, ...cols.filter(Boolean).map((c) => c.length));
  const TOP = PAD + 40; // column titles, then a lane for direct egress above the boxes
  const LANE = vertical ? PAD + 6 : PAD + 26;
  const height = vertical ? PAD + 16 + dstCol * STEP_Y + BOX_H + PAD : rows * ROW_H + PAD + TOP;
  const width = vertical ? LANE_W + PAD * 2 + rows * STEP_X - 12 : (dstCol + 1) * COL_W - (COL_W - BOX_W) + PAD * 2;
  const pos = new Map();
  cols.forEach((col, ci) => {
    if (!col) return;
    col.forEach((n, ri) =>
      pos.set(
        n.nodeId,
        vertical
          ? { x: LANE_W + PAD + ((rows - col.length) * STEP_X) / 2 + ri * STEP_X, y: PAD + 16 + ci * STEP_Y }
          : { x: PAD + ci * COL_W, y: TOP + ((rows - col.length) * ROW_H) / 2 + ri * ROW_H + (ROW_H - BOX_H) / 2 },
      ),
    );
  });
  const dst = vertical
    ? { x: LANE_W + PAD + (rows * STEP_X - 12) / 2 - BOX_W / 2, y: PAD + 16 + dstCol * STEP_Y }
    : { x: PAD + dstCol * COL_W, y: TOP + (rows * ROW_H) / 2 - BOX_H / 2 };

  const out = [];
  out.push(
    `<svg class="pic${vertical ? ' vertical' : ''}" viewBox="0 0 ${width} ${height}" width="${vertical ? '100%' : width}" role="group" aria-label="${escapeHtml(t('pictureLabel'))}" xmlns="http://www.w3.org/2000/svg">`,
    '<defs><marker id="ah" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="context-stroke"/></marker></defs>',
  );
  // Column titles (row titles when vertical).
  const titles = [t('entry'), ...Array.from({ length: maxHop }, (_, i) => t('hop', { n: i + 1 })), t('exit'), t('destination')];
  titles.forEach((title, ci) => {
    if (vertical) out.push(`<text class="colt" x="${LANE_W + PAD}" y="${PAD + 10 + ci * STEP_Y}">${escapeHtml(title)}</text>`);
    else out.push(`<text class="colt" x="${PAD + ci * COL_W + BOX_W / 2}" y="${PAD + 4}" text-anchor="middle">${escapeHtml(title)}</text>`);
  });

  const link = (a, b, cls, bend = 0) => {
    if (vertical) {
      const x1 = a.x + BOX_W / 2 + bend;
      const y1 = a.y + BOX_H;
      const x2 = b.x + BOX_W / 2 + bend;
      const y2 = b.y;
      const my = (y1 + y2) / 2;
      return `<path class="${cls}" d="M${x1} ${y1}C${x1} ${my} ${x2} ${my} ${x2} ${y2 - 2}" marker-end="url(#ah)"/>`;
    }
    const x1 = a.x + BOX_W;
    const y1 = a.y + BOX_H / 2 + bend;
    const x2 = b.x;
    const y2 = b.y + BOX_H / 2 + bend;
    const mx = (x1 + x2) / 2;
    return `<path class="${cls}" d="M${x1} ${y1}C${mx} ${y1} ${mx} ${y2} ${x2 - 2} ${y2}" marker-end="url(#ah)"/>`;
  };
  // Where the number of an attempt sits: halfway along its link.
  const midpoint = (from, to, bend) =>
    vertical
      ? { cx: (from.x + to.x) / 2 + BOX_W / 2 + bend, cy: (from.y + BOX_H + to.y) / 2 }
      : { cx: (from.x + BOX_W + to.x) / 2, cy: (from.y + to.y) / 2 + BOX_H / 2 + bend };

  for (const e of topo.edges) {
    const a = pos.get(e.from);
    const b = pos.get(e.to);
    if (a && b) out.push(link(a, b, 'edge'));
  }
  for (const n of topo.nodes) if (n.role === 'exit' && pos.has(n.nodeId)) out.push(link(pos.get(n.nodeId), dst, 'edge egress'));

  // Nodes.
  for (const n of topo.nodes) {
    const p = pos.get(n.nodeId);
    if (!p) continue;
    const isDead = dead.has(n.nodeId);
    const guessed = assumed.get(n.nodeId) || [];
    const cls = ['pn', n.remote ? 'fed' : 'loc', isDead ? 'dead' : '', guessed.length ? 'assumed' : ''].filter(Boolean).join(' ');
    const sub = [n.protocol, n.port ? `:${n.port}` : ''].filter(Boolean).join(' ');
    const fo = n.role === 'middle' ? n.failover : null;
    const retries = fo ? t(fo.short ? 'retriesPicShort' : 'retriesPicOk', { r: fo.retries, need: fo.candidates - 1 }) : '';
    // The accessible name starts with what the box shows, then says the rest.
    const label = [
      [`${n.name} #${n.nodeId}`, sub, n.remote ? 'FED' : '', retries, guessed.length ? t('assumedTag') : ''].filter(Boolean).join(' '),
      t(n.role),
      n.remote ? t('federated') : t('local'),
      guessed.length ? t('assumedPic', { list: guessed.map((a) => lastKey(a.path)).join(', ') }) : '',
      isDead ? t('dead') : '',
      t('toggleDead'),
    ].filter(Boolean).join(' · ');
    out.push(
      `<g class="${cls}" data-node="${escapeHtml(n.nodeId)}" tabindex="0" role="button" aria-pressed="${isDead}">`,
      `<title>${escapeHtml(label)}</title>`,
      `<rect x="${p.x}" y="${p.y}" width="${BOX_W}" height="${BOX_H}" rx="8"/>`,
      `<text class="nm" x="${p.x + 10}" y="${p.y + 18}">${escapeHtml(String(n.name).slice(0, 12))} <tspan class="nid">#${escapeHtml(n.nodeId)}</tspan></text>`,
      `<text class="sub" x="${p.x + 10}" y="${p.y + 34}">${escapeHtml(sub)}</text>`,
    );
    if (n.remote) out.push(`<text class="fedtag" x="${p.x + BOX_W - 8}" y="${p.y + 34}" text-anchor="end">FED</text>`);
    if (fo) out.push(`<text class="retries${fo.short ? ' short' : ''}" x="${p.x + 10}" y="${p.y + 51}">${escapeHtml(retries)}</text>`);
    if (guessed.length) out.push(`<text class="asmtag" x="${p.x + BOX_W - 8}" y="${p.y + 51}" text-anchor="end">${escapeHtml(t('assumedTag'))}</text>`);
    const sev = issues.get(n.nodeId);
    if (sev && !isDead) {
      out.push(`<g class="issue ${sev}"><circle cx="${p.x + BOX_W - 12}" cy="${p.y + 13}" r="7"/><text x="${p.x + BOX_W - 12}" y="${p.y + 17}" text-anchor="middle">!</text></g>`);
    }
    if (isDead) {
      out.push(
        `<path class="x" d="M${p.x + BOX_W - 22} ${p.y + 6}l14 14M${p.x + BOX_W - 8} ${p.y + 6}l-14 14"/>`,
      );
    }
    out.push('</g>');
  }
  out.push(
    `<g class="pdst"><rect x="${dst.x}" y="${dst.y}" width="${BOX_W}" height="${BOX_H}" rx="24"/>`,
    `<text x="${dst.x + BOX_W / 2}" y="${dst.y + 29}" text-anchor="middle">${escapeHtml(t('destination'))}</text></g>`,
  );

  // Attempts of the chosen request, numbered in dial order.
  if (request && Array.isArray(request.attempts)) {
    const pairCount = new Map();
    request.attempts.forEach((a, i) => {
      const from = pos.get(a.fromNodeId);
      const to = a.toNodeId === null || a.toNodeId === undefined ? dst : pos.get(a.toNodeId);
      if (!from || !to) return;
      const k = `${a.fromNodeId}>${a.toNodeId}`;
      const seen = pairCount.get(k) || 0;
      pairCount.set(k, seen + 1);
      const bend = (seen % 2 ? -1 : 1) * (4 + 5 * seen);
      out.push(link(from, to, `att ${a.ok ? 'ok' : 'bad'}`, bend));
      const { cx, cy } = midpoint(from, to, bend);
      out.push(`<g class="attn ${a.ok ? 'ok' : 'bad'}"><circle cx="${cx}" cy="${cy}" r="9"/><text x="${cx}" y="${cy + 4}" text-anchor="middle">${i + 1}</text></g>`);
    });
    const egressFrom = request.direct ? directNode(request) : request.ok ? request.exitNodeId : null;
    if (egressFrom !== null && egressFrom !== undefined && pos.has(egressFrom)) {
      const from = pos.get(egressFrom);
      const far = vertical ? dst.y - from.y > STEP_Y : dst.x - from.x > COL_W;
      if (request.direct && far) {
        // Direct egress bypasses the hops in between: drawn around them, in a lane of its own.
        let d;
        let label;
        if (vertical) {
          const y1 = from.y + BOX_H / 2;
          const y2 = dst.y + BOX_H / 2;
          d = `M${from.x} ${y1}L${LANE + 8} ${y1}Q${LANE} ${y1} ${LANE} ${y1 + 8}L${LANE} ${y2 - 8}Q${LANE} ${y2} ${LANE + 8} ${y2}L${dst.x - 2} ${y2}`;
          label = { x: LANE + 4, y: y2 - 6, anchor: 'start' };
        } else {
          const x1 = from.x + BOX_W;
          const y1 = from.y + BOX_H / 2;
          const y2 = dst.y + BOX_H / 2;
          d = `M${x1} ${y1}C${x1 + 30} ${y1} ${x1 + 8} ${LANE} ${x1 + 40} ${LANE}L${dst.x - 40} ${LANE}C${dst.x - 8} ${LANE} ${dst.x - 30} ${y2} ${dst.x - 2} ${y2}`;
          label = { x: (x1 + dst.x) / 2, y: LANE - 6, anchor: 'middle' };
        }
        out.push(`<path class="att direct" d="${d}" marker-end="url(#ah)"/>`);
        out.push(`<text class="risk" x="${label.x}" y="${label.y}" text-anchor="${label.anchor}">${escapeHtml(t('directRiskPic'))}</text>`);
      } else {
        out.push(link(from, dst, `att ${request.direct ? 'direct' : 'ok'}`));
      }
      if (request.direct) {
        // The node that dials the destination itself: its address is where the traffic leaves from.
        out.push(`<g class="riskmark"><rect x="${from.x - 3}" y="${from.y - 3}" width="${BOX_W + 6}" height="${BOX_H + 6}" rx="10"/></g>`);
      }
    }
  }
  out.push('</svg>');
  return out.join('');
}

function lastKey(ptr) {
  return String(ptr).slice(String(ptr).lastIndexOf('/') + 1);
}

/** The node that dialed the destination itself in a direct-egress request. */
export function directNode(req) {
  for (const k of ['directFromNodeId', 'directNodeId', 'egressNodeId']) if (req[k] !== undefined && req[k] !== null) return req[k];
  const okAttempts = (req.attempts || []).filter((a) => a.ok && a.toNodeId !== null && a.toNodeId !== undefined);
  if (okAttempts.length) return okAttempts[okAttempts.length - 1].toNodeId;
  const first = (req.attempts || [])[0];
  return first ? first.fromNodeId : null;
}
