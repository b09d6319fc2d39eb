// The sidebar's order, pure (node tests it: jstest/sorting.test.mjs):
// sessions grouped by project and sorted by last activity, creation or
// name, pinned ones first in their project, archived ones apart; and the
// selection of many sessions (a click, a shift-click range, all of a
// project or of the filter).
import { t } from './i18n.js';

// SORTS are the sidebar's sorts: [key, label].
export const SORTS = [['activity', t('sort.activity')], ['created', t('sort.created')], ['name', t('sort.name')]];
export const validSort = (by) => (SORTS.some(([k]) => k === by) ? by : 'activity');

const time = (x) => Date.parse(x || 0) || 0;
const titleOf = (s) => (s.name || s.firstMessage || '').trim();
const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: 'base' });

// compareBy orders two sessions by the sort: newest activity or creation
// first, or by title (its name, else its first message) A to Z; ties by id.
export function compareBy(by) {
  const key = {
    activity: (a, b) => time(b.modified) - time(a.modified),
    created: (a, b) => time(b.created) - time(a.created),
    name: (a, b) => collator.compare(titleOf(a), titleOf(b)),
  }[validSort(by)];
  return (a, b) => key(a, b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

// pageOrder orders a page of the sidebar's listing as the server gives
// it: the pinned sessions first, each part in the sort's order.
export function pageOrder(by, pinned = new Set()) {
  const cmp = compareBy(by);
  return (a, b) => (pinned.has(b.id) - pinned.has(a.id)) || cmp(a, b);
}

// placed is a page of the listing (list, in pageOrder) with item in it,
// replacing the one of its id, where the order puts it. A page that holds
// only part of the listing (partial) leaves out an item the order puts
// after its last session, which a later page brings, unless keep (the
// session in view). opts: by, pinned (as pageOrder's), partial, keep.
export function placed(list, item, opts = {}) {
  const { by = 'activity', pinned, partial = false, keep = false } = opts;
  const cmp = pageOrder(by, pinned);
  const rest = list.filter((s) => s.id !== item.id);
  if (partial && !keep && rest.length && cmp(item, rest.reduce((a, b) => (cmp(a, b) > 0 ? a : b))) > 0) return rest;
  const at = rest.findIndex((s) => cmp(item, s) < 0);
  rest.splice(at < 0 ? rest.length : at, 0, item);
  return rest;
}

// parentOf is the id of the session a fork came from: the server's, which
// it finds by the header's parentSession path, else the id in that path's
// file name (pi names files <time>_<id>.jsonl), for sessions whose folder
// was moved or copied from another machine since.
export function parentOf(s) {
  if (s.parentSessionId) return s.parentSessionId;
  const m = /_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i.exec(s.parentSessionPath || '');
  return m ? m[1].toLowerCase() : '';
}

// matches says whether session s matches the sidebar's filter text.
export function matches(s, text) {
  const t = text.trim().toLowerCase();
  return !t || (s.name || '').toLowerCase().includes(t) || (s.firstMessage || '').toLowerCase().includes(t)
    || (s.cwd || '').toLowerCase().includes(t) || s.id.startsWith(t);
}

// groupSessions groups the list by cwd, forks under their parent when it
// is in the same group. opts: by (a sort of SORTS), pinned and archived
// (Maps or Sets of ids), archivedView (list the archived sessions alone;
// else they are left out). In a group the pinned sessions come first, each
// part in the sort's order; groups by their newest activity or creation,
// or by folder name.
export function groupSessions(list, text, opts = {}) {
  const { by = 'activity', pinned = new Set(), archived = new Set(), archivedView = false } = opts;
  const groups = new Map();
  for (const s of list) {
    if (archived.has(s.id) !== archivedView || !matches(s, text)) continue;
    if (!groups.has(s.cwd)) groups.set(s.cwd, []);
    groups.get(s.cwd).push(s);
  }
  const cmp = compareBy(by);
  const out = [];
  for (const [cwd, items] of groups) {
    items.sort((a, b) => (pinned.has(b.id) - pinned.has(a.id)) || cmp(a, b));
    out.push({ cwd, ...nest(items), count: items.length, modified: Math.max(...items.map((s) => time(s.modified))),
      created: Math.max(...items.map((s) => time(s.created))) });
  }
  const folder = (g) => g.cwd.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || g.cwd;
  const order = {
    activity: (a, b) => b.modified - a.modified,
    created: (a, b) => b.created - a.created,
    name: (a, b) => collator.compare(folder(a), folder(b)) || collator.compare(a.cwd, b.cwd),
  }[validSort(by)];
  return out.sort(order);
}

// nest splits sorted items into roots and each parent's forks (kids).
function nest(items) {
  const ids = new Set(items.map((s) => s.id));
  const kids = new Map();
  const roots = [];
  for (const s of items) {
    const p = parentOf(s);
    if (p && ids.has(p) && p !== s.id) {
      if (!kids.has(p)) kids.set(p, []);
      kids.get(p).push(s);
    } else roots.push(s);
  }
  return { roots, kids };
}

// shownIds are the ids of the groups' sessions in the order the sidebar
// shows them (a fork after its parent), those of closed groups left out.
export function shownIds(groups, isClosed = () => false) {
  const out = [];
  const walk = (s, kids) => { out.push(s.id); for (const k of kids.get(s.id) || []) walk(k, kids); };
  for (const g of groups) if (!isClosed(g)) for (const s of g.roots) walk(s, g.kids);
  return out;
}

// pick is the selection after a click on id: it toggles id alone, or with
// shift and an anchor still shown, sets every session from the anchor to
// id (in the shown order) to the anchor's state, leaving others as they
// are. It answers the new selection and the new anchor.
export function pick(selected, order, anchor, id, shift) {
  const next = new Set(selected);
  const a = shift && anchor ? order.indexOf(anchor) : -1;
  const b = order.indexOf(id);
  if (a < 0 || b < 0) {
    if (next.has(id)) next.delete(id); else next.add(id);
    return { selected: next, anchor: id };
  }
  const on = next.has(anchor);
  for (let i = Math.min(a, b); i <= Math.max(a, b); i++) {
    if (on) next.add(order[i]); else next.delete(order[i]);
  }
  return { selected: next, anchor: id };
}

// toggleAll selects every one of ids, or, when all are selected already,
// none of them.
export function toggleAll(selected, ids) {
  const next = new Set(selected);
  const all = ids.length > 0 && ids.every((id) => next.has(id));
  for (const id of ids) if (all) next.delete(id); else next.add(id);
  return next;
}
