// Attention: which sessions run, wait for an answer (an extension dialog)
// or have activity the user has not seen, and telling the user when a run
// ends, fails or waits: a toast in the page, a count in the tab title and
// on the favicon, and (chat/notify.js) a sound or system notification
// when the tab or session is not in view. Unless muted, globally or per
// session.
//
// Running and waiting come from the index topic ("running", "attention"
// events), so every tab sees them. Read marks are kept in localStorage, so
// every tab of the browser shares them (the storage event): a session is
// unread when its last activity (the listing's modified) is newer than
// when it was last seen, or than when piweb first ran in this browser.
import { signal, computed, effect } from '@preact/signals';
import { sessions, sessionById, attentionEvent, route, navigate, sessionURL, toast } from './state.js';
import { alertUser } from '../chat/notify.js';

const READ = 'piweb.read';
const SINCE = 'piweb.readSince';
const MUTE = 'piweb.mute';
const MUTED = 'piweb.muted';

function load(key, dflt) {
  try { const v = JSON.parse(localStorage.getItem(key)); return v == null ? dflt : v; } catch { return dflt; }
}
function save(key, v) { localStorage.setItem(key, JSON.stringify(v)); }

if (!localStorage.getItem(SINCE)) save(SINCE, new Date().toISOString());
const since = Date.parse(load(SINCE, '')) || 0;

// readAt maps a session id to when the user last saw it (ISO time).
export const readAt = signal(load(READ, {}));
// waiting maps the id of a session whose pi waits for an answer to the
// dialog's title.
export const waiting = signal(new Map());
export const globalMute = signal(!!load(MUTE, false));
export const muted = signal(new Set(load(MUTED, [])));
// visible is whether this tab is in view.
export const visible = signal(!document.hidden);
document.addEventListener('visibilitychange', () => { visible.value = !document.hidden; });

window.addEventListener('storage', (e) => {
  if (e.key === READ) readAt.value = load(READ, {});
  if (e.key === MUTE) globalMute.value = !!load(MUTE, false);
  if (e.key === MUTED) muted.value = new Set(load(MUTED, []));
});

// viewing is the id of the session this tab shows while in view.
const viewing = computed(() => (visible.value && route.value.page === 'session' ? route.value.id : ''));

const t = (x) => Date.parse(x || 0) || 0;

// isUnread reports whether session s had activity the user has not seen.
export function isUnread(s) {
  if (s.id === viewing.value) return false;
  return t(s.modified) > Math.max(since, t(readAt.value[s.id]));
}

export const unreadCount = computed(() => sessions.value.filter(isUnread).length);

// markRead records that the user has seen sessions ids up to now (or up
// to their last activity, if the clocks disagree).
export function markRead(...ids) {
  const next = { ...readAt.peek() };
  const now = Date.now();
  for (const id of ids) {
    const s = sessionById.peek().get(id);
    next[id] = new Date(Math.max(now, s ? t(s.modified) : 0)).toISOString();
  }
  readAt.value = next;
  save(READ, prune(next));
}

export function markAllRead() {
  markRead(...sessions.peek().filter(isUnread).map((s) => s.id));
}

// prune keeps the read marks of listed sessions only.
function prune(marks) {
  const ids = sessionById.peek();
  if (!ids.size) return marks;
  return Object.fromEntries(Object.entries(marks).filter(([id]) => ids.has(id)));
}

export function setGlobalMute(on) {
  globalMute.value = on;
  save(MUTE, on);
}

export function toggleMuted(id) {
  const s = new Set(muted.value);
  if (s.has(id)) s.delete(id); else s.add(id);
  muted.value = s;
  save(MUTED, [...s]);
}

// The session in view is read as its activity comes in.
effect(() => {
  const id = viewing.value;
  const s = id && sessionById.value.get(id);
  if (s && t(s.modified) > t(readAt.peek()[id])) markRead(id);
});

// Attention events: waiting state, then the alerts.
effect(() => {
  const ev = attentionEvent.value;
  if (!ev) return;
  const w = new Map(waiting.peek());
  if (ev.kind === 'waiting') w.set(ev.id, ev.title || 'a question');
  else w.delete(ev.id);
  waiting.value = w;
  if (ev.kind !== 'resumed' && !repeated(ev)) queueMicrotask(() => notify(ev)); // outside the effect: toasts write signals it must not track
});

// repeated tells an event already announced in the last second (a worker's
// event can reach the index topic twice when its relay starts).
const recent = new Map();
function repeated(ev) {
  const k = ev.id + ' ' + ev.kind;
  const now = Date.now();
  const was = recent.get(k);
  recent.set(k, now);
  for (const [key, at] of recent) if (now - at > 1000) recent.delete(key);
  return was !== undefined && now - was < 1000;
}

const TEXT = { done: 'pi finished', failed: 'pi failed', waiting: 'pi is waiting for your answer' };

function notify(ev) {
  if (globalMute.peek() || muted.peek().has(ev.id) || viewing.peek() === ev.id) return;
  const s = sessionById.peek().get(ev.id);
  const name = (s && (s.name || s.firstMessage)) || 'a session';
  const body = ev.kind === 'waiting' || ev.kind === 'failed' ? name.slice(0, 80) + (ev.title ? ': ' + ev.title : '') : name.slice(0, 80);
  toast(TEXT[ev.kind] + ' · ' + body, { kind: ev.kind === 'failed' ? 'error' : '', action: 'Open', onAction: () => navigate(sessionURL(ev.id)), ms: 10000 });
  alertUser(TEXT[ev.kind], body, ev.id);
}

// badge is the count shown in the tab title and on the favicon: sessions
// waiting for an answer and unread ones.
export const badge = computed(() => {
  let n = unreadCount.value;
  for (const id of waiting.value.keys()) {
    const s = sessionById.value.get(id);
    if (!s || !isUnread(s)) n++;
  }
  return n;
});

// withBadge prefixes a title with the badge count.
export const withBadge = (title) => (badge.value ? `(${badge.value}) ${title}` : title);

const icon = (dot) => 'data:image/svg+xml,' + encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#5b5bd6"/><text x="16" y="22" font-family="monospace" font-size="17" font-weight="700" fill="#fff" text-anchor="middle">π</text>' +
  (dot ? '<circle cx="25" cy="7" r="7" fill="#cf222e" stroke="#fff" stroke-width="1.5"/>' : '') + '</svg>');

effect(() => {
  const link = document.querySelector('link[rel=icon]');
  if (!link) return;
  const dot = badge.value > 0;
  link.href = icon(dot);
  link.dataset.badge = dot ? 'on' : '';
});
