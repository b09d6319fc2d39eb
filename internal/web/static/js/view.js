// The open session: its metadata, the loaded part of its context (newest
// first, earlier pages on demand), expanded compactions and live updates.
import { batch, effect, signal, untracked } from '@preact/signals';
import * as api from './api.js';
import { toast, fleetEvent } from './state.js';
import { fmtTokens } from './util.js';
import { onLiveEvent } from '../chat/live.js';
import { drives } from './fleet.js';
import { t } from './i18n.js';

export const PAGE = 60;
export const current = signal(null); // a View
const details = new Map(); // id -> detail promise, so search and the view share one fetch

export function fetchDetail(id, fresh = false, after = null) {
  if (fresh || !details.has(id)) {
    const p = api.getSession(id, after);
    p.catch(() => details.delete(id));
    details.set(id, p);
  }
  return details.get(id);
}

// View is one session as shown. Everything a component draws from it is a
// signal (components re-render from signals alone); the rest (id, the
// requested leaf, the stream's unsubscribe, closed) is fixed or plumbing.
// A signal's value is never changed in place: a change is a new value.
export class View {
  constructor(id, leaf, target) {
    this.id = id;
    this.machine = api.splitRef(id).machine; // another machine's session (js/fleet.js), '' for this one's
    this.leaf = leaf; // requested leaf, '' to follow the file's leaf
    this.target = signal(target || ''); // entry to scroll to and highlight, '' once shown
    this.shownTarget = signal(''); // the entry last scrolled to (the tree marks it)
    this.detail = signal(null); // metadata: session, tree, labels, leaf, lineage, problems
    this.items = signal([]); // the loaded messages, oldest first: [{m, id}]
    this.start = signal(0); // the branch index of items[0]
    this.total = signal(0);
    this.system = signal(0); // system messages among total: not conversation
    this.before = signal(null); // cursor of the page before items[0], null at the start
    this.leafOmitted = signal(null); // entries pi leaves out after the last item
    this.loaded = signal(false); // the context answered once
    this.loading = signal(false); // an earlier page is being read
    this.error = signal(null);
    this.missing = signal(false); // the file was deleted or moved by another program
    this.deleted = signal(false); // piweb moved it to the trash
    this.model = signal(null);
    this.thinkingLevel = signal(undefined);
    this.fileLeaf = signal(null); // the file's leaf as the context answer said
    this.expanded = signal(new Map()); // compaction entry id -> {items, loading, error}
    this.totals = signal(null); // {input, output, cacheRead, cost, models}
    this.totalsGen = 0; // bumped by each sum and each addition (scheduleTotals)
    this.closed = false;
  }

  // open shows the newest messages as soon as they arrive. The metadata
  // (tree, lineage) is fetched at the same time but decoded only once they
  // are drawn: for 10,000 entries its JSON is 2 MB, whose parse would hold
  // the first messages back.
  async open() {
    let drawn;
    const after = new Promise((resolve) => { drawn = resolve; });
    const d = fetchDetail(this.id, true, after).then((detail) => { this.detail.value = detail; });
    const c = this.fetchTail().then((ctx) => {
      this.setPage(ctx, true);
      requestAnimationFrame(() => setTimeout(drawn));
    }).finally(() => setTimeout(drawn, 50));
    try {
      await Promise.all([d, c]);
    } catch (e) {
      this.error.value = e;
      return;
    }
    // A view closed meanwhile (the reader moved on) must not open a stream
    // that nothing would close: each holds one of the browser's six
    // connections to the server.
    if (this.closed) return;
    if (this.target.peek()) await this.reach(this.target.peek());
    if (this.closed) return;
    this.watch();
    this.scheduleTotals();
  }

  fetchTail(limit = PAGE) {
    return api.getContext(this.id, { leaf: this.leaf || undefined, limit });
  }

  // setPage shows a page of context: the newest one (replace), or the one
  // before the loaded messages.
  setPage(ctx, replace) {
    const { items, leafOmitted } = withEdits(itemsOf(ctx), ctx.edits);
    batch(() => {
      this.items.value = replace ? items : items.concat(this.items.peek());
      if (replace) this.leafOmitted.value = leafOmitted;
      else if (leafOmitted) this.leafOmitted.value = [...(this.leafOmitted.peek() || []), ...leafOmitted];
      this.start.value = ctx.start;
      this.before.value = ctx.before;
      this.setTail(ctx);
      this.loaded.value = true;
    });
  }

  // setTail takes what a context answer says of the branch's end.
  setTail(ctx) {
    batch(() => {
      this.total.value = ctx.total;
      this.system.value = ctx.system || 0;
      this.model.value = ctx.model;
      this.thinkingLevel.value = ctx.thinkingLevel;
      this.fileLeaf.value = ctx.leaf;
    });
  }

  // loadEarlier fetches the page before the first loaded message.
  async loadEarlier(limit = PAGE * 3) {
    if (this.loading.peek() || this.before.peek() == null || this.closed) return false;
    this.loading.value = true;
    try {
      const ctx = await api.getContext(this.id, { leaf: this.leaf || undefined, before: this.before.peek(), limit });
      if (!this.closed) this.setPage(ctx, false);
    } catch (e) {
      toast(t('view.earlierFailed', { why: e.message }), { kind: 'error' });
    }
    this.loading.value = false;
    return true;
  }

  // reach loads pages until the entry is loaded, and failing that opens the
  // compaction that hides it.
  async reach(entry) {
    const has = () => this.items.peek().some((it) => it.id === entry);
    while (!has() && this.before.peek() != null) {
      if (!(await this.loadEarlier(1000))) break;
    }
    if (has()) return true;
    for (const it of this.items.peek()) {
      if (it.m.role !== 'compactionSummary') continue;
      const x = await this.expand(it.id);
      if (x && x.items.some((h) => h.id === entry)) return true;
      this.collapse(it.id);
    }
    return false;
  }

  // expand loads the history a compaction hid: the context just before
  // it, up to the first entry it kept.
  async expand(compactionId) {
    const had = this.expanded.peek().get(compactionId);
    if (had) return had;
    this.setExpanded(compactionId, { items: [], loading: true, error: null });
    const x = { items: [], loading: false, error: null };
    try {
      const { entries } = await api.getEntries(this.id, { leaf: compactionId, limit: 1 });
      const comp = entries[entries.length - 1] || {};
      if (comp.parentId) {
        const ctx = await api.getContext(this.id, { leaf: comp.parentId });
        let end = ctx.entryIds.indexOf(comp.firstKeptEntryId);
        if (end < 0) end = ctx.messages.length;
        x.items = itemsOf(ctx).slice(0, end);
      }
    } catch (e) {
      x.error = e.message;
    }
    if (this.expanded.peek().has(compactionId)) this.setExpanded(compactionId, x); // not collapsed meanwhile
    return x;
  }

  collapse(compactionId) {
    this.setExpanded(compactionId, null);
  }

  setExpanded(compactionId, x) {
    const m = new Map(this.expanded.peek());
    if (x) m.set(compactionId, x);
    else m.delete(compactionId);
    this.expanded.value = m;
  }

  // setSession merges what the server answered about the session (a
  // rename) into the metadata.
  setSession(s) {
    const d = this.detail.peek();
    if (d) this.detail.value = { ...d, session: { ...d.session, ...s } };
  }

  // setLabels takes the labels the server answered a change of entry id's
  // label with.
  setLabels(labels, id) {
    const d = this.detail.peek();
    if (!d) return;
    const tree = (d.tree || []).map((n) => (n.id === id ? { ...n, label: labels[id] || null } : n));
    this.detail.value = { ...d, labels, tree };
  }

  // watch follows the session's events. Opened (or reloaded) while a turn
  // runs, it resumes from that turn's message (hello.replayFrom) so that the
  // live chat (static/chat) shows it whole; a lost connection resumes with
  // its last id (api.js does it). Nothing is missed or repeated.
  watch(last = '') {
    if (this.machine) return this.watchRemote();
    this.follow(last, (ev) => this.onEvent(ev));
  }

  // follow hands the session's stream to the live chat and to onEv.
  follow(last, onEv) {
    this.unsub = api.follow(api.sessionTopic(this.id), (ev, eventId) => {
      if (ev.type === 'hello' && !last && ev.replayFrom && !this.replayed) {
        this.replayed = true;
        this.unsub();
        this.follow(String(ev.replayFrom), onEv);
        return;
      }
      onLiveEvent(this.id, ev, eventId);
      onEv(ev);
    }, { after: last });
  }

  // watchRemote follows another machine's session by its machine's
  // pushes (fleet_changed): its file as last pushed is read again, the
  // new messages added as an append on this machine adds them. While this
  // piweb drives it there (js/fleet.js drives), the machine's own event
  // stream, sent on by the server, feeds the live chat too: the answer
  // streams in as it is written, and the pushed entries replace it.
  watchRemote() {
    let first = true; // subscribe calls back at once with the latest event, an old one
    this.unfleet = fleetEvent.subscribe((ev) => {
      if (first) { first = false; return; }
      if (!ev || (ev.machine && ev.machine !== this.machine) || this.closed) return;
      this.soon();
    });
    this.undrive = effect(() => {
      const on = drives(this.machine);
      untracked(() => this.driveLive(on));
    });
  }

  // driveLive follows the machine's stream of the session, or stops.
  driveLive(on) {
    if (on === !!this.unsub) return;
    if (this.unsub) this.unsub();
    this.unsub = null;
    this.replayed = false;
    if (!on || this.closed) return;
    this.follow('', (ev) => {
      if (ev.type === 'session_missing') this.missing.value = true;
      else if (ev.type !== 'hello') this.soon(); // the entries reach the fleet database with the push
    });
  }

  // soon reads the session again a moment after a change (one reading for
  // a burst).
  soon() {
    clearTimeout(this.remoteTimer);
    this.remoteTimer = setTimeout(() => this.remoteChanged(), 50);
  }

  // remoteChanged reads another machine's session again after its push:
  // gone from the fleet (deleted there) it stays shown, marked missing.
  async remoteChanged() {
    let d;
    try {
      d = await fetchDetail(this.id, true);
    } catch (e) {
      if (e.status === 404) this.missing.value = true;
      return;
    }
    if (this.closed) return;
    const had = this.detail.peek();
    batch(() => { this.detail.value = d; this.missing.value = false; });
    if (!this.leaf && (!had || had.leaf !== d.leaf)) await this.refreshTail(PAGE);
  }

  onEvent(ev) {
    if (this.closed) return;
    if (ev.type === 'hello') this.caughtUp(ev);
    else if (ev.type === 'entries_appended') this.appended(ev.entries || []);
    else if (ev.type === 'session_rewritten' || ev.type === 'reset') {
      this.missing.value = false;
      this.reload();
    } else if (ev.type === 'session_missing') { // deleted or moved by another program
      this.missing.value = true;
    } else if (ev.type === 'session_deleted') {
      this.deleted.value = true;
      if (this.unsub) this.unsub();
      this.unsub = null;
    }
  }

  // caughtUp closes the gap between loading the session and following
  // it: the server makes hello once this stream is subscribed, so every
  // append after hello's leaf arrives as an event, and one before it that
  // the page lacks (pi answering while the stream connected) is read now.
  async caughtUp(hello) {
    if (!('leaf' in hello) || this.closed) return;
    const d = this.detail.peek();
    if (d && d.leaf !== hello.leaf) {
      fetchDetail(this.id, true).then((d) => { if (!this.closed) this.detail.value = d; }, () => {});
    }
    if (!this.leaf && this.loaded.peek() && this.fileLeaf.peek() !== hello.leaf) await this.refreshTail(10);
  }

  // appended adds new entries to the tree and, when this view follows the
  // file's leaf, the new messages to the conversation.
  async appended(entries) {
    const d = this.detail.peek();
    if (d) this.detail.value = withEntries(d, entries);
    // A compaction rewrites the start of the context: read it again, and
    // show its card (it would land above the fold, unnoticed).
    const comp = entries.find((e) => e && e.type === 'compaction');
    if (!this.leaf && comp) {
      await this.reload();
      this.target.value = comp.id;
      toast(t('view.compacted', { tokens: fmtTokens(comp.tokensBefore) }));
    } else if (!this.leaf) await this.refreshTail(entries.length);
  }

  async refreshTail(n) {
    try {
      const ctx = await this.fetchTail(n + 10);
      const items = this.items.peek();
      const last = items.length ? items[items.length - 1].id : null;
      const at = last ? ctx.entryIds.lastIndexOf(last) : -1;
      if (last && at < 0) return this.reload();
      const fresh = withEdits(itemsOf(ctx), ctx.edits);
      let next = items;
      // An entry pi edited after the page had it (a retried attempt left
      // out) is redrawn with its edit.
      const edited = at >= 0 && (fresh.items[at].omittedBefore || fresh.items[at].original !== undefined);
      if (edited) next = items.slice(0, -1).concat([fresh.items[at]]);
      const added = fresh.items.slice(at + 1);
      next = next.concat(added);
      batch(() => {
        this.items.value = next;
        this.leafOmitted.value = fresh.leafOmitted;
        this.setTail(ctx);
      });
      this.addTotals(edited ? null : added);
    } catch (e) {
      toast(t('view.liveFailed', { why: e.message }), { kind: 'error' });
    }
  }

  async reload() {
    try {
      const [detail, ctx] = await Promise.all([fetchDetail(this.id, true), this.fetchTail()]);
      batch(() => {
        this.detail.value = detail;
        this.setPage(ctx, true);
        this.expanded.value = new Map();
      });
      this.scheduleTotals(); // the branch may be another now (a compaction)
    } catch (e) {
      this.error.value = e;
    }
  }

  // scheduleTotals sums tokens and cost over the whole branch, reading the
  // rest of the context in the background when only part of it is loaded.
  // A sum that messages were added to while it read (addTotals) is made
  // again: it may have read the branch before them.
  scheduleTotals() {
    clearTimeout(this.totalsTimer);
    const partial = this.start.peek() > 0;
    const run = async () => {
      const gen = ++this.totalsGen;
      let msgs = this.items.peek().map((it) => it.m);
      if (this.start.peek() > 0) {
        try {
          msgs = (await api.getContext(this.id, { leaf: this.leaf || undefined })).messages;
        } catch { return; }
      }
      if (this.closed) return;
      if (gen !== this.totalsGen) this.scheduleTotals();
      else this.totals.value = sumUsage(msgs);
    };
    this.totalsTimer = setTimeout(run, partial ? 800 : 0);
  }

  // addTotals adds the usage of messages appended to the branch to the
  // totals; it sums again when it cannot (no totals yet, or an entry the
  // page had changed). A big session followed live must not send its
  // whole branch again on every appended line.
  addTotals(added) {
    const t = this.totals.peek();
    if (!added || !t || this.start.peek() === 0) return this.scheduleTotals();
    this.totalsGen++;
    this.totals.value = sumUsage(added.map((it) => it.m), t);
  }

  close() {
    this.closed = true;
    clearTimeout(this.totalsTimer);
    clearTimeout(this.remoteTimer);
    if (this.unsub) this.unsub();
    if (this.unfleet) this.unfleet();
    if (this.undrive) this.undrive();
  }
}

// itemsOf pairs a context answer's messages with their entry ids.
function itemsOf(ctx) {
  return ctx.messages.map((m, i) => ({ m, id: ctx.entryIds[i] }));
}

// withEntries is the metadata with appended entries added to its tree,
// labels, name and leaf (a new object: the old one may be shared with
// fetchDetail's callers).
function withEntries(d, entries) {
  let tree = d.tree;
  let labels = d.labels;
  let session = d.session;
  let leaf = d.leaf;
  for (const e of entries) {
    if (!e || !e.id) continue;
    if (tree === d.tree) tree = tree.slice();
    if (tree.some((n) => n.id === e.id)) continue;
    tree.push(treeNode(e));
    if (e.type === 'label' && e.targetId) {
      const i = tree.findIndex((n) => n.id === e.targetId);
      if (i >= 0) tree[i] = { ...tree[i], label: e.label || null };
      labels = { ...labels };
      if (e.label) labels[e.targetId] = e.label; else delete labels[e.targetId];
    }
    if (e.type === 'session_info' && session) session = { ...session, name: e.name || null };
  }
  if (entries.length) leaf = entries[entries.length - 1].id || leaf;
  return { ...d, tree, labels, session, leaf };
}

// treeNode is an appended entry as the metadata's compact tree has it.
function treeNode(e) {
  const m = e.message || {};
  let text = '';
  if (e.type === 'message') text = typeof m.content === 'string' ? m.content : Array.isArray(m.content)
    ? m.content.filter((b) => b.type === 'text').map((b) => b.text).join(' ') : m.command || '';
  else text = e.summary || e.name || '';
  return { id: e.id, parentId: e.parentId ?? null, type: e.type, role: m.role, timestamp: e.timestamp,
    text: text.slice(0, 200), label: null };
}

// withEdits marks the items whose content pi replaces in the model's
// context (item.original: the file's message) and puts each entry pi
// leaves out before the item it preceded (item.omittedBefore), or, when it
// came last, in leafOmitted (server ContextEdit, docs/api.md). The items
// are fresh objects, not yet shown.
function withEdits(items, edits) {
  let leafOmitted = null;
  if (!edits || !edits.length) return { items, leafOmitted };
  const byId = new Map(items.map((it) => [it.id, it]));
  for (const e of edits) {
    if (!e.omitted) {
      const it = byId.get(e.entryId);
      if (it) it.original = e.original;
      continue;
    }
    const o = { m: e.original, id: e.entryId, omitted: true };
    const it = e.beforeId ? byId.get(e.beforeId) : null;
    if (it) (it.omittedBefore ||= []).push(o);
    else if (!e.beforeId) (leafOmitted ||= []).push(o);
  }
  return { items, leafOmitted };
}

// sumUsage sums the usage the branch's messages carry, onto from (totals
// it returned before): answers, and the nested model work pi 1.x records
// on tool results and summaries. (pi's usage entries are not messages:
// the session's own totals, from the index, count them.)
export function sumUsage(msgs, from = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, models: [] }) {
  const t = { ...from, models: new Set(from.models) };
  for (const m of msgs) {
    if (m.role === 'assistant' && m.model) t.models.add(m.model);
    else if (!['toolResult', 'compactionSummary', 'branchSummary'].includes(m.role)) continue;
    const u = m.usage;
    if (!u) continue;
    t.input += u.input || 0;
    t.output += u.output || 0;
    t.cacheRead += u.cacheRead || 0;
    t.cacheWrite += u.cacheWrite || 0;
    t.cost += (u.cost && u.cost.total) || 0;
  }
  return t;
}

// show opens the session the route names, reusing the open view when only
// the target entry changed.
export function show(id, leaf, target) {
  const v = current.peek();
  if (v && v.id === id && v.leaf === leaf && !v.error.peek()) {
    if (target && target !== v.target.peek()) {
      v.target.value = target;
      v.reach(target);
    }
    return v;
  }
  if (v) v.close();
  const nv = new View(id, leaf, target);
  current.value = nv;
  nv.open();
  return nv;
}

export function closeView() {
  if (current.peek()) current.peek().close();
  current.value = null;
}
