// The banner of a damaged session file: which lines pi cannot read (cut
// short, not JSON, a parent that does not exist...) and what that means,
// with the repair `piweb check --repair` does, after a confirmation. The
// server rewrites the file atomically and keeps the original as a backup.
import { html } from './html.js';
import * as api from './api.js';
import { toast, confirm, upsertSession } from './state.js';

// what says in words what a kind of problem does to the session.
const what = {
  truncated: 'cut short (an interrupted write)',
  malformed: 'not valid JSON',
  'null-line': 'a null line (pi cannot open the file)',
  'non-object': 'not an entry',
  'missing-header': 'no valid session header',
  'duplicate-header': 'a second session header',
  'unknown-version': 'a format version pi does not know',
  orphan: 'an entry whose parent is missing',
  cycle: 'parent links that loop',
  'duplicate-id': 'an id used twice',
  'missing-id': 'an entry without an id',
};

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
    <span><strong>This session file is damaged.</strong> ${shown.map((p,
      i) => html`${i ? '; ' : ' '}line ${p.line}: ${what[p.kind] || p.kind}`)}
      ${ps.length > shown.length ? `; and ${ps.length - shown.length} more` : ''}.
      What these lines held is not shown; pi reads the file the same way.</span>
    <button class="btn small repair" type="button" onClick=${() => repair(view, ps)}>Repair…</button></div>`;
}

async function repair(view, ps) {
  const ok = await confirm('Repair this session file?',
    'piweb rewrites the file as "piweb check --repair" does: ' +
    `unreadable lines (${ps.map((p) => p.line).join(', ')}) are dropped, ` +
    'entries whose parent is missing are linked to the entry before them, duplicate ids get fresh ones. ' +
    'The original file is kept beside it as a backup (*.piweb-backup-*).', { ok: 'Repair' });
  if (!ok) return;
  try {
    const r = await api.repairSession(view.id);
    if (r.session) upsertSession(r.session);
    const n = (r.changes || []).length;
    toast(n ? `Repaired (${n} change${n === 1
      ? '' : 's'}); the original is kept as ${r.backup.split('/').pop()}` : 'Nothing to repair', { ms: 8000 });
    await view.reload();
  } catch (e) {
    toast('Repair failed: ' + e.message, { kind: 'error' });
  }
}
