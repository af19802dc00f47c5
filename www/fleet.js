// The fleet view: a whole panel from its backup export (loaded or dropped),
// every tunnel planned as a redeploy pushes it, with its forwards, and
// checked (auditPanelJson, which also sees two tunnels' services on one
// port), in a table worst first (status column first, filter chips by status
// and by rule, cards on a phone) with each tunnel's forwards and worst
// finding. A row opens that tunnel in the preview, from the core's backupTunnelsJson, which
// drops node secrets and passwords and replaces share tokens, so nothing
// credential-like reaches the page.

import { escapeHtml } from './jsonview.js';
import { isKnownRisk, mitigationOf } from './verdict.js';

const RANK = { error: 0, warning: 1, info: 2 };

/**
 * A backup export `{version, exportedAt, nodes: [], tunnels: [], ...}`. The
 * panel leaves empty lists out, so a panel without tunnels has no `tunnels`.
 */
export function isBackup(v) {
  return !!v && typeof v === 'object' && !Array.isArray(v) && 'version' in v &&
    ('exportedAt' in v || Array.isArray(v.nodes) || Array.isArray(v.tunnels));
}

/** A plan's forwards as its redeploy stores them: `{id, name, ports}` (none without forwards). */
function forwardsOf(plan) {
  const db = plan.db || {};
  const ports = db.forward_port || [];
  return (db.forward || []).map((f) => ({
    id: f.id,
    name: f.name,
    ports: ports.filter((p) => p.forward_id === f.id).map((p) => `${p.node_id}:${p.port}`),
  }));
}

/** A row's status: refused by the server, else its worst severity (or ok). */
function statusOf(r) {
  return r.rejected ? 'rejected' : r.errors ? 'error' : r.warnings ? 'warning' : r.infos ? 'info' : 'ok';
}

/** The tunnel's row: counts by severity, the worst finding, its rules, its node count, its forwards. */
function summarise(tunnel, check) {
  const count = (sev) => check.findings.filter((f) => f.severity === sev).length;
  // Known risks of GOST's design (FO005) come after the other findings of their severity.
  const worst = [...check.findings].sort((a, b) => RANK[a.severity] - RANK[b.severity] || isKnownRisk(a) - isKnownRisk(b))[0] || null;
  // The tunnel's own nodes, as its chain rows name them (a refused plan has none).
  const nodes = new Set(((tunnel.input.db || {}).chain_tunnel || []).map((c) => c.node_id)).size;
  const row = { ...tunnel, nodes, forwards: forwardsOf(check.plan), errors: count('error'), warnings: count('warning'), infos: count('info'), worst, rejected: check.plan.error || null };
  return { ...row, status: statusOf(row), codes: [...new Set(check.findings.map((f) => f.code))].sort() };
}

/**
 * Audits every tunnel of a backup text in one call (the panel-wide rules
 * need every tunnel at once); `onProgress(done, total)` before and after,
 * with a frame between for the page to show it.
 */
export async function auditPanel(hp, text, onProgress) {
  const tunnels = JSON.parse(hp.backupTunnelsJson(text));
  onProgress(0, tunnels.length);
  await new Promise((r) => setTimeout(r, 0));
  // Both calls list the panel's tunnels in the same order.
  const audited = JSON.parse(hp.auditPanelJson(text));
  onProgress(tunnels.length, tunnels.length);
  return tunnels.map((t, i) => summarise(t, audited[i]));
}

/** A row's forwards cell: how many, and each one's name with where it listens. */
function forwardsCell(forwards) {
  if (!forwards.length) return '0';
  const items = forwards.map((f) => `<li>${escapeHtml(f.name || `#${f.id}`)} <span class="fleet-ports">${escapeHtml(f.ports.join(', '))}</span></li>`).join('');
  return `${forwards.length}<ul class="fleet-forwards">${items}</ul>`;
}

export const STATUSES = ['rejected', 'error', 'warning', 'info', 'ok'];

/** Row indexes, worst first: status, then more errors, more warnings, then id. */
export function worstFirst(rows) {
  const rank = (r) => STATUSES.indexOf(r.status);
  return rows
    .map((r, i) => i)
    .sort((a, b) => rank(rows[a]) - rank(rows[b]) || rows[b].errors - rows[a].errors || rows[b].warnings - rows[a].warnings || rows[a].id - rows[b].id);
}

/** Whether a row passes the chips: its status shown, and one of the chosen rules (if any). */
export function passes(r, filter) {
  return !filter.hiddenStatus.has(r.status) && (!filter.rules.size || r.codes.some((c) => filter.rules.has(c)));
}

function chip(attr, value, pressed, label) {
  return `<button type="button" class="btn chip" ${attr}="${escapeHtml(value)}" aria-pressed="${pressed}">${escapeHtml(label)}</button>`;
}

/** Filter chips: one per status and one per rule found, each with its number of tunnels. */
function chipsMarkup(rows, filter, t) {
  const byStatus = STATUSES.filter((s) => rows.some((r) => r.status === s))
    .map((s) => chip('data-fstatus', s, !filter.hiddenStatus.has(s), t('fleetChip', { what: t(`sev_${s}`), n: rows.filter((r) => r.status === s).length })));
  const codes = [...new Set(rows.flatMap((r) => r.codes))].sort();
  const byRule = codes.map((c) => chip('data-frule', c, filter.rules.has(c), t('fleetChip', { what: c, n: rows.filter((r) => r.codes.includes(c)).length })));
  return `<div class="chips" role="group" aria-label="${escapeHtml(t('fleetByStatus'))}">${byStatus.join('')}</div>` +
    (byRule.length ? `<div class="chips" role="group" aria-label="${escapeHtml(t('fleetByRule'))}">${byRule.join('')}</div>` : '');
}

function rowMarkup(r, i, { t, lang, selected, clause }) {
  // A refused tunnel's worst finding is the server's message itself.
  const text = (f) => (lang === 'zh' ? f.messageZh || f.message : f.message);
  const known = (f) => t('fleetKnownRisk', { what: t(`knownRisk_${f.code}`), mitigation: mitigationOf(text(f)) });
  const msg = r.rejected ? r.rejected.message : r.worst ? (isKnownRisk(r.worst) ? known(r.worst) : clause(text(r.worst))) : '';
  const worst = r.worst ? `<code>${escapeHtml(r.worst.code)}</code> ${escapeHtml(msg)}` : escapeHtml(t('fleetClean'));
  const cell = (key, html, cls = '') => `<td data-label="${escapeHtml(t(key))}"${cls ? ` class="${cls}"` : ''}>${html}</td>`;
  return `<tr class="sev-${r.status}${selected === r.id ? ' selected' : ''}" data-status="${r.status}" data-codes="${escapeHtml(r.codes.join(' '))}">` +
    cell('fleetStatus', `<span class="fleet-sev ${r.status}">${escapeHtml(t(`sev_${r.status}`))}</span>`, 'status') +
    cell('fleetName', `<button type="button" class="linkbtn" data-open="${i}" aria-label="${escapeHtml(t('fleetOpen', { name: r.name, id: r.id }))}">${escapeHtml(r.name || '—')}</button> <span class="fleet-id">#${r.id}</span>`, 'name') +
    cell('fleetType', escapeHtml(r.type)) + cell('fleetNodes', escapeHtml(r.nodes)) + cell('fleetForwards', forwardsCell(r.forwards), 'forwards') +
    cell('fleetErrors', escapeHtml(r.errors), 'num') + cell('fleetWarnings', escapeHtml(r.warnings), 'num') + cell('fleetWorst', worst, 'worst') + '</tr>';
}

/**
 * The view's markup: summary, chips, and the table worst first; `t`
 * translates, `lang` picks the finding text, `clause` shortens a message,
 * `filter` is `{hiddenStatus: Set, rules: Set}`.
 */
export function renderFleet(rows, opts) {
  const { t, filter } = opts;
  const totals = {
    tunnels: rows.length,
    errors: rows.filter((r) => r.errors > 0).length,
    warnings: rows.filter((r) => !r.errors && r.warnings > 0).length,
    forwards: rows.reduce((n, r) => n + r.forwards.length, 0),
  };
  const order = worstFirst(rows).filter((i) => passes(rows[i], filter));
  const head = `<p class="hint">${escapeHtml(t('fleetSummary', totals))}</p>${chipsMarkup(rows, filter, t)}` +
    `<p class="hint" id="fleet-shown">${escapeHtml(t('fleetShown', { n: order.length, total: rows.length }))}</p>`;
  const cols = ['fleetStatus', 'fleetName', 'fleetType', 'fleetNodes', 'fleetForwards', 'fleetErrors', 'fleetWarnings', 'fleetWorst'];
  return `${head}<table class="fleet-table" aria-describedby="fleet-shown"><thead><tr>${cols.map((k) => `<th scope="col">${escapeHtml(t(k))}</th>`).join('')}</tr></thead>` +
    `<tbody>${order.map((i) => rowMarkup(rows[i], i, opts)).join('')}</tbody></table>`;
}
