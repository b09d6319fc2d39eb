// The worktrees of the session's repository (a tab of the Changes panel):
// list them, make one on a new branch, remove one (asking again when it
// holds uncommitted work), and start a session in one.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import * as api from './api.js';
import { toast, confirm } from './state.js';
import { NewSession } from '../chat/newsession.js';
import { glyph } from './icons.js';
import { t } from './i18n.js';

export function Worktrees({ id }) {
  const [d, setD] = useState(null);
  const [rev, setRev] = useState(0);
  const [start, setStart] = useState('');
  useEffect(() => {
    let live = true;
    api.listWorktrees(id).then((x) => live && setD(x), (e) => live && setD({ error: e.message }));
    return () => { live = false; };
  }, [id, rev]);
  if (!d) return html`<div class="muted pad">…</div>`;
  if (d.error) return html`<div class="stop error">${d.error}</div>`;
  if (!d.available) return html`<div class="muted pad">${d.message}</div>`;
  const remove = async (wt) => {
    const text = t('wt.removeText', { path: wt.path, branch: wt.branch || '' });
    if (!(await confirm(t('wt.removeTitle'), text, { ok: t('prov.remove'), danger: true }))) return;
    try {
      const a = await api.removeWorktree(id, wt.path, false);
      if (a.dirty) {
        if (!(await confirm(t('wt.dirtyTitle'), t('wt.dirtyText'), { ok: t('wt.loseThem'), danger: true }))) return;
        await api.removeWorktree(id, wt.path, true);
      }
    } catch (e) {
      return toast(e.message, { kind: 'error' });
    }
    toast(t('wt.removed', { path: wt.path }));
    setRev((n) => n + 1);
  };
  return html`<div class="worktrees">
    <div class="muted small pad-s">${t('wt.repository')} <strong>${d.repo.name}</strong></div>
    <ul class="wt-list">${d.worktrees.map((wt) => html`<li key=${wt.path} class="wt" data-path=${wt.path}>
      <div class="wt-main"><span class="branch">${glyph.branch} ${wt.branch || t('wt.detached')}</span>
        ${wt.main && html`<span class="tag" title=${t('wt.mainTitle')}>${t('wt.main')}</span>`}
        ${wt.path === d.repo.root && html`<span class="tag">${t('wt.thisSession')}</span>`}
        <div class="muted small wt-path" title=${wt.path}>${wt.path}</div></div>
      <div class="wt-actions"><button class="btn ghost small wt-new" type="button"
        onClick=${() => setStart(wt.path)}>${t('ns.button')}</button>
        ${!wt.main && html`<button class="btn ghost small wt-remove" type="button"
          onClick=${() => remove(wt)}>${t('prov.remove')}</button>`}</div>
    </li>`)}</ul>
    <${AddForm} id=${id} repo=${d.repo} done=${() => setRev((n) => n + 1)} />
    ${start && html`<${NewSession} cwd=${start} close=${() => setStart('')} />`}
  </div>`;
}

function AddForm({ id, repo, done }) {
  const [branch, setBranch] = useState('');
  const [busy, setBusy] = useState(false);
  const folder = branch ? repo.name + '-' + branch.replace(/[^\p{L}\p{N}._-]+/gu, '-') : '';
  const submit = async (e) => {
    e.preventDefault();
    if (!branch.trim()) return;
    setBusy(true);
    try {
      const wt = await api.addWorktree(id, folder, branch.trim(), '');
      toast(t('wt.made', { path: wt.path }));
      setBranch('');
      done();
    } catch (x) {
      toast(x.message, { kind: 'error' });
    }
    setBusy(false);
  };
  return html`<form class="wt-add" onSubmit=${submit}>
    <label>${t('wt.newOnBranch')}<input name="branch" placeholder=${t('wt.branchName')} value=${branch}
      onInput=${(e) => setBranch(e.target.value)} /></label>
    ${folder && html`<div class="muted small">${t('wt.inFolder', { folder, repo: repo.name })}</div>`}
    <button class="btn small" type="submit" disabled=${busy || !branch.trim()}>${t('wt.create')}</button>
  </form>`;
}
