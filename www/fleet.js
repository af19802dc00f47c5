// The fleet view: a whole panel from its backup export (loaded or dropped),
// every tunnel planned as a redeploy pushes it, with its forwards, and
// checked (auditPanelJson, which also sees two tunnels' services on one
// port), in a table with each tunnel's forwards and worst finding. A row
// opens that tunnel in the preview, from the core's backupTunnelsJson, which
// drops node secrets and passwords and replaces share tokens, so nothing
// credential-like reaches the page.

import { escapeHtml } from './jsonview.js';

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

/** The tunnel's row: counts by severity, the worst finding, its node count, its forwards. */
function summarise(tunnel, check) {
  const count = (sev) => check.findings.filter((f) => f.severity === sev).length;
  const worst = [...check.findings].sort((a, b) => RANK[a.severity] - RANK[b.severity])[0] || null;
  // The tunnel's own nodes, as its chain rows name them (a refused plan has none).
  const nodes = new Set(((tunnel.input.db || {}).chain_tunnel || []).map((c) => c.node_id)).size;
  return { ...tunnel, nodes, forwards: forwardsOf(check.plan), errors: count('error'), warnings: count('warning'), infos: count('info'), worst, rejected: check.plan.error || null };
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

/** The table's markup; `t` translates, `lang` picks the finding text. */
export function renderFleet(rows, { t, lang, selected }) {
  const totals = {
    tunnels: rows.length,
    errors: rows.filter((r) => r.errors > 0).length,
    warnings: rows.filter((r) => !r.errors && r.warnings > 0).length,
    forwards: rows.reduce((n, r) => n + r.forwards.length, 0),
  };
  const head = `<p class="hint">${escapeHtml(t('fleetSummary', totals))}</p>`;
  const body = rows
    .map((r, i) => {
      const sev = r.errors ? 'error' : r.warnings ? 'warning' : r.infos ? 'info' : 'ok';
      const worst = r.worst ? `<code>${escapeHtml(r.worst.code)}</code> ${escapeHtml(lang === 'zh' ? r.worst.messageZh || r.worst.message : r.worst.message)}` : escapeHtml(t('fleetClean'));
      return `<tr class="sev-${sev}${selected === r.id ? ' selected' : ''}">` +
        `<td>${r.id}</td>` +
        `<td><button type="button" class="linkbtn" data-open="${i}" aria-label="${escapeHtml(t('fleetOpen', { name: r.name, id: r.id }))}">${escapeHtml(r.name || '—')}</button></td>` +
        `<td>${r.type}</td><td>${r.nodes}</td><td class="forwards">${forwardsCell(r.forwards)}</td>` +
        `<td class="num">${r.errors}</td><td class="num">${r.warnings}</td>` +
        `<td class="worst"><span class="fleet-sev ${sev}">${escapeHtml(t(`sev_${sev}`))}</span> ${worst}</td></tr>`;
    })
    .join('');
  return `${head}<div class="fleet-scroll" tabindex="0" role="region" aria-label="${escapeHtml(t('fleetTitle'))}"><table class="fleet-table"><thead><tr>` +
    ['fleetId', 'fleetName', 'fleetType', 'fleetNodes', 'fleetForwards', 'fleetErrors', 'fleetWarnings', 'fleetWorst'].map((k) => `<th scope="col">${escapeHtml(t(k))}</th>`).join('') +
    `</tr></thead><tbody>${body}</tbody></table></div>`;
}
