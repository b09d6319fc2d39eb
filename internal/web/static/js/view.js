// The open session: its metadata, the loaded part of its context (newest
// first, earlier pages on demand), expanded compactions and live updates.
import { signal } from '@preact/signals';
import * as api from './api.js';
import { toast } from './state.js';
import { fmtTokens } from './util.js';
import { onLiveEvent } from '../chat/live.js';

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

// View holds one session as shown; rev changes whenever something in it did.
export class View {
  constructor(id, leaf, target) {
    this.id = id;
    this.leaf = leaf; // requested leaf, '' to follow the file's leaf
    this.target = target; // entry to scroll to and highlight
    this.detail = null;
    this.items = []; // [{m, id}]
    this.start = 0;
    this.total = 0;
    this.before = null;
    this.loading = false;
    this.error = null;
    this.model = null;
    this.expanded = new Map(); // compaction entry id -> {items, loading, error}
    this.totals = null; // {input, output, cacheRead, cost, models}
    this.rev = signal(0);
    this.closed = false;
  }

  touch() { this.rev.value++; }

  // open shows the newest messages as soon as they arrive. The metadata
  // (tree, lineage) is fetched at the same time but decoded only once they
  // are drawn: for 10,000 entries its JSON is 2 MB, whose parse would hold
  // the first messages back.
  async open() {
    let drawn;
    const after = new Promise((resolve) => { drawn = resolve; });
    const d = fetchDetail(this.id, true, after).then((detail) => { this.detail = detail; this.touch(); });
    const c = this.fetchTail().then((ctx) => {
      this.setPage(ctx, true);
      this.touch();
      requestAnimationFrame(() => setTimeout(drawn));
    }).finally(() => setTimeout(drawn, 50));
    try {
      await Promise.all([d, c]);
    } catch (e) {
      this.error = e;
      this.touch();
      return;
    }
    // A view closed meanwhile (the reader moved on) must not open a stream
    // that nothing would close: each holds one of the browser's six
    // connections to the server.
    if (this.closed) return;
    if (this.target) await this.reach(this.target);
    if (this.closed) return;
    this.watch();
    this.scheduleTotals();
  }

  fetchTail(limit = PAGE) {
    return api.getContext(this.id, { leaf: this.leaf || undefined, limit });
  }

  setPage(ctx, replace) {
    const items = withEdits(ctx.messages.map((m, i) => ({ m, id: ctx.entryIds[i] })), ctx.edits, this, replace);
    this.items = replace ? items : items.concat(this.items);
    this.start = ctx.start;
    this.total = ctx.total;
    this.system = ctx.system || 0; // system messages among total: not conversation
    this.before = ctx.before;
    this.model = ctx.model;
    this.thinkingLevel = ctx.thinkingLevel;
    this.fileLeaf = ctx.leaf;
    this.ctxLoaded = true;
  }

  // loadEarlier fetches the page before the first loaded message.
  async loadEarlier(limit = PAGE * 3) {
    if (this.loading || this.before == null || this.closed) return false;
    this.loading = true;
    this.touch();
    try {
      const ctx = await api.getContext(this.id, { leaf: this.leaf || undefined, before: this.before, limit });
      if (!this.closed) this.setPage(ctx, false);
    } catch (e) {
      toast('Could not load earlier messages: ' + e.message, { kind: 'error' });
    }
    this.loading = false;
    this.touch();
    return true;
  }

  // reach loads pages until the entry is loaded, and failing that opens the
  // compaction that hides it.
  async reach(entry) {
    while (!this.items.some((it) => it.id === entry) && this.before != null) {
      if (!(await this.loadEarlier(1000))) break;
    }
    if (this.items.some((it) => it.id === entry)) return true;
    for (const it of this.items) {
      if (it.m.role !== 'compactionSummary') continue;
      const x = await this.expand(it.id);
      if (x && x.items.some((h) => h.id === entry)) return true;
      this.expanded.delete(it.id);
    }
    this.touch();
    return false;
  }

  // expand loads the history a compaction hid: the context just before
  // it, up to the first entry it kept.
  async expand(compactionId) {
    if (this.expanded.has(compactionId)) return this.expanded.get(compactionId);
    const x = { items: [], loading: true, error: null };
    this.expanded.set(compactionId, x);
    this.touch();
    try {
      const { entries } = await api.getEntries(this.id, { leaf: compactionId, limit: 1 });
      const comp = entries[entries.length - 1] || {};
      if (comp.parentId) {
        const ctx = await api.getContext(this.id, { leaf: comp.parentId });
        let end = ctx.entryIds.indexOf(comp.firstKeptEntryId);
        if (end < 0) end = ctx.messages.length;
        x.items = ctx.messages.slice(0, end).map((m, i) => ({ m, id: ctx.entryIds[i] }));
      }
    } catch (e) {
      x.error = e.message;
    }
    x.loading = false;
    this.touch();
    return x;
  }

  collapse(compactionId) {
    this.expanded.delete(compactionId);
    this.touch();
  }

  // watch follows the session's events. Opened (or reloaded) while a turn
  // runs, it resumes from that turn's message (hello.replayFrom) so that the
  // live chat (static/chat) shows it whole; a lost connection resumes with
  // its last id (api.js does it). Nothing is missed or repeated.
  watch(last = '') {
    this.unsub = api.follow(api.sessionTopic(this.id), (ev, eventId) => {
      if (ev.type === 'hello' && !last && ev.replayFrom && !this.replayed) {
        this.replayed = true;
        this.unsub();
        this.watch(String(ev.replayFrom));
        return;
      }
      onLiveEvent(this.id, ev, eventId);
      this.onEvent(ev);
    }, { after: last });
  }

  onEvent(ev) {
    if (this.closed) return;
    if (ev.type === 'hello') this.caughtUp(ev);
    else if (ev.type === 'entries_appended') this.appended(ev.entries || []);
    else if (ev.type === 'session_rewritten' || ev.type === 'reset') {
      if (this.missing) { this.missing = false; this.touch(); }
      this.reload();
    } else if (ev.type === 'session_missing') { // deleted or moved by another program
      this.missing = true;
      this.touch();
    }
    else if (ev.type === 'session_deleted') {
      this.deleted = true;
      if (this.unsub) this.unsub();
      this.unsub = null;
      this.touch();
    }
  }

  // caughtUp closes the gap between loading the session and following
  // it: the server makes hello once this stream is subscribed, so every
  // append after hello's leaf arrives as an event, and one before it that
  // the page lacks (pi answering while the stream connected) is read now.
  async caughtUp(hello) {
    if (!('leaf' in hello) || this.closed) return;
    const work = [];
    if (this.detail && this.detail.leaf !== hello.leaf) {
      work.push(fetchDetail(this.id, true).then((d) => { this.detail = d; }, () => {}));
    }
    if (!this.leaf && this.ctxLoaded && this.fileLeaf !== hello.leaf) work.push(this.refreshTail(10));
    if (!work.length) return;
    await Promise.all(work);
    this.touch();
  }

  // appended adds new entries to the tree and, when this view follows the
  // file's leaf, the new messages to the conversation.
  async appended(entries) {
    if (this.detail) {
      for (const e of entries) if (e && e.id) this.addNode(e);
      if (entries.length) this.detail.leaf = entries[entries.length - 1].id || this.detail.leaf;
    }
    // A compaction rewrites the start of the context: read it again, and
    // show its card (it would land above the fold, unnoticed).
    const comp = entries.find((e) => e && e.type === 'compaction');
    if (!this.leaf && comp) {
      await this.reload();
      this.target = comp.id;
      toast(`Compacted: a summary now stands for ${fmtTokens(comp.tokensBefore)} tokens of earlier history`);
    } else if (!this.leaf) await this.refreshTail(entries.length);
    this.touch();
  }

  addNode(e) {
    const tree = this.detail.tree;
    if (tree.some((n) => n.id === e.id)) return;
    const m = e.message || {};
    let text = '';
    if (e.type === 'message') text = typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.filter((b) => b.type === 'text').map((b) => b.text).join(' ') : m.command || '';
    else text = e.summary || e.name || '';
    tree.push({ id: e.id, parentId: e.parentId ?? null, type: e.type, role: m.role, timestamp: e.timestamp, text: text.slice(0, 200), label: null });
    if (e.type === 'label' && e.targetId) {
      const t = tree.find((n) => n.id === e.targetId);
      if (t) t.label = e.label || null;
      if (e.label) this.detail.labels[e.targetId] = e.label; else delete this.detail.labels[e.targetId];
    }
    if (e.type === 'session_info' && this.detail.session) this.detail.session.name = e.name || null;
  }

  async refreshTail(n) {
    try {
      const ctx = await this.fetchTail(n + 10);
      const last = this.items.length ? this.items[this.items.length - 1].id : null;
      const at = last ? ctx.entryIds.lastIndexOf(last) : -1;
      if (last && at < 0) return this.reload();
      const fresh = withEdits(ctx.messages.map((m, i) => ({ m, id: ctx.entryIds[i] })), ctx.edits, this, true);
      // An entry pi edited after the page had it (a retried attempt left
      // out) is redrawn with its edit.
      if (at >= 0 && (fresh[at].omittedBefore || fresh[at].original !== undefined)) this.items[this.items.length - 1] = fresh[at];
      for (let i = at + 1; i < fresh.length; i++) this.items.push(fresh[i]);
      this.total = ctx.total;
      this.system = ctx.system || 0;
      this.fileLeaf = ctx.leaf;
      this.model = ctx.model;
      this.thinkingLevel = ctx.thinkingLevel;
      this.scheduleTotals();
    } catch (e) {
      toast('Live update failed: ' + e.message, { kind: 'error' });
    }
  }

  async reload() {
    try {
      const [detail, ctx] = await Promise.all([fetchDetail(this.id, true), this.fetchTail()]);
      this.detail = detail;
      this.setPage(ctx, true);
      this.expanded.clear();
    } catch (e) {
      this.error = e;
    }
    this.touch();
  }

  // scheduleTotals sums tokens and cost over the whole branch, reading the
  // rest of the context in the background when only part of it is loaded.
  scheduleTotals() {
    clearTimeout(this.totalsTimer);
    const run = async () => {
      let msgs = this.items.map((it) => it.m);
      if (this.start > 0) {
        try {
          msgs = (await api.getContext(this.id, { leaf: this.leaf || undefined })).messages;
        } catch { return; }
      }
      if (!this.closed) { this.totals = sumUsage(msgs); this.touch(); }
    };
    this.totalsTimer = setTimeout(run, this.start > 0 ? 800 : 0);
  }

  close() {
    this.closed = true;
    clearTimeout(this.totalsTimer);
    if (this.unsub) this.unsub();
  }
}

// withEdits marks the items whose content pi replaces in the model's
// context (item.original: the file's message) and puts each entry pi
// leaves out before the item it preceded (item.omittedBefore), or, when it
// came last, in view.leafOmitted (server ContextEdit, docs/api.md).
function withEdits(items, edits, view, atEnd) {
  if (atEnd) view.leafOmitted = null;
  if (!edits || !edits.length) return items;
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
    else if (!e.beforeId) (view.leafOmitted ||= []).push(o);
  }
  return items;
}

// sumUsage sums the usage the branch's messages carry: answers, and the
// nested model work pi 1.x records on tool results and summaries. (pi's
// usage entries are not messages: the session's own totals, from the
// index, count them.)
export function sumUsage(msgs) {
  const t = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0, models: new Set() };
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
  const v = current.value;
  if (v && v.id === id && v.leaf === leaf && !v.error) {
    if (target && target !== v.target) {
      v.target = target;
      v.reach(target).then(() => v.touch());
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
  if (current.value) current.value.close();
  current.value = null;
}
