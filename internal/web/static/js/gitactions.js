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
import { ago, plural } from './util.js';

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
  const what = files.length === 1 ? files[0].path : plural(files.length, 'file');
  if (!untracked) {
    return confirm('Discard the changes to ' + what + '?', 'Each file goes back to what is staged (or committed). '
      + 'The unstaged changes cannot be brought back.', { ok: 'Discard', danger: true });
  }
  if (!(await confirm('Delete ' + what + '?', 'It is untracked: git has no copy of it, so discarding deletes it.',
    { ok: 'Delete', danger: true }))) return false;
  return confirm('Delete ' + what + ' for good?', 'Nothing can bring an untracked file back. Delete it?',
    { ok: 'Delete for good', danger: true });
}

// FileActions are one file's buttons in its section (which: staged,
// unstaged or untracked); a click does not open the file's diff.
export function FileActions({ f, which, acts }) {
  const on = (run) => (e) => { e.preventDefault(); e.stopPropagation(); run([f]); };
  return html`<span class="git-acts">
    ${which === 'staged' ? html`<button type="button" class="btn ghost small git-unstage" disabled=${acts.busy}
      title="Unstage: keep the change in the working tree only" onClick=${on(acts.unstage)}>Unstage</button>`
    : html`<button type="button" class="btn ghost small git-discard" disabled=${acts.busy}
      title=${which === 'untracked' ? 'Delete this untracked file' : 'Discard the unstaged changes'}
      onClick=${on(acts.discard)}>${which === 'untracked' ? 'Delete' : 'Discard'}</button>
      <button type="button" class="btn ghost small git-stage" disabled=${acts.busy} title="Stage for the next commit"
        onClick=${on(acts.stage)}>Stage</button>`}</span>`;
}

// SectionAction is a section's button for all its files.
export function SectionAction({ files, which, acts }) {
  const all = which === 'staged' ? acts.unstage : acts.stage;
  return html`<button type="button" class=${'btn-link small git-all git-all-' + which} disabled=${acts.busy}
    onClick=${() => all(files)}>${which === 'staged' ? 'Unstage all' : 'Stage all'}</button>`;
}

// blocked says why nothing can be committed now, or ''.
function blocked(s) {
  if (s.state) return `A ${s.state} is in progress: finish or abort it in a terminal before committing here.`;
  if (!s.branch && s.head) return 'HEAD is detached (no branch checked out): check out a branch to commit here.';
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
    <textarea class="commit-msg" rows="2" aria-label="Commit message" value=${msg} disabled=${!!why}
      placeholder=${staged ? 'Commit message (Ctrl+Enter commits)' : 'Stage changes, then write a commit message'}
      onInput=${(e) => setMsg(e.target.value)}
      onKeyDown=${(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); commit(); } }}>
      </textarea>
    <div class="git-commit-row"><span class="muted small">${staged ? plural(staged, 'file') + ' staged'
      : 'Nothing staged'}</span>
      <button type="button" class="btn primary small commit-btn" disabled=${!can} onClick=${commit}>
        ${acts.busy ? 'Working…' : 'Commit'}</button></div>
    ${acts.error && html`<${GitError} text=${acts.error} clear=${acts.clear} />`}
  </div>`;
}

// GitError says a refusal: its first line in words, what git or a hook
// printed after it as printed.
function GitError({ text, clear }) {
  const [head, ...rest] = text.split('\n');
  return html`<div class="git-error" role="alert"><p>${head}</p>
    ${rest.length > 0 && html`<pre>${rest.join('\n')}</pre>`}
    <button type="button" class="btn-link small" onClick=${clear}>Dismiss</button></div>`;
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
  return html`<section class="git-section git-log"><h3>Recent commits</h3><ul>
    ${list.map((c) => html`<li key=${c.hash} title=${c.hash}><code class="muted">${c.short}</code>
      <span class="git-subject">${c.subject}</span>
      <span class="muted small git-by">${c.author}, ${ago(c.date)}</span></li>`)}</ul></section>`;
}
