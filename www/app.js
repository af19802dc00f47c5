// The preview panel: edit a tunnel input (or a plan), see what every node
// receives, the findings, the local twin of each federated hop, and a failover
// replay on a picture of the tunnel. Everything runs in the wasm web build;
// the page makes no request other than its own files and pkg/web.

import * as hp from '../pkg/web/hop_policy.js';
import { t, setLang, getLang } from './i18n.js';
import { escapeHtml, renderJsonLines, alignedDiff, foldRuns, setPointer, getPointer, locatePointer, parsePointer } from './jsonview.js';
import { readDocument, isPlan } from './panel-import.js';
import { topology, renderPicture, directNode, commandGroups } from './picture.js';
import { forwardsOnNode, forwardsMarkup, forwardServices, replayableForwards, forwardControls, forwardWhy } from './forwards.js';
import { buildTwins } from './twin.js';
import { isBackup, auditPanel, renderFleet, worstFirst } from './fleet.js';
import { verdictOf, verdictMarkup, fixSide, firstClause, KNOWN_RISKS, mitigationOf } from './verdict.js';

const $ = (id) => document.getElementById(id);

// The web build's API (wasm-bindgen --target web). Imported as a namespace so
// a build that lacks one export still loads; see checkTunnel below.
const init = hp.default;
const { checkDocument, planTunnel, simulate } = hp;
const version = () => (typeof hp.version === 'function' ? hp.version() : '?');

/** The request path chosen in the page (`undefined`: as the input says). */
function planOptions() {
  const m = $('reqmode') ? $('reqmode').value : 'auto';
  return m === 'auto' ? undefined : { mode: m };
}

/** `checkTunnel(input, options)` -> {plan, findings}; composed from planTunnel + checkDocument when absent. */
function checkTunnel(input) {
  if (typeof hp.checkTunnel === 'function') return hp.checkTunnel(input, planOptions());
  const plan = planTunnel(input, planOptions());
  return { plan, findings: plan.error ? [] : checkDocument(plan).findings };
}

const state = {
  mode: 'input', // 'input' | 'plan'
  inputText: '',
  planText: '',
  input: null, // last readable tunnel input
  plan: null, // the plan currently shown and checked
  findings: [],
  twins: new Map(), // nodeId -> {commands} | {error}
  planFromInput: false, // the Plan tab holds a plan made from the input (so its twins apply)
  topo: null,
  dead: new Set(),
  trace: null,
  simError: null,
  selectedReq: 0,
  banner: null, // {kind, key, vars}
  note: null,
  focusPtr: null,
  timing: null,
  fleet: null, // {rows, source, selected, filter}: the whole-panel view
  origin: null, // {name, id, input, assumed}: the panel row the editor's tunnel was opened from
  hiddenSev: new Set(), // severities filtered out of the findings list
  findingNode: '', // node the findings list is filtered to ('' = all)
  openGroups: new Set(), // codes of the finding groups shown expanded
  edited: false, // the editor holds changes the operator made since the last load
  planEdited: false, // the Plan tab holds edits (typed or a fix) that re-planning from the input would replace
  example: null, // the example loaded last (the select goes back to it when a switch is cancelled)
  pendingFixes: [], // fixes previewed in the plan that a panel still has to make: {code, nodeId, path, value, side, what}
  lastTopo: null, // the picture of the last plan that was not rejected (shown dimmed after a rejection)
  rejectPtr: null, // where the server's check looked, when it rejects the plan
  forwardId: null, // the forward requests enter at (null: the simulator's default, the first one)
  deadTargets: new Set(), // that forward's targets marked dead (addresses as its forwarder lists them)
  simWidth: 0, // the width of the picture and replay together (a wide tunnel puts the replay under the picture)
  picWidth: 0, // the picture region's width (a ResizeObserver keeps it): a phone's picture wraps to it
  openFolds: new Set(), // folds of unchanged twin-diff rows the operator expanded: "<node>/<command>:<row>"
};

// Exposed for the e2e test and for anyone poking at the page from devtools.
window.hopPreview = {
  state,
  timings: [],
  ready: false,
  // For tests: rebuild the node cards from scratch (no patching) and return the markup.
  rebuildNodes() {
    $('nodes').replaceChildren();
    renderNodes();
    return $('nodes').innerHTML;
  },
};

const now = () => performance.now();
// On a phone the picture is laid out top to bottom to fit the width.
const phone = window.matchMedia('(max-width: 600px)');

// Sets innerHTML only when the markup changed, so an edit that changes nothing
// in a section costs no DOM work there.
const shownHtml = new WeakMap();
// Focus stays on the control that was used: when a section that holds the
// focused control is re-rendered, the control with the same key gets it back.
const FOCUS_KEYS = ['data-node', 'data-req', 'data-sev', 'data-go', 'data-fix', 'data-copy', 'data-fstatus', 'data-frule', 'data-open', 'data-fold', 'data-target', 'id'];
function setHtml(el, html) {
  if (shownHtml.get(el) === html) return;
  const active = document.activeElement;
  let key = null;
  if (active && active !== el && el.contains(active)) {
    const attr = FOCUS_KEYS.find((a) => active.hasAttribute(a));
    if (attr) key = [attr, active.getAttribute(attr)];
  }
  el.innerHTML = html;
  shownHtml.set(el, html);
  if (key) {
    const again = el.querySelector(`[${key[0]}="${CSS.escape(key[1])}"]`);
    if (again) again.focus({ preventScroll: true });
  }
}

function apiMessage(e) {
  if (e && typeof e === 'object' && 'code' in e) return t('apiError', { code: e.code, msg: e.message });
  return String(e && e.message ? e.message : e);
}

// ---------------------------------------------------------------- update

function runSimulation() {
  state.trace = null;
  state.simError = null;
  if (!state.plan || state.plan.error) return;
  const requests = Math.min(50, Math.max(1, Number($('requests').value) || 3));
  const gapMs = Math.max(0, Number($('gap').value) || 0);
  const scenario = { dead: [...state.dead], requests, startMs: 0, gapMs, seed: 1, deadTargets: [...state.deadTargets] };
  if (state.forwardId !== null) scenario.forward = state.forwardId;
  try {
    state.trace = simulate(state.plan, scenario);
  } catch (e) {
    state.simError = apiMessage(e);
    // An edit may drop the forward chosen: enter at the default one instead.
    if (state.forwardId !== null) {
      state.forwardId = null;
      state.deadTargets.clear();
      runSimulation();
      return;
    }
  }
  const reqs = state.trace && Array.isArray(state.trace.requests) ? state.trace.requests : [];
  if (state.selectedReq >= reqs.length) state.selectedReq = 0;
}

/** Re-reads the editor, plans, checks, simulates and renders; measures it all. */
function update({ keepBanner = false } = {}) {
  const t0 = now();
  if (!keepBanner) state.banner = null;
  state.note = null;
  let tPlan = t0;
  let tTwin = t0;
  const text = $('doc').value;
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // What is shown below is from the last input that read: say so.
    state.banner = { kind: 'error', key: 'jsonError', vars: { msg: e.message } };
    setStale(true);
    renderBanner();
    return;
  }
  setStale(false);
  if (state.mode === 'input') {
    state.inputText = text;
    const read = readDocument(value);
    if (read.kind === 'plan') {
      // A plan pasted into the input tab: open it where plans are edited.
      state.planText = JSON.stringify(read.plan, null, 2);
      state.planFromInput = false;
      setMode('plan', { silent: true });
      state.banner = { kind: 'info', key: 'looksLikePlan' };
      update({ keepBanner: true });
      return;
    }
    if (read.kind === 'partial') {
      state.banner = { kind: 'info', key: read.missing === 'tunnel' ? 'partialNodes' : 'partialTunnel', vars: read.found };
      setStale(true);
      renderBanner();
      return;
    }
    if (read.note) state.note = t('readAsExport', { what: read.note });
    const notes = [];
    try {
      const res = checkTunnel(read.input);
      state.plan = res.plan;
      state.findings = Array.isArray(res.findings) ? res.findings : [];
      if (read.kind === 'input') state.input = read.input;
    } catch (e) {
      state.banner = { kind: 'error', text: apiMessage(e) };
      state.plan = null;
      state.findings = [];
    }
    tPlan = now();
    state.twins = new Map();
    if (state.plan && !state.plan.error && state.input && read.kind === 'input') {
      state.twins = buildTwins(planTunnel, state.input, state.plan, { options: { mode: state.plan.mode } });
    }
    tTwin = now();
    if (state.plan && !state.plan.error) {
      state.planText = JSON.stringify(state.plan, null, 2);
      state.planFromInput = true;
      if (state.plan.mode && state.plan.mode !== 'create') notes.push(t('planMode', { mode: t(`mode${state.plan.mode[0].toUpperCase()}${state.plan.mode.slice(1)}`) }));
      const assumed = Array.isArray(state.plan.assumed) ? state.plan.assumed : [];
      if (assumed.length) notes.push(t('assumedNote', { list: assumed.map((a) => `${a.path} = ${JSON.stringify(a.value)}`).join(', ') }));
    }
    if (notes.length) state.note = [state.note, ...notes].filter(Boolean).join(' ');
  } else {
    state.planText = text;
    state.plan = value;
    try {
      const report = checkDocument(value);
      state.findings = Array.isArray(report.findings) ? report.findings : [];
    } catch (e) {
      state.banner = { kind: 'error', text: apiMessage(e) };
      state.findings = [];
    }
    tPlan = now();
    // Twins come from the input the plan was made from; a plan pasted or
    // loaded on its own has none.
    if (!state.planFromInput) state.twins = new Map();
    tTwin = tPlan;
  }
  // One place for a rejection: the verdict, pointing where the server's check looked.
  state.rejectPtr = state.plan && state.plan.error ? rejectionPointer(state.plan.error, value) : null;
  state.topo = state.plan && !state.plan.error ? topology(state.plan) : null;
  if (state.topo) state.lastTopo = state.topo;
  state.pendingFixes = state.pendingFixes.filter(stillPending);
  runSimulation();
  const tSim = now();
  renderAll();
  const tEnd = now();
  state.timing = { total: tEnd - t0, plan: tPlan - t0, twins: tTwin - tPlan, sim: tSim - tTwin, render: tEnd - tSim };
  window.hopPreview.timings.push({ mode: state.mode, ...state.timing });
  renderTiming();
}

/** Re-simulates after a change of dead nodes or scenario, and re-renders. */
function replay() {
  const t0 = now();
  runSimulation();
  const tSim = now();
  renderPicture_();
  renderReplay();
  const tEnd = now();
  state.timing = { total: tEnd - t0, plan: 0, twins: 0, sim: tSim - t0, render: tEnd - tSim };
  window.hopPreview.timings.push({ mode: 'replay', ...state.timing });
  renderTiming();
}

// ---------------------------------------------------------------- render

function renderAll() {
  renderVerdict();
  renderEditorMark();
  renderBanner();
  renderPicture_();
  renderReplay();
  renderFindings();
  renderNodes();
  if (state.focusPtr) highlightPointer(state.focusPtr, { scroll: false });
}

function renderTiming() {
  const tm = state.timing;
  if (!tm) return;
  const f = (x) => x.toFixed(2);
  $('timing').textContent =
    `${t('update')} ${f(tm.total)} ms · ${t('planCheck')} ${f(tm.plan)} · ${t('twins')} ${f(tm.twins)} · ${t('sim')} ${f(tm.sim)} · ${t('render')} ${f(tm.render)}` +
    (window.hopPreview.timings.length === 1 ? ` (${t('coldStart')})` : '');
  $('timing').dataset.total = tm.total.toFixed(3);
}

/** Marks the output as not matching the editor (the editor does not read, or reads as half an export). */
function setStale(on) {
  state.stale = on;
  const out = document.querySelector('main .out');
  out.classList.toggle('stale', on);
  $('stale').hidden = !on;
  renderVerdict();
}

const listedFinding = (f) => shownInList(f);
const rejected = () => !!(state.plan && state.plan.error);

/** A previewed fix is pending while the plan shown still carries it (re-planning from the input drops it). */
function stillPending(p) {
  return state.mode === 'plan' && !!state.plan && JSON.stringify(getPointer(state.plan, p.path)) === JSON.stringify(p.value);
}

/** The server's message for a rejection, with its English text in English. */
function rejectionMessage(e) {
  if (typeof e === 'string') return e;
  return getLang() === 'en' && e.messageEn ? `${e.message} (${e.messageEn})` : e.message;
}

function renderVerdict() {
  const v = verdictOf({ plan: state.plan, findings: state.findings, stale: state.stale, listed: listedFinding, pending: state.pendingFixes });
  const el = $('verdict');
  el.className = `verdict ${v.kind}`;
  el.dataset.kind = v.kind;
  const subject = state.origin ? `${state.origin.name} (#${state.origin.id})` : null;
  setHtml(el, verdictMarkup(v, { t, lang: getLang(), nodeLabel, nodeName, rejectionMessage, ptr: state.rejectPtr, subject }));
}

/** Marks the field the server's check looked at, under the editor's hint. */
function renderEditorMark() {
  const el = $('ed-mark');
  const ptr = state.plan && state.plan.error ? state.rejectPtr || '' : null;
  const ta = $('doc');
  if (ptr === null) {
    el.hidden = true;
    ta.removeAttribute('aria-invalid');
    return;
  }
  const at = ptr ? locatePointer(ta.value, ptr) : null;
  const line = at ? ta.value.slice(0, at.start).split('\n').length : null;
  el.textContent = ptr ? t(line ? 'serverChecked' : 'serverCheckedNoLine', { ptr, line }) : rejectionMessage(state.plan.error);
  el.hidden = false;
  ta.setAttribute('aria-invalid', 'true');
}

/**
 * Where in the input the server's check looked: the error's own path, else the
 * part of the tunnel its code is about; null when the document has no such place.
 */
function rejectionPointer(e, doc) {
  if (!e || typeof e !== 'object') return null;
  const byCode = { DUPLICATE_NODE: '/tunnel', NODE_NOT_FOUND: '/tunnel', NO_ENTRIES: '/tunnel/inNodeId', NO_EXITS: '/tunnel/outNodeId' };
  const ptr = typeof e.path === 'string' && e.path.startsWith('/') ? e.path : byCode[e.code];
  if (!ptr) return null;
  // Point at the deepest part of it the document has.
  let p = ptr;
  while (p && getPointer(doc, p) === undefined) p = p.slice(0, p.lastIndexOf('/'));
  return p || null;
}

function bannerText(b) {
  return b.text || t(b.key, b.vars);
}

function renderBanner() {
  const el = $('banner');
  const b = state.banner;
  const parts = [];
  if (b) parts.push(`<span class="${b.kind}">${escapeHtml(bannerText(b))}</span>`);
  if (state.note) parts.push(`<span class="info">${escapeHtml(state.note)}</span>`);
  el.innerHTML = parts.join(' ');
  el.hidden = parts.length === 0;
  el.className = `banner ${b ? b.kind : 'info'}`;
}

/** A node's name alone (its id when the plan has no name for it). */
function nodeName(id) {
  const n = state.topo && state.topo.byId.get(id);
  return n && n.name ? String(n.name) : `#${id}`;
}

function nodeLabel(id) {
  const n = state.topo && state.topo.byId.get(id);
  return n ? t('nodeOf', { name: n.name, id }) : `#${id}`;
}

/** The plan's `assumed` values (what the preview had to guess, e.g. without a federation map), by node. */
function assumedByNode() {
  const by = new Map();
  for (const a of state.plan && Array.isArray(state.plan.assumed) ? state.plan.assumed : []) {
    if (!a || typeof a !== 'object') continue;
    if (!by.has(a.nodeId)) by.set(a.nodeId, []);
    by.get(a.nodeId).push(a);
  }
  return by;
}

function renderPicture_() {
  const el = $('picture');
  if (!state.topo) {
    // After a rejection the last good picture stays, dimmed and inert, so the tunnel is still in view.
    const last = rejected() && state.lastTopo;
    setHtml(el, last ? `<p class="dimnote">${escapeHtml(t('lastGoodPicture'))}</p><div class="dimmed" inert>${renderPicture(last, { dead: new Set(), vertical: phone.matches, fit: state.picWidth })}</div>` : '');
    return;
  }
  const reqs = state.trace && Array.isArray(state.trace.requests) ? state.trace.requests : [];
  // The worst finding of each node is marked on its box.
  const issues = new Map();
  const rank = { error: 0, warning: 1, info: 2 };
  for (const f of state.findings) {
    if (f.nodeId === undefined || f.nodeId === null || !(f.severity in rank)) continue;
    const had = issues.get(f.nodeId);
    if (!had || rank[f.severity] < rank[had]) issues.set(f.nodeId, f.severity);
  }
  el.classList.toggle('neutral', neutralReplay());
  // A replay entering at a forward: its targets sit beyond the exits.
  const fwd = state.trace && state.trace.forward;
  const targets = fwd && Array.isArray(fwd.targets) ? fwd.targets.map((addr) => ({ addr, dead: state.deadTargets.has(addr) })) : null;
  setHtml(el, renderPicture(state.topo, { dead: state.dead, request: reqs[state.selectedReq], issues, assumed: assumedByNode(), vertical: phone.matches, targets, fit: state.picWidth }));
  placeReplay();
}

/** A tunnel wider than the room beside the replay puts the replay under it (reads the SVG's own width: no layout forced). */
function placeReplay() {
  const svg = $('picture').querySelector('svg.pic');
  const room = state.simWidth - 312; // the replay's column (300 px) and the gap
  $('picture').closest('.simgrid').classList.toggle('wide', !!svg && state.simWidth > 0 && svg.width.baseVal.value > room);
}

/**
 * Why an attempt went the way it did. English shows the simulator's own
 * reason; Chinese is composed from the attempt's structured fields (the
 * simulator's text is English only).
 */
function reasonText(a) {
  const zh = a.reasonZh || a.reason_zh;
  if (getLang() === 'zh') {
    if (zh) return zh;
    if (a.ok) return a.carried ? t('whyCarried') : t('whyOk');
    if (a.alive === false) return a.marked ? t('whyDeadMarked', { n: a.failures ?? 1 }) : t('whyDead');
    return t('whyDownstream');
  }
  return a.reason === undefined || a.reason === null ? '' : typeof a.reason === 'string' ? a.reason : JSON.stringify(a.reason);
}

/** Try number and the candidates the fail filter dropped before this dial. */
function attemptDetail(a) {
  const parts = [];
  if (Number.isInteger(a.round) && Number.isInteger(a.rounds) && a.rounds > 1) parts.push(t('tryOf', { n: a.round + 1, m: a.rounds }));
  const dropped = (Array.isArray(a.candidates) ? a.candidates : []).filter((c) => c && c.kept === false);
  if (dropped.length) {
    const names = dropped.map((c) => (c.toNodeId !== null && c.toNodeId !== undefined ? nodeLabel(c.toNodeId) : c.addr)).join(', ');
    parts.push(t('filteredOut', { names }));
  }
  return parts.join(' · ');
}

/** A Go duration as the plan carries it (nanoseconds, or text such as "10m") in seconds; null if unreadable. */
function durationSeconds(v) {
  if (typeof v === 'number' && Number.isFinite(v)) return v / 1e9;
  if (typeof v !== 'string') return null;
  const unit = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, µs: 1e-6, ns: 1e-9 };
  let total = 0;
  let rest = v.trim();
  if (!rest) return null;
  while (rest) {
    const m = /^(\d+(?:\.\d+)?)(h|ms|m|s|us|µs|ns)/.exec(rest);
    if (!m) return null;
    total += Number(m[1]) * unit[m[2]];
    rest = rest.slice(m[0].length);
  }
  return total;
}

/** The fail timeout (s) of the hop an attempt dialed through, from the plan's chain of that name. */
function failTimeoutOf(a) {
  for (const cmds of commandGroups(state.plan)) {
    for (const c of cmds) {
      if (!c || !/Chains$/.test(c.command) || !c.data) continue;
      const chain = c.data.hops ? c.data : c.data.data;
      if (!chain || chain.name !== a.chain || !Array.isArray(chain.hops)) continue;
      const hop = chain.hops.find((h) => h && h.name === a.hop);
      const sec = hop && hop.selector ? durationSeconds(hop.selector.failTimeout) : null;
      if (sec !== null) return sec;
    }
  }
  return null;
}

const atTime = (ms) => t('atTime', { s: Math.round(ms / 100) / 10 });

/**
 * Why request `i` went as it did, in the page's language, from the trace's
 * structured fields: which dials failed, which nodes are marked and until
 * when, and for direct egress the node and address the traffic leaves from.
 */
function requestWhy(reqs, i) {
  const r = reqs[i];
  // Marks set so far (by this request and the ones before): node -> expiry (ms).
  const expiry = new Map();
  for (const q of reqs.slice(0, i + 1)) {
    for (const a of q.attempts || []) {
      if (!a.marked || a.ok || a.toNodeId === null || a.toNodeId === undefined) continue;
      const sec = failTimeoutOf(a);
      if (sec !== null) expiry.set(a.toNodeId, (q.timeMs || 0) + sec * 1000);
    }
  }
  const failed = (r.attempts || []).filter((a) => !a.ok && a.alive === false && a.toNodeId !== null && a.toNodeId !== undefined);
  const names = (as) => [...new Set(as.map((a) => nodeLabel(a.toNodeId)))].join(', ');
  const untilOf = (as) => {
    const ends = as.map((a) => expiry.get(a.toNodeId)).filter((x) => x !== undefined);
    return ends.length ? atTime(Math.min(...ends)) : t('failTimeoutLater');
  };
  const out = [];
  if (r.direct) {
    const id = directNode(r);
    const n = state.topo && state.topo.byId.get(id);
    const addr = n && Array.isArray(n.addresses) && n.addresses.length ? n.addresses[0] : '?';
    const live = [...expiry.entries()].filter(([, end]) => end > (r.timeMs || 0)).map(([, end]) => end);
    const until = live.length ? atTime(Math.min(...live)) : t('failTimeoutLater');
    out.push({ text: t('whyDirect', { node: nodeLabel(id), addr }) });
    out.push({ text: t('whyDirectRisk', { node: nodeLabel(id), addr, until }), risk: true });
  } else if (!r.ok) {
    const deepest = failed.length ? failed[failed.length - 1].fromNodeId : r.entryNodeId ?? state.trace.entryNodeId;
    out.push({ text: t('whyFailed', { node: nodeLabel(deepest), dead: names(failed) || '—', until: untilOf(failed) }) });
    const n = state.topo && state.topo.byId.get(deepest);
    const fo = n && n.failover;
    if (fo && fo.short) out.push({ text: t(fo.retries === 0 ? 'whyFailedShort_one' : 'whyFailedShort_other', { tries: fo.retries + 1, n: fo.candidates, r: fo.retries, need: fo.candidates - 1 }), risk: true });
  } else if (failed.length) {
    out.push({ text: t('whyOkAfter', { exit: nodeLabel(r.exitNodeId), k: failed.length, dead: names(failed), until: untilOf(failed) }) });
  } else {
    out.push({ text: t('whyOkFirst', { exit: nodeLabel(r.exitNodeId) }) });
  }
  return out;
}

/** No node (or target) is marked dead: the replay shows the normal path, not a failover test. */
const neutralReplay = () => state.dead.size === 0 && state.deadTargets.size === 0;

function replayTabs(reqs, neutral) {
  return reqs
    .map((r, i) => {
      const plain = neutral && r.ok && !r.direct;
      const cls = r.direct ? 'direct' : plain ? 'plain' : r.ok ? 'ok' : 'bad';
      const mark = r.direct ? ' ↗' : plain ? '' : r.ok ? ' ✓' : ' ✗';
      const sel = i === state.selectedReq;
      const says = t(r.direct ? 'reqDirectShort' : plain ? 'reqPlain' : r.ok ? 'reqOk' : 'reqFail');
      return `<button type="button" role="tab" id="rq-${i}" class="rq ${cls}" data-req="${i}" aria-selected="${sel}" aria-controls="reqpanel" tabindex="${sel ? 0 : -1}" aria-label="${escapeHtml(`${t('request')} ${r.index ?? i + 1}: ${says}`)}">${escapeHtml(t('request'))} ${escapeHtml(r.index ?? i + 1)}${mark}</button>`;
    })
    .join('');
}

function outcomeItem(reqs, neutral) {
  const r = reqs[state.selectedReq];
  const cls = r.direct ? 'direct' : neutral && r.ok ? 'plain' : r.ok ? 'ok' : 'bad';
  const outcome = r.direct ? t('directEgress', { node: nodeLabel(directNode(r)) }) : r.ok ? `${t('reqOk')} · ${t('via')} ${nodeLabel(r.exitNodeId)}` : t('reqFail');
  // At a forward, the target tries explain the request; the tunnel's own why only when a node on it is dead.
  const fwd = state.trace.forward;
  const why = fwd && !(r.attempts || []).some((a) => a.alive === false) ? [] : requestWhy(reqs, state.selectedReq);
  if (fwd) why.push(...forwardWhy(reqs, state.selectedReq));
  if (neutral && r.ok && !r.direct) why.push({ text: t('replayNeutral') });
  const trace = getLang() === 'en' && typeof r.outcome === 'string' && !r.ok ? `<details class="trace"><summary>${escapeHtml(t('simTrace'))}</summary>${escapeHtml(r.outcome)}</details>` : '';
  return `<li class="outcome ${cls}">${escapeHtml(outcome)}${why.map((w) => `<div class="why${w.risk ? ' risk' : ''}">${escapeHtml(w.text)}</div>`).join('')}${trace}</li>`;
}

function attemptItem(a, i) {
  const to = a.toNodeId === null || a.toNodeId === undefined ? t('destination') : nodeLabel(a.toNodeId);
  const status = (a.ok ? t('attemptOk') : t('attemptFail')) + (a.alive === false ? ` · ${t('dead')}` : '');
  return (
    `<li class="att ${a.ok ? 'ok' : 'bad'}"><span class="n">${i + 1}</span> <b>${escapeHtml(nodeLabel(a.fromNodeId))} → ${escapeHtml(to)}</b> <span class="st">${escapeHtml(status)}</span>` +
    (a.addr ? ` <code>${escapeHtml(a.addr)}</code>` : '') +
    (attemptDetail(a) ? `<div class="why">${escapeHtml(attemptDetail(a))}</div>` : '') +
    (reasonText(a) ? `<div class="why">${escapeHtml(reasonText(a))}</div>` : '') +
    '</li>'
  );
}

/** The forward the requests enter at, and its targets to mark dead (plans that deploy forwards). */
function renderForwardControls() {
  const fwd = state.trace && state.trace.forward;
  $('fwdctl').hidden = !fwd;
  setHtml($('fwdctl'), fwd ? forwardControls(fwd, replayableForwards(state.plan), state.deadTargets, nodeLabel) : '');
}

/** A new document: the replay enters at its default forward with every target alive; no picture of another tunnel to dim. */
function resetDocument() {
  state.forwardId = null;
  state.deadTargets.clear();
  state.lastTopo = null;
}

function renderReplay() {
  const tabs = $('reqtabs');
  const list = $('attempts');
  if (state.simError) {
    $('fwdctl').hidden = true;
    setHtml(tabs, '');
    setHtml(list, `<li class="err">${escapeHtml(state.simError)}</li>`);
    return;
  }
  const reqs = state.trace && Array.isArray(state.trace.requests) ? state.trace.requests : [];
  if (!reqs.length) {
    $('fwdctl').hidden = true;
    setHtml(tabs, '');
    setHtml(list, `<li class="muted">${escapeHtml(t(rejected() ? 'notSimulated' : 'noSim'))}</li>`);
    return;
  }
  const neutral = neutralReplay();
  renderForwardControls();
  $('reqpanel').classList.toggle('neutral', neutral);
  setHtml(tabs, replayTabs(reqs, neutral));
  $('reqpanel').setAttribute('aria-labelledby', `rq-${state.selectedReq}`);
  const r = reqs[state.selectedReq];
  setHtml(list, [outcomeItem(reqs, neutral), ...(r.attempts || []).map(attemptItem)].join(''));
}

function findingMessage(f) {
  return getLang() === 'zh' && f.messageZh ? f.messageZh : f.message;
}

const SEVERITIES = ['error', 'warning', 'info'];
const sevOf = (f) => (SEVERITIES.includes(f.severity) ? f.severity : 'info');

/**
 * Findings of one cause (same code and severity) as one group, worst first;
 * each group lists its places (indexes into state.findings).
 */
function groupFindings(findings) {
  const groups = new Map();
  findings.forEach((f, i) => {
    if (!shownInList(f)) return;
    const key = `${sevOf(f)}\u0000${f.code}`;
    if (!groups.has(key)) groups.set(key, { code: f.code, severity: sevOf(f), places: [] });
    groups.get(key).places.push(i);
  });
  return [...groups.values()].sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity) || a.places[0] - b.places[0]);
}

// A plan the server rejects: the rejection is shown once, in the banner.
const shownInList = (f) => !(state.plan && state.plan.error && (f.code === 'IN001' || f.code === 'IN002'));

const fixKey = (f) => (f.fix && f.fix.op === 'set' ? `${f.fix.path}\u0000${JSON.stringify(f.fix.value)}` : null);

function renderFindingFilters() {
  const counts = Object.fromEntries(SEVERITIES.map((s) => [s, 0]));
  const listed = state.findings.filter(shownInList);
  for (const f of listed) counts[sevOf(f)]++;
  const nodes = [...new Set(listed.map((f) => f.nodeId).filter((x) => x !== undefined && x !== null))];
  if (state.findingNode !== '' && !nodes.some((n) => String(n) === state.findingNode)) state.findingNode = '';
  const sevButtons = SEVERITIES.map(
    (s) =>
      `<button type="button" class="btn fsev ${s}" data-sev="${s}" aria-pressed="${!state.hiddenSev.has(s)}"${counts[s] ? '' : ' disabled'}>${escapeHtml(t(counts[s] === 1 ? `sevOne_${s}` : `sevCount_${s}`, { n: counts[s] }))}</button>`,
  ).join('');
  const opts = [`<option value="">${escapeHtml(t('allNodes'))}</option>`]
    .concat(nodes.map((n) => `<option value="${escapeHtml(n)}"${String(n) === state.findingNode ? ' selected' : ''}>${escapeHtml(nodeLabel(n))}</option>`))
    .join('');
  setHtml(
    $('fbar'),
    listed.length
      ? `<div class="row wrap" role="group" aria-label="${escapeHtml(t('filterSeverity'))}">${sevButtons}</div>` +
          `<label class="field inline"><span>${escapeHtml(t('filterNode'))}</span><select id="fnode">${opts}</select></label>`
      : '',
  );
}

function placeMarkup(f, i, withMessage) {
  const node = f.nodeId !== undefined && f.nodeId !== null ? `<span class="fnode">${escapeHtml(nodeLabel(f.nodeId))}</span> ` : '';
  return `<button type="button" class="fgo place" data-go="${i}">${node}<code class="path">${escapeHtml(f.path || '/')}</code>${withMessage ? `<span class="msg">${escapeHtml(findingMessage(f))}</span>` : ''}</button>`;
}

const fixWhat = (fix) => `${lastToken(fix.path)} = ${JSON.stringify(fix.value)}`;

function fixMarkup(f, i, offeredBy) {
  if (!f.fix || f.fix.op !== 'set') return '';
  if (offeredBy) return `<span class="fixsame">${escapeHtml(t('sameFixAs', { code: offeredBy }))}</span>`;
  const side = fixSide(f);
  const where = side === 'provider' ? t('fixOnProvider', { node: f.nodeId !== undefined && f.nodeId !== null ? nodeLabel(f.nodeId) : '?' }) : t('fixOnOwn');
  // The provider's command cannot be changed from here: the button only previews the change.
  const label = t(side === 'provider' ? 'previewFix' : 'applyFix', { what: fixWhat(f.fix) });
  return (
    `<div class="fixbox"><p class="fixwhere ${side}">${escapeHtml(where)}</p><div class="row wrap">` +
    `<button type="button" class="btn fix" data-fix="${i}">${escapeHtml(label)}</button>` +
    `<button type="button" class="btn" data-copy="ptr:${i}">${escapeHtml(t('copyFixPtr'))}</button>` +
    `<button type="button" class="btn" data-copy="cmd:${i}">${escapeHtml(t('copyFixCmd'))}</button></div></div>`
  );
}

/** Fixes previewed in the plan that a panel still has to make, first in the findings list. */
function pendingRows() {
  return state.pendingFixes
    .map((p, k) => {
      const node = p.nodeId !== undefined && p.nodeId !== null ? `<span class="fnode">${escapeHtml(t('node'))} ${escapeHtml(nodeLabel(p.nodeId))}</span>` : '';
      return (
        `<li class="finding pending" data-pending="${k}" data-pcode="${escapeHtml(p.code)}" tabindex="-1"><span class="fbody"><span class="sev pending">${escapeHtml(t('pendingTag'))}</span> ` +
        `<span class="code">${escapeHtml(p.code)}</span> ${node}<span class="msg">${escapeHtml(t(`pendingRow_${p.side}`, { what: p.what }))}</span><code class="path">${escapeHtml(p.path)}</code></span>` +
        `<div class="row wrap"><button type="button" class="btn" data-copy="pptr:${k}">${escapeHtml(t('copyFixPtr'))}</button>` +
        `<button type="button" class="btn" data-copy="pcmd:${k}">${escapeHtml(t('copyFixCmd'))}</button></div></li>`
      );
    })
    .join('');
}

/** The pointer of the command a plan pointer falls in: /local/N, /federation/N/commands/K or /federation/N/apply. */
function commandPointer(ptr) {
  const m = /^(\/local\/\d+|\/federation\/\d+\/commands\/\d+|\/federation\/\d+\/apply)(\/|$)/.exec(ptr);
  return m ? m[1] : null;
}

/** Text to copy for a fix: its pointer and value, or the whole command with the fix made. */
function fixCopyText(fix, what) {
  if (what === 'ptr') return JSON.stringify({ path: fix.path, value: fix.value }, null, 2);
  const at = commandPointer(fix.path);
  const fixed = setPointer(state.plan, fix.path, fix.value);
  return JSON.stringify(at ? getPointer(fixed, at) : fixed, null, 2);
}

async function copyText(text, label) {
  window.hopPreview.lastCopy = text;
  let ok = false;
  try {
    await navigator.clipboard.writeText(text);
    ok = true;
  } catch {
    // No clipboard permission: the old way, through a selected textarea.
    const ta = document.createElement('textarea');
    ta.value = text;
    ta.setAttribute('readonly', '');
    ta.className = 'visually-hidden';
    document.body.append(ta);
    ta.select();
    try {
      ok = document.execCommand('copy');
    } catch {
      ok = false;
    }
    ta.remove();
  }
  state.banner = ok ? { kind: 'ok', key: 'copied', vars: { what: label } } : { kind: 'error', key: 'copyFailed', vars: { what: label } };
  renderBanner();
}

/**
 * A known risk of GOST's design (FO005, one finding per multi-node hop) as one
 * row for the tunnel: what the risk is, its mitigation (from the message),
 * and the hops it applies to behind a disclosure.
 */
function knownRiskRow(g, places) {
  const first = state.findings[places[0]];
  const mitigation = mitigationOf(findingMessage(first));
  const head = `<span class="sev known">${escapeHtml(t('knownRiskTag'))}</span> <span class="code">${escapeHtml(g.code)}</span> `;
  const count = t(places.length === 1 ? 'knownRiskPlaces_one' : 'knownRiskPlaces_other', { n: places.length });
  return (
    `<li class="finding known ${g.severity}" data-code="${escapeHtml(g.code)}" data-known="1" data-node=""><div class="fbody">` +
    `<details${state.openGroups.has(g.code) ? ' open' : ''} data-group="${escapeHtml(g.code)}"><summary>${head}<span class="fnode">${escapeHtml(count)}</span>` +
    `<span class="msg">${escapeHtml(t(`knownRiskHead_${g.code}`))}</span></summary>` +
    `<ul class="places">${places.map((i) => `<li>${placeMarkup(state.findings[i], i, true)}</li>`).join('')}</ul></details>` +
    (mitigation ? `<p class="mitig">${escapeHtml(t('mitigation', { what: mitigation }))}</p>` : '') +
    '</div></li>'
  );
}

function renderFindings() {
  const el = $('findings');
  const listed = state.findings.filter(shownInList).length;
  $('fcount').textContent = listed ? `(${listed})` : '';
  renderFindingFilters();
  if (!listed) {
    setHtml(el, pendingRows() + `<li class="muted none${rejected() ? ' notchecked' : ''}">${escapeHtml(t(rejected() ? 'notChecked' : 'noFindings'))}</li>`);
    return;
  }
  const offered = new Map(); // fix key -> code of the group that offers it
  const items = [];
  for (const g of groupFindings(state.findings)) {
    if (state.hiddenSev.has(g.severity)) continue;
    const places = g.places.filter((i) => state.findingNode === '' || String(state.findings[i].nodeId) === state.findingNode);
    if (!places.length) continue;
    const first = state.findings[places[0]];
    const fk = fixKey(first);
    const offeredBy = fk && offered.has(fk) ? offered.get(fk) : null;
    if (fk && !offeredBy) offered.set(fk, g.code);
    const sev = g.severity;
    if (KNOWN_RISKS.has(g.code)) {
      items.push(knownRiskRow(g, places));
      continue;
    }
    const nodes = [...new Set(places.map((i) => state.findings[i].nodeId))];
    const head = `<span class="sev ${sev}">${escapeHtml(t('severity_' + sev))}</span> <span class="code">${escapeHtml(g.code)}</span> `;
    const attrs = `class="finding ${sev}${places.length > 1 ? ' group' : ''}" data-code="${escapeHtml(g.code)}" data-node="${escapeHtml(nodes.length === 1 ? nodes[0] ?? '' : '')}"`;
    if (places.length === 1) {
      const i = places[0];
      const node = first.nodeId !== undefined && first.nodeId !== null ? `<span class="fnode">${escapeHtml(t('node'))} ${escapeHtml(nodeLabel(first.nodeId))}</span>` : '';
      items.push(
        `<li ${attrs}><button type="button" class="fgo" data-go="${i}">${head}${node}` +
          `<span class="msg">${escapeHtml(findingMessage(first))}</span><code class="path">${escapeHtml(first.path || '/')}</code></button>${fixMarkup(first, i, offeredBy)}</li>`,
      );
      continue;
    }
    const msgs = new Set(places.map((i) => findingMessage(state.findings[i])));
    const where = t('placesOn', { n: places.length, nodes: nodes.map((n) => (n === undefined || n === null ? '—' : nodeLabel(n))).join(', ') });
    items.push(
      `<li ${attrs}><details${state.openGroups.has(g.code) ? ' open' : ''} data-group="${escapeHtml(g.code)}"><summary>${head}<span class="times">\u00d7${places.length}</span> <span class="fnode">${escapeHtml(where)}</span>` +
        `<span class="msg">${escapeHtml(msgs.size === 1 ? findingMessage(first) : `${findingMessage(first)} ${t('andSimilar', { n: places.length - 1 })}`)}</span></summary>` +
        `<ul class="places">${places.map((i) => `<li>${placeMarkup(state.findings[i], i, msgs.size > 1)}</li>`).join('')}</ul></details>${fixMarkup(first, places[0], offeredBy)}</li>`,
    );
  }
  setHtml(el, pendingRows() + (items.join('') || `<li class="muted none">${escapeHtml(t('noneShown'))}</li>`));
}

function lastToken(ptr) {
  const i = String(ptr).lastIndexOf('/');
  return i >= 0 ? ptr.slice(i + 1) : ptr;
}

// A card is built as a "head" (its markup with a placeholder per JSON view)
// plus the lines of each view, so an edit can patch just the lines it changed.
const BLOCK = '\u0001';

function jsonBlock(blocks, value, opts) {
  blocks.push(renderJsonLines(value, opts));
  return `<pre class="json" tabindex="0">${BLOCK}${blocks.length - 1}${BLOCK}</pre>`;
}

function commandBlock(blocks, cmd, base) {
  return `<div class="cmd"><div class="cmdh">${escapeHtml(cmd.command)}</div>${jsonBlock(blocks, cmd.data, { base: base + '/data' })}</div>`;
}

const gapCell = '<span class="jl gap"></span>';

/** One side of a diff row: its mark (git's − expected only / + sent only) and its line, or a gap. */
function diffSide(mark, line) {
  return `<span class="dm">${mark}</span>${line ?? gapCell}`;
}

/** A row: the expected (local twin) side left, the federated side right; `fold`: the fold hiding it. */
function diffRow(r, fold = null) {
  const cls = r.kind === 'same' ? 'same' : `${r.kind} ${r.meta ? 'meta' : 'beh'}`;
  const del = r.kind === 'removed' || r.kind === 'changed' ? '\u2212' : '';
  const add = r.kind === 'added' || r.kind === 'changed' ? '+' : '';
  const folded = fold ? ` folded" data-fold-key="${escapeHtml(fold)}` : '';
  return `<span class="dr ${cls}${folded}">${diffSide(del, r.b)}${diffSide(add, r.a)}</span>`;
}

/** Rows of one command's diff, unchanged runs folded behind a button (kept open once expanded). */
function diffLines(rows, key) {
  const lines = [];
  for (const seg of foldRuns(rows)) {
    if (!seg.fold) {
      lines.push(...seg.rows.map((r) => diffRow(r)));
      continue;
    }
    const id = `${key}:${seg.start}`;
    const open = state.openFolds.has(id);
    lines.push(
      `<span class="dr fold"><button type="button" class="btn foldbtn" data-fold="${escapeHtml(id)}" aria-expanded="${open}">${escapeHtml(t(open ? 'foldHide' : 'foldShow', { n: seg.rows.length }))}</button></span>`,
      ...seg.rows.map((r) => diffRow(r, open ? null : id)),
    );
  }
  return lines;
}

/**
 * One command of a federated node next to its local twin's, aligned row by
 * row: a gap where a side lacks the key, git's marks, behaviour changes set
 * apart from metadata-only ones. The page scrolls; the grid does not.
 */
function diffCommandBlock(blocks, name, fedData, twinData, base, key) {
  const { rows, diffs } = alignedDiff(fedData, twinData, { baseA: base + '/data', hasA: fedData !== undefined, hasB: twinData !== undefined });
  blocks.push(diffLines(rows, key));
  const html = `<div class="cmd"><div class="cmdh">${escapeHtml(name)}</div><pre class="json dgrid">${BLOCK}${blocks.length - 1}${BLOCK}</pre></div>`;
  return { html, diffs };
}

/** The name a difference is known by: the last key of its pointer (array indexes skipped). */
function diffKey(rel) {
  const toks = parsePointer(rel).filter((x) => !/^\d+$/.test(x));
  return toks.length ? toks[toks.length - 1] : '/';
}

/** One line per node: what differs from the local twin and whether it changes behaviour. */
function diffSummary(diffs) {
  if (!diffs.length) return `<p class="diffsum none">${escapeHtml(t('diffNone'))}</p>`;
  const beh = diffs.filter((d) => !d.meta);
  const meta = diffs.filter((d) => d.meta);
  const parts = [];
  if (beh.length) {
    const what = [...new Set(beh.map((d) => t('diffWhat_' + d.kind, { key: diffKey(d.rel) })))].join(', ');
    parts.push(`<span class="dsum beh">${escapeHtml(t('diffBehaviour', { n: beh.length, what }))}</span>`);
  }
  if (meta.length) {
    const keys = [...new Set(meta.map((d) => diffKey(d.rel)))].join(', ');
    parts.push(`<span class="dsum meta">${escapeHtml(t('diffMetaOnly', { n: meta.length, keys }))}</span>`);
  }
  return `<p class="diffsum ${beh.length ? 'matters' : 'meta'}">${parts.join(' ')}</p>`;
}

function diffLegend() {
  return (
    `<p class="dlegend"><span class="dmk del">\u2212</span> ${escapeHtml(t('diff_removed'))} ` +
    `<span class="dmk add">+</span> ${escapeHtml(t('diff_added'))} · ` +
    `<span class="swatch beh"></span> ${escapeHtml(t('diffLegendBeh'))} <span class="swatch meta"></span> ${escapeHtml(t('diffLegendMeta'))}</p>`
  );
}

/** Each federated command beside its twin's (twin commands the provider lacks last); without a twin, the commands alone. */
function fedCommandParts(n, fed, fedIdx, twinCmds, blocks) {
  const cmds = Array.isArray(fed.commands) ? fed.commands : [];
  const parts = [];
  const diffs = [];
  if (!twinCmds) {
    cmds.forEach((c, k) => parts.push(commandBlock(blocks, c, `/federation/${fedIdx}/commands/${k}`)));
    return { parts, diffs };
  }
  const add = (d) => {
    parts.push(d.html);
    diffs.push(...d.diffs);
  };
  cmds.forEach((c, k) => {
    const other = twinCmds.find((x) => x.command === c.command);
    add(diffCommandBlock(blocks, c.command, c.data, other ? other.data : undefined, `/federation/${fedIdx}/commands/${k}`, `${n.nodeId}/${c.command}`));
  });
  for (const o of twinCmds) if (!cmds.some((c) => c.command === o.command)) add(diffCommandBlock(blocks, o.command, undefined, o.data, '', `${n.nodeId}/${o.command}`));
  return { parts, diffs };
}

/** A federated node's part of its card: the diff summary, legend, the commands, the provider's apply. */
function fedSection(n, fed, fedIdx, blocks) {
  const twin = state.twins.get(n.nodeId);
  const twinCmds = twin && Array.isArray(twin.commands) ? twin.commands : null;
  const { parts, diffs } = fedCommandParts(n, fed, fedIdx, twinCmds, blocks);
  let twinHead;
  if (!twin) twinHead = `<p class="muted">${escapeHtml(t('twinFromInput'))}</p>`;
  else if (twin.error) twinHead = `<p class="err">${escapeHtml(t('twinMissing', { msg: twin.error }))}</p>`;
  else twinHead = diffSummary(diffs);
  return [
    twinHead,
    twinCmds ? diffLegend() : '',
    twinCmds ? `<div class="dhead"><h4>${escapeHtml(t('twinSide'))}</h4><h4>${escapeHtml(t('fedSide'))}</h4></div>` : `<h4>${escapeHtml(t('fedSide'))}</h4>`,
    parts.join('') || `<p class="muted">${escapeHtml(t('noCommands'))}</p>`,
    `<details class="apply"><summary>${escapeHtml(t('providerApply'))}</summary>${jsonBlock(blocks, fed.apply, { base: `/federation/${fedIdx}/apply` })}</details>`,
  ].join('');
}

/** A card's head: name, role badges, facts (retries against candidates first), assumed values. */
function cardHead(n) {
  const badges = [
    `<span class="badge role ${escapeHtml(n.role)}">${escapeHtml(t(n.role) || n.role)}</span>`,
    n.role === 'middle' && n.hop ? `<span class="badge">${escapeHtml(t('hop', { n: n.hop }))}</span>` : '',
    `<span class="badge ${n.remote ? 'fed' : 'loc'}">${escapeHtml(n.remote ? t('federated') : t('local'))}</span>`,
    state.dead.has(n.nodeId) ? `<span class="badge deadb">${escapeHtml(t('dead'))}</span>` : '',
  ].join('');
  // A middle's retries against its next-hop candidates, the tool's headline.
  const fo = n.failover;
  const facts = [
    n.role === 'middle' && fo ? `<span class="retries${fo.short ? ' short' : ''}">${escapeHtml(t(fo.short ? 'retriesShort' : 'retriesOk', { r: fo.retries, n: fo.candidates, need: fo.candidates - 1 }))}</span>` : '',
    n.protocol ? `${t('protocol')}: <code>${escapeHtml(n.protocol)}</code>` : '',
    n.strategy ? `${t('strategy')}: <code>${escapeHtml(n.strategy)}</code>` : '',
    n.port ? `${t('port')}: <code>${escapeHtml(n.port)}</code>` : '',
    n.role !== 'entry' && Array.isArray(n.addresses) && n.addresses.length ? `${t('addresses')}: <code>${n.addresses.map(escapeHtml).join(', ')}</code>` : '',
    n.runtimeId !== undefined && n.runtimeId !== null ? `${t('runtimeId')}: <code>${escapeHtml(n.runtimeId)}</code>` : '',
  ].filter(Boolean).join(' · ');
  const guessed = assumedByNode().get(n.nodeId) || [];
  const assumed = guessed.length
    ? `<div class="assumed"><p><span class="asmtag">${escapeHtml(t('assumedTag'))}</span> ${escapeHtml(t('assumedCard'))}</p><ul>` +
      guessed.map((a) => `<li><code>${escapeHtml(a.path)}</code> = <code>${escapeHtml(JSON.stringify(a.value))}</code>${getLang() === 'en' && a.reason ? `: ${escapeHtml(a.reason)}` : ''}</li>`).join('') +
      '</ul></div>'
    : '';
  return `<header><h3>${escapeHtml(n.name)} <span class="nid">#${escapeHtml(n.nodeId)}</span></h3><div class="badges">${badges}</div></header><p class="facts">${facts}</p>${assumed}`;
}

/** One node's card as a head (markup with a placeholder per JSON view) and the lines of each view. */
function nodeCard(n, plan, services) {
  const blocks = [];
  const localCmds = [];
  (Array.isArray(plan.local) ? plan.local : []).forEach((c, i) => {
    if (c && c.nodeId === n.nodeId) localCmds.push({ cmd: c, base: `/local/${i}` });
  });
  const fedIdx = (Array.isArray(plan.federation) ? plan.federation : []).findIndex((f) => f && f.nodeId === n.nodeId);
  let body;
  if (fedIdx >= 0) body = fedSection(n, plan.federation[fedIdx], fedIdx, blocks);
  else if (localCmds.length) body = `<h4>${escapeHtml(t('receives'))}</h4>${localCmds.map((x) => commandBlock(blocks, x.cmd, x.base)).join('')}`;
  else body = `<p class="muted">${escapeHtml(t('noCommands'))}</p>`;
  const fwds = forwardsMarkup(forwardsOnNode(plan, n.nodeId, services));
  const head = `<article class="node ${n.remote ? 'fed' : 'loc'}" id="node-${escapeHtml(n.nodeId)}" data-node="${escapeHtml(n.nodeId)}">${cardHead(n)}${fwds}${body}</article>`;
  return { key: String(n.nodeId), head, blocks };
}

function renderNodes() {
  const el = $('nodes');
  if (!state.plan || state.plan.error || !state.topo) {
    if (rejected()) el.replaceChildren(Object.assign(document.createElement('p'), { className: 'muted', textContent: t('notPlanned') }));
    else patchChildren(el, []);
    return;
  }
  const order = { entry: 0, middle: 1, exit: 2 };
  const nodes = [...state.topo.nodes].sort((a, b) => (order[a.role] ?? 3) - (order[b.role] ?? 3) || (a.hop || 0) - (b.hop || 0));
  const services = forwardServices(state.plan);
  patchChildren(el, nodes.map((n) => nodeCard(n, state.plan, services)));
}

function cardMarkup(card) {
  return card.head.replace(/\u0001(\d+)\u0001/g, (_, i) => (card.blocks[Number(i)] || []).join(''));
}

function freshCard(card) {
  const tpl = document.createElement('template');
  tpl.innerHTML = cardMarkup(card);
  const el = tpl.content.firstElementChild;
  el.dataset.key = card.key;
  shownCard.set(el, card);
  return el;
}

/**
 * Updates the node cards with as little DOM work as possible: a card whose
 * head is unchanged keeps its elements and only the JSON lines that changed
 * are replaced (an edit usually changes a few lines); other cards are rebuilt.
 */
function patchChildren(el, cards) {
  const kids = [...el.children];
  const sameShape = kids.length === cards.length && kids.every((k, i) => k.dataset.key === cards[i].key);
  if (!sameShape) {
    el.replaceChildren(...cards.map(freshCard));
    return;
  }
  cards.forEach((card, i) => {
    const kid = kids[i];
    const old = shownCard.get(kid);
    const linesFit =
      old && old.head === card.head && old.blocks.length === card.blocks.length && old.blocks.every((b, j) => b.length === card.blocks[j].length);
    if (!linesFit) {
      kid.replaceWith(freshCard(card));
      return;
    }
    // The views appear in the page in the order of their placeholders in the head.
    const pres = kid.querySelectorAll('pre.json');
    const order = [...card.head.matchAll(/\u0001(\d+)\u0001/g)].map((m) => Number(m[1]));
    order.forEach((j, at) => {
      const lines = card.blocks[j];
      const was = old.blocks[j];
      const pre = pres[at];
      if (!pre) return;
      for (let k = 0; k < lines.length; k++) {
        if (lines[k] !== was[k] && pre.children[k]) pre.children[k].outerHTML = lines[k];
      }
    });
    shownCard.set(kid, card);
  });
}
const shownCard = new WeakMap();

// ---------------------------------------------------------------- jump to a finding

/** The lines a JSON Pointer names, or those of its nearest ancestor that has lines. */
function linesOf(ptr) {
  const lines = [...$('nodes').querySelectorAll('[data-ptr]')];
  let target = ptr;
  let hits = [];
  while (ptr) {
    const tgt = target;
    hits = lines.filter((l) => l.dataset.ptr === tgt || l.dataset.ptr.startsWith(tgt + '/'));
    const up = tgt.slice(0, tgt.lastIndexOf('/'));
    if (hits.length || up === '') break;
    target = up;
  }
  return hits;
}

/** Opens the folds that hide any of `lines`; true when the cards were re-rendered. */
function unfold(lines) {
  const keys = new Set(lines.map((l) => l.closest('.dr.folded')).filter(Boolean).map((r) => r.dataset.foldKey));
  if (!keys.size) return false;
  for (const k of keys) state.openFolds.add(k);
  renderNodes();
  return true;
}

/** Highlights the lines a JSON Pointer names (or its nearest shown ancestor) and scrolls there. */
function highlightPointer(ptr, { scroll = true, nodeId } = {}) {
  for (const el of document.querySelectorAll('.hl')) el.classList.remove('hl');
  let hits = linesOf(ptr);
  if (unfold(hits)) hits = linesOf(ptr);
  if (!hits.length && nodeId !== undefined && nodeId !== null) {
    const card = document.getElementById(`node-${nodeId}`);
    if (card) hits = [card];
  }
  for (const h of hits) h.classList.add('hl');
  const card = hits.length ? hits[0].closest('.node') : null;
  if (card) card.classList.add('hl');
  if (nodeId !== undefined && nodeId !== null) {
    const g = $('picture').querySelector(`[data-node="${CSS.escape(String(nodeId))}"]`);
    if (g) g.classList.add('hl');
  }
  const closed = hits.length ? hits[0].closest('details:not([open])') : null;
  if (closed) closed.open = true;
  if (scroll && hits.length) hits[0].scrollIntoView({ block: 'center', behavior: 'instant' });
  return hits.length;
}

/** In the Plan tab, selects the text of the value `ptr` names and scrolls the editor to it. */
function selectInEditor(ptr, { anyTab = false, focus = true, reveal = false } = {}) {
  if (state.mode !== 'plan' && !anyTab) return;
  const ta = $('doc');
  const at = locatePointer(ta.value, ptr);
  if (!at) return;
  // On a phone the editor is behind the JSON toggle: a "show it" button opens it.
  if (reveal && ta.offsetParent === null && !document.body.classList.contains('json-open')) toggleJson();
  const line = ta.value.slice(0, at.start).split('\n').length - 1;
  const lh = parseFloat(getComputedStyle(ta).lineHeight) || 17;
  if (focus) ta.focus({ preventScroll: !reveal });
  ta.setSelectionRange(at.start, at.end);
  ta.scrollTop = Math.max(0, (line - 3) * lh);
}

// ---------------------------------------------------------------- fixes

function applyFix(f) {
  try {
    const doc = state.mode === 'plan' ? JSON.parse($('doc').value) : structuredClone(state.plan);
    if (getPointer(doc, f.fix.path.slice(0, f.fix.path.lastIndexOf('/'))) === undefined) throw new Error(f.fix.path);
    const fixed = setPointer(doc, f.fix.path, f.fix.value);
    state.planText = JSON.stringify(fixed, null, 2);
    if (state.mode !== 'plan') setMode('plan', { silent: true });
    else $('doc').value = state.planText;
    state.edited = true;
    state.planEdited = true;
    // The pending row and the verdict say what was previewed and where it must be made.
    const side = fixSide(f);
    state.focusPtr = f.fix.path;
    state.pendingFixes = [...state.pendingFixes.filter((p) => p.path !== f.fix.path), { code: f.code, nodeId: f.nodeId, path: f.fix.path, value: f.fix.value, side, what: fixWhat(f.fix) }];
    update();
    // The focus stays in the findings, on the fix's pending row (the editor only shows where it went).
    const row = $('findings').querySelector(`[data-pending="${state.pendingFixes.length - 1}"]`);
    if (row) row.focus({ preventScroll: true });
    selectInEditor(f.fix.path, { focus: false });
  } catch (e) {
    state.banner = { kind: 'error', key: 'fixFailed', vars: { msg: e.message } };
    renderBanner();
  }
}

// ---------------------------------------------------------------- editor

function setMode(mode, { silent = false } = {}) {
  if (state.mode === 'input') state.inputText = $('doc').value;
  else state.planText = $('doc').value;
  state.mode = mode;
  for (const [id, m] of [['tab-input', 'input'], ['tab-plan', 'plan']]) {
    $(id).setAttribute('aria-selected', String(mode === m));
    $(id).tabIndex = mode === m ? 0 : -1;
  }
  $('doc').setAttribute('aria-labelledby', mode === 'input' ? 'tab-input' : 'tab-plan');
  $('ed-panel').setAttribute('aria-labelledby', mode === 'input' ? 'tab-input' : 'tab-plan');
  $('doc').value = mode === 'input' ? state.inputText : state.planText;
  $('replan').hidden = mode !== 'plan';
  $('ed-hint').dataset.i18n = mode === 'input' ? 'inputHint' : 'planHint';
  $('ed-hint').textContent = t($('ed-hint').dataset.i18n);
  if (!silent) update();
}

// ---------------------------------------------------------------- fleet

function renderFleet_() {
  renderOrigin();
  if (!state.fleet) return;
  const { rows, source, error, selected, filter } = state.fleet;
  setHtml($('fleet-body'), renderFleet(rows, { t, lang: getLang(), selected, filter, clause: firstClause }));
  $('fleet-status').textContent = error || (rows.length ? t('fleetDone', { total: rows.length, source }) : t('fleetEmpty', { source }));
}

/** Where the editor's tunnel came from, in a neutral line of its own and in the example menu. */
function renderOrigin() {
  const o = state.origin;
  const el = $('origin');
  el.hidden = !o;
  let opt = $('example').querySelector('option[value="panel-row"]');
  if (!o) {
    if (opt) opt.remove();
    return;
  }
  const assumed = o.assumed.length
    ? ` <details><summary>${escapeHtml(t('fleetAssumed', { n: o.assumed.length }))}</summary><ul>${o.assumed.map((a) => `<li>${escapeHtml(a)}</li>`).join('')}</ul></details>`
    : '';
  setHtml(el, `<span>${escapeHtml(t('fleetOpened', { name: o.name, id: o.id }))}</span>${assumed}`);
  if (!opt) opt = $('example').appendChild(document.createElement('option'));
  opt.value = 'panel-row';
  opt.textContent = t('fromPanel', { name: o.name, id: o.id });
  if (state.example === 'panel-row') $('example').value = 'panel-row';
}

/** Chips of the panel view: a status chip hides or shows its rows, a rule chip narrows to tunnels with it. */
function toggleFleetChip(b) {
  const f = state.fleet.filter;
  const flip = (set, v) => (set.has(v) ? set.delete(v) : set.add(v));
  if (b.dataset.fstatus) flip(f.hiddenStatus, b.dataset.fstatus);
  else flip(f.rules, b.dataset.frule);
  renderFleet_();
}

/** Audits a whole panel (a backup export's text) and shows the fleet table. */
async function openPanel(text, source) {
  state.fleet = { rows: [], source, selected: null, error: null, filter: { hiddenStatus: new Set(), rules: new Set() } };
  $('fleet').hidden = false;
  setHtml($('fleet-body'), '');
  let rows;
  try {
    rows = await auditPanel(hp, text, (done, total) => {
      $('fleet-status').textContent = t('fleetProgress', { done, total });
    });
  } catch (e) {
    // A backup the core cannot read (a partial export, a bad row): say why.
    state.fleet.error = apiMessage(e);
    renderFleet_();
    return;
  }
  state.fleet.rows = rows;
  renderFleet_();
}

/** Opens the panel view's tunnel `i` in the preview, as a redeploy of its rows. */
function openFleetTunnel(i) {
  const r = state.fleet && state.fleet.rows[i];
  if (!r) return;
  state.fleet.selected = r.id;
  openOrigin({ name: r.name, id: r.id, input: r.input, assumed: r.assumed });
  renderFleet_();
}

function openOrigin(o) {
  state.origin = o;
  state.example = 'panel-row';
  // The rows say redeploy (`db`): the request path follows the input.
  $('reqmode').value = 'auto';
  resetDocument();
  state.dead.clear();
  state.focusPtr = null;
  state.selectedReq = 0;
  state.inputText = JSON.stringify(o.input, null, 2);
  if (state.mode !== 'input') setMode('input', { silent: true });
  $('doc').value = state.inputText;
  update();
  renderOrigin();
}

/** Edits are not thrown away without asking. */
function confirmDiscard() {
  if (!state.edited) return true;
  if (!window.confirm(t('discardEdits'))) return false;
  state.planEdited = false;
  return true;
}

/** Going back to the input re-plans from it, replacing an edited plan: ask first. */
function leavePlan() {
  if (!state.planEdited) return true;
  if (!window.confirm(t('discardPlanEdits'))) return false;
  state.planEdited = false;
  return true;
}

async function loadExample(name) {
  state.edited = false;
  state.planEdited = false;
  if (name === 'panel-row' && state.origin) {
    openOrigin(state.origin);
    return;
  }
  state.example = name;
  const res = await fetch(`examples/${encodeURIComponent(name)}.json`);
  if (!res.ok) throw new Error(`examples/${name}.json: HTTP ${res.status}`);
  const text = await res.text();
  state.origin = null;
  renderOrigin();
  if (name === 'panel-backup') {
    await openPanel(text, `${name}.json`);
    // The worst tunnel first, as the table lists it.
    if (state.fleet.rows.length) openFleetTunnel(worstFirst(state.fleet.rows)[0]);
    return;
  }
  resetDocument();
  state.dead.clear();
  state.focusPtr = null;
  state.selectedReq = 0;
  state.inputText = text;
  if (state.mode !== 'input') setMode('input', { silent: true });
  $('doc').value = text;
  update();
}

async function loadFiles(fileList) {
  state.edited = false;
  state.planEdited = false;
  // A copy: the input's FileList empties when the input is reset.
  const files = [...fileList];
  const texts = await Promise.all(files.map((f) => f.text()));
  let text;
  if (texts.length === 1) text = texts[0];
  else {
    // Several files (e.g. node list response + tunnel payload): combine them as one export.
    const values = texts.map((x, i) => {
      try {
        return JSON.parse(x);
      } catch (e) {
        throw new Error(`${files[i].name}: ${e.message}`);
      }
    });
    text = JSON.stringify(values, null, 2);
  }
  state.origin = null;
  renderOrigin();
  let whole = null;
  try {
    whole = texts.length === 1 ? JSON.parse(text) : null;
  } catch {
    // not JSON: update() reports it
  }
  if (isBackup(whole)) {
    await openPanel(text, files[0].name);
    return;
  }
  resetDocument();
  state.dead.clear();
  state.focusPtr = null;
  let parsed = null;
  try {
    parsed = JSON.parse(text);
  } catch {
    // update() reports it
  }
  const mode = parsed && isPlan(parsed) ? 'plan' : 'input';
  if (mode === 'plan') {
    state.planText = text;
    state.planFromInput = false;
  } else state.inputText = text;
  setMode(mode, { silent: true });
  $('doc').value = text;
  update();
}

// ---------------------------------------------------------------- wiring

function wire() {
  $('lang').addEventListener('click', () => {
    setLang(getLang() === 'en' ? 'zh' : 'en');
    try {
      localStorage.setItem('hop-policy-lang', getLang());
    } catch {
      // storage may be disabled; the switch still works for this page
    }
    $('ed-hint').textContent = t($('ed-hint').dataset.i18n);
    // Re-render only: messages switch language, nothing is re-planned.
    renderAll();
    renderTiming();
    $('version').textContent = t('version', { v: state.version });
    renderFleet_();
  });
  $('fleet-body').addEventListener('click', (e) => {
    const chipBtn = e.target.closest('[data-fstatus], [data-frule]');
    if (chipBtn) toggleFleetChip(chipBtn);
    const b = e.target.closest('[data-open]');
    if (b && confirmDiscard()) {
      state.edited = false;
      openFleetTunnel(Number(b.dataset.open));
    }
  });
  $('fleet-close').addEventListener('click', () => {
    state.fleet = null;
    $('fleet').hidden = true;
    $('example').focus();
  });
  // A file dropped anywhere on the page is read as if loaded with "Load file…".
  document.addEventListener('dragover', (e) => {
    if (e.dataTransfer && [...e.dataTransfer.types].includes('Files')) e.preventDefault();
  });
  document.addEventListener('drop', (e) => {
    if (!e.dataTransfer || !e.dataTransfer.files.length) return;
    e.preventDefault();
    loadFiles(e.dataTransfer.files).catch(showError);
  });
  $('doc').addEventListener('input', () => update());
  $('tab-input').addEventListener('click', () => state.mode !== 'input' && leavePlan() && setMode('input'));
  $('tab-plan').addEventListener('click', () => state.mode !== 'plan' && setMode('plan'));
  $('replan').addEventListener('click', () => {
    if (!leavePlan()) return;
    state.focusPtr = null;
    setMode('input');
  });
  $('example').addEventListener('change', (e) => {
    if (!confirmDiscard()) {
      e.target.value = state.example;
      return;
    }
    loadExample(e.target.value).catch(showError);
  });
  window.addEventListener('beforeunload', (e) => {
    if (state.edited) e.preventDefault();
  });
  $('doc').addEventListener('input', () => {
    state.edited = true;
    if (state.mode === 'plan') state.planEdited = true;
  });
  $('reqmode').addEventListener('change', () => update());
  $('file').addEventListener('change', (e) => {
    if (e.target.files && e.target.files.length && confirmDiscard()) loadFiles(e.target.files).catch(showError);
    e.target.value = '';
  });
  $('requests').addEventListener('input', replay);
  $('gap').addEventListener('input', replay);
  $('fwdctl').addEventListener('click', (e) => {
    const b = e.target.closest('[data-target]');
    if (!b) return;
    const a = b.dataset.target;
    if (state.deadTargets.has(a)) state.deadTargets.delete(a);
    else state.deadTargets.add(a);
    state.selectedReq = 0;
    replay();
  });
  $('fwdctl').addEventListener('change', (e) => {
    if (e.target.id !== 'fwdsel') return;
    state.forwardId = Number(e.target.value);
    state.deadTargets.clear();
    state.selectedReq = 0;
    replay();
  });
  $('revive').addEventListener('click', () => {
    state.dead.clear();
    state.deadTargets.clear();
    replay();
    renderNodes();
  });
  const toggle = (g) => {
    const id = Number(g.dataset.node);
    const key = Number.isFinite(id) ? id : g.dataset.node;
    if (state.dead.has(key)) state.dead.delete(key);
    else state.dead.add(key);
    state.selectedReq = 0;
    replay();
    renderNodes();
  };
  $('picture').addEventListener('click', (e) => {
    const g = e.target.closest('[data-node]');
    if (g) toggle(g);
  });
  $('picture').addEventListener('keydown', (e) => {
    const g = e.target.closest('[data-node]');
    if (g && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      toggle(g);
    }
  });
  const selectRequest = (i) => {
    state.selectedReq = i;
    renderPicture_();
    renderReplay();
  };
  $('reqtabs').addEventListener('click', (e) => {
    const b = e.target.closest('[data-req]');
    if (b) selectRequest(Number(b.dataset.req));
  });
  // ARIA tabs: arrow keys (and Home / End) move the selection and the focus.
  $('reqtabs').addEventListener('keydown', (e) => {
    const b = e.target.closest('[data-req]');
    const n = $('reqtabs').children.length;
    const to = b && tabKey(e.key, Number(b.dataset.req), n);
    if (to === null || to === undefined) return;
    e.preventDefault();
    selectRequest(to);
    const again = $('reqtabs').querySelector(`[data-req="${to}"]`);
    if (again) again.focus();
  });
  $('tab-input').parentElement.addEventListener('keydown', (e) => {
    const tabs = ['tab-input', 'tab-plan'];
    const at = tabs.indexOf(e.target.id);
    const to = at >= 0 ? tabKey(e.key, at, tabs.length) : null;
    if (to === null) return;
    e.preventDefault();
    const mode = to === 0 ? 'input' : 'plan';
    if (state.mode !== mode && (mode === 'plan' || leavePlan())) setMode(mode);
    $(tabs[to]).focus();
  });
  phone.addEventListener('change', () => renderPicture_());
  // On a phone a hop's boxes wrap to the picture's width, kept here so a render never forces a layout to read it.
  new ResizeObserver(([e]) => {
    const w = Math.floor(e.contentRect.width);
    if (w === state.picWidth) return;
    state.picWidth = w;
    if (phone.matches) renderPicture_();
  }).observe($('picture'));
  new ResizeObserver(([e]) => {
    state.simWidth = Math.floor(e.contentRect.width);
    placeReplay();
  }).observe(document.querySelector('.simgrid'));
  // The editor and the focused field stick below the verdict, whose height follows its text.
  new ResizeObserver(() => {
    const h = `${$('verdict').offsetHeight}px`;
    if (document.documentElement.style.getPropertyValue('--verdict-h') !== h) document.documentElement.style.setProperty('--verdict-h', h);
  }).observe($('verdict'));
  // Once the header scrolls away the verdict is stuck to the top: on a phone it then keeps two lines.
  new IntersectionObserver(([e]) => $('verdict').classList.toggle('stuck', !e.isIntersecting)).observe(document.querySelector('header.top'));
  $('json-toggle').addEventListener('click', toggleJson);
  $('fbar').addEventListener('click', (e) => {
    const b = e.target.closest('[data-sev]');
    if (!b) return;
    if (state.hiddenSev.has(b.dataset.sev)) state.hiddenSev.delete(b.dataset.sev);
    else state.hiddenSev.add(b.dataset.sev);
    renderFindings();
  });
  $('fbar').addEventListener('change', (e) => {
    if (e.target.id !== 'fnode') return;
    state.findingNode = e.target.value;
    renderFindings();
  });
  $('nodes').addEventListener('click', (e) => {
    const b = e.target.closest('[data-fold]');
    if (!b) return;
    const id = b.dataset.fold;
    if (state.openFolds.has(id)) state.openFolds.delete(id);
    else state.openFolds.add(id);
    renderNodes();
    const again = $('nodes').querySelector(`[data-fold="${CSS.escape(id)}"]`);
    if (again) again.focus();
  });
  $('findings').addEventListener('toggle', (e) => {
    const d = e.target;
    if (!d.dataset || !d.dataset.group) return;
    if (d.open) state.openGroups.add(d.dataset.group);
    else state.openGroups.delete(d.dataset.group);
  }, true);
  $('verdict').addEventListener('click', (e) => {
    const b = e.target.closest('[data-goto]');
    if (b) selectInEditor(b.dataset.goto, { anyTab: true, reveal: true });
  });
  $('findings').addEventListener('click', (e) => {
    const cp = e.target.closest('[data-copy]');
    if (cp) {
      const [what, i] = cp.dataset.copy.split(':');
      const fix = what[0] === 'p' && what !== 'ptr' ? state.pendingFixes[Number(i)] : (state.findings[Number(i)] || {}).fix;
      if (fix) copyText(fixCopyText(fix, what.replace(/^p(?=ptr|cmd)/, '')), cp.textContent);
      return;
    }
    const fx = e.target.closest('[data-fix]');
    if (fx) {
      const f = state.findings[Number(fx.dataset.fix)];
      if (f) applyFix(f);
      return;
    }
    const go = e.target.closest('[data-go]');
    if (go) {
      const f = state.findings[Number(go.dataset.go)];
      if (!f) return;
      state.focusPtr = f.path;
      highlightPointer(f.path, { nodeId: f.nodeId });
      selectInEditor(f.path);
    }
  });
}

/** The tab index an arrow / Home / End key moves to, or null for other keys. */
function tabKey(key, at, n) {
  if (key === 'ArrowRight' || key === 'ArrowDown') return (at + 1) % n;
  if (key === 'ArrowLeft' || key === 'ArrowUp') return (at - 1 + n) % n;
  if (key === 'Home') return 0;
  if (key === 'End') return n - 1;
  return null;
}

function toggleJson() {
  const open = !document.body.classList.contains('json-open');
  document.body.classList.toggle('json-open', open);
  $('json-toggle').setAttribute('aria-expanded', String(open));
  $('json-toggle').dataset.i18n = open ? 'hideJson' : 'showJson';
  $('json-toggle').textContent = t($('json-toggle').dataset.i18n);
}

function showError(e) {
  state.banner = { kind: 'error', text: apiMessage(e) };
  renderBanner();
}

async function main() {
  let lang = 'en';
  try {
    const saved = localStorage.getItem('hop-policy-lang');
    lang = saved || ((navigator.language || '').toLowerCase().startsWith('zh') ? 'zh' : 'en');
  } catch {
    // no storage: English
  }
  setLang(lang);
  wire();
  $('ed-hint').dataset.i18n = 'inputHint';
  $('ed-hint').textContent = t('inputHint');
  $('banner').hidden = false;
  $('banner').textContent = t('loading');
  try {
    await init();
  } catch (e) {
    state.banner = { kind: 'error', key: 'wasmFailed', vars: { msg: e.message } };
    renderBanner();
    return;
  }
  try {
    state.version = version();
  } catch {
    state.version = '?';
  }
  $('version').textContent = t('version', { v: state.version });
  $('banner').hidden = true;
  await loadExample($('example').value).catch(showError);
  window.hopPreview.ready = true;
  document.body.dataset.ready = '1';
}

main();
