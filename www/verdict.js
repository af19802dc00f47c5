// The verdict line: one sentence that says whether to save. Three states
// from the plan and its findings (the server rejects it / it saves but
// failover breaks / it saves, with its known risks), plus "saves in this
// preview only" while a previewed fix still has to be made on a panel, and
// "no verdict" while the editor does not read.

import { escapeHtml } from './jsonview.js';

const FAMILY = ['FO', 'LK', 'AC', 'LC', 'PA', 'IN'];
const family = (code) => {
  const i = FAMILY.indexOf(String(code).slice(0, 2));
  return i < 0 ? FAMILY.length : i;
};

/**
 * Known risks of GOST's design (FO005: a node whose next hop is all marked
 * failed dials the destination itself): findings with nothing to fix in the
 * plan, only a mitigation, so they never make the verdict worse.
 */
export const KNOWN_RISKS = new Set(['FO005']);
export const isKnownRisk = (f) => KNOWN_RISKS.has(f.code);

/** The mitigation a known risk's message ends with ("...; mitigation: X)" / "；缓解：X）"), or ''. */
export function mitigationOf(msg) {
  const m = /(?:mitigation: |缓解：)([^()（）]+)[)）]\s*$/.exec(String(msg || ''));
  return m ? m[1].trim() : '';
}

/** The error an operator should read first: failover rules before wiring, parity and input. */
export function worstError(findings, listed) {
  const errors = findings.filter((f) => f.severity === 'error' && !isKnownRisk(f) && listed(f));
  return errors.sort((a, b) => family(a.code) - family(b.code))[0] || null;
}

/** Where a finding is fixed: the provider builds federated commands, this panel the rest. */
export function fixSide(f) {
  const p = (f.fix && f.fix.op === 'set' && f.fix.path) || f.path || '';
  return /^(\/deployed)?\/federation\//.test(p) ? 'provider' : 'own';
}

/** A finding's message cut to its first clause, asides left out (the rest is in the findings list). */
export function firstClause(msg) {
  const s = String(msg || '');
  const m = /^(.{20,}?)(?:: |：)/.exec(s);
  const one = (m ? m[1] : s).replace(/\s*[(（][^()（）]*[)）]/g, '');
  return one.charAt(0).toUpperCase() + one.slice(1);
}

/**
 * The verdict of the shown state: `{kind, ...}` with kind 'none' (nothing
 * read yet, or the editor does not read), 'reject', 'breaks', 'pending' or
 * 'saves'. `pending` are previewed fixes still to be made on a panel.
 */
export function verdictOf({ plan, findings, stale, listed, pending }) {
  if (stale || !plan) return { kind: 'none', stale };
  if (plan.error) return { kind: 'reject', error: plan.error };
  const worst = worstError(findings, listed);
  if (worst) {
    const more = findings.filter((f) => f.severity === 'error' && !isKnownRisk(f) && listed(f)).length - 1;
    return { kind: 'breaks', worst, more, side: fixSide(worst), pending };
  }
  if (pending.length) return { kind: 'pending', pending };
  const known = [...new Set(findings.filter(isKnownRisk).map((f) => f.code))];
  return { kind: 'saves', risks: findings.filter((f) => f.severity === 'warning' && !isKnownRisk(f)).length, known };
}

const plural = (n) => (n === 0 ? 'zero' : n === 1 ? 'one' : 'other');

const ICON = { none: '…', reject: '✗', breaks: '⚠', pending: '◐', saves: '✓' };

/** "1 fix pending on the provider panel (n2)", one phrase per side. */
function pendingText(pending, { t, nodeName }) {
  const out = [];
  for (const side of ['provider', 'own']) {
    const mine = pending.filter((p) => p.side === side);
    if (!mine.length) continue;
    const nodes = [...new Set(mine.map((p) => (p.nodeId === undefined || p.nodeId === null ? '?' : nodeName(p.nodeId))))].join(', ');
    out.push(t(`pending_${side}_${plural(mine.length) === 'one' ? 'one' : 'other'}`, { n: mine.length, nodes, what: mine.map((p) => p.what).join(', ') }));
  }
  return out.join(' ');
}

function detailOf(v, ctx) {
  const { t, lang, rejectionMessage } = ctx;
  if (v.kind === 'none') return t(v.stale ? 'verdictStaleDetail' : 'verdictNoneDetail');
  if (v.kind === 'reject') return rejectionMessage(v.error);
  if (v.kind === 'saves') {
    const known = (v.known || []).map((code) => t('verdictKnown', { what: t(`knownRisk_${code}`) }));
    return [t(`verdictRisks_${plural(v.risks)}`, { n: v.risks }), ...known].join(lang === 'zh' ? '' : ' ');
  }
  if (v.kind === 'pending') return pendingText(v.pending, ctx);
  const f = v.worst;
  const msg = firstClause(lang === 'zh' && f.messageZh ? f.messageZh : f.message);
  const where = f.nodeId === undefined || f.nodeId === null ? f.code : t('verdictOnNode', { code: f.code, node: ctx.nodeLabel(f.nodeId) });
  const zh = lang === 'zh';
  return [
    zh ? `${where}：${msg}。` : `${where}: ${msg}.`,
    t(v.side === 'provider' ? 'verdictFixProvider' : 'verdictFixOwn'),
    v.more > 0 ? t(`verdictMore_${plural(v.more)}`, { n: v.more }) : '',
    v.pending && v.pending.length ? pendingText(v.pending, ctx) : '',
  ].filter(Boolean).join(zh ? '' : ' ');
}

/**
 * The verdict's markup. ctx: {t, lang, nodeLabel, nodeName, rejectionMessage(error),
 * ptr (where the server's check looked, or null), subject (the panel tunnel shown, or null)}.
 */
export function verdictMarkup(v, ctx) {
  const { t } = ctx;
  const head = `<strong class="vhead"><span aria-hidden="true">${ICON[v.kind]}</span> ${escapeHtml(t(`verdict_${v.kind}`))}</strong>`;
  const detail = `<span class="vdetail">${escapeHtml(detailOf(v, ctx))}</span>`;
  const go = v.kind === 'reject' && ctx.ptr
    ? ` <button type="button" class="btn goto" data-goto="${escapeHtml(ctx.ptr)}">${escapeHtml(t('showInInput', { ptr: ctx.ptr }))}</button>`
    : '';
  const more = v.kind === 'saves' || v.kind === 'breaks' ? ` <a class="vlink" href="#f-title">${escapeHtml(t('verdictSeeFindings'))}</a>` : '';
  // With the whole-panel view open, say which tunnel the verdict is about.
  const subject = ctx.subject ? `<span class="vsubj">${escapeHtml(ctx.subject)}</span> · ` : '';
  return `${subject}${head}${ctx.lang === 'zh' ? '' : ' '}${detail}${go}${more}`;
}
