// The Terminal panel and page: real shells in the session's folder
// (internal/terminal on the server), drawn by xterm.js over one WebSocket
// each. xterm.js is loaded on first use (a dynamic import: most pages never
// open a terminal). A shell outlives the page: a reload reattaches and the
// server replays its scrollback. Keys typed here go to the shell, never to
// the app's shortcuts, and never to pi.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { onArrows } from './roving.js';
import { PanelButtons } from './panelsize.js';
import * as api from './api.js';
import { navigate, sessionURL, toast } from './state.js';
import { adoptInlineStyles } from './cspstyle.js';
import { glyph } from './icons.js';
import { isDark } from './theme.js';
import { BAR, keyBytes, withCtrl } from './termkeys.js';
import { t } from './i18n.js';

let xtermLoad = null;
function loadXterm() {
  adoptInlineStyles();
  xtermLoad = xtermLoad || Promise.all([import('@xterm/xterm'), import('@xterm/addon-fit')]);
  return xtermLoad;
}

// TerminalPanel lists the session's terminals as tabs; full is the
// full-page view (/s/{id}/terminal).
export function TerminalPanel({ id, full }) {
  const [list, setList] = useState(null);
  const [sel, setSel] = useState('');
  const [fresh, setFresh] = useState(''); // the terminal just started here, which takes the focus
  const load = () => api.listTerminals(id).then((d) => {
    setList(d);
    const ts = d.terminals || [];
    setSel((cur) => (ts.some((t) => t.id === cur) ? cur : ts.length ? ts[ts.length - 1].id : ''));
    return d;
  }, (e) => setList({ error: e.message }));
  useEffect(() => { load(); }, [id]);
  const start = async () => {
    try {
      const term = await api.startTerminal(id, 80, 24);
      setFresh(term.id); // before its XTerm is first drawn
      await load();
      setSel(term.id);
    } catch (e) {
      toast(t('term.startFailed', { why: e.message }), { kind: 'error' });
    }
  };
  const close = async (tid) => {
    try { await api.closeTerminal(id, tid); } catch (e) { if (e.status !== 404) toast(e.message, { kind: 'error' }); }
    load();
  };
  const ts = (list && list.terminals) || [];
  return html`<div class=${'term-panel' + (full ? ' full' : '')}>
    <div class="panel-head term-head"><strong>${t('panel.terminal')}</strong>
      <div class="term-tabs" role="tablist"
        onKeyDown=${onArrows('[role=tab]', 'horizontal')}>${ts.map((x, i) => html`<span key=${x.id}
        class=${'term-tab' + (x.id === sel ? ' on' : '')}>
        <button type="button" role="tab" aria-selected=${x.id === sel} onClick=${() => setSel(x.id)}>${i + 1}</button>
        <button type="button" class="x" aria-label=${t('term.close', { n: i + 1 })}
          title=${t('term.closeTitle')}
          onClick=${() => close(x.id)}>${glyph.close}</button></span>`)}
        ${list && list.enabled && html`<button class="btn ghost small term-new" type="button"
          title=${t('term.newTitle')}
          onClick=${start}>${t('term.new')}</button>`}</div>
      ${full ? html`<a class="btn ghost small" href=${sessionURL(id)}
        onClick=${(e) => { e.preventDefault(); navigate(sessionURL(id)); }}>${t('term.conversation')}</a>`
        : html`<a class="btn ghost small only-wide" href=${api.terminalPageURL(id)} title=${t('term.fullPage')}
          onClick=${(e) => { e.preventDefault(); navigate(api.terminalPageURL(id)); }}>${glyph.fullPage}</a>
        <${PanelButtons} />`}
    </div>
    ${!list ? html`<div class="muted pad">…</div>`
      : list.error ? html`<div class="stop error">${list.error}</div>`
      : !list.enabled ? html`<div class="muted pad">${t('term.off')}</div>`
      : !ts.length ? html`<div class="muted pad term-empty">
        <p>${t('term.intro')}</p>
          <button class="btn primary" type="button" onClick=${start}>${t('term.start')}</button></div>`
      : ts.map((x) => html`<${XTerm} key=${x.id} id=${id} tid=${x.id} shown=${x.id === sel} focus=${x.id === fresh}
        onExit=${load} />`)}
  </div>`;
}

// XTerm is one terminal: xterm.js in a box that fits it, attached to the
// shell by a WebSocket, reconnecting (and redrawn from the scrollback)
// when the connection drops while the shell lives.
function XTerm({ id, tid, shown, focus, onExit }) {
  const box = useRef(null);
  const st = useRef({});
  const [status, setStatus] = useState('connecting');
  useEffect(() => {
    const s = st.current;
    let dead = false;
    loadXterm().then(([{ Terminal }, { FitAddon }]) => {
      if (dead) return;
      const term = new Terminal({ cursorBlink: true, fontSize: 13, scrollback: 5000, convertEol: false,
        fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace', theme: theme() });
      const fit = new FitAddon();
      term.loadAddon(fit);
      term.open(box.current);
      s.term = term;
      s.fit = fit;
      term.attachCustomKeyEventHandler((e) => clipboardKey(e, term));
      const enc = new TextEncoder();
      term.onData((d) => input(s, enc.encode(s.ctrl ? unCtrl(s, withCtrl(d)) : d)));
      term.onBinary((d) => input(s, Uint8Array.from(d, (c) => c.charCodeAt(0))));
      term.onResize(({ cols, rows }) => { box.current.dataset.size = rows + 'x' + cols; sendSize(s, cols, rows); });
      s.ro = new ResizeObserver(() => refit(s));
      s.ro.observe(box.current);
      // A new theme (the switch, or the system's) recolours the terminal.
      s.mo = new MutationObserver(() => { term.options.theme = theme(); });
      s.mo.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
      refit(s);
      box.current.dataset.size = term.rows + 'x' + term.cols;
      if (focus) term.focus(); // started by a click here: typing goes to the shell at once
      connect(s, id, tid, setStatus, () => { if (!dead) onExit(); }, () => dead);
    }, (e) => setStatus('error: ' + e.message));
    return () => {
      dead = true;
      if (s.ro) s.ro.disconnect();
      if (s.mo) s.mo.disconnect();
      if (s.ws) closeSocket(s.ws);
      clearTimeout(s.retry);
      if (s.term) s.term.dispose();
    };
  }, [id, tid]);
  useEffect(() => { if (shown && st.current.term) { refit(st.current); st.current.term.focus(); } }, [shown]);
  const [ctrl, setCtrl] = useState(false);
  st.current.setCtrl = setCtrl;
  return html`<div class="term-wrap" hidden=${!shown} data-status=${status}>
    <div class="term-box" ref=${box} onKeyDown=${(e) => e.stopPropagation()}></div>
    <${KeyBar} s=${st.current} ctrl=${ctrl} />
    ${status !== 'open' && html`<div class="term-status muted small">${status}</div>`}
  </div>`;
}

// closeSocket closes ws, once it is open if it is still connecting (a
// panel closed at once): the browser warns of a socket closed before it
// was established.
function closeSocket(ws) {
  ws.onmessage = null;
  if (ws.readyState === WebSocket.CONNECTING) ws.onopen = () => ws.close();
  else ws.close();
}

function connect(s, id, tid, setStatus, onExit, dead) {
  const ws = new WebSocket(api.terminalSocketURL(id, tid));
  ws.binaryType = 'arraybuffer';
  s.ws = ws;
  let first = true;
  ws.onopen = () => {
    setStatus('open');
    sendSize(s, s.term.cols, s.term.rows);
    for (const p of s.pending || []) ws.send(p);
    s.pending = [];
  };
  ws.onmessage = (m) => {
    if (typeof m.data === 'string') {
      if (m.data.includes('"exit"')) { s.exited = true; s.term.write('\r\n[the shell ended]\r\n'); }
      return;
    }
    if (first) { s.term.reset(); first = false; } // the server replays the scrollback first
    s.term.write(new Uint8Array(m.data));
  };
  ws.onclose = () => {
    if (dead()) return;
    if (s.exited) { setStatus('ended'); onExit(); return; }
    setStatus('reconnecting');
    s.retry = setTimeout(() => { if (!dead()) connect(s, id, tid, setStatus, onExit, dead); }, 1000);
  };
}

// KeyBar is the phone's row of keys a touch keyboard lacks: Esc, Tab, the
// arrows, and Ctrl, held for the next key typed (termkeys.js). A press
// keeps the focus (and the keyboard) in the terminal.
function KeyBar({ s, ctrl }) {
  const press = (e, k) => {
    e.preventDefault();
    if (!s.term) return;
    if (k === 'Ctrl') { s.ctrl = !s.ctrl; s.setCtrl(s.ctrl); }
    else input(s, new TextEncoder().encode(keyBytes(k, s.term.modes.applicationCursorKeysMode)));
    s.term.focus();
  };
  return html`<div class="term-keys only-mobile"
    role="toolbar" aria-label=${t('term.keys')}>${BAR.map((k) => html`<button
    key=${k} type="button" class=${'btn small term-key' + (k === 'Ctrl' && ctrl ? ' on' : '')} data-key=${k}
    aria-pressed=${k === 'Ctrl' ? ctrl : undefined} onPointerDown=${(e) => press(e, k)}>${k}</button>`)}</div>`;
}

// unCtrl lets go of the key bar's Ctrl once it has been used.
function unCtrl(s, d) {
  s.ctrl = false;
  s.setCtrl(false);
  return d;
}

// input sends keystrokes, keeping those typed while (re)connecting.
function input(s, bytes) {
  if (s.ws && s.ws.readyState === 1) s.ws.send(bytes);
  else (s.pending = s.pending || []).push(bytes);
}

function sendSize(s, cols, rows) {
  if (s.ws && s.ws.readyState === 1) s.ws.send(JSON.stringify({ type: 'resize', cols, rows }));
}

function refit(s) {
  if (!s.fit || !s.term.element || !s.term.element.offsetParent) return;
  try { s.fit.fit(); } catch { /* not laid out yet */ }
}

// clipboardKey gives Ctrl+Shift+C and Ctrl+Shift+V (as in desktop
// terminals) copy and paste; Ctrl+C stays the shell's interrupt.
function clipboardKey(e, term) {
  if (e.type !== 'keydown' || !e.ctrlKey || !e.shiftKey) return true;
  const k = e.key.toLowerCase();
  if (k === 'c' && term.hasSelection()) {
    navigator.clipboard.writeText(term.getSelection()).catch(() => {});
    return false;
  }
  if (k === 'v') {
    navigator.clipboard.readText().then((t) => term.paste(t), () => {});
    return false;
  }
  return true;
}

function theme() {
  return isDark() ? { background: '#15171a', foreground: '#e6e6e6', cursor: '#e6e6e6', selectionBackground: '#3a4a66' }
    : { background: '#fbfbfa', foreground: '#1d1f22', cursor: '#1d1f22', selectionBackground: '#c8d8f4' };
}

// TerminalPage is the full-page view of a session's terminals.
export function TerminalPage({ id }) {
  return html`<div class="term-page"><${TerminalPanel} id=${id} full=${true} /></div>`;
}
