// App-wide state as signals, and the URL router. The URL is the source of
// truth for what is shown: /s/{id}?leaf=ID#entry, /usage, /trash, /settings, /.
import { signal, computed, effect, untracked } from '@preact/signals';
import * as api from './api.js';
import { debounce } from './util.js';
import { placed } from './sorting.js';
import { t } from './i18n.js';

export const sessions = signal([]);
export const sessionsLoaded = signal(false);
export const filter = signal('');
export const route = signal(parseRoute());
export const searchOpen = signal(false);
// renameAsked asks the session header for its rename field (the palette's Rename).
export const renameAsked = signal(false);
export const sidebarOpen = signal(false);
// sidebarHidden is whether the sidebar is collapsed on a wide screen,
// remembered; on a phone the sidebar is a drawer (sidebarOpen) instead.
export const sidebarHidden = signal(localStorage.getItem('piweb.sidebar') === 'hidden');
// panel is the name of the side panel shown (panels.js); remembered on a wide
// screen, while on a phone, where a panel covers the conversation, a
// session always opens on the conversation.
const phone = () => matchMedia('(max-width: 760px)').matches;
export const panel = signal(phone() ? '' : localStorage.getItem('piweb.panel') || '');
export const toasts = signal([]);
export const collapsed = signal(new Set(JSON.parse(localStorage.getItem('piweb.collapsed') || '[]')));

export function parseRoute(loc = window.location) {
  const m = loc.pathname.match(/^\/s\/([^/]+)\/?$/);
  const params = new URLSearchParams(loc.search);
  const entry = decodeURIComponent(loc.hash.replace(/^#/, ''));
  // Another machine's session: /s/{id}?machine=NAME, named by its ref.
  const ref = (id) => api.sessionRef(decodeURIComponent(id), params.get('machine') || '');
  if (m) return { page: 'session', id: ref(m[1]), leaf: params.get('leaf') || '', entry };
  const term = loc.pathname.match(/^\/s\/([^/]+)\/terminal\/?$/);
  if (term) return { page: 'terminal', id: ref(term[1]) };
  if (loc.pathname === '/usage') return { page: 'usage' };
  if (loc.pathname === '/trash') return { page: 'trash' };
  if (loc.pathname === '/settings') return { page: 'settings' };
  return { page: 'home' };
}

// navigate changes the URL and the route without reloading.
export function navigate(url, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  route.value = parseRoute();
  if (phone()) panel.value = ''; // a panel covers the conversation on a phone: show what was opened
  sidebarOpen.value = false;
}

// sessionURL is the page of a session (by its ref: api.sessionRef), at a
// leaf, scrolled to an entry.
export function sessionURL(ref, leaf, entry) {
  const { id, machine } = api.splitRef(ref);
  const u = new URLSearchParams();
  if (machine) u.set('machine', machine);
  if (leaf) u.set('leaf', leaf);
  const query = u.toString();
  return '/s/' + encodeURIComponent(id) + (query ? '?' + query : '') + (entry ? '#' + encodeURIComponent(entry) : '');
}

window.addEventListener('popstate', () => { route.value = parseRoute(); });

// fileRequest asks the files panel to show a file (a path in a message or
// tool call, relative to the session's cwd or absolute under it).
export const fileRequest = signal(null);
export function openFile(path) {
  fileRequest.value = { path: String(path || ''), n: Date.now() };
  panel.value = 'files';
}

// toggleSidebar shows or hides the sidebar: the drawer on a phone, the
// remembered column on a wide screen.
export function toggleSidebar() {
  if (phone()) { sidebarOpen.value = !sidebarOpen.value; return; }
  sidebarHidden.value = !sidebarHidden.value;
  if (sidebarHidden.value) localStorage.setItem('piweb.sidebar', 'hidden');
  else localStorage.removeItem('piweb.sidebar');
}

// setPanel opens panel p (a name in panels.js), or closes it when it is open.
export function setPanel(p) {
  panel.value = panel.value === p ? '' : p;
  if (!phone()) localStorage.setItem('piweb.panel', panel.value);
}

// closePanel closes the side panel.
export function closePanel() {
  setPanel(panel.value);
}

export function toggleProject(cwd) {
  const s = new Set(collapsed.value);
  if (s.has(cwd)) s.delete(cwd); else s.add(cwd);
  collapsed.value = s;
  localStorage.setItem('piweb.collapsed', JSON.stringify([...s]));
}

let toastSeq = 0;
// toast shows a short message, optionally with an action button.
export function toast(text, { action, onAction, ms = 5000, kind = '' } = {}) {
  // While piweb cannot be reached the banner says so once; failures it
  // explains are no toasts.
  if (kind === 'error' && !connected.peek()) return 0;
  const id = ++toastSeq;
  toasts.value = [...toasts.value, { id, text, action, onAction, kind }];
  setTimeout(() => dismissToast(id), ms);
  return id;
}
export function dismissToast(id) {
  toasts.value = toasts.value.filter((t) => t.id !== id);
}

// connected is whether the page reaches piweb (api.connected as a
// signal): the page says "disconnected, retrying" while it is false, and
// keeps showing what it has.
export const connected = signal(api.connected);
window.addEventListener('piweb-connection', (e) => { connected.value = e.detail.connected; });

// The sidebar's listing is paged (issue 21: 100,000 sessions are 68 MB of
// JSON): the first PAGE sessions by last activity, pins first and the
// archive left out, then PAGE more each time the user scrolls to the end
// (moreSessions), as each other machine's under serve --fleet (fleet.js).
// sessions holds them; listed what the server counted: total (those
// sessions), projects (per folder), archived, and all (every session, the
// archive included). The Archived view pages the archive alone the same
// way (archivedList).
export const PAGE = 200;
export const archivedView = signal(false);
// pinned and archived map the ref of each pinned or archived session to
// when it was (order.js keeps them, from the server's order).
export const pinned = signal(new Map());
export const archived = signal(new Map());
export const listed = signal({ total: 0, projects: {}, archived: 0, all: 0 });
export const archivedList = signal({ sessions: [], total: 0, projects: {} });
let listLimit = PAGE;
let archivedLimit = PAGE;

// view is the listing the sidebar shows: {sessions, total, projects}.
export const view = () => (archivedView.value ? archivedList.value
  : { sessions: sessions.value, total: listed.value.total, projects: listed.value.projects });

// complete says whether the page holds every session of the sidebar's
// listing, so that filters and counts can be the page's own.
export const complete = () => { const v = view(); return v.sessions.length >= v.total; };

// listOrder is the sidebar's sort as the server names it (order.js sets
// it through orderListing), so that a page holds the first sessions of
// that order, not of the newest activity.
const SERVER_SORTS = {
  activity: { sort: 'modified' }, created: { sort: 'created' }, name: { sort: 'name', order: 'asc' },
};
let listOrder = SERVER_SORTS.activity;
let listBy = 'activity';
// listSort is listOrder for the other machines' listings (fleet.js).
export const listSort = signal(listOrder);
const params = (archived, limit) => ({ archived: archived ? 'only' : 'hide', pinned: 'first', limit, ...listOrder });

// orderListing lists the sidebar in sort by (a key of sorting.js's SORTS),
// reading it again (a page of it holds that order's first sessions).
export function orderListing(by) {
  const o = SERVER_SORTS[by] || SERVER_SORTS.activity;
  if (o === listOrder) return;
  listOrder = o;
  listBy = by;
  listSort.value = o;
  if (sessionsLoaded.peek()) loadSessions();
}

// loadSessions reads the listing again, limit sessions of it (default: as
// many as shown), and the archive's in the Archived view.
export async function loadSessions(limit = listLimit) {
  if (archivedView.peek()) loadArchived();
  const mine = ++loads;
  for (let tries = 0; ; tries++) {
    const seen = changesSeen;
    try {
      const d = await api.listSessions(params(false, limit));
      if (mine !== loads) return; // a later load answers
      // A change that came while the list was on its way may be newer
      // than the list: applying the list would undo it.
      if (changesSeen !== seen && tries < 3) continue;
      listLimit = limit;
      listed.value = { total: d.total, projects: d.projects || {}, archived: d.archived, all: d.total + d.archived };
      sessions.value = d.sessions;
    } catch (e) {
      toast(t('state.listFailed', { why: e.message }), { kind: 'error' });
    }
    break;
  }
  sessionsLoaded.value = true;
}

// loadArchived reads limit sessions of the archive (default: as many as
// shown).
export async function loadArchived(limit = archivedLimit) {
  try {
    const d = await api.listSessions(params(true, limit));
    archivedLimit = limit;
    archivedList.value = { sessions: d.sessions, total: d.total, projects: d.projects || {} };
  } catch (e) {
    toast(t('state.archiveFailed', { why: e.message }), { kind: 'error' });
  }
}

// moreSessions lists PAGE more sessions of the sidebar's listing, unless
// a load is on its way.
let more = null;
export function moreSessions() {
  if (more || complete()) return more;
  more = (archivedView.peek() ? loadArchived(archivedLimit + PAGE) : loadSessions(listLimit + PAGE))
    .finally(() => { more = null; });
  return more;
}

// filtered is the server's answer to the sidebar's filter while the page
// holds only part of the listing ({text, sessions, total, projects}),
// else null: the filter then looks at the sessions of the page.
export const filtered = signal(null);
const filterOnServer = debounce(async (text) => {
  try {
    const d = await api.listSessions({ ...params(archivedView.peek(), PAGE), q: text });
    if (filter.peek() === text) filtered.value = { text, ...d };
  } catch (e) {
    toast(t('state.filterFailed', { why: e.message }), { kind: 'error' });
  }
}, 250);
effect(() => {
  const text = filter.value.trim();
  archivedView.value; // a filter of the other view
  if (!text || untracked(complete)) filtered.value = null;
  else filterOnServer(text);
});

// loads numbers the calls of loadSessions (the latest one's answer wins);
// changesSeen counts the index topic's changes applied to the list.
let loads = 0;
let changesSeen = 0;

// upsertSession applies an index event to the list without a refetch:
// the sidebar's list leaves the archive out (as the listing the server
// gives it, and its unread count), so an archived session's change goes
// to the Archived view's list instead, while it is shown. One the page
// already holds (archived here, the list not read again yet) is updated.
// The session lands where the sidebar's sort puts it; past the end of a
// page that holds part of the listing, the next page brings it (unless
// it is in view). total is the listing's count without item when new.
export function upsertSession(item, total = listed.peek().total) {
  const inArchive = archived.peek().has(item.id);
  const held = (list) => list.some((s) => s.id === item.id);
  const r = route.peek();
  const opts = (list, n) => ({ by: listBy, pinned: pinned.peek(), partial: list.length < n,
    keep: r.page === 'session' && r.id === item.id });
  const l = sessions.peek();
  if (!inArchive || held(l)) sessions.value = placed(l, item, opts(l, total));
  const a = archivedList.peek();
  if (archivedView.peek() && (inArchive || held(a.sessions))) {
    archivedList.value = { ...a, sessions: placed(a.sessions, item, opts(a.sessions, a.total)) };
  }
}

// removeSession drops session id from the lists.
export function removeSession(id) {
  sessions.value = sessions.value.filter((s) => s.id !== id);
  const a = archivedList.peek();
  if (a.sessions.some((s) => s.id === id)) {
    archivedList.value = { ...a, sessions: a.sessions.filter((s) => s.id !== id), total: a.total - 1 };
  }
}

const reload = debounce(loadSessions, 300);

// count adds n to the counts of the listing, for session id (in folder
// cwd, when known) added or removed since it was read (the next read
// counts again): to the archive's when it is archived (unless the list
// holds it: archived here, the list not read again yet), else to the
// sidebar list's and its folder's (a new folder is listed at once: the
// settings page offers it).
function count(id, n, cwd) {
  const l = listed.peek();
  const inArchive = archived.peek().has(id) && !sessionById.peek().has(id);
  const projects = inArchive || !cwd ? l.projects : withFolder(l.projects, cwd, n);
  listed.value = { ...l, projects, total: l.total + (inArchive ? 0 : n), archived: l.archived + (inArchive ? n : 0),
    all: l.all + n };
}

// withFolder is projects (folder -> sessions) with n added to cwd's.
function withFolder(projects, cwd, n) {
  const p = { ...projects };
  const c = (p[cwd] || 0) + n;
  if (c > 0) p[cwd] = c; else delete p[cwd];
  return p;
}

// watchIndex follows the index topic so that the sidebar stays current.
export function watchIndex() {
  api.follow(api.indexTopic, (ev) => {
    if (/^session_|^running$/.test(ev.type)) changesSeen++;
    switch (ev.type) {
      case 'session_added':
        if (ev.session) upsertSession(ev.session, listed.peek().total); // counted after: the page had all or part
        count(ev.session?.id, 1, ev.session?.cwd);
        break;
      case 'session_updated':
        if (ev.session) upsertSession(ev.session);
        break;
      case 'session_removed':
        count(ev.id, -1, sessionById.peek().get(ev.id)?.cwd);
        removeSession(ev.id);
        break;
      case 'running':
        sessions.value = sessions.value.map((s) => (s.id === ev.id ? { ...s, running: ev.running } : s));
        break;
      case 'attention': // js/attention.js reacts
        attentionEvent.value = ev;
        break;
      case 'attention_state': // read marks or mutes changed, on any device
        marksEvent.value = ev;
        break;
      case 'order_state': // pins or the archive changed, on any device (js/order.js)
        orderEvent.value = ev;
        reload(); // the listing leaves the archive out and puts the pins first
        break;
      case 'fleet_changed': // a machine of the fleet pushed (js/fleet.js reacts)
        fleetEvent.value = ev;
        break;
      case 'hello': // (re)connected: changes may have been missed meanwhile
      case 'reset':
        reload();
        fleetEvent.value = { type: 'fleet_changed', machine: '' };
        marksEvent.value = { type: 'reload' };
        orderEvent.value = { type: 'reload' };
        break;
    }
  });
}

// fleetEvent is the index topic's latest "fleet_changed" event (a
// machine's push committed; machine "" after a reconnection: any may have).
export const fleetEvent = signal(null);

// attentionEvent is the index topic's latest "attention" event: a run
// ended, failed, or waits for an answer (js/attention.js).
export const attentionEvent = signal(null);
// marksEvent is the latest "attention_state" event (the user's read marks
// and mutes as the server keeps them), or {type: 'reload'} after a
// reconnection.
export const marksEvent = signal(null);
// orderEvent is the latest "order_state" event (the pins and archive as
// the server keeps them), or {type: 'reload'} after a reconnection.
export const orderEvent = signal(null);

export const sessionById = computed(() => new Map(sessions.value.map((s) => [s.id, s])));

// sessionOf is what the page knows of an open session: its listing item,
// which index events keep current (size, time, count, name, first
// message), over the metadata fetched when the view opened, which may be
// older (pi 1.x writes its system message before the first user message).
export function sessionOf(view) {
  const d = view.detail.value;
  return { ...((d && d.session) || {}), ...(sessionById.value.get(view.id) || {}) };
}

// dialog is the open confirmation dialog: {title, text, ok, danger, resolve}.
export const dialog = signal(null);

// confirm asks in an in-page dialog (never window.confirm, which blocks
// the page) and resolves to true when the user agrees.
export function confirm(title, text, { ok = t('dlg.ok'), danger = false } = {}) {
  return new Promise((resolve) => {
    dialog.value = { title, text, ok, danger, resolve: (v) => { dialog.value = null; resolve(v); } };
  });
}
