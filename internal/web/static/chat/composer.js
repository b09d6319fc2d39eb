// The composer under an open session: Enter sends, Shift+Enter breaks the
// line; images by paste, drop or picker; "/" completes pi's commands and
// "@" file paths (complete.js). While
// the agent runs a message steers it (default) or waits as a follow-up,
// and Stop aborts (a compaction too). Above it: the phase line, queue, retry banner,
// compaction indicator, inline errors, extension status lines and the
// outside-change banner. The text box grows with its text, so that an
// empty composer stays small on a phone.
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { html } from '../js/html.js';
import { command, fork } from '../js/api.js';
import { navigate, sessionURL, toast } from '../js/state.js';
import { liveOf, addError } from './live.js';
import { activity } from './stream.js';
import { ContinueBar, leafOf } from './actions.js';
import { takeDraft, picker, sessionInfo, loadSessionInfo, lastShown, piStatus, askPiStatus, trustOf,
  trustFolder, trustSession } from './store.js';
import { parseInput, run } from './commands.js';
import { fmtTokens, fmtCost, statsParts } from '../js/util.js';
import { Controls, useNextModel } from './controls.js';
import { sessionActions } from '../js/actionlist.js';
import { ExtensionStatus } from './dialogs.js';
import { useCompletion, insertAt } from './complete.js';
import { glyph, AttachIcon } from '../js/icons.js';
import { ErrorText } from '../js/errtext.js';
import { GoneBanner } from './folders.js';
import { t } from '../js/i18n.js';

export function Composer({ view }) {
  const l = liveOf(view.id);
  const ta = useRef(null);
  const [text, setText] = useState(() => takeDraft(view.id));
  const [images, setImages] = useState([]);
  const [mode, setMode] = useState('steer');
  const next = useNextModel(view, l);
  const busy = l.busy();
  const gone = view.deleted.value || view.missing.value; // nothing to send to
  view.setDraft = (s) => { setText(s); setTimeout(() => ta.current && ta.current.focus()); };
  // insertText puts words at the caret (the Files panel's "Insert @path").
  view.insertText = (words) => {
    const el = ta.current;
    const r = insertAt(el ? el.value : text, el ? el.selectionEnd : text.length, words);
    setText(r.text);
    setTimeout(() => { const e = ta.current; if (e) { e.focus(); e.setSelectionRange(r.caret, r.caret); } });
  };

  // send sends the composer's text, or the text a completion just made.
  const send = async (typed) => {
    const message = (typed ?? (ta.current ? ta.current.value : text)).trim(); // the DOM is ahead of a pending render
    if (gone || (!message && !images.length)) return;
    const cmd = !images.length && parseInput(message);
    if (cmd) { // pi's own command: done here, never sent to the model
      setText('');
      if (!(await run(view, l, cmd))) setText(message);
      return;
    }
    if (l.own) await l.own; // a model or thinking change still being written (controls.js)
    const body = { type: 'prompt', message };
    if (images.length) body.images = images;
    let atWorker = view.leaf && view.leaf === l.workerLeaf.value; // after edit/continue (actions.js)
    // pi is left elsewhere than the page shows (reading another branch, or
    // back to current after Edit from here): it goes on from what is shown.
    if (!busy && !atWorker && (view.leaf || l.workerLeaf.value)) {
      if (!(await continueHere(view, l, view.leaf || leafOf(view)))) return;
      atWorker = !!view.leaf;
    }
    if (busy) body.streamingBehavior = mode === 'followUp' ? 'followUp' : 'steer';
    else if (!atWorker && leafOf(view) && !view.leaf) body.expectLeaf = leafOf(view); // pi's leaf is the one shown
    setText(''); setImages([]);
    try {
      await command(view.id, body);
      l.outside.value = false;
      if (atWorker) { l.workerLeaf.value = null; navigate(sessionURL(view.id), { replace: true }); }
    } catch (e) {
      setText(message); setImages(body.images || []);
      if (e.code === 'stale') l.outside.value = true;
      else addError(l, e.message);
    }
  };

  const bottom = useRef(null);
  const pi = piStatus.value; // the Status below asks for it
  const hint = usePlaceholder(ta, pi && !pi.found && !view.machine ? [t('comp.placeholderNoPi')]
    : placeholders(busy, mode));
  useLayoutEffect(() => fitText(ta.current), [text]);
  useEffect(() => followHeight(bottom.current), []);
  const comp = useCompletion(view, ta, text, setText, send);
  const stop = () => stopAgent(view, l);
  const onKey = (e) => {
    if (e.isComposing || comp.onKey(e)) return;
    if (e.key === 'Enter' && !e.shiftKey) { e.preventDefault(); send(); }
    else if (e.key === 'Escape' && busy) { e.preventDefault(); e.stopPropagation(); stop(); } // as in pi's editor
  };
  const onInput = (e) => setText(e.target.value);
  const addFiles = async (files) => {
    const add = [];
    for (const f of files) if (/^image\/(png|jpeg|gif|webp)$/.test(f.type)) add.push(await readImage(f));
    if (add.length) setImages((x) => [...x, ...add]);
  };
  const onPaste = (e) => {
    const fs = [...(e.clipboardData?.files || [])];
    if (fs.length) { e.preventDefault(); addFiles(fs); }
  };
  const onDrop = (e) => { e.preventDefault(); addFiles([...(e.dataTransfer?.files || [])]); };

  return html`<div class="chat-bottom" ref=${bottom}>
    <${ContinueBar} view=${view} />
    <${Status} view=${view} l=${l} />
    ${comp.popup}
    <${Picker} />
    <${SessionInfo} view=${view} />
    ${images.length > 0 && html`<div class="composer-images">${images.map((im, i) => html`<span key=${i} class="thumb">
      <img alt=${t('comp.attachedImage')} src=${'data:' + im.mimeType + ';base64,' + im.data} />
      <button type="button" class="btn-link x" aria-label=${t('comp.removeImage')}
        onClick=${() => setImages(images.filter((_, j) => j !== i))}>${glyph.close}</button></span>`)}</div>`}
    ${images.length > 0 && next.info && !(next.info.input || []).includes('image') && html`<div
      class="banner warn image-warn" role="alert">
      <span>${t('comp.noImages', { model: next.info.name || next.info.id })}</span>
      <button class="btn small image-drop" type="button" onClick=${() => setImages([])}
        >${t('comp.removeImages')}</button>
        </div>`}
    <form class="composer" onSubmit=${(e) => { e.preventDefault(); send(); }} onDragOver=${(e) => e.preventDefault()}
      onDrop=${onDrop}>
      <textarea ref=${ta} rows="1" name="message" aria-label=${t('comp.message')} value=${text} onInput=${onInput}
        onKeyDown=${onKey} onPaste=${onPaste}
        disabled=${gone} placeholder=${gone ? t('comp.fileGone') : hint}></textarea>
      <div class="composer-actions">
        <label class="btn ghost small attach" title=${t('comp.attachTitle')}><${AttachIcon} /><span
          class="sr-only">${t('comp.attach')}</span>
            <input type="file" accept="image/png,image/jpeg,image/gif,image/webp"
          multiple hidden
          onChange=${(e) => { addFiles([...e.target.files]); e.target.value = ''; }} /></label>
        ${busy && html`<select class="send-mode" aria-label=${t('comp.whileRunning')} value=${mode}
          onChange=${(e) => setMode(e.target.value)}>
          <option value="steer">${t('comp.steer')}</option>
            <option value="followUp">${t('comp.followUp')}</option></select>`}
        <button class="btn primary send" type="submit" disabled=${gone}>
          ${t(busy ? (mode === 'steer' ? 'comp.steer' : 'comp.queue') : 'comp.send')}</button>
        ${busy && html`<button class="btn danger stop" type="button" title=${t('comp.stopTitle')}
          onClick=${stop}>${t('comp.stop')}</button>`}
      </div>
    </form>
    <${Controls} view=${view} l=${l} next=${next} actions=${sessionActions(view)} /></div>`;
}

// continueHere moves pi to the entry the view shows last, so that a
// message typed while reading another branch (a sibling from < 1/2 >, a
// tree node) or after going back from "Edit from here" goes on from what
// the reader sees, not from where pi was left out of sight.
async function continueHere(view, l, entryId) {
  try {
    const r = await command(view.id, { type: 'navigate', entryId });
    if (r.data && r.data.cancelled) return false;
    l.workerLeaf.value = view.leaf ? entryId : null;
    return true;
  } catch (e) {
    addError(l, t('comp.cantContinue', { why: e.message }));
    return false;
  }
}

// placeholders are the text box's hints, longest first: what sending
// does now (message, steer or queue) and, where it fits, what Enter does.
function placeholders(busy, mode) {
  if (!busy) return [t('comp.placeholder'), t('comp.placeholderPhone')];
  const hint = t(mode === 'steer' ? 'comp.steerHint' : 'comp.queueHint');
  return [t('comp.enterDots', { hint }), t('comp.dots', { hint })];
}

// usePlaceholder is the longest of texts that fits on one line of the
// text box ta (else the last), following the box's width as the window
// turns or panels open: a hint chosen for another width was cut off on
// a phone.
function usePlaceholder(ta, texts) {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = ta.current;
    const set = () => setWidth(el.clientWidth);
    set();
    const ro = window.ResizeObserver ? new ResizeObserver(set) : null;
    if (ro) ro.observe(el);
    return () => ro && ro.disconnect();
  }, []);
  if (!width) return texts[texts.length - 1];
  return texts.find((x) => textWidth(ta.current, x) <= width) ?? texts[texts.length - 1];
}

let measure = null;
// textWidth is how wide text is on one line of el, with its padding.
function textWidth(el, text) {
  measure ||= document.createElement('canvas').getContext('2d');
  const s = getComputedStyle(el);
  measure.font = `${s.fontStyle} ${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
  return measure.measureText(text).width + parseFloat(s.paddingLeft) + parseFloat(s.paddingRight);
}

// fitText makes the text box as tall as its text (up to the CSS
// max-height, then it scrolls), since a fixed one is either too big for a
// phone when empty or too small for a pasted paragraph.
function fitText(el) {
  if (!el) return;
  el.style.height = '';
  if (!el.value) return; // a long placeholder would count
  const border = el.offsetHeight - el.clientHeight;
  if (el.scrollHeight > el.clientHeight) el.style.height = el.scrollHeight + border + 'px';
}

// followHeight publishes the height of the area under the conversation as
// --chat-bottom-h, for the toasts (style.css) to stand above the composer
// instead of covering its buttons.
function followHeight(el) {
  const root = document.documentElement.style;
  const set = () => root.setProperty('--chat-bottom-h', el.offsetHeight + 'px');
  set();
  const ro = window.ResizeObserver ? new ResizeObserver(set) : null;
  if (ro) ro.observe(el);
  return () => { if (ro) ro.disconnect(); root.removeProperty('--chat-bottom-h'); };
}

// stopAgent stops what pi is doing. pi's abort does not reach a running
// compaction (it has an abort controller of its own): that takes
// abort_compaction.
function stopAgent(view, l) {
  const type = l.compaction.value ? 'abort_compaction' : 'abort';
  if (type === 'abort_compaction') l.compactionStopped = true; // controls.js: no error for it
  return command(view.id, { type }).catch((x) => addError(l, x.message));
}

function readImage(f) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve({ type: 'image', data: String(r.result).replace(/^data:[^,]*,/, ''), mimeType: f.type });
    r.onerror = () => reject(r.error);
    r.readAsDataURL(f);
  });
}

const PHASES = { streaming: t('comp.phaseWorking'), compacting: t('comp.phaseCompacting'),
  retrying: t('comp.phaseRetrying'),
  settling: t('comp.phaseFinishing') };

function Status({ view, l }) {
  const phase = l.phase.value;
  const q = l.queue.value;
  const retry = l.retry.value;
  const comp = l.compaction.value;
  const act = activity.value;
  const tools = l.running.value;
  const bash = l.bash.value;
  let line = '';
  if (bash) line = t('comp.running', { what: (bash.exclude ? '!!' : '!') + bash.command });
  else if (phase === 'streaming') line = streamLine(tools, act);
  else if (PHASES[phase]) line = PHASES[phase];
  askPiStatus(); // this machine's pi: another machine's session runs that machine's
  const pi = piStatus.value;
  return html`<div class="chat-status">
    ${pi && !pi.found && !view.machine && html`<${PiMissing} />`}
    <${GoneBanner} view=${view} />
    ${(view.machine || (pi && pi.found)) && html`<${TrustBanner} view=${view} l=${l} />`}
    ${l.outside.value && html`<div class="banner warn outside-banner" role="alert">
      <span>${t('comp.outside')}</span>
      <button class="btn small" type="button" onClick=${() => { l.outside.value = false; }}>${t('comp.ok')}</button>
      <button class="btn small" type="button" onClick=${() => forkHere(view)}>${t('comp.fork')}</button></div>`}
    <${ExtensionStatus} l=${l} />
    ${retry && html`<${RetryBanner} view=${view} retry=${retry} />`}
    ${comp && html`<div class="banner compacting" role="status"><span class="spinner"></span>
      <span>${comp.reason ? t('comp.compactingWhy', { why: comp.reason }) : t('comp.compacting')}</span>
      <button class="btn small compact-cancel" type="button" onClick=${() => stopAgent(view, l)}>${
        t('common.cancel')}</button></div>`}
    ${l.errors.value.map((e) => html`<div key=${e.id} class="banner error inline-error" role="alert"><span>
      <${ErrorText} text=${e.text} /></span>
      <button class="btn-link x" type="button" aria-label=${t('comp.dismiss')}
        onClick=${() => { l.errors.value = l.errors.value.filter((x) => x !== e); }}>${glyph.close}</button></div>`)}
    ${(q.steering.length > 0 || q.followUp.length > 0) && html`<ul class="queue">
      ${q.steering.map((s, i) => html`<li key=${'s' + i} class="queued steer"><span class="muted">${
        t('comp.queuedSteer')}</span> ${s}</li>`)}
      ${q.followUp.map((s, i) => html`<li key=${'f' + i} class="queued follow"><span class="muted">${
        t('comp.queuedFollow')}</span> ${s}</li>`)}</ul>`}
    ${line && html`<div class="phase-line" data-phase=${phase}><span class="spinner"></span>${line}…</div>`}
  </div>`;
}

function RetryBanner({ view, retry }) {
  const [, tick] = useState(0);
  const left = Math.max(0, Math.ceil((retry.until - Date.now()) / 1000));
  if (left > 0) setTimeout(() => tick((x) => x + 1), 250);
  return html`<div class="banner warn retry-banner" role="status">
    <span>${t('comp.retrying' + (retry.maxAttempts ? 'Of' : '') + (left > 0 ? 'In' : ''),
      { attempt: retry.attempt, max: retry.maxAttempts, s: left, error: retry.error })}</span>
    <button class="btn small" type="button" onClick=${() => command(view.id, { type: 'abort_retry' })}>${
      t('common.cancel')}</button>
      </div>`;
}

// forkHere forks the session at its last user message on this branch.
async function forkHere(view) {
  const items = view.items.peek();
  let at = null;
  for (let i = items.length - 1; i >= 0; i--) if (items[i].m.role === 'user') { at = items[i].id; break; }
  if (!at) return toast(t('comp.nothingToFork'), { kind: 'error' });
  try {
    const r = await fork(view.id, at);
    navigate(sessionURL(r.id));
  } catch (e) {
    toast(t('comp.forkFailed', { why: e.message }), { kind: 'error' });
  }
}

// Picker is a list to choose one item from, above the composer (/fork's
// user messages, newest first); Escape or Cancel closes it.
function Picker() {
  const p = picker.value;
  if (!p) return null;
  const close = () => { picker.value = null; };
  return html`<div class="card picker" role="dialog" aria-label=${p.title}
    onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); close(); } }}>
    <div class="card-head"><strong>${p.title}</strong><button class="btn-link small picker-cancel" type="button"
      onClick=${close}>${t('common.cancel')}</button></div>
    <ul class="picker-list">${p.items.map((it) => html`<li key=${it.key}><button class="btn-link picker-item"
      type="button"
      onClick=${() => { close(); p.pick(it); }}>${it.label}</button></li>`)}</ul></div>`;
}

// SessionInfo is what pi's /session shows: the file, id, message counts,
// tokens and cost (get_session_stats).
function SessionInfo({ view }) {
  const info = sessionInfo.value;
  const open = !!info && info.id === view.id;
  const at = lastShown(view);
  useEffect(() => { // the counts follow the session while the card is open
    if (!open || info.at === at) return undefined;
    const timer = setTimeout(() => loadSessionInfo(view).catch(() => {}), 400);
    return () => clearTimeout(timer);
  }, [open, at]);
  if (!open) return null;
  const st = info.stats || {};
  const tk = st.tokens || {};
  const rows = [
    [t('comp.infoFile'), st.sessionFile || ''], ['ID', st.sessionId || view.id], [t('comp.infoName'),
      info.session.name || ''],
    [t('comp.infoMessages'), st.totalMessages != null ? statsParts(st) : ''],
    [t('comp.infoToolCalls'), st.toolCalls ?? ''],
    [t('comp.infoTokens'), t('comp.infoTokensLine', { input: fmtTokens(tk.input || 0),
      output: fmtTokens(tk.output || 0),
      cacheRead: fmtTokens(tk.cacheRead || 0), cacheWrite: fmtTokens(tk.cacheWrite || 0) })],
    [t('comp.infoCost'), st.cost != null ? fmtCost(st.cost) : ''],
  ].filter(([, v]) => v !== '');
  return html`<div class="card session-info" role="status">
    <div class="card-head"><strong>${t('comp.session')}</strong><button class="btn-link x" type="button"
      aria-label=${t('common.close')}
      onClick=${() => { sessionInfo.value = null; }}>${glyph.close}</button></div>
    <dl>${rows.map(([k, v]) => html`<div key=${k}><dt>${k}</dt><dd>${v}</dd></div>`)}</dl></div>`;
}

// PiMissing says that chatting needs pi and how to get it; the session
// still reads.
function PiMissing() {
  return html`<div class="banner warn pi-missing" role="status">
    <span>${t('comp.piMissing')} <code>npm install -g @earendil-works/pi-coding-agent</code> ${
      t('comp.piMissingAfter')}</span></div>`;
}


// TrustBanner says when the session's folder has project resources (.pi
// settings, prompts, skills, extensions…) that pi skips until the folder
// is trusted, and lets the user trust it (pi's trust.json) or trust it for
// this session only (its pi runs with --approve); piweb never does by itself.
function TrustBanner({ view, l }) {
  const [busy, setBusy] = useState(false);
  const d = view.detail.value;
  const cwd = d && d.session && d.session.cwd;
  const tr = cwd ? trustOf(cwd, view.id).value : null;
  if (!tr || !tr.skipped) return null;
  const act = (how) => async () => {
    setBusy(true);
    try { await how(view.id, cwd); } catch (e) { addError(l, t('comp.trustFailed', { why: e.message })); }
    setBusy(false);
  };
  return html`<div class="banner warn trust-banner" role="status">
    <span>${t('comp.trustSkips', { resources: (tr.resources || []).join(', ') })}</span>
    <button class="btn small trust-folder" type="button" disabled=${busy || l.busy()} onClick=${act(trustFolder)}>
      ${t(busy ? 'comp.trusting' : 'comp.trustFolder')}</button>
    <button class="btn ghost small trust-session" type="button" disabled=${busy || l.busy()}
      onClick=${act(trustSession)}
      title=${t('comp.trustSessionTitle')}>${t('comp.trustSession')}</button>
      </div>`;
}

// streamLine is the phase line while the model streams: the tools
// running, else what the model is doing.
function streamLine(tools, act) {
  if (tools.length) return t('comp.running', { what: tools.join(', ') });
  if (act === 'thinking') return t('comp.thinking');
  if (act === 'writing') return t('comp.writing');
  return act.startsWith('tool') ? t('comp.preparing', { what: act }) : t('comp.waitingModel');
}
