// Keeping sessions in order (issue 26.1): pins, the archive, the
// sidebar's sort, and many sessions selected for one action (pin,
// archive or restore, export, delete to the trash). Pins and archive are
// the server's (GET /api/order, piweb's order.json), the same on every
// device; a change anywhere comes back as an "order_state" event. The sort
// is this browser's; the selection this tab's. The order itself is
// sorting.js's (pure).
import { signal, effect, computed } from '@preact/signals';
import { html } from './html.js';
import * as api from './api.js';
import { orderEvent, toast, confirm, navigate, loadSessions, loadArchived, archivedView, archivedList, PAGE,
  listed, sessions, orderListing, archived, pinned } from './state.js';
import { SORTS, validSort, toggleAll, pick as pickOne } from './sorting.js';
import { t } from './i18n.js';
import { glyph } from './icons.js';

// pinned and archived map a session's ref to when it was pinned or archived
// (state.js's: the live list follows them).
export const sortBy = signal(validSort(localStorage.getItem('piweb.sort')));
// archivedView lists the archived sessions in the sidebar instead (state.js
// asks the server for them).
export { archivedView, archived, pinned };
// selecting shows the checkboxes; selected holds the refs checked.
export const selecting = signal(false);
export const selected = signal(new Set());
let anchor = '';

// archivedHere is how many of this machine's sessions are archived: as the
// listing counted them, and the changes made in this page since.
export const archivedHere = computed(() => {
  const a = archived.value;
  const restored = archivedView.value ? archivedList.value.sessions.filter((s) => !a.has(s.id)).length : 0;
  return Math.max(0, listed.value.archived + sessions.value.filter((s) => a.has(s.id)).length - restored);
});

// switchView shows the archived sessions (on) or the others.
function switchView(on) {
  if (on) archivedList.value = { sessions: [], total: 0, projects: {} };
  archivedView.value = on;
  selected.value = new Set();
  if (on) loadArchived(PAGE);
}

orderListing(sortBy.peek());

export function setSort(by) {
  sortBy.value = validSort(by);
  localStorage.setItem('piweb.sort', sortBy.value);
  orderListing(sortBy.value);
}

// rev is the Rev of the order adopted last: two changes' answers and
// events may reach the page in either order, and an older one coming last
// would undo the newer (-1: any, after a reconnection, when a restarted
// server may count again from 0).
let rev = -1;

function adopt(st) {
  if ((st.rev || 0) < rev) return;
  rev = st.rev || 0;
  pinned.value = new Map(Object.entries(st.pinned || {}));
  archived.value = new Map(Object.entries(st.archived || {}));
}

const loadOrder = () => api.getOrder().then(adopt, () => {});

// startOrder loads the pins and archive and follows their changes.
export function startOrder() {
  loadOrder();
  effect(() => {
    const ev = orderEvent.value;
    if (ev && ev.type === 'reload') {
      rev = -1;
      loadOrder();
    } else if (ev) adopt(ev);
  });
}

// setOrder pins or archives (change: {pinned} or {archived}) the sessions
// of ids, at once in this page, then on the server.
export async function setOrder(ids, change) {
  const flip = (m, on) => {
    if (on === undefined) return m;
    const next = new Map(m);
    for (const id of ids) if (on) next.set(id, next.get(id) || new Date().toISOString()); else next.delete(id);
    return next;
  };
  pinned.value = flip(pinned.peek(), change.pinned);
  archived.value = flip(archived.peek(), change.archived);
  try {
    adopt(await api.setOrder(ids, change));
    return true;
  } catch (e) {
    toast(t('order.saveFailed', { why: e.message }), { kind: 'error' });
    loadOrder();
    return false;
  }
}

export const togglePin = (id) => setOrder([id], { pinned: !pinned.peek().has(id) });

// archive archives or restores one session, with an Undo.
export async function archive(id, on) {
  if (!(await setOrder([id], { archived: on }))) return;
  toast(t(on ? 'order.archivedOne' : 'order.restoredOne'),
    { action: t('order.undo'), onAction: () => setOrder([id], { archived: !on }) });
}

// pick is a click on a session's checkbox (with shift: a range of the
// sessions shown, in order).
export function pick(id, shift, order) {
  const r = pickOne(selected.peek(), order, anchor, id, shift);
  selected.value = r.selected;
  anchor = r.anchor;
}

export const pickAll = (ids) => { selected.value = toggleAll(selected.peek(), ids); };

export function stopSelecting() {
  selecting.value = false;
  selected.value = new Set();
  anchor = '';
}

// remote says whether a ref names another machine's session.
const remote = (id) => api.splitRef(id).machine !== '';

// SideTools is the row under the filter: the sort, Select, and Archived.
export function SideTools({ archivedCount }) {
  const sel = selecting.value;
  const arch = archivedView.value;
  return html`<div class="side-tools">
    <select class="side-sort" aria-label=${t('order.sortBy')} title=${t('order.sortBy')} value=${sortBy.value}
      onChange=${(e) => setSort(e.currentTarget.value)}>
      ${SORTS.map(([k, label]) => html`<option value=${k}>${label}</option>`)}</select>
    <button type="button" class=${'btn ghost small select-toggle' + (sel ? ' on' : '')} aria-pressed=${sel}
      title=${t('order.selectTip')}
      onClick=${() => (sel ? stopSelecting() : (selecting.value = true))}>${t('order.select')}</button>
    <button type="button" class=${'btn ghost small archived-toggle' + (arch ? ' on' : '')} aria-pressed=${arch}
      title=${t(arch ? 'order.backToSessions' : 'order.archivedSessions')}
      onClick=${() => switchView(!arch)}>${t('order.archived')}${archivedCount
        ? html` <span class="count">${archivedCount}</span>` : ''}</button>
  </div>`;
}

// BulkBar acts on the selected sessions among shown (the refs the sidebar
// shows, in order): select all of them, pin, archive or restore, export
// (other machines' too, from the fleet), delete to the trash (this
// machine's only, which it says in words when others are selected).
export function BulkBar({ shown }) {
  const inView = new Set(shown);
  const ids = [...selected.value].filter((id) => inView.has(id));
  const n = ids.length;
  const local = ids.filter((id) => !remote(id));
  const allPinned = n > 0 && ids.every((id) => pinned.value.has(id));
  const arch = archivedView.value;
  const all = shown.length > 0 && n === shown.length;
  const done = (fn) => async () => { if (await fn()) stopSelecting(); };
  return html`<div class="bulk-bar" role="toolbar" aria-label=${t('order.selected')}>
    <span class="bulk-count">${n ? t('order.nSelected', { count: n }) : t('order.selectSessions')}</span>
    <button type="button" class="btn-link bulk-all" onClick=${() => pickAll(shown)}>${all ? t('order.none')
      : t('order.all', { count: shown.length })}</button>
    <button type="button" class="btn-link bulk-x" aria-label=${t('order.stopSelecting')}
      onClick=${stopSelecting}>${glyph.close}
      </button>
    <div class="bulk-actions">
      <button type="button" class="btn small bulk-pin" disabled=${!n}
        onClick=${done(() => setOrder(ids, { pinned: !allPinned }))}
          >${t(allPinned ? 'head.unpin' : 'head.pin')}</button>
      <button type="button" class="btn small bulk-archive" disabled=${!n}
        onClick=${done(() => bulkArchive(ids, !arch))}>${t(arch ? 'head.restore' : 'head.archive')}</button>
      <select class="btn small bulk-export" disabled=${!n} value="" aria-label=${t('order.exportZip')}
        title=${t('order.exportTip')}
        onChange=${(e) => exportAs(e.currentTarget, ids)}>
        <option value="" disabled>${t('order.exportDots')}</option>
        ${EXPORTS.map(([f, label]) => html`<option value=${f}>${label}</option>`)}</select>
      <button type="button" class="btn small danger bulk-delete" disabled=${!local.length}
        title=${t('order.deleteTip')}
        onClick=${done(() => bulkDelete(local, n - local.length))}>${t('head.deleteDots')}</button>
    </div>
    ${n > local.length && html`<p class="bulk-note">${notDeleted(n - local.length)}</p>`}</div>`;
}

async function bulkArchive(ids, on) {
  if (!(await setOrder(ids, { archived: on }))) return false;
  toast(t(on ? 'order.bulkArchived' : 'order.bulkRestored', { count: ids.length }),
    { action: t('order.undo'), onAction: () => setOrder(ids, { archived: !on }) });
  return true;
}

// EXPORTS are the formats of a bulk export: the files as they are, or
// each session's current branch as a document.
const EXPORTS = [['jsonl', t('order.exportJsonl')], ['md', t('order.exportMd')], ['html', t('order.exportHtml')]];

// exportAs exports ids in the format the menu el was set to, and sets it
// back to its title.
function exportAs(el, ids) {
  const format = el.value;
  el.value = '';
  if (format) bulkExport(ids, format);
}

async function bulkExport(ids, format) {
  try {
    const { blob, name } = await api.exportMany(ids, format);
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 60000);
  } catch (e) {
    toast(t('order.exportFailed', { why: e.message }), { kind: 'error' });
  }
}

// notDeleted says that the selected sessions of other machines are left
// alone by Delete: each is deleted on its own machine (its piweb).
const notDeleted = (remotes) => t(remotes === 1 ? 'order.notDeletedOne' : 'order.notDeletedMany', { count: remotes });

// bulkDelete moves this machine's sessions to the trash one by one, after
// a confirmation that says which selected sessions it leaves alone.
async function bulkDelete(ids, remotes) {
  const text = remotes ? t('order.deleteTextAlso', { also: notDeleted(remotes) }) : t('order.deleteText');
  const ok = { ok: t('common.delete'), danger: true };
  if (!(await confirm(t('order.deleteTitle', { count: ids.length }), text, ok))) return false;
  const failed = [];
  for (const id of ids) {
    try { await api.deleteSession(id); } catch (e) { failed.push(e.message); }
  }
  await loadSessions();
  const moved = ids.length - failed.length;
  if (failed.length) toast(t('order.notDeletedErr', { count: failed.length, why: failed[0] }), { kind: 'error' });
  if (moved) toast(t('order.movedToTrash', { count: moved }), { action: t('order.openTrash'), ms: 10000,
    onAction: () => navigate('/trash') });
  return !failed.length;
}
