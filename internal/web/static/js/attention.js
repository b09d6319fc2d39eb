// Attention: which sessions run, wait for an answer (an extension dialog)
// or have activity the user has not seen, and telling the user when a run
// ends, fails or waits: a toast in the page, a count in the tab title and
// on the favicon, and (chat/notify.js) a sound or system notification
// when the tab or session is not in view. Unless muted, globally or per
// session.
//
// Running and waiting come from the index topic ("running", "attention"
// events), so every tab sees them. Read marks and mutes are the server's
// (GET /api/attention), so they follow the user across browsers and
// devices; a change anywhere comes back as an "attention_state" event. A
// session is unread when its last activity (the listing's modified) is
// newer than when it was last seen, or than when the marks began. The
// page holds the first pages of the listing only (decision 0045), so the
// server counts the listing's unread sessions and marks them all read.
import { signal, computed, effect, untracked } from '@preact/signals';
import { sessions, sessionById, attentionEvent, marksEvent, route, navigate, sessionURL, toast, listed }
  from './state.js';
import { alertUser } from '../chat/notify.js';
import * as api from './api.js';
import { faviconURL } from './icons.js';
import { t as tr } from './i18n.js';

// since is when the server's marks began: older activity counts as read.
const since = signal(Infinity);
// readAt maps a session id to when the user last saw it (ISO time).
export const readAt = signal({});
// waiting maps the id of a session whose pi waits for an answer to the
// dialog's title.
export const waiting = signal(new Map());
export const globalMute = signal(false);
export const muted = signal(new Set());
// counted is the server's count of the listing's unread sessions (the
// archive left out) and the marks it counted with, or null.
const counted = signal(null);
// visible is whether this tab is in view.
export const visible = signal(!document.hidden);
document.addEventListener('visibilitychange', () => { visible.value = !document.hidden; });

// rev is the Rev of the marks adopted last: two changes made at once (a
// read mark sent by this page, a mute made in another) may reach the page
// in either order, their answers and events alike, and an older state
// coming last would undo the newer one (-1: any, after a reconnection,
// when a restarted server may count again from 0).
let rev = -1;

// adopt takes the server's marks, unless they are older than those it
// has; a mark this page set meanwhile and the server has not confirmed yet
// is kept.
function adopt(st) {
  if ((st.rev || 0) < rev) return;
  rev = st.rev || 0;
  since.value = t(st.since);
  const read = { ...(st.read || {}) };
  for (const [id, at] of Object.entries(readAt.peek())) if (t(at) > t(read[id])) read[id] = at;
  readAt.value = read;
  globalMute.value = !!st.globalMute;
  muted.value = new Set(st.muted || []);
  counted.value = typeof st.unread === 'number' ? { unread: st.unread, since: t(st.since), read: st.read || {} } : null;
}

async function loadMarks() {
  try {
    adopt(await api.attentionState());
  } catch (e) {
    since.value = 0; // unknown: everything newer than a mark is unread
  }
}
loadMarks();

effect(() => {
  const ev = marksEvent.value;
  if (!ev) return;
  if (ev.type === 'reload') {
    rev = -1;
    loadMarks();
  } else adopt(ev);
});

// viewing is the id of the session this tab shows while in view.
const viewing = computed(() => (visible.value && route.value.page === 'session' ? route.value.id : ''));

const t = (x) => Date.parse(x || 0) || 0;

// isUnread reports whether session s had activity the user has not seen.
export function isUnread(s) {
  if (s.id === viewing.value) return false;
  return t(s.modified) > Math.max(since.value, t(readAt.value[s.id]));
}

// partial says whether the page holds part of the sidebar's listing.
const partial = () => sessions.value.length < listed.value.total;

// unreadCount counts the listing's unread sessions: the page's own when it
// holds the whole listing, else the server's count, in which the page's
// sessions count as the page sees them now (the one in view, marks not
// confirmed yet, activity since).
export const unreadCount = computed(() => {
  const mine = sessions.value.filter(isUnread).length;
  const c = counted.value;
  if (!c || !partial()) return mine;
  const theirs = sessions.value.filter((s) => t(s.modified) > Math.max(c.since, t(c.read[s.id]))).length;
  return Math.max(mine, c.unread - theirs + mine);
});

// The server counts again when the listing changes (activity in sessions
// the page does not hold), at most once a second: the count alone, with
// the marks the page has ("attention_state" events bring their changes).
let recount = 0;
effect(() => {
  sessions.value;
  if (recount || !counted.peek() || !untracked(partial)) return;
  recount = setTimeout(() => { recount = 0; countAgain(); }, 1000);
});

async function countAgain() {
  const was = counted.peek();
  try {
    const { unread } = await api.unreadCount();
    // An answer with marks that came meanwhile counted with them.
    if (was && counted.peek() === was) counted.value = { ...was, unread };
  } catch (e) {
    // the next change counts again
  }
}

// markRead records that the user has seen sessions ids: at once in this
// page, then on the server (which marks them up to its own now, or their
// last activity if later), in one request per burst.
export function markRead(...ids) {
  see(ids);
  for (const id of ids) toSend.add(id);
  clearTimeout(sendTimer);
  sendTimer = setTimeout(sendMarks, 200);
}

// see marks sessions ids read in this page.
function see(ids) {
  const next = { ...readAt.peek() };
  const now = Date.now();
  for (const id of ids) {
    const s = sessionById.peek().get(id);
    next[id] = new Date(Math.max(now, s ? t(s.modified) : 0)).toISOString();
  }
  readAt.value = next;
}

const toSend = new Set();
let sendTimer = 0;
function sendMarks() {
  const ids = [...toSend];
  toSend.clear();
  if (ids.length) api.markRead(ids).then(adopt, marksFailed);
}

const marksFailed = (e) => toast(tr('att.marksFailed', { why: e.message }), { kind: 'error' });

// markAllRead marks every unread session of the listing read: the server
// marks those the page does not hold.
export function markAllRead() {
  const ids = sessions.peek().filter(isUnread).map((s) => s.id);
  if (!counted.peek() || !untracked(partial)) {
    markRead(...ids);
    return;
  }
  see(ids);
  counted.value = null; // the page's count until the server's answer
  api.markAllRead().then(adopt, marksFailed);
}

function saveMute(id, on) {
  api.setMuted(id, on).then(adopt, (e) => { toast(tr('att.muteFailed', { why: e.message }),
    { kind: 'error' }); loadMarks(); });
}

export function setGlobalMute(on) {
  globalMute.value = on;
  saveMute('', on);
}

export function toggleMuted(id) {
  const s = new Set(muted.value);
  const on = !s.has(id);
  if (on) s.add(id); else s.delete(id);
  muted.value = s;
  saveMute(id, on);
}

// The session in view is read as its activity comes in; one the page
// does not hold (opened from search or a link) once, since the server
// counts it.
const seenUnheld = new Set();
effect(() => {
  const id = viewing.value;
  const s = id && sessionById.value.get(id);
  if (s && t(s.modified) > t(readAt.peek()[id])) markRead(id);
  else if (id && !s && !seenUnheld.has(id) && counted.value) {
    seenUnheld.add(id);
    markRead(id);
  }
});

// Attention events: waiting state, then the alerts.
effect(() => {
  const ev = attentionEvent.value;
  if (!ev) return;
  const w = new Map(waiting.peek());
  if (ev.kind === 'waiting') w.set(ev.id, ev.title || 'a question');
  else w.delete(ev.id);
  waiting.value = w;
  // notify runs outside the effect: toasts write signals it must not track.
  if (ev.kind !== 'resumed' && !repeated(ev)) queueMicrotask(() => notify(ev));
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

const TEXT = { done: tr('att.done'), failed: tr('att.failed'), waiting: tr('att.waiting') };

// notify alerts the user of ev. The server names the session in the
// event (ev.name); a session it could not name yet (a new one's attention
// event can come before its listing) is waited for a moment.
function notify(ev, tries = 0) {
  if (globalMute.peek() || muted.peek().has(ev.id) || viewing.peek() === ev.id) return;
  const s = sessionById.peek().get(ev.id);
  if (!s && !ev.name && tries < 12) { setTimeout(() => notify(ev, tries + 1), 250); return; }
  // A file listed before its first message says '(no messages)' (pi's
  // placeholder): the server's name, made when the run ended, is better.
  const listed = s && (s.name || (s.firstMessage !== '(no messages)' && s.firstMessage));
  const name = listed || ev.name || s?.firstMessage || tr('att.aSession');
  const body = ev.kind === 'waiting' || ev.kind === 'failed' ? name.slice(0,
    80) + (ev.title ? ': ' + ev.title : '') : name.slice(0, 80);
  toast(TEXT[ev.kind] + ' · ' + body, { kind: ev.kind === 'failed' ? 'error' : '', action: tr('trash.open'),
    onAction: () => navigate(sessionURL(ev.id)), ms: 10000 });
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

effect(() => {
  const link = document.querySelector('link[rel=icon]');
  if (!link) return;
  const dot = badge.value > 0;
  link.href = faviconURL(dot);
  link.dataset.badge = dot ? 'on' : '';
});
