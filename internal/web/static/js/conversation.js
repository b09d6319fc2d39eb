// The conversation of the open view, windowed: messages are grouped in
// pages of PAGE; only the pages near the viewport are in the DOM, the others
// are spacers of their measured height. Earlier pages load when the reader
// scrolls near the top, keeping the scroll position.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Component } from 'preact';
import { html } from './html.js';
import { Message, hidden } from './message.js';
import { markdown } from './markdown.js';
import { PAGE } from './view.js';
import { fmtTokens, fmtTime, fmtDate, toMs } from './util.js';
import { t, dateFmt } from './i18n.js';
import { RowActions } from './rowactions.js';
import { EditedNote, omittedNote } from './system.js';
import { glyph } from './icons.js';
import { starting } from '../chat/store.js';

const EST = PAGE * 110; // px, a page never measured
const EAGER = 12; // messages drawn first when a session opens at its end

// pairing maps tool call ids to results over the given items.
export function pairing(items) {
  const results = new Map();
  const calls = new Set();
  for (const it of items) {
    const m = it.m;
    if (m.role === 'toolResult') results.set(m.toolCallId, m);
    else if (m.role === 'assistant' && Array.isArray(m.content)) {
      for (const b of m.content) if (b.type === 'toolCall') calls.add(b.id);
    }
  }
  const paired = new Set([...results.keys()].filter((k) => calls.has(k)));
  const sys = items.find((it) => it.m.role === 'system');
  return { results, paired, firstSystem: sys ? sys.id : null };
}

export function Conversation({ view, tail }) {
  const items = view.items.value;
  const start = view.start.value;
  const target = view.target.value;
  const loading = view.loading.value;
  const scroller = useRef(null);
  const scrollPending = useRef(false);
  const heights = useRef(new Map());
  const anchor = useRef(null);
  const stick = useRef(true);
  const [win, setWin] = useState(null);
  // A session opened at its end draws only its newest messages first, and
  // the rest of the window a moment later: the first layout of a page of
  // long messages is what keeps them from showing.
  const [eager, setEager] = useState(!target);
  useEffect(() => {
    if (!eager || !items.length) return undefined;
    const t = setTimeout(() => setEager(false), 0);
    return () => clearTimeout(t);
  }, [eager, items.length > 0]);
  const ctx = useMemo(() => pairing(items), [items, items.length]);
  const first = Math.floor(start / PAGE);
  const last = Math.floor(Math.max(start + items.length - 1, 0) / PAGE);
  // Pages just prepended are rendered at once so that the scroll position
  // is restored over their real height, not an estimate.
  const prepended = anchor.current && anchor.current.start !== start;
  const lo = eager ? last : prepended ? first : win ? Math.max(win[0], first) : Math.max(first, last - 1);
  const hi = win ? Math.min(win[1], last) : last;

  // Keep the scroll position when pages are prepended, follow the bottom
  // when the reader is there.
  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    if (anchor.current && anchor.current.start !== start) {
      el.scrollTop = el.scrollHeight - anchor.current.dist;
      anchor.current = null;
    } else if (anchor.current) {
      // still loading
    } else if (stick.current && !target) {
      el.scrollTop = el.scrollHeight;
    }
  });

  // A conversation read at its end stays there when its box or content
  // changes size without a render: a phone turned, the on-screen keyboard
  // opened, the composer grew, an image loaded.
  useEffect(() => {
    const el = scroller.current;
    if (!el || !window.ResizeObserver) return undefined;
    const ro = new ResizeObserver(() => { if (stick.current && !view.target.peek()) el.scrollTop = el.scrollHeight; });
    ro.observe(el);
    ro.observe(el.firstElementChild);
    return () => ro.disconnect();
  }, []);

  // Scroll to the target entry once it is rendered.
  useEffect(() => {
    const t = target;
    if (!t) return;
    const idx = items.findIndex((it) => it.id === t);
    if (idx >= 0) {
      const p = Math.floor((start + idx) / PAGE);
      if (p < lo || p > hi) { setWin([Math.max(first, p - 1), Math.min(last, p + 1)]); return; }
    }
    const el = document.getElementById('e-' + t);
    if (!el) return;
    stick.current = false;
    el.scrollIntoView({ block: 'center' });
    el.classList.remove('flash');
    void el.offsetWidth;
    el.classList.add('flash');
    view.shownTarget.value = t;
    view.target.value = '';
  });

  const earlier = () => {
    const el = scroller.current;
    anchor.current = { dist: el.scrollHeight - el.scrollTop, start: view.start.peek() };
    view.loadEarlier().then(() => { if (anchor.current
      && anchor.current.start === view.start.peek()) anchor.current = null; });
  };
  const onScroll = () => {
    const el = scroller.current;
    if (!el || scrollPending.current) return;
    scrollPending.current = true;
    requestAnimationFrame(() => {
      scrollPending.current = false;
      stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40;
      if (el.scrollTop < el.clientHeight * 1.5 && view.before.peek() != null && !view.loading.peek()) {
        earlier();
      }
      const next = visiblePages(el, first, last, heights.current);
      if (!win || next[0] !== lo || next[1] !== hi) setWin(next);
    });
  };

  const pages = [];
  for (let p = first; p <= last && items.length; p++) {
    if (p < lo || p > hi) {
      pages.push(html`<div key=${'s' + p} class="spacer" data-page=${p}
        style=${{ height: (heights.current.get(p) || EST) + 'px' }}></div>`);
      continue;
    }
    const a = Math.max(p * PAGE - start, 0, eager ? items.length - EAGER : 0);
    const b = Math.min((p + 1) * PAGE - start, items.length);
    const before = a > 0 ? items[a - 1].m.timestamp : start === 0 ? null : undefined;
    pages.push(html`<${Page} key=${'p' + p} p=${p} items=${items.slice(a, b)} before=${before} ctx=${ctx} view=${view}
      heights=${heights.current} />`);
  }
  // Opening something in the conversation (a summary, a tool card, the
  // history a compaction hid) is reading, not following the end: the view
  // stays where the reader is.
  const onClickCapture = (e) => { if (e.target.closest
    && e.target.closest('summary, .card-head button')) stick.current = false; };
  return html`<div class="conv" ref=${scroller} onScroll=${onScroll} onClickCapture=${onClickCapture} tabIndex="-1">
    <div class="conv-inner">
      ${view.before.value != null ? html`<div class="load-earlier">
        ${loading ? t('conv.loadingEarlier') : html`<button class="btn ghost" type="button"
        onClick=${earlier}>${t('conv.loadEarlier', { count: start })}</button>`}</div>`
        : items.length ? html`<div class="conv-start muted">${t('conv.start')}</div>` : null}
      ${pages}
      ${!view.leafOmitted.value ? null : view.leafOmitted.value.map((o) => html`<${Omitted} key=${o.id} o=${o}
        ctx=${ctx} />`)}
      ${tail}
      ${!items.length && !loading && !starting.has(view.id) && html`<div class="empty muted">${
        t('conv.noMessages')}</div>`}
    </div>
  </div>`;
}

// visiblePages returns the page range overlapping the viewport, with one
// viewport of margin on each side.
function visiblePages(el, first, last, heights) {
  let y = el.querySelector('.conv-inner').firstElementChild?.offsetHeight || 0;
  const top = el.scrollTop - el.clientHeight;
  const bottom = el.scrollTop + el.clientHeight * 2;
  let lo = -1, hi = last;
  for (let p = first; p <= last; p++) {
    const h = heights.get(p) || EST;
    if (y + h >= top && lo < 0) lo = p;
    if (y > bottom) { hi = p - 1; break; }
    y += h;
  }
  if (lo < 0) lo = last;
  return [lo, Math.max(hi, lo)];
}

// dayOf is the local calendar day of a time, '' when unknown.
function dayOf(t) {
  const ms = toMs(t);
  return isFinite(ms) ? new Date(ms).toDateString() : '';
}

// DaySep marks where the date changes between two messages (and at the
// start of the conversation), since message headers show only the time.
function DaySep({ t }) {
  const d = new Date(toMs(t));
  const text = dateFmt({ weekday: 'short', year: 'numeric', month: 'short', day: 'numeric' }).format(d);
  return html`<div class="day-sep" role="separator"><span>${text}</span></div>`;
}

// withDays interleaves day separators; before is the time of the message
// before the first (null at the start of the conversation, undefined when
// not loaded).
function withDays(items, before, render, shown = () => true) {
  let prev = before === undefined ? undefined : dayOf(before);
  const out = [];
  for (const it of items) {
    if (!shown(it)) continue; // a separator before nothing would stand beside the next one
    const day = dayOf(it.m.timestamp);
    if (day && prev !== undefined && day !== prev) out.push(html`<${DaySep} key=${'d' + it.id} t=${it.m.timestamp} />`);
    if (day) prev = day;
    else if (prev === undefined) prev = '';
    out.push(render(it));
  }
  return out;
}

function Page({ p, items, before, ctx, view, heights }) {
  const ref = useRef(null);
  useLayoutEffect(() => {
    const el = ref.current;
    heights.set(p, el.offsetHeight);
    const ro = new ResizeObserver(() => { if (el.isConnected) heights.set(p, el.offsetHeight); });
    ro.observe(el);
    return () => ro.disconnect();
  }, [p]);
  return html`<div class="page" ref=${ref} data-page=${p}>
    ${withDays(items, before, (it) => html`<${Row} key=${it.id} it=${it} ctx=${ctx}
      view=${view} />`, (it) => !hidden(it.m, ctx))}
  </div>`;
}

// rowDeps lists what a row's rendering depends on, so that a re-render of
// the conversation (a new page, a live append) re-renders only the rows
// whose message or paired tool results changed (the line under each
// message, RowActions, follows the view by itself).
function rowDeps({ it, ctx }) {
  const m = it.m;
  const deps = [it];
  if (m.role === 'assistant' && Array.isArray(m.content)) {
    for (const b of m.content) if (b.type === 'toolCall') deps.push(ctx.results.get(b.id));
  } else if (m.role === 'toolResult') deps.push(ctx.paired.has(m.toolCallId));
  else if (m.role === 'system') deps.push(ctx.firstSystem);
  return deps;
}

class Row extends Component {
  shouldComponentUpdate(next) {
    if (next.it.m.role === 'compactionSummary') return true;
    const a = rowDeps(this.props);
    const b = rowDeps(next);
    return a.length !== b.length || a.some((x, i) => x !== b[i]);
  }

  render({ it, ctx, view }) {
    const body = it.m.role === 'compactionSummary'
      ? html`<${Compaction} it=${it} view=${view} />`
      : html`<${Message} item=${it} ctx=${ctx} />`;
    const row = html`<article class=${'row' + (it.original ? ' edited' : '')} id=${'e-' + it.id} data-entry=${it.id}
      data-role=${it.m.role}>${body}
      ${it.original !== undefined && html`<${EditedNote} original=${it.original}
        render=${(m) => html`<${Message} item=${{ m, id: it.id }} ctx=${ctx} />`} />`}
      <${RowActions} view=${view} it=${it} /></article>`;
    return it.omittedBefore ? html`${it.omittedBefore.map((o) => html`<${Omitted} key=${o.id} o=${o} ctx=${ctx} />`)}
      ${row}` : row;
  }
}

// Omitted draws an entry pi left out of the model's context (a
// context_edit), greyed, with why.
export function Omitted({ o, ctx }) {
  return html`<article class="row omitted" id=${'e-' + o.id} data-entry=${o.id}
    data-role=${(o.m && o.m.role) || 'entry'}>
    <div class="omitted-note muted">${omittedNote(o.m)}</div>
    ${o.m ? html`<${Message} item=${o} ctx=${ctx} />` : null}</article>`;
}

// Compaction shows pi's summary collapsed with the tokens it replaced;
// opening it shows the history it hid, greyed, in place.
function Compaction({ it, view }) {
  const m = it.m;
  const x = view.expanded.value.get(it.id);
  const ctx = useMemo(() => pairing(x ? x.items : []), [x, x && x.items]);
  return html`<div class=${'card compaction' + (x ? ' open' : '')}>
    <div class="card-head">
      <span class="card-icon">${glyph.compacted}</span><strong>${t('conv.compacted')}</strong>
      <span class="muted">${t('conv.tokensBefore', { tokens: fmtTokens(m.tokensBefore) })}</span>
      <time class="ts" title=${fmtDate(m.timestamp)}>${fmtTime(m.timestamp)}</time>
      <button class="btn ghost small" type="button" onClick=${() => (x ? view.collapse(it.id) : view.expand(it.id))}>
        ${t(x ? 'conv.hideHistory' : 'conv.showHistory')}</button>
    </div>
    <details class="card-summary"><summary>${t('conv.summary')}</summary>
      <div class="md">${markdown(m.summary)}</div></details>
    ${x && html`<div class="hidden-history">
      ${x.loading && html`<div class="muted">${t('common.loading')}</div>`}
      ${x.error && html`<div class="stop error">${x.error}</div>`}
      ${!x.loading && !x.items.length && !x.error && html`<div class="muted">${t('conv.nothingBefore')}</div>`}
      ${x.items.map((h) => hidden(h.m, ctx) ? null : html`<article key=${h.id} class="row" id=${'e-' + h.id}
        data-entry=${h.id} data-role=${h.m.role}>
        ${h.m.role === 'compactionSummary' ? html`<div class="card compaction"><div class="card-head">
          <strong>${t('conv.earlierCompaction')}</strong></div><div class="md">${markdown(h.m.summary)}</div>
          </div>` : html`<${Message} item=${h} ctx=${ctx} />`}</article>`)}
      ${x.items.length > 0 && html`<div
        class="muted hidden-end">${t('conv.endCompacted')}</div>`}
    </div>`}
  </div>`;
}
