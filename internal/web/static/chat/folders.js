// Folders that exist. A session whose folder is gone (moved, deleted, or
// imported from another machine) goes on in a folder the user picks, as
// pi's "fork into" a folder does (decision 0034): the picker offers the
// recent projects that exist and checks a typed path as it is typed. New
// session uses the same check, so that it never starts in a folder that
// is not there.
import { useEffect, useRef, useState } from 'preact/hooks';
import { signal } from '@preact/signals';
import { html } from '../js/html.js';
import { useDialogFocus } from '../js/dialogfocus.js';
import * as api from '../js/api.js';
import { navigate, sessionURL, toast } from '../js/state.js';
import { drafts, trustOf } from './store.js';
import { t } from '../js/i18n.js';

// folderPick is the open picker: {title, text, action, pick(cwd)} or null.
export const folderPick = signal(null);

// folderGone reports whether session id's folder cwd is known to be gone
// (GET /api/trust answers missing; asked once per folder and session).
export function folderGone(view) {
  const d = view.detail.value;
  const cwd = d && d.session && d.session.cwd;
  if (!cwd || view.machine) return '';
  const t = trustOf(cwd, view.id).value;
  return t && t.missing ? cwd : '';
}

// useFolderCheck says whether path is an existing folder: null while
// unknown (asked a moment after the last keystroke), true or false.
export function useFolderCheck(path) {
  const [ok, setOk] = useState(null);
  useEffect(() => {
    setOk(null);
    if (!path || !path.startsWith('/')) return undefined;
    let live = true;
    const timer = setTimeout(() => api.getTrust(path, '').then((r) => live && setOk(!r.missing), () => {}), 250);
    return () => { live = false; clearTimeout(timer); };
  }, [path]);
  return ok;
}

// existingProjects is the recent projects whose folder exists, newest
// first.
export async function existingProjects() {
  const d = await api.listProjects();
  return (d.projects || []).filter((p) => !p.missing);
}

// goOn asks for a folder and makes a new session there of the whole
// session (how 'all': pi's fork into a folder), of the branch shown
// ('branch'), or before a user message (an entry id), then opens it.
export function goOn(view, how) {
  const what = t(how === 'all' ? 'fold.continueTitle' : how === 'branch' ? 'fold.cloneTitle' : 'fold.forkTitle');
  folderPick.value = {
    title: what,
    text: t('fold.text'),
    action: t(how === 'all' ? 'fold.continueThere' : how === 'branch' ? 'fold.cloneThere' : 'fold.forkThere'),
    pick: async (cwd) => {
      const r = how === 'all' ? await api.clone(view.id, { cwd, all: true })
        : how === 'branch' ? await api.clone(view.id, view.leaf ? { cwd, leaf: view.leaf } : { cwd })
          : await api.fork(view.id, how, cwd);
      if (r.text) drafts.set(r.id, r.text);
      navigate(sessionURL(r.id));
    },
  };
}

export function FolderPicker() {
  const p = folderPick.value;
  const [path, setPath] = useState('');
  const [recent, setRecent] = useState(null);
  const [busy, setBusy] = useState(false);
  const ok = useFolderCheck(path.trim());
  const box = useRef(null);
  useDialogFocus(box, !!p);
  useEffect(() => {
    if (!p) return;
    setPath('');
    existingProjects().then(setRecent, () => setRecent([]));
  }, [p]);
  if (!p) return null;
  const close = () => { folderPick.value = null; };
  const go = async (cwd) => {
    setBusy(true);
    try { await p.pick(cwd); close(); } catch (e) {
      toast(t('fold.failed', { what: p.title, why: e.message }), { kind: 'error' });
    }
    setBusy(false);
  };
  const submit = (e) => { e.preventDefault(); if (ok) go(path.trim()); };
  return html`<div class="overlay" onPointerDown=${(e) => { if (e.target === e.currentTarget) close(); }}>
    <form class="dialog folder-dialog" role="dialog" aria-modal="true" aria-label=${p.title} ref=${box}
      onSubmit=${submit}
      onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); close(); } }}>
      <h2>${p.title}</h2>
      <p class="muted">${p.text}</p>
      <label>${t('fold.folder')}<input name="folder" value=${path} placeholder=${t('fold.placeholder')} autofocus
        onInput=${(e) => setPath(e.target.value)} /></label>
      ${path.trim() && ok === false && html`<p class="stop error folder-missing" role="alert">
        ${t('fold.noFolder', { path: path.trim() })}</p>`}
      ${recent && recent.length > 0 && html`<div class="folder-recent"><span class="muted">${t('fold.recent')}</span>
        <ul>${recent.slice(0, 8).map((r) => html`<li key=${r.cwd}><button class="btn-link folder-choice"
          type="button" data-cwd=${r.cwd} disabled=${busy} onClick=${() => go(r.cwd)}>${r.cwd}</button></li>`)}</ul>
        </div>`}
      <div class="dialog-actions"><button class="btn" type="button" onClick=${close}>${t('common.cancel')}</button>
        <button class="btn primary" type="submit" disabled=${busy || !ok}>${p.action}</button></div>
    </form></div>`;
}

// GoneBanner says that the session's folder is gone and offers the ways
// on: pi cannot run the session where it was.
export function GoneBanner({ view }) {
  const cwd = folderGone(view);
  if (!cwd) return null;
  return html`<div class="banner warn gone-banner" role="status">
    <span>${t('fold.gone', { cwd })}</span>
    <button class="btn small go-on" type="button" onClick=${() => goOn(view, 'all')}>
      ${t('fold.continueDots')}</button>
    <button class="btn ghost small clone-into" type="button" onClick=${() => goOn(view, 'branch')}>
      ${t('fold.cloneDots')}</button></div>`;
}
