// The Changes panel: the git working tree of the session's folder (branch,
// ahead/behind, staged, unstaged and untracked files, each with its diff),
// updated live while it is open, with stage, unstage, discard, commit and
// the last commits (gitactions.js), and what this session's own write and
// edit calls changed, each with the diff pi made, so a run can be reviewed
// without git. Diffs are drawn like the edit tool's cards (message.js).
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { onArrows } from './roving.js';
import { PanelButtons } from './panelsize.js';
import * as api from './api.js';
import { diffLines } from './highlight.js';
import { capped } from './markdown.js';
import { editDiff } from './message.js';
import { t } from './i18n.js';
import { Worktrees } from './worktrees.js';
import { useGitActions, FileActions, SectionAction, CommitBox, RecentCommits } from './gitactions.js';
import { glyph } from './icons.js';

export function ChangesPanel({ view }) {
  const [tab, setTab] = useState('git');
  return html`<div class="changes-panel">
    <div class="panel-head"><strong>${t('panel.changes')}</strong>
      <div class="seg" role="tablist" onKeyDown=${onArrows('[role=tab]', 'horizontal')}>
        <button type="button" role="tab" class=${tab === 'git' ? 'on' : ''} aria-selected=${tab === 'git'}
          onClick=${() => setTab('git')}>${t('chg.workingTree')}</button>
        <button type="button" role="tab" class=${tab === 'session' ? 'on' : ''} aria-selected=${tab === 'session'}
          onClick=${() => setTab('session')}>${t('chg.thisSession')}</button>
        <button type="button" role="tab" class=${tab === 'worktrees' ? 'on' : ''} aria-selected=${tab === 'worktrees'}
          onClick=${() => setTab('worktrees')}>${t('chg.worktrees')}</button></div>
      <${PanelButtons} />
        </div>
    <div class="changes-body">${tab === 'git' ? html`<${GitChanges}
      id=${view.id} />` : tab === 'session' ? html`<${SessionChanges} view=${view} />` : html`<${Worktrees}
      id=${view.id} />`}</div>
  </div>`;
}

// GitChanges follows the session's git topic and reloads on each change.
function GitChanges({ id }) {
  const [st, setSt] = useState(null);
  const [rev, setRev] = useState(0);
  useEffect(() => {
    let live = true;
    api.gitStatus(id).then((d) => live && setSt(d), (e) => live && setSt({ error: e.message }));
    return () => { live = false; };
  }, [id, rev]);
  useEffect(() => api.follow(api.gitTopic(id), (ev) => { if (ev.type === 'git_changed') setRev((n) => n + 1); }), [id]);
  const acts = useGitActions(id, (d) => { if (d) setSt(d); setRev((n) => n + 1); });
  if (!st) return html`<div class="muted pad">…</div>`;
  if (st.error) return html`<div class="stop error">${st.error}</div>`;
  if (!st.available) return html`<div class="muted pad git-none">${noGit[st.reason] || st.message}</div>`;
  const s = st.status;
  const staged = s.files.filter((f) => f.kind !== 'untracked' && f.staged !== '.');
  const unstaged = s.files.filter((f) => f.kind !== 'untracked' && f.unstaged !== '.');
  const untracked = s.files.filter((f) => f.kind === 'untracked');
  return html`<div class="git-changes">
    <div class="git-branch"><span class="branch">${glyph.branch} ${s.branch || t('chg.detached')}</span>
      ${s.upstream && html`<span class="muted"
        title=${t('chg.upstream', { name: s.upstream })}>${glyph.up}${s.ahead} ${glyph.down}
        ${s.behind} ${s.upstream}</span>`}
      <span class="muted">${s.head ? s.head.slice(0, 8) : t('chg.noCommits')}</span></div>
    ${s.ignoredConfig && html`<div class="muted small pad-s git-ignored-config" title=${s.ignoredConfig.join(', ')}>
      ${t('chg.ignoredConfig', { names: s.ignoredConfig.join(', ') })}</div>`}
    <${CommitBox} id=${id} s=${s} staged=${staged.length} acts=${acts} />
    ${!s.total && html`<div class="muted pad">${t('chg.clean')}</div>`}
    ${s.total > s.files.length && html`<div class="muted small pad-s">
      ${t('chg.firstListed', { count: s.total, listed: s.files.length })}</div>`}
    <${Section} title=${t('chg.staged')} files=${staged} which="staged" id=${id} rev=${rev} acts=${acts} />
    <${Section} title=${t('chg.unstaged')} files=${unstaged} which="unstaged" id=${id} rev=${rev} acts=${acts} />
    <${Section} title=${t('chg.untracked')} files=${untracked} which="untracked" id=${id} rev=${rev} acts=${acts} />
    <${RecentCommits} id=${id} rev=${rev} />
  </div>`;
}

const noGit = {
  not_repo: t('chg.notRepo'),
  no_git: t('chg.noGit'),
  no_dir: t('chg.noDir'),
  timeout: t('chg.timeout'),
};

function Section({ title, files, which, id, rev, acts }) {
  if (!files.length) return null;
  return html`<section class=${'git-section git-' + which}><h3>${title} <span class="muted">${files.length}</span>
    <${SectionAction} files=${files} which=${which} acts=${acts} /></h3>
    ${files.map((f) => html`<${GitFile} key=${which + f.path} f=${f} which=${which} id=${id} rev=${rev}
      acts=${acts} />`)}
      </section>`;
}

// GitFile is one changed file; its diff is fetched when it is opened and
// again when the tree changes while it is open.
function GitFile({ f, which, id, rev, acts }) {
  const [open, setOpen] = useState(false);
  const [d, setD] = useState(null);
  const letter = which === 'staged' ? f.staged : which === 'unstaged' ? f.unstaged : '?';
  const dir = f.path.endsWith('/');
  useEffect(() => {
    if (!open || dir) return;
    let live = true;
    api.gitDiff(id, f.path, which).then((x) => live && setD(x), (e) => live && setD({ error: e.message }));
    return () => { live = false; };
  }, [open, rev, f.path, which]);
  return html`<details class="tool ok change" data-path=${f.path} onToggle=${(e) => setOpen(e.currentTarget.open)}>
    <summary><span class=${'tool-name st-' + letter}>${letter}</span><span class="path">${f.path}</span>
      ${f.origPath && html`<span class="muted">${t('chg.from', { path: f.origPath })}</span>`}
      <${FileActions} f=${f} which=${which} acts=${acts} /></summary>
    <div class="tool-body">${dir ? html`<div class="muted pad-s">${t('chg.untrackedFolder')}</div>`
      : !d ? html`<div class="muted pad-s">…</div>`
      : d.error ? html`<div class="stop error">${d.error}</div>`
      : d.binary ? html`<div class="muted pad-s">${t('chg.binary')}</div>`
      : html`<${Hunks} text=${d.text} path=${f.path} />${d.truncated && html`<div
        class="muted small pad-s">${t('chg.cut')}</div>`}`}</div>
  </details>`;
}

// Hunks draws a git diff hunk by hunk, each collapsible under its @@ line,
// with the old and new line numbers pi's edit cards show ("+12 code"), so
// both kinds of diff read alike. git's header lines (diff --git, index,
// ---, +++) are left out: the card's title says the file.
function Hunks({ text, path }) {
  const hs = splitHunks(text);
  if (!hs.length) return html`<pre class="diff">${capped(text, (s) => diffLines(s, path))}</pre>`;
  return html`<div class="hunks">${hs.map((h, i) => html`<details key=${i} class="hunk" open>
    <summary class="muted">${h.head}</summary>
    <pre class="diff">${capped(h.body, (s) => diffLines(s, path))}</pre></details>`)}</div>`;
}

const hunkRE = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/;

// splitHunks numbers each hunk's lines: a removed line by its old number,
// an added or unchanged one by its new number.
function splitHunks(text) {
  const out = [];
  let h = null;
  let oldNo = 0;
  let newNo = 0;
  for (const line of text.replace(/\n$/, '').split('\n')) {
    const m = hunkRE.exec(line);
    if (m) {
      h = { head: line, lines: [] };
      out.push(h);
      oldNo = +m[1];
      newNo = +m[2];
      continue;
    }
    if (!h) continue;
    const c = line[0];
    if (c === '-') h.lines.push('-' + oldNo++ + ' ' + line.slice(1));
    else if (c === '+') h.lines.push('+' + newNo++ + ' ' + line.slice(1));
    else if (c === ' ') { h.lines.push(' ' + newNo++ + ' ' + line.slice(1)); oldNo++; }
    else h.lines.push(line); // "\ No newline at end of file"
  }
  for (const x of out) x.body = x.lines.join('\n');
  return out;
}

// SessionChanges lists the session's write and edit calls, reloaded when
// the session grows.
function SessionChanges({ view }) {
  // Read again whenever the session's tree or conversation changed.
  const meta = view.detail.value;
  const items = view.items.value;
  const [list, setList] = useState(null);
  useEffect(() => {
    let live = true;
    api.sessionChanges(view.id).then((d) => live && setList(d.changes || []),
      (e) => live && setList({ error: e.message }));
    return () => { live = false; };
  }, [view.id, meta, items]);
  if (!list) return html`<div class="muted pad">…</div>`;
  if (list.error) return html`<div class="stop error">${list.error}</div>`;
  if (!list.length) return html`<div class="muted pad">${t('chg.noneWritten')}</div>`;
  const files = new Set(list.map((c) => c.path));
  return html`<div class="session-changes"><div class="muted small pad-s">
    ${t('chg.inOrder', { changes: t('chg.changes', { count: list.length }), count: files.size })}</div>
    ${list.map((c) => html`<${SessionChange} key=${c.callId} c=${c} />`)}</div>`;
}

function SessionChange({ c }) {
  const state = !c.done ? 'pending' : c.error ? 'error' : 'ok';
  const text = c.tool === 'edit'
    ? editDiff({ path: c.path, edits: c.edits }, c.diff ? { details: { diff: c.diff } } : null)
    : String(c.content || '').replace(/\n$/, '').split('\n').map((l) => '+' + l).join('\n');
  return html`<details class=${'tool change ' + state} open data-path=${c.path}>
    <summary><span class="tool-name">${c.tool}</span><span class="path">${c.path}</span>
      ${c.error && html`<span class="exit bad">${t('chg.failed')}</span>`}</summary>
    <div class="tool-body"><pre class="diff">${capped(text, (s) => diffLines(s, c.path))}</pre></div></details>`;
}
