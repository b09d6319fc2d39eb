// Branch and fork: "Edit from here", "Retry" and "Fork" on a user message
// (js/rowactions.js draws them), "Continue from here" when reading another
// branch (?leaf=), and Clone. Editing and continuing move the leaf in place
// (pi's /tree through piweb's bridge); fork and clone write a new session
// file.
import { useState } from 'preact/hooks';
import { html } from '../js/html.js';
import * as api from '../js/api.js';
import { navigate, sessionURL, toast } from '../js/state.js';
import { liveOf } from './live.js';
import { drafts } from './store.js';
import { folderGone, goOn } from './folders.js';
import { t } from '../js/i18n.js';

// leafOf is the file's leaf as the page shows it.
export function leafOf(view) {
  const d = view.detail.value;
  return (d && d.leaf) || view.fileLeaf.value || null;
}

// navigateTo moves pi's leaf to entryId's parent, on the file as the page
// shows it: after a terminal's write pi reopens it first (as a send does),
// else this is refused as stale. It answers pi's data, null when the user
// cancelled.
async function navigateTo(view, entryId) {
  const nav = { type: 'navigate', entryId };
  if (!view.leaf && leafOf(view)) nav.expectLeaf = leafOf(view);
  const r = await api.command(view.id, nav);
  const d = r.data || {};
  return d.cancelled ? null : d;
}

export async function editFrom(view, entryId) {
  if (liveOf(view.id).busy()) return toast(t('act.stopFirst'), { kind: 'error' });
  try {
    const d = await navigateTo(view, entryId);
    if (!d) return;
    drafts.set(view.id, d.editorText || '');
    moved(view, d.leaf);
  } catch (e) {
    toast(t('act.editFailed', { why: e.message }), { kind: 'error' });
  }
}

// retryFrom sends a user message again from the point it was sent at: pi
// moves its leaf to the message's parent (as Edit from here does) and the
// same text and images are prompted there, so the new answer is a sibling
// branch of the old one (switch between them with < 1/2 >).
export async function retryFrom(view, entryId, m) {
  const l = liveOf(view.id);
  if (l.busy()) return toast(t('act.stopFirst'), { kind: 'error' });
  try {
    const d = await navigateTo(view, entryId);
    if (!d) return;
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content || [];
    const body = { type: 'prompt', message: blocks.filter((b) => b.type === 'text').map((b) => b.text).join('\n') };
    const images = blocks.filter((b) => b.type === 'image').map((b) => ({ type: 'image', data: b.data,
      mimeType: b.mimeType }));
    if (images.length) body.images = images;
    l.workerLeaf.value = d.leaf || '';
    await api.command(view.id, body);
    l.workerLeaf.value = null;
    navigate(sessionURL(view.id), { replace: true });
  } catch (e) {
    toast(t('act.retryFailed', { why: e.message }), { kind: 'error' });
  }
}

export async function forkAt(view, entryId) {
  if (folderGone(view)) return goOn(view, entryId); // a fork where pi cannot run would be one more dead end
  try {
    const r = await api.fork(view.id, entryId);
    drafts.set(r.id, r.text || '');
    navigate(sessionURL(r.id));
  } catch (e) {
    toast(t('comp.forkFailed', { why: e.message }), { kind: 'error' });
  }
}

export async function cloneBranch(view) {
  if (folderGone(view)) return goOn(view, 'branch');
  try {
    const body = view.leaf ? { leaf: view.leaf } : {};
    const r = await api.clone(view.id, body);
    navigate(sessionURL(r.id));
  } catch (e) {
    toast(t('act.cloneFailed', { why: e.message }), { kind: 'error' });
  }
}

// moved shows the session at the leaf pi moved to. pi keeps that leaf in
// memory until the next entry, so the file's leaf is still the old one;
// the view reads the new one explicitly until the composer sends.
function moved(view, leaf) {
  liveOf(view.id).workerLeaf.value = leaf || '';
  navigate(sessionURL(view.id, leaf || ''), { replace: true });
}

// ContinueBar shows when the view reads a branch other than the file's
// leaf: continuing moves the session there, optionally summarizing the
// branch left behind.
export function ContinueBar({ view }) {
  const [summarize, setSummarize] = useState(false);
  const [instructions, setInstructions] = useState('');
  const [busy, setBusy] = useState(false);
  if (!view.leaf || view.leaf === liveOf(view.id).workerLeaf.value) return null;
  const go = async () => {
    setBusy(true);
    try {
      const body = { type: 'navigate', entryId: view.leaf, summarize };
      if (summarize && instructions.trim()) body.instructions = instructions.trim();
      const r = await api.command(view.id, body);
      if (!(r.data && r.data.cancelled)) moved(view, r.data && r.data.leaf);
    } catch (e) {
      toast(t('act.continueFailed', { why: e.message }), { kind: 'error' });
    }
    setBusy(false);
  };
  return html`<div class="banner continue-bar">
    <span>${t('act.otherBranch')}</span>
    <label><input type="checkbox" class="summarize" checked=${summarize}
      onChange=${(e) => setSummarize(e.target.checked)} /> ${t('act.summarize')}</label>
    ${summarize && html`<input class="summary-instructions" placeholder=${t('act.summaryInstr')}
      value=${instructions} onInput=${(e) => setInstructions(e.target.value)} />`}
    <button class="btn small primary continue-here" type="button" disabled=${busy} onClick=${go}>
      ${t(busy ? 'act.continuing' : 'act.continueHere')}</button></div>`;
}
