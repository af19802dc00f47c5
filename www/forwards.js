// Forwards on the page: what each entry node carries (the plan's `db`
// forward and forward_port rows, with the services `<F>_<U>_<UT>_tcp|udp`
// this plan sends), and the replay of a request that enters at a forward
// service (the trace's `forward`, `target`, `targetTries`, `skippedHealthy`).

import { escapeHtml } from './jsonview.js';
import { t } from './i18n.js';

const list = (x) => (Array.isArray(x) ? x : []);

/** Forward services the plan sends, by node: `[{nodeId, name, addr, targets, strategy, command}]`. */
export function forwardServices(plan) {
  const out = [];
  const groups = [list(plan && plan.local), ...list(plan && plan.federation).map((f) => list(f && f.commands))];
  for (const cmds of groups) {
    for (const c of cmds) {
      if (!c || (c.command !== 'AddService' && c.command !== 'UpdateService')) continue;
      for (const s of list(c.data)) {
        if (!s || !s.forwarder) continue;
        const sel = s.forwarder.selector || {};
        out.push({ nodeId: c.nodeId, name: s.name, addr: s.addr, command: c.command, targets: list(s.forwarder.nodes).map((n) => n && n.addr), strategy: sel.strategy });
      }
    }
  }
  return out;
}

/** The forward id a service name starts with (`12_5_3_tcp` -> 12), or null. */
const forwardIdOf = (name) => {
  const m = /^(\d+)_\d+_\d+(?:_(?:tcp|udp))?$/.exec(String(name));
  return m ? Number(m[1]) : null;
};

/**
 * The forwards node `nodeId` carries: its forward_port rows, each with its
 * forward row (name, targets, strategy, paused) and the services sent now.
 */
export function forwardsOnNode(plan, nodeId, services = forwardServices(plan)) {
  const db = (plan && plan.db) || {};
  const rows = list(db.forward);
  return list(db.forward_port)
    .filter((p) => p && p.node_id === nodeId)
    .map((p) => {
      const f = rows.find((r) => r && r.id === p.forward_id) || {};
      const sent = services.filter((s) => s.nodeId === nodeId && forwardIdOf(s.name) === p.forward_id);
      const targets = sent.length ? sent[0].targets : String(f.remote_addr || '').split(',').filter(Boolean);
      return { id: p.forward_id, name: f.name, port: p.port, addr: sent.length ? sent[0].addr : `:${p.port}`, targets, strategy: f.strategy, paused: f.status === 0, sent };
    });
}

/** A node card's list of the forwards it carries ('' when none). */
export function forwardsMarkup(fwds) {
  if (!fwds.length) return '';
  const uniq = (xs) => [...new Set(xs)];
  const item = (f) => {
    // An update that fails is followed by an add of the same services: each name and command once.
    const names = uniq(f.sent.map((s) => s.name));
    const protos = uniq(names.map((n) => /_(tcp|udp)$/.exec(n)?.[1]).filter(Boolean)).join('+');
    const sent = names.length ? t('fwdSent', { command: uniq(f.sent.map((s) => s.command)).join(', '), names: names.join(', ') }) : t('fwdNotSent');
    return `<li data-forward="${escapeHtml(f.id)}"><b>${escapeHtml(f.name || `#${f.id}`)}</b> <span class="nid">#${escapeHtml(f.id)}</span> ` +
      `<code>${escapeHtml(f.addr)}</code>${protos ? ` ${escapeHtml(protos)}` : ''} → ${f.targets.map((a) => `<code>${escapeHtml(a)}</code>`).join(', ')}` +
      `${f.strategy ? ` · ${escapeHtml(f.strategy)}` : ''}${f.paused ? ` · <span class="fwpaused">${escapeHtml(t('fwdPaused'))}</span>` : ''} <span class="fwsent">(${escapeHtml(sent)})</span></li>`;
  };
  return `<div class="fwds"><p class="fwhead">${escapeHtml(t('fwdOnNode', { n: fwds.length }))}</p><ul>${fwds.map(item).join('')}</ul></div>`;
}

/** Forwards the replay can enter at: one per forward id the plan sends a service for. */
export function replayableForwards(plan) {
  const seen = new Map();
  const names = new Map(list(plan && plan.db && plan.db.forward).map((f) => [f && f.id, f && f.name]));
  for (const s of forwardServices(plan)) {
    const id = forwardIdOf(s.name);
    if (id !== null && !seen.has(id)) seen.set(id, { id, name: names.get(id) || s.name, nodeId: s.nodeId });
  }
  return [...seen.values()];
}

/**
 * The replay's forward controls: which forward requests enter at (when the
 * plan sends more than one) and a toggle per target to mark it dead.
 */
export function forwardControls(fwd, forwards, deadTargets, nodeLabel) {
  const pick = forwards.length > 1
    ? `<label class="field inline"><span>${escapeHtml(t('fwdPick'))}</span><select id="fwdsel">${forwards.map((f) => `<option value="${f.id}"${f.id === fwd.forwardId ? ' selected' : ''}>${escapeHtml(`${f.name} (#${f.id})`)}</option>`).join('')}</select></label>`
    : '';
  const targets = fwd.targets
    .map((a) => `<button type="button" class="btn target${deadTargets.has(a) ? ' dead' : ''}" data-target="${escapeHtml(a)}" aria-pressed="${deadTargets.has(a)}">${escapeHtml(a)}${deadTargets.has(a) ? ` · ${escapeHtml(t('dead'))}` : ''}</button>`)
    .join('');
  const enters = t('fwdEnters', { name: fwd.name || fwd.service, id: fwd.forwardId ?? '?', service: fwd.service, node: fwd.nodeId === null ? '?' : nodeLabel(fwd.nodeId), tries: fwd.tries, n: fwd.targets.length });
  return `<p class="fwenter">${escapeHtml(enters)}</p>${pick}<div class="row wrap" role="group" aria-label="${escapeHtml(t('fwdTargetsLabel'))}">${targets}</div>`;
}

const at = (ms) => t('atTime', { s: Math.round(ms / 100) / 10 });

/** Marks on the forward's targets left by the requests before request `i`: target -> expiry (ms). */
function marksBefore(reqs, i) {
  const marks = new Map();
  for (const q of reqs.slice(0, i)) {
    for (const x of list(q.targetTries)) {
      if (x.marked && x.markedUntilMs !== null && x.markedUntilMs !== undefined) marks.set(x.target, x.markedUntilMs);
      else if (x.ok) marks.delete(x.target);
    }
  }
  return marks;
}

/**
 * Request `i` at the forward, in words: each target try (which failed, which
 * was marked and until when), the live targets blacked out by a mark, and
 * the target that carried it.
 */
export function forwardWhy(reqs, i) {
  const r = reqs[i];
  const out = [];
  const tries = list(r.targetTries);
  for (const x of tries.filter((y) => !y.ok)) {
    const until = x.markedUntilMs === null || x.markedUntilMs === undefined ? '' : at(x.markedUntilMs);
    // A live target marked failed (its dial died in the tunnel) is the blackout FO006 warns of.
    out.push({ text: t(x.marked ? 'fwdTryMarked' : 'fwdTryFailed', { n: x.try + 1, m: x.tries, target: x.target, dead: x.dead ? t('fwdDeadTag') : '', until }), risk: !x.dead });
  }
  for (const s of list(r.skippedHealthy)) out.push({ text: t('fwdBlackout', { target: s.target, until: at(s.untilMs) }), risk: true });
  const tried = new Set(list(r.targetTries).map((x) => x.target).concat(list(r.skippedHealthy).map((s) => s.target)));
  for (const [target, until] of marksBefore(reqs, i)) {
    if (!tried.has(target) && until > (r.timeMs || 0)) out.push({ text: t('fwdSkippedDead', { target, until: at(until) }) });
  }
  const carrier = tries.find((x) => x.ok);
  out.push(r.target ? { text: t('fwdCarried', { target: r.target, n: carrier ? carrier.try + 1 : 1, m: carrier ? carrier.tries : 1 }) } : { text: t('fwdNone'), risk: true });
  return out;
}
