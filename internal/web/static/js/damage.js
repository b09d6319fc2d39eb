// The banner of a damaged session file: which lines pi cannot read (cut
// short, not JSON, a parent that does not exist...) and what that means,
// with the repair `piweb check --repair` does, after a confirmation. The
// server rewrites the file atomically and keeps the original as a backup.
import { html } from './html.js';
import * as api from './api.js';
import { toast, confirm, upsertSession } from './state.js';
import { t } from './i18n.js';

// what says in words what a kind of problem does to the session.
const what = Object.fromEntries(['truncated', 'malformed', 'null-line', 'non-object', 'missing-header',
  'duplicate-header', 'unknown-version',
    'orphan', 'cycle', 'duplicate-id', 'missing-id'].map((k) => [k, t('dmg.' + k)]));

// defects are the problems that change what pi reads (not BOM or CRLF).
export function defects(view) {
  const d = view.detail.value;
  const ps = (d && d.problems) || [];
  return ps.filter((p) => p.kind !== 'bom' && p.kind !== 'crlf').sort((a, b) => a.line - b.line);
}

export function DamageBanner({ view }) {
  const ps = defects(view);
  if (!ps.length) return null;
  const shown = ps.slice(0, 4);
  return html`<div class="banner error damage" role="alert">
    <span><strong>${t('dmg.damaged')}</strong> ${shown.map((p,
      i) => html`${i ? '; ' : ' '}${t('dmg.line', { line: p.line, what: what[p.kind] || p.kind })}`)}${
      ps.length > shown.length ? t('dmg.more', { count: ps.length - shown.length }) : ''}. ${t('dmg.notShown')}</span>
    <button class="btn small repair" type="button" onClick=${() => repair(view, ps)}>${t('dmg.repairDots')}</button>
      </div>`;
}

async function repair(view, ps) {
  const ok = await confirm(t('dmg.repairTitle'), t('dmg.repairText', { lines: ps.map((p) => p.line).join(', ') }),
    { ok: t('dmg.repair') });
  if (!ok) return;
  try {
    const r = await api.repairSession(view.id);
    if (r.session) upsertSession(r.session);
    const n = (r.changes || []).length;
    toast(n ? t('dmg.repaired', { count: n, backup: r.backup.split('/').pop() }) : t('dmg.nothing'), { ms: 8000 });
    await view.reload();
  } catch (e) {
    toast(t('dmg.failed', { why: e.message }), { kind: 'error' });
  }
}
