// piweb's web app: layout, routing and keyboard. Plain ES modules, no build.
import { render } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { html } from './html.js';
import { SidebarButton } from './sidebarbutton.js';
import { route, searchOpen, sidebarOpen, sidebarHidden, panel, setPanel, closePanel, toasts, dismissToast, dialog,
  loadSessions, watchIndex, sessions, sessionsLoaded, sessionById, navigate, sessionURL, sessionOf,
  connected, listed } from './state.js';
import { Sidebar, Marks } from './sidebar.js';
import { DemoBanner } from './demo.js';
import { SessionHeader } from './header.js';
import { Conversation } from './conversation.js';
import { SearchDialog } from './search.js';
import { Palette, paletteOpen } from './palette.js';
import { TerminalPage } from './terminal.js';
import { panelNamed, panelForKey } from './panels.js';
import { fitOf, PanelGrip } from './panelsize.js';
import { UsagePage } from './usage.js';
import { TrashPage } from './trash.js';
import { SettingsPage } from './settings.js';
import { withBadge, badge } from './attention.js';
import { current, show, closeView } from './view.js';
import { relTime } from './util.js';
import { t } from './i18n.js';
import { LiveTail } from '../chat/stream.js';
import { spoken } from '../chat/live.js';
import { ShortcutsDialog, shortcutsOpen } from './shortcuts.js';
import { ShareDialog, shareAsked } from './share.js';
import { useDialogFocus } from './dialogfocus.js';
import { Starting } from '../chat/starting.js';
import { Composer } from '../chat/composer.js';
import { NewSessionButton, NewSession } from '../chat/newsession.js';
import { newSessionIn } from '../chat/store.js';
import { FolderPicker } from '../chat/folders.js';
import { glyph } from './icons.js';
import { ErrorText } from './errtext.js';
import { startFleet, readOnly, fleet, remote, sessionCount } from './fleet.js';
import { startOrder, archived, archivedHere, selecting, stopSelecting } from './order.js';

function App() {
  const r = route.value;
  useEffect(() => {
    if (r.page === 'session') show(r.id, r.leaf, r.entry);
    else closeView();
  }, [r]);
  useEffect(() => {
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  const v = r.page === 'session' ? current.value : null;
  // A session not indexed yet (just written) opens once the index has it.
  const byId = sessionById.value;
  const err = v && v.error.value;
  const known = !!(err && err.status === 404 && byId.has(v.id));
  useEffect(() => { if (known) show(r.id, r.leaf, r.entry); }, [known]);
  const vs = v && v.detail.value && sessionOf(v);
  const title = vs ? (vs.name || vs.firstMessage || 'session') : '';
  const n = badge.value;
  useEffect(() => { document.title = withBadge(title ? `${title.slice(0, 60)} · piweb` : 'piweb'); }, [title, n]);
  const p = v && shownPanel(v);
  const fit = p && fitOf(p);
  const cls = 'app' + (p ? ' with-panel panel-' + fit.mode : '') + (sidebarHidden.value ? ' side-hidden' : '');
  return html`<div class=${cls} style=${fit ? { '--panel-w': fit.width + 'px' } : {}}>
    <${Sidebar} />
    ${sidebarOpen.value && html`<div class="scrim" onClick=${() => { sidebarOpen.value = false; }}></div>`}
    <main class="main">
      <${DemoBanner} />
      ${r.page === 'session' && v && html`<${SessionPage} key=${v.id + '|' + v.leaf} view=${v} />`}
      ${r.page === 'terminal' && html`<${TerminalPage} id=${r.id} />`}
      ${r.page === 'usage' && html`<${UsagePage} />`}
      ${r.page === 'trash' && html`<${TrashPage} />`}
      ${r.page === 'settings' && html`<${SettingsPage} />`}
      ${r.page === 'home' && html`<${Home} />`}
    </main>
    ${v && html`<${SidePanel} view=${v} />`}
    ${searchOpen.value && html`<${SearchDialog} />`}
    ${paletteOpen.value && html`<${Palette} />`}
    ${newSessionIn.value && html`<${NewSession} cwd=${newSessionIn.value.cwd} machine=${newSessionIn.value.machine}
      close=${() => { newSessionIn.value = null; }} />`}
    ${shareAsked.value && html`<${ShareDialog} id=${shareAsked.value.id} leaf=${shareAsked.value.leaf}
      close=${() => { shareAsked.value = null; }} />`}
    ${dialog.value && html`<${Confirm} d=${dialog.value} />`}
    ${shortcutsOpen.value && html`<${ShortcutsDialog} />`}
    <div class="sr-only" role="status" aria-live="polite">${spoken.value}</div>
    <${FolderPicker} />
    ${!connected.value && html`<div class="conn-lost" role="status"><span class="spinner"></span>
      ${t('app.disconnected')}</div>`}
    <div class="toasts" aria-live="polite">${toasts.value.map((o) => html`<div key=${o.id} class=${'toast ' + o.kind}>
      <span>${o.kind === 'error' ? html`<${ErrorText} text=${o.text} />` : o.text}</span>
      ${o.action && html`<button class="btn-link" type="button" onClick=${() => { dismissToast(o.id); o.onAction(); }}>
        ${o.action}</button>`}
      <button class="btn-link x" type="button" aria-label=${t('comp.dismiss')} onClick=${() => dismissToast(o.id)}>${
        glyph.close}
        </button></div>`)}</div>
  </div>`;
}

// SidePanel is the open view's side panel, as the registry (panels.js)
// describes it.
function SidePanel({ view }) {
  const p = shownPanel(view);
  if (!p) return null;
  return html`<aside key=${p.name} class=${'side-panel' + (p.wide ? ' wide' : '')}><${PanelGrip} p=${p} />
    <${p.Panel} key=${p.perSession ? view.id : undefined} view=${view} id=${view.id} /></aside>`;
}

// shownPanel is the open panel the view shows: none of those that need
// the session's machine when it is read from the fleet database.
function shownPanel(view) {
  const p = panelNamed(panel.value);
  return !p || (readOnly(view) && !p.remote) ? null : p;
}

function SessionPage({ view }) {
  const err = view.error.value;
  if (err) {
    return html`<div class="page-msg"><h2>${t(err.status === 404 ? 'app.notFound' : 'app.cantOpen')}
      </h2>
      <p class="muted">${err.message}</p><a href="/"
        onClick=${(e) => { e.preventDefault(); navigate('/'); }}>${t('app.backToAll')}</a></div>`;
  }
  if (!view.detail.value && !view.loaded.value) return html`<div class="page-msg muted">${t('common.loading')}</div>`;
  return html`<div class="session"><${SessionHeader} view=${view} /><${Conversation} view=${view}
    tail=${html`<${Starting} view=${view} /><${LiveTail} view=${view} />`} />${readOnly(view) ? ''
      : html`<${Composer} view=${view} />`}</div>`;
}

// recent is the newest n sessions not archived: this machine's, and under
// serve --fleet every machine's as the sidebar lists them, each with its
// machine's name.
function recent(n) {
  const f = fleet.value;
  const newest = (a, b) => Date.parse(b.modified || 0) - Date.parse(a.modified || 0);
  // The listing puts the pins first: the newest are sorted out of it.
  const kept = (list) => list.filter((s) => !archived.value.has(s.id)).sort(newest).slice(0, n);
  if (!f) return kept([...sessions.value]);
  const all = kept([...sessions.value]).map((s) => ({ ...s, machine: f.self }));
  for (const r of remote.value.values()) all.push(...kept(r.sessions));
  return all.sort(newest).slice(0, n);
}

function Home() {
  const list = recent(12);
  const arch = archivedHere.value;
  return html`<div class="home">
    <header class="sess-head"><${SidebarButton} />
      <div class="sess-head-main"><h1 class="sess-name">${t('app.allSessions')}</h1>
        <div class="sess-facts"><span class="fact">
        ${sessionCount(listed.value.all)}${arch ? t('app.archivedCount', { count: arch }) : ''}<span
          class="keys">${t('app.ctrlK')}</span></span></div></div>
      <button class="btn ghost icon only-mobile phone-search" type="button" aria-label=${t('head.searchAll')}
        onClick=${() => { searchOpen.value = true; }}>${glyph.search}</button><${NewSessionButton} /></header>
    <div class="home-body">
      ${sessionsLoaded.value && !list.length && html`<div class="empty-home muted"><p>${t('side.noneYet')}</p>
        <p>${emptyHome()}</p></div>`}
      ${list.length > 0 && html`<h2>${t('app.recent')}</h2>`}
      <ul class="recent">${list.map((s) => html`<li key=${s.id}><a href=${sessionURL(s.id)}
        onClick=${(e) => { e.preventDefault(); navigate(sessionURL(s.id)); }}>
        <span class="sess-title"><${Marks} s=${s} />${s.name || s.firstMessage || t('side.empty')}</span>
        <span class="muted">${s.machine && html`<span class="recent-machine">${s.machine}</span> · `}${
          t('app.recentLine', { cwd: s.cwd, when: relTime(s.modified),
            count: s.messageCount || 0 })}</span></a></li>`)}</ul>
    </div></div>`;
}

function Confirm({ d }) {
  const box = useRef(null);
  useDialogFocus(box);
  return html`<div class="overlay" onPointerDown=${(e) => { if (e.target === e.currentTarget) d.resolve(false); }}>
    <div class="dialog confirm" role="alertdialog" aria-modal="true" aria-label=${d.title} ref=${box}
      onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); d.resolve(false); } }}>
      <h2>${d.title}</h2><p>${d.text}</p>
      <div class="dialog-actions"><button class="btn" type="button" onClick=${() => d.resolve(false)}
        >${t('common.cancel')}</button>
        <button class=${'btn primary' + (d.danger ? ' danger' : '')} type="button" autofocus
          onClick=${() => d.resolve(true)}>
          ${d.ok}</button></div>
    </div></div>`;
}

function typing(e) {
  const t = e.target;
  return t && (t.tagName === 'INPUT' || t.tagName === 'TEXTAREA' || t.isContentEditable);
}

// onKey: Ctrl+K search, Ctrl+Shift+P commands, / filter, ? shortcuts (shortcuts.js lists them all), Esc closes,
// j/k move between messages,
// t and f toggle the tree and files panels.
function onKey(e) {
  if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') {
    e.preventDefault();
    searchOpen.value = !searchOpen.value;
    return;
  }
  if ((e.ctrlKey || e.metaKey) && e.shiftKey && e.key.toLowerCase() === 'p') {
    e.preventDefault();
    searchOpen.value = false;
    paletteOpen.value = !paletteOpen.value;
    return;
  }
  if (e.key === 'Escape') { escape(); return; }
  if (typing(e) || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === '?') { e.preventDefault(); shortcutsOpen.value = !shortcutsOpen.value; }
  else if (e.key === '/') { e.preventDefault(); document.querySelector('.side-filter input')?.focus(); }
  else if (e.key === 'j' || e.key === 'k') { e.preventDefault(); step(e.key === 'j' ? 1 : -1); }
  else if (panelForKey(e.key) && current.value) setPanel(panelForKey(e.key).name);
}

// escape closes the innermost thing open. A menu closes itself and a
// dialog holding the focus too (their handlers stop the key); what is left
// here: the search and the palette, then a modal dialog the focus has left
// (told of the key as if pressed in it), the selection, the phone's
// sidebar, and last the side panel.
function escape() {
  if (searchOpen.value) { searchOpen.value = false; return; }
  if (paletteOpen.value) { paletteOpen.value = false; return; }
  const modals = document.querySelectorAll('[aria-modal="true"]');
  if (modals.length) {
    modals[modals.length - 1].dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    return;
  }
  if (selecting.value) stopSelecting();
  else if (sidebarOpen.value) sidebarOpen.value = false;
  else if (panel.value) closeWithFocus();
}

// closeWithFocus closes the side panel; the focus, if it was in it, goes
// to the header button that opens it again.
function closeWithFocus() {
  const name = panel.value;
  const inside = document.activeElement && document.activeElement.closest('.side-panel');
  closePanel();
  if (inside) document.querySelector(`.panel-btn[data-panel="${name}"]`)?.focus();
}

// step moves the focus to the next or previous message in view.
function step(dir) {
  const conv = document.querySelector('.conv');
  if (!conv) return;
  const rows = [...conv.querySelectorAll('.row')];
  if (!rows.length) return;
  let i = rows.findIndex((r) => r.classList.contains('focus'));
  if (i < 0) {
    const top = conv.getBoundingClientRect().top;
    i = rows.findIndex((r) => r.getBoundingClientRect().bottom > top + 4);
    i = dir > 0 ? i - 1 : i + 1;
  }
  const n = Math.max(0, Math.min(rows.length - 1, i + dir));
  rows.forEach((r) => r.classList.remove('focus'));
  rows[n].classList.add('focus');
  rows[n].scrollIntoView({ block: 'nearest' });
}

loadSessions();
watchIndex();
startFleet();
startOrder();
// The open session's requests start now, not after the first render.
// The service worker (sw.js) makes piweb installable and shows a clear
// page when piweb is not running; it never caches session data.
if ('serviceWorker' in navigator) navigator.serviceWorker.register('/sw.js').catch(() => {});

if (route.value.page === 'session') show(route.value.id, route.value.leaf, route.value.entry);
render(html`<${App} />`, document.getElementById('app'));

// emptyHome says how to start a session, "pi" as code.
function emptyHome() {
  const [before, after] = t('app.emptyHome').split('{pi}');
  return html`${before}<code>pi</code>${after}`;
}
