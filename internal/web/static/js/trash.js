// The trash page: deleted sessions with Restore and Delete forever (after
// a confirmation), and the backups piweb's rewrites left beside session
// files, with the rule that prunes them (GET /api/trash, /api/backups).
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { SidebarButton } from './sidebarbutton.js';
import * as api from './api.js';
import { confirm, toast, navigate, sessionURL, loadSessions } from './state.js';
import { relTime, fmtBytes, baseName } from './util.js';
import { t } from './i18n.js';

export function TrashPage() {
  const [data, setData] = useState(null);
  const [rev, setRev] = useState(0);
  useEffect(() => {
    let live = true;
    Promise.all([api.listTrash(), api.listBackups()]).then(
      ([tr, b]) => live && setData({ items: tr.items || [], backups: b.backups || [], maxAgeDays: b.maxAgeDays }),
      (e) => live && setData({ error: e.message }));
    return () => { live = false; };
  }, [rev]);
  const reload = () => setRev((n) => n + 1);
  const restore = async (it) => {
    try {
      const r = await api.restoreTrash(it.trashId);
      await loadSessions();
      toast(t('trash.restored'), { action: t('trash.open'),
        onAction: () => r.session && navigate(sessionURL(r.session.id)) });
    } catch (e) { toast(t('trash.restoreFailed', { why: e.message }), { kind: 'error' }); }
    reload();
  };
  const forget = async (it) => {
    const name = title(it.session);
    if (!(await confirm(t('trash.foreverTitle'), t('trash.foreverText', { name: name.slice(0, 80) }),
      { ok: t('trash.forever'), danger: true }))) return;
    try { await api.deleteTrash(it.trashId); } catch (e) {
      toast(t('trash.deleteFailed', { why: e.message }), { kind: 'error' });
    }
    reload();
  };
  return html`<div class="usage trash">
    <header class="sess-head"><${SidebarButton} />
      <div class="sess-head-main"><h1 class="sess-name">${t('nav.trash')}</h1>
        <div class="sess-facts">${data && !data.error && html`<span class="fact">
          ${t('trash.facts', { deleted: data.items.length,
            backups: data.backups.length })}</span>`}</div></div></header>
    <div class="usage-body">
      ${!data && html`<div class="muted pad">${t('common.loading')}</div>`}
      ${data && data.error && html`<div class="stop error">${data.error}</div>`}
      ${data && !data.error && html`
        <h2>${t('trash.deletedSessions')}</h2>
        ${!data.items.length && html`<p class="muted">${t('trash.empty')}</p>`}
        <ul class="trash-list">${data.items.map((it) => html`<li key=${it.trashId} class="trash-item">
          <div class="trash-main"><span class="sess-title">${title(it.session)}</span>
            <span class="muted">${t('trash.deletedAgo', { cwd: (it.session && it.session.cwd) || '',
              when: relTime(it.deleted) })}</span></div>
          <div class="trash-actions"><button class="btn small" type="button"
            onClick=${() => restore(it)}>${t('head.restore')}</button>
            <button class="btn small danger" type="button" onClick=${() => forget(it)}>${t('trash.forever')}</button>
              </div>
              </li>`)}</ul>
        <h2>${t('trash.backups')}</h2>
        <p class="muted backup-rule">${t('trash.backupRule', { days: data.maxAgeDays })}</p>
        ${!data.backups.length && html`<p class="muted">${t('trash.noBackups')}</p>`}
        <ul class="trash-list">${data.backups.map((b) => html`<li key=${b.path} class="trash-item">
          <div class="trash-main"><span class="sess-title">${baseName(b.session)}</span>
            <span class="muted" title=${b.path}>${relTime(b.time)} · ${fmtBytes(b.size)}</span></div></li>`)}</ul>`}
    </div></div>`;
}

const title = (s) => (s && (s.name || s.firstMessage)) || t('side.empty');
