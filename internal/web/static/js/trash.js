// The trash page: deleted sessions with Restore and Delete forever (after
// a confirmation), and the backups piweb's rewrites left beside session
// files, with the rule that prunes them (GET /api/trash, /api/backups).
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { SidebarButton } from './sidebarbutton.js';
import * as api from './api.js';
import { confirm, toast, navigate, sessionURL, loadSessions } from './state.js';
import { relTime, fmtBytes, baseName } from './util.js';

export function TrashPage() {
  const [data, setData] = useState(null);
  const [rev, setRev] = useState(0);
  useEffect(() => {
    let live = true;
    Promise.all([api.listTrash(), api.listBackups()]).then(
      ([t, b]) => live && setData({ items: t.items || [], backups: b.backups || [], maxAgeDays: b.maxAgeDays }),
      (e) => live && setData({ error: e.message }));
    return () => { live = false; };
  }, [rev]);
  const reload = () => setRev((n) => n + 1);
  const restore = async (it) => {
    try {
      const r = await api.restoreTrash(it.trashId);
      await loadSessions();
      toast('Session restored', { action: 'Open', onAction: () => r.session && navigate(sessionURL(r.session.id)) });
    } catch (e) { toast('Restore failed: ' + e.message, { kind: 'error' }); }
    reload();
  };
  const forget = async (it) => {
    const name = title(it.session);
    if (!(await confirm('Delete forever?', `"${name.slice(0, 80)}" will be deleted for good. This cannot be undone.`,
      { ok: 'Delete forever', danger: true }))) return;
    try { await api.deleteTrash(it.trashId); } catch (e) { toast('Delete failed: ' + e.message, { kind: 'error' }); }
    reload();
  };
  return html`<div class="usage trash">
    <header class="sess-head"><${SidebarButton} />
      <div class="sess-head-main"><h1 class="sess-name">Trash</h1>
        <div class="sess-facts">${data && !data.error && html`<span class="fact">
          ${data.items.length} deleted · ${data.backups.length} backups</span>`}</div></div></header>
    <div class="usage-body">
      ${!data && html`<div class="muted pad">Loading…</div>`}
      ${data && data.error && html`<div class="stop error">${data.error}</div>`}
      ${data && !data.error && html`
        <h2>Deleted sessions</h2>
        ${!data.items.length && html`<p class="muted">The trash is empty.</p>`}
        <ul class="trash-list">${data.items.map((it) => html`<li key=${it.trashId} class="trash-item">
          <div class="trash-main"><span class="sess-title">${title(it.session)}</span>
            <span class="muted">${(it.session && it.session.cwd) || ''} · deleted ${relTime(it.deleted)}</span></div>
          <div class="trash-actions"><button class="btn small" type="button"
            onClick=${() => restore(it)}>Restore</button>
            <button class="btn small danger" type="button" onClick=${() => forget(it)}>Delete forever</button></div>
              </li>`)}</ul>
        <h2>Backups</h2>
        <p class="muted backup-rule">When piweb rewrites a session file (a repair, or a fork re-pointed after its parent
          was deleted), it keeps the previous file beside it as a backup, which may hold content you deleted. Backups
          older than ${data.maxAgeDays} days are removed when piweb starts.</p>
        ${!data.backups.length && html`<p class="muted">No backups.</p>`}
        <ul class="trash-list">${data.backups.map((b) => html`<li key=${b.path} class="trash-item">
          <div class="trash-main"><span class="sess-title">${baseName(b.session)}</span>
            <span class="muted" title=${b.path}>${relTime(b.time)} · ${fmtBytes(b.size)}</span></div></li>`)}</ul>`}
    </div></div>`;
}

const title = (s) => (s && (s.name || s.firstMessage)) || '(empty session)';
