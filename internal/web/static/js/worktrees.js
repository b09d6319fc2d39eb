// The worktrees of the session's repository (a tab of the Changes panel):
// list them, make one on a new branch, remove one (asking again when it
// holds uncommitted work), and start a session in one.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import * as api from './api.js';
import { toast, confirm } from './state.js';
import { NewSession } from '../chat/newsession.js';
import { glyph } from './icons.js';

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
    if (!(await confirm('Remove this worktree?', `${wt.path} is deleted from disk; its branch ${wt.branch
      || ''} stays.`, { ok: 'Remove', danger: true }))) return;
    try {
      const a = await api.removeWorktree(id, wt.path, false);
      if (a.dirty) {
        if (!(await confirm('It has uncommitted changes',
          'Remove the worktree anyway? Its modified and untracked files are lost.', { ok: 'Remove and lose them',
          danger: true }))) return;
        await api.removeWorktree(id, wt.path, true);
      }
    } catch (e) {
      return toast(e.message, { kind: 'error' });
    }
    toast('Removed ' + wt.path);
    setRev((n) => n + 1);
  };
  return html`<div class="worktrees">
    <div class="muted small pad-s">Repository <strong>${d.repo.name}</strong></div>
    <ul class="wt-list">${d.worktrees.map((wt) => html`<li key=${wt.path} class="wt" data-path=${wt.path}>
      <div class="wt-main"><span class="branch">${glyph.branch} ${wt.branch || '(detached)'}</span>
        ${wt.main && html`<span class="tag" title="the repository's main worktree">main worktree</span>`}
        ${wt.path === d.repo.root && html`<span class="tag">this session</span>`}
        <div class="muted small wt-path" title=${wt.path}>${wt.path}</div></div>
      <div class="wt-actions"><button class="btn ghost small wt-new" type="button"
        onClick=${() => setStart(wt.path)}>New session</button>
        ${!wt.main && html`<button class="btn ghost small wt-remove" type="button"
          onClick=${() => remove(wt)}>Remove</button>`}</div>
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
      toast('Made ' + wt.path);
      setBranch('');
      done();
    } catch (x) {
      toast(x.message, { kind: 'error' });
    }
    setBusy(false);
  };
  return html`<form class="wt-add" onSubmit=${submit}>
    <label>New worktree on a new branch<input name="branch" placeholder="branch name" value=${branch}
      onInput=${(e) => setBranch(e.target.value)} /></label>
    ${folder && html`<div class="muted small">in the folder ${folder} beside ${repo.name}</div>`}
    <button class="btn small" type="submit" disabled=${busy || !branch.trim()}>Create</button>
  </form>`;
}
