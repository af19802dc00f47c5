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

// Text is never scaled: boxes are sized to their text (measured with the
// page's font) and the picture scrolls sideways in its region when too wide.
const PAD = 14;
const PADX = 10; // text inset in a box
const LINE = 17; // baseline to baseline inside a box
const SLOT = 18; // the issue badge / dead cross at a box's top right
const MIN_W = 84;
const GAP_X = 44; // between columns: room for the arrow and an attempt's number
const GAP_Y = 18; // between boxes of one column
const LANE_W = 26; // phone: the direct-egress lane on the left
const V_GAP = 24; // phone: link space between rows (attempt numbers sit here)
const V_TITLE = 20; // phone: a row's title band, above its boxes
const V_SEP = 10; // phone: between boxes of one row

let measureCtx = null;
let measureFont = null;
const widths = new Map();
/** Width in px of `s` at `px`/`weight` in the page's font (an estimate outside a browser). */
export function textWidth(s, px, weight = 400, spacing = 0) {
  const key = `${px}/${weight}/${spacing}/${s}`;
  if (widths.has(key)) return widths.get(key);
  let w;
  if (typeof document !== 'undefined') {
    measureCtx ||= document.createElement('canvas').getContext('2d');
    measureFont ||= getComputedStyle(document.body).fontFamily;
    measureCtx.font = `${weight} ${px}px ${measureFont}`;
    w = measureCtx.measureText(s).width;
  } else w = [...s].reduce((n, c) => n + (c.charCodeAt(0) > 0x2e80 ? 1 : 0.62) * px, 0);
  w = Math.ceil(w + spacing * px * [...s].length) + 2; // +2: rounding and antialiasing
  widths.set(key, w);
  return w;
}

const titleWidth = (s) => textWidth(String(s).toUpperCase(), 11, 400, 0.04);
const shortName = (s) => (String(s).length > 18 ? `${String(s).slice(0, 17)}…` : String(s));

/** What a node's box says, line by line: each line a main text and an optional tag at its right. */
function boxLines(n, { assumed, t: tr }) {
  const sub = [n.protocol, n.port ? `:${n.port}` : ''].filter(Boolean).join(' ');
  const fo = n.role === 'middle' ? n.failover : null;
  const retries = fo ? tr(fo.short ? 'retriesPicShort' : 'retriesPicOk', { r: fo.retries, need: fo.candidates - 1 }) : '';
  const lines = [{ cls: 'nm', text: shortName(n.name), id: `#${n.nodeId}`, w: textWidth(`${shortName(n.name)} #${n.nodeId}`, 13, 600) + SLOT }];
  lines.push({ cls: 'sub', text: sub, w: textWidth(sub, 11), tag: n.remote ? { cls: 'fedtag', text: 'FED', w: textWidth('FED', 11, 700) } : null });
  const asm = assumed.length ? { cls: 'asmtag', text: tr('assumedTag'), w: textWidth(tr('assumedTag'), 11, 700) } : null;
  if (fo) lines.push({ cls: `retries${fo.short ? ' short' : ''}`, text: retries, w: textWidth(retries, 11, 700), tag: asm });
  else if (asm) lines.push({ cls: 'asmtag', text: asm.text, w: asm.w });
  return { lines, sub, retries, fo };
}

const lineWidth = (l) => l.w + (l.tag ? 10 + l.tag.w : 0);
const boxHeight = (nLines) => 19 + LINE * (nLines - 1) + 9;

/** The destination column: the forward's targets when the replay enters at a forward, else one destination. */
function endBoxes(targets, tr) {
  if (!targets || !targets.length) return [{ key: null, text: tr('destination'), w: Math.max(MIN_W, textWidth(tr('destination'), 12) + 2 * PADX) }];
  return targets.map((g) => ({ key: g.addr, text: g.addr, dead: g.dead, w: textWidth(g.addr, 12) + 2 * PADX + (g.dead ? SLOT : 0) }));
}

/** Positions of every box: `{pos: nodeId -> {x, y, w}, ends: [{x, y, w, ...}], width, height, ...}`. */
function layout(topo, opts) {
  const maxHop = Math.max(0, ...topo.nodes.filter((n) => n.role === 'middle').map((n) => n.hop || 1));
  const colOf = (n) => (n.role === 'entry' ? 0 : n.role === 'middle' ? Math.max(1, n.hop || 1) : maxHop + 1);
  const cols = Array.from({ length: maxHop + 2 }, () => []);
  const boxes = new Map();
  for (const n of topo.nodes) {
    const b = boxLines(n, { assumed: opts.assumed.get(n.nodeId) || [], t });
    boxes.set(n.nodeId, b);
    cols[colOf(n)].push({ id: n.nodeId, w: Math.max(MIN_W, Math.ceil(Math.max(...b.lines.map(lineWidth))) + 2 * PADX) });
  }
  const ends = endBoxes(opts.targets, t);
  cols.push(ends.map((e) => ({ id: null, end: e, w: e.w })));
  const titles = [t('entry'), ...Array.from({ length: maxHop }, (_, i) => t('hop', { n: i + 1 })), t('exit'), opts.targets && opts.targets.length ? t('targetsCol') : t('destination')];
  const h = boxHeight(Math.max(2, ...[...boxes.values()].map((b) => b.lines.length)));
  const L = opts.vertical ? layoutDown(cols, titles, h, opts.fit) : layoutAcross(cols, titles, h);
  return { ...L, boxes, titles, h };
}

/** Hops as columns, left to right; titles, then the direct-egress band, above the boxes. */
function layoutAcross(cols, titles, h) {
  const top = PAD + 48;
  const rows = Math.max(1, ...cols.map((c) => c.length));
  const pos = new Map();
  const ends = [];
  const colX = [];
  let x = PAD;
  cols.forEach((col, ci) => {
    const cw = Math.max(MIN_W, titleWidth(titles[ci]), ...col.map((b) => b.w));
    colX.push({ x, w: cw });
    col.forEach((b, ri) => {
      const p = { x: x + (cw - b.w) / 2, y: top + ((rows - col.length) * (h + GAP_Y)) / 2 + ri * (h + GAP_Y), w: b.w };
      if (b.end) ends.push({ ...b.end, ...p });
      else pos.set(b.id, p);
    });
    x += cw + GAP_X;
  });
  return { pos, ends, colX, width: x - GAP_X + PAD, height: top + rows * (h + GAP_Y) - GAP_Y + PAD, lane: PAD + 38 };
}

/** Boxes of one row split into lines no wider than `avail` (at least one box a line). */
function wrapRow(col, avail) {
  const lines = [[]];
  let w = 0;
  for (const b of col) {
    const line = lines[lines.length - 1];
    if (line.length && w + V_SEP + b.w > avail) {
      lines.push([b]);
      w = b.w;
    } else {
      line.push(b);
      w += (line.length > 1 ? V_SEP : 0) + b.w;
    }
  }
  return lines;
}

/**
 * A phone: hops as rows, top to bottom, the boxes of a hop side by side
 * (wrapped onto more lines when wider than `fit`); a lane on the left for direct egress.
 */
function layoutDown(cols, titles, h, fit) {
  const rowW = (col) => col.reduce((s, b) => s + b.w, 0) + V_SEP * Math.max(0, col.length - 1);
  const lines = cols.map((col) => wrapRow(col, fit ? fit - LANE_W - 2 * PAD : Infinity));
  // Wide enough for the direct-egress label under the last row.
  const inner = Math.max(...lines.flat().map(rowW), ...titles.map(titleWidth), textWidth(t('directRiskPic'), 11, 700) - LANE_W);
  const pos = new Map();
  const ends = [];
  const rowY = [];
  let y = PAD;
  lines.forEach((row) => {
    rowY.push(y);
    y += V_TITLE;
    for (const line of row) {
      let x = LANE_W + PAD + (inner - rowW(line)) / 2;
      for (const b of line) {
        const p = { x, y, w: b.w };
        if (b.end) ends.push({ ...b.end, ...p });
        else pos.set(b.id, p);
        x += b.w + V_SEP;
      }
      y += h + V_GAP;
    }
  });
  // Below the last row: a band for the direct-egress label, so it never covers the destination.
  return { pos, ends, rowY, width: LANE_W + PAD + inner + PAD, height: y - V_GAP + 26 + PAD, lane: PAD + 6 };
}

/** A curve from box a to box b (arrow at b); `bend` offsets repeated dials of one pair. */
function linkPath(a, b, h, vertical, cls, bend = 0) {
  if (vertical) {
    const x1 = a.x + a.w / 2 + bend;
    const x2 = b.x + b.w / 2 + bend;
    const y1 = a.y + h;
    const my = (y1 + b.y) / 2;
    return `<path class="${cls}" d="M${x1} ${y1}C${x1} ${my} ${x2} ${my} ${x2} ${b.y - 2}" marker-end="url(#ah)"/>`;
  }
  const x1 = a.x + a.w;
  const y1 = a.y + h / 2 + bend;
  const y2 = b.y + h / 2 + bend;
  const mx = (x1 + b.x) / 2;
  return `<path class="${cls}" d="M${x1} ${y1}C${mx} ${y1} ${mx} ${y2} ${b.x - 2} ${y2}" marker-end="url(#ah)"/>`;
}

/** Where an attempt's number sits: in the gap just past the box it leaves, so it never lands on a box further on. */
function numberAt(a, b, h, vertical, bend) {
  if (vertical) return { cx: (a.x + a.w / 2 + b.x + b.w / 2) / 2 + bend, cy: a.y + h + 12 };
  const adjacent = b.x - (a.x + a.w) < GAP_X + MIN_W;
  return { cx: a.x + a.w + GAP_X / 2, cy: adjacent ? (a.y + b.y) / 2 + h / 2 + bend : a.y + h / 2 + bend };
}

/**
 * Returns SVG markup for the topology, dead set and the chosen request.
 * `vertical` lays the hops out top to bottom (a phone), wrapping a hop's
 * boxes to `fit` px; `targets` (a forward's, `[{addr, dead}]`) replace the
 * destination beyond the exits.
 */
export function renderPicture(topo, { dead, request, issues = new Map(), assumed = new Map(), vertical = false, targets = null, fit = 0 }) {
  const L = layout(topo, { assumed, vertical, targets, fit });
  const out = [
    `<svg class="pic${vertical ? ' vertical' : ''}" viewBox="0 0 ${L.width} ${L.height}" width="${L.width}" height="${L.height}" role="group" aria-label="${escapeHtml(t('pictureLabel'))}" xmlns="http://www.w3.org/2000/svg">`,
    '<defs><marker id="ah" viewBox="0 0 10 10" refX="9" refY="5" markerUnits="userSpaceOnUse" markerWidth="10" markerHeight="10" orient="auto-start-reverse"><path d="M0 0L10 5L0 10z" fill="context-stroke"/></marker></defs>',
  ];
  const link = (a, b, cls, bend) => linkPath(a, b, L.h, vertical, cls, bend);
  for (const e of topo.edges) if (L.pos.has(e.from) && L.pos.has(e.to)) out.push(link(L.pos.get(e.from), L.pos.get(e.to), 'edge'));
  for (const n of topo.nodes) if (n.role === 'exit' && L.pos.has(n.nodeId)) for (const end of L.ends) out.push(link(L.pos.get(n.nodeId), end, 'edge egress'));
  for (const n of topo.nodes) if (L.pos.has(n.nodeId)) out.push(nodeBox(n, L.pos.get(n.nodeId), L, { dead, issues, assumed }));
  for (const end of L.ends) out.push(endBox(end, L.h, !!(targets && targets.length)));
  // Titles after the links, with a halo (style.css), so a link passing under one leaves it readable.
  L.titles.forEach((title, ci) => {
    if (vertical) out.push(`<text class="colt" x="${LANE_W + PAD}" y="${L.rowY[ci] + 13}">${escapeHtml(title)}</text>`);
    else out.push(`<text class="colt" x="${L.colX[ci].x + L.colX[ci].w / 2}" y="${PAD + 11}" text-anchor="middle">${escapeHtml(title)}</text>`);
  });
  if (request && Array.isArray(request.attempts)) out.push(...requestMarks(request, L, vertical, link));
  out.push('</svg>');
  return out.join('');
}

function nodeBox(n, p, L, { dead, issues, assumed }) {
  const isDead = dead.has(n.nodeId);
  const guessed = assumed.get(n.nodeId) || [];
  const { lines, sub, retries } = L.boxes.get(n.nodeId);
  const cls = ['pn', n.remote ? 'fed' : 'loc', isDead ? 'dead' : '', guessed.length ? 'assumed' : ''].filter(Boolean).join(' ');
  // The accessible name starts with what the box shows, then says the rest.
  const label = [
    [`${n.name} #${n.nodeId}`, sub, n.remote ? 'FED' : '', retries, guessed.length ? t('assumedTag') : ''].filter(Boolean).join(' '),
    t(n.role),
    n.remote ? t('federated') : t('local'),
    guessed.length ? t('assumedPic', { list: guessed.map((a) => lastKey(a.path)).join(', ') }) : '',
    isDead ? t('dead') : '',
    t('toggleDead'),
  ].filter(Boolean).join(' · ');
  const out = [
    `<g class="${cls}" data-node="${escapeHtml(n.nodeId)}" tabindex="0" role="button" aria-pressed="${isDead}">`,
    `<title>${escapeHtml(label)}</title>`,
    `<rect x="${p.x}" y="${p.y}" width="${p.w}" height="${L.h}" rx="8"/>`,
  ];
  lines.forEach((l, i) => {
    const y = p.y + 19 + i * LINE;
    const body = l.id ? `${escapeHtml(l.text)} <tspan class="nid">${escapeHtml(l.id)}</tspan>` : escapeHtml(l.text);
    if (l.text) out.push(`<text class="${l.cls}" x="${p.x + PADX}" y="${y}">${body}</text>`);
    if (l.tag) out.push(`<text class="${l.tag.cls}" x="${p.x + p.w - PADX}" y="${y}" text-anchor="end">${escapeHtml(l.tag.text)}</text>`);
  });
  const sev = issues.get(n.nodeId);
  const cx = p.x + p.w - PADX - 5;
  if (sev && !isDead) out.push(`<g class="issue ${sev}"><circle cx="${cx}" cy="${p.y + 14}" r="7"/><text x="${cx}" y="${p.y + 18}" text-anchor="middle">!</text></g>`);
  if (isDead) out.push(`<path class="x" d="M${cx - 6} ${p.y + 8}l12 12M${cx + 6} ${p.y + 8}l-12 12"/>`);
  out.push('</g>');
  return out.join('');
}

function endBox(e, h, isTarget) {
  const cls = `pdst${isTarget ? ' ptgt' : ''}${e.dead ? ' dead' : ''}`;
  const cross = e.dead ? `<path class="x" d="M${e.x + e.w - PADX - 11} ${e.y + 8}l12 12M${e.x + e.w - PADX + 1} ${e.y + 8}l-12 12"/>` : '';
  const label = isTarget ? ` data-addr="${escapeHtml(e.key)}"` : '';
  return `<g class="${cls}"${label}><rect x="${e.x}" y="${e.y}" width="${e.w}" height="${h}" rx="${Math.min(24, h / 2)}"/>` +
    `<text x="${e.x + (e.w - (e.dead ? SLOT : 0)) / 2}" y="${e.y + h / 2 + 4}" text-anchor="middle">${escapeHtml(e.text)}</text>${cross}</g>`;
}

/** The end box an attempt or egress reaches: the target it dialed (by address), the carrier, else the first. */
function endFor(L, request, addr) {
  return L.ends.find((e) => e.key !== null && e.key === addr) || L.ends.find((e) => e.key !== null && e.key === request.target) || L.ends[0];
}

/** Attempts of the chosen request, numbered in dial order, and its egress (a risk when direct). */
function requestMarks(request, L, vertical, link) {
  const out = [];
  const pairCount = new Map();
  request.attempts.forEach((a, i) => {
    const from = L.pos.get(a.fromNodeId);
    const to = a.toNodeId === null || a.toNodeId === undefined ? endFor(L, request, a.addr) : L.pos.get(a.toNodeId);
    if (!from || !to) return;
    const k = `${a.fromNodeId}>${a.toNodeId}>${a.addr}`;
    const seen = pairCount.get(k) || 0;
    pairCount.set(k, seen + 1);
    const bend = (seen % 2 ? -1 : 1) * (4 + 5 * seen);
    out.push(link(from, to, `att ${a.ok ? 'ok' : 'bad'}`, bend));
    const { cx, cy } = numberAt(from, to, L.h, vertical, seen ? bend * 2 : 0);
    out.push(`<g class="attn ${a.ok ? 'ok' : 'bad'}"><circle cx="${cx}" cy="${cy}" r="9"/><text x="${cx}" y="${cy + 4}" text-anchor="middle">${i + 1}</text></g>`);
  });
  const egressFrom = request.direct ? directNode(request) : request.ok ? request.exitNodeId : null;
  if (egressFrom === null || egressFrom === undefined || !L.pos.has(egressFrom)) return out;
  const from = L.pos.get(egressFrom);
  const dst = endFor(L, request, request.target);
  const far = vertical ? dst.y - from.y > L.h + V_TITLE + V_GAP : dst.x - (from.x + from.w) > GAP_X + 1;
  if (request.direct && far) out.push(...directLane(from, dst, L, vertical));
  else if (!request.attempts.some((a) => (a.toNodeId === null || a.toNodeId === undefined) && a.fromNodeId === egressFrom)) out.push(link(from, dst, `att ${request.direct ? 'direct' : 'ok'}`));
  // The node that dials the destination itself: its address is where the traffic leaves from.
  if (request.direct) out.push(`<g class="riskmark"><rect x="${from.x - 3}" y="${from.y - 3}" width="${from.w + 6}" height="${L.h + 6}" rx="10"/></g>`);
  return out;
}

/** Direct egress bypasses the hops in between: drawn around them in a lane of its own, labelled in a band nothing else uses. */
function directLane(from, dst, L, vertical) {
  const lane = L.lane;
  const text = t('directRiskPic');
  const lw = textWidth(text, 11, 700);
  let d;
  let at;
  if (vertical) {
    const y1 = from.y + L.h / 2;
    const y2 = dst.y + L.h / 2;
    d = `M${from.x} ${y1}L${lane + 8} ${y1}Q${lane} ${y1} ${lane} ${y1 + 8}L${lane} ${y2 - 8}Q${lane} ${y2} ${lane + 8} ${y2}L${dst.x - 2} ${y2}`;
    at = { x: PAD, y: dst.y + L.h + 18 };
  } else {
    const x1 = from.x + from.w;
    const y1 = from.y + L.h / 2;
    const y2 = dst.y + L.h / 2;
    d = `M${x1} ${y1}C${x1 + 30} ${y1} ${x1 + 8} ${lane} ${x1 + 40} ${lane}L${dst.x - 40} ${lane}C${dst.x - 8} ${lane} ${dst.x - 30} ${y2} ${dst.x - 2} ${y2}`;
    at = { x: Math.max(PAD, Math.min((x1 + dst.x) / 2 - lw / 2, L.width - PAD - lw)), y: PAD + 30 };
  }
  return [`<path class="att direct" d="${d}" marker-end="url(#ah)"/>`, `<text class="risk" x="${at.x}" y="${at.y}">${escapeHtml(text)}</text>`];
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
