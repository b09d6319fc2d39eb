// The Changes panel's git actions (changes.js draws the tree): stage,
// unstage and discard a file or a section, commit what is staged, and the
// last commits. Every action is the server's (gitx runs git); its answer
// is the tree's new state, and a refusal is shown in git's or the hook's
// words, the commit message kept. Discarding asks first, and twice for an
// untracked file, which git has no copy of.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import * as api from './api.js';
import { confirm } from './state.js';
import { ago } from './util.js';
import { t } from './i18n.js';

const drafts = new Map(); // session id -> the commit message being written

// useGitActions runs the panel's actions one at a time: busy meanwhile,
// the new state to onState, a refusal's words in error.
export function useGitActions(id, onState) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const act = async (run) => {
    setBusy(true);
    setError('');
    try {
      onState(await run());
      return true;
    } catch (e) {
      setError(e.message);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return {
    busy, error, clear: () => setError(''),
    stage: (files) => act(() => inBatches(files, (paths) => api.gitStage(id, paths))),
    unstage: (files) => act(() => inBatches(files, (paths) => api.gitUnstage(id, paths))),
    discard: async (files) => {
      const untracked = files.some((f) => f.kind === 'untracked');
      if (!(await confirmDiscard(files, untracked))) return false;
      return act(() => api.gitDiscard(id, files.map((f) => f.path), untracked));
    },
    commit: (message) => act(async () => { await api.gitCommit(id, message); return null; }),
  };
}

// inBatches sends the files' paths a thousand at a time (the server's
// bound for one request) and answers the last state.
async function inBatches(files, send) {
  let last = null;
  for (let i = 0; i < files.length; i += 1000) last = await send(files.slice(i, i + 1000).map((f) => f.path));
  return last;
}

// confirmDiscard asks before changes are thrown away, and a second time
// before an untracked file (or folder) is deleted.
async function confirmDiscard(files, untracked) {
  const what = files.length === 1 ? files[0].path : t('git.files', { count: files.length });
  if (!untracked) {
    return confirm(t('git.discardTitle', { what }), t('git.discardText'), { ok: t('git.discard'), danger: true });
  }
  if (!(await confirm(t('git.deleteTitle', { what }), t('git.deleteText'),
    { ok: t('common.delete'), danger: true }))) return false;
  return confirm(t('git.goodTitle', { what }), t('git.goodText'), { ok: t('git.good'), danger: true });
}

// FileActions are one file's buttons in its section (which: staged,
// unstaged or untracked); a click does not open the file's diff.
export function FileActions({ f, which, acts }) {
  const on = (run) => (e) => { e.preventDefault(); e.stopPropagation(); run([f]); };
  return html`<span class="git-acts">
    ${which === 'staged' ? html`<button type="button" class="btn ghost small git-unstage" disabled=${acts.busy}
      title=${t('git.unstageTitle')} onClick=${on(acts.unstage)}>${t('git.unstage')}</button>`
    : html`<button type="button" class="btn ghost small git-discard" disabled=${acts.busy}
      title=${t(which === 'untracked' ? 'git.deleteUntracked' : 'git.discardUnstaged')}
      onClick=${on(acts.discard)}>${t(which === 'untracked' ? 'common.delete' : 'git.discard')}</button>
      <button type="button" class="btn ghost small git-stage" disabled=${acts.busy}
        title=${t('git.stageTitle')} onClick=${on(acts.stage)}>${t('git.stage')}</button>`}</span>`;
}

// SectionAction is a section's button for all its files.
export function SectionAction({ files, which, acts }) {
  const all = which === 'staged' ? acts.unstage : acts.stage;
  return html`<button type="button" class=${'btn-link small git-all git-all-' + which} disabled=${acts.busy}
    onClick=${() => all(files)}>${t(which === 'staged' ? 'git.unstageAll' : 'git.stageAll')}</button>`;
}

// blocked says why nothing can be committed now, or ''.
function blocked(s) {
  if (s.state) return t('git.inProgress', { state: s.state });
  if (!s.branch && s.head) return t('git.detached');
  return '';
}

// CommitBox commits what is staged with a message; the message stays
// until a commit succeeds.
export function CommitBox({ id, s, staged, acts }) {
  const [msg, setMsgState] = useState(drafts.get(id) || '');
  const setMsg = (m) => { drafts.set(id, m); setMsgState(m); };
  const why = blocked(s);
  const can = !acts.busy && !why && staged > 0 && msg.trim() !== '';
  const commit = async () => { if (can && (await acts.commit(msg))) setMsg(''); };
  return html`<div class="git-commit">
    ${why && html`<div class="banner warn git-state" role="status">${why}</div>`}
    <textarea class="commit-msg" rows="2" aria-label=${t('git.message')} value=${msg} disabled=${!!why}
      placeholder=${t(staged ? 'git.messageHint' : 'git.stageFirst')}
      onInput=${(e) => setMsg(e.target.value)}
      onKeyDown=${(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); commit(); } }}>
      </textarea>
    <div class="git-commit-row"><span class="muted small">${staged ? t('git.nStaged', { count: staged })
      : t('git.nothingStaged')}</span>
      <button type="button" class="btn primary small commit-btn" disabled=${!can} onClick=${commit}>
        ${t(acts.busy ? 'git.working' : 'git.commit')}</button></div>
    ${acts.error && html`<${GitError} text=${acts.error} clear=${acts.clear} />`}
  </div>`;
}

// GitError says a refusal: its first line in words, what git or a hook
// printed after it as printed.
function GitError({ text, clear }) {
  const [head, ...rest] = text.split('\n');
  return html`<div class="git-error" role="alert"><p>${head}</p>
    ${rest.length > 0 && html`<pre>${rest.join('\n')}</pre>`}
    <button type="button" class="btn-link small" onClick=${clear}>${t('comp.dismiss')}</button></div>`;
}

// RecentCommits lists HEAD's last commits, read again when the tree
// changes.
export function RecentCommits({ id, rev }) {
  const [list, setList] = useState(null);
  useEffect(() => {
    let live = true;
    api.gitCommits(id, 10).then((d) => live && setList(d.commits || []), () => live && setList([]));
    return () => { live = false; };
  }, [id, rev]);
  if (!list || !list.length) return null;
  return html`<section class="git-section git-log"><h3>${t('git.recent')}</h3><ul>
    ${list.map((c) => html`<li key=${c.hash} title=${c.hash}><code class="muted">${c.short}</code>
      <span class="git-subject">${c.subject}</span>
      <span class="muted small git-by">${t('git.by', { author: c.author, when: ago(c.date) })}</span></li>`)}</ul>
    </section>`;
}
