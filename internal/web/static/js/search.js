// Full-text search over every session (Ctrl+K): hits with highlighted
// snippets, project and date; opening one shows the hit's branch scrolled to
// the entry.
import { useState, useEffect, useRef } from 'preact/hooks';
import { html } from './html.js';
import * as api from './api.js';
import { searchOpen, navigate, sessionURL, toast } from './state.js';
import { fetchDetail } from './view.js';
import { buildTree, pathSet, tipOf } from './tree.js';
import { baseName, ago, fmtDate, withoutToken } from './util.js';
import { countText, partialText } from './searchtext.js';
import { glyph } from './icons.js';
import { useDialogFocus } from './dialogfocus.js';
import { fleet } from './fleet.js';
import { archived } from './order.js';
import { t } from './i18n.js';

// openHit navigates to the hit on its own branch, which may be an
// abandoned one.
export async function openHit(hit) {
  let leaf = '';
  if (!hit.onCurrentBranch) {
    try {
      const d = await fetchDetail(hit.sessionId);
      const tr = buildTree(d.tree);
      leaf = tipOf(tr, hit.entryId, pathSet(tr, d.leaf), d.leaf);
      if (leaf === d.leaf) leaf = '';
    } catch (e) {
      toast(t('search.openFailed', { why: e.message }), { kind: 'error' });
      return;
    }
  }
  searchOpen.value = false;
  navigate(sessionURL(hit.sessionId, leaf, hit.entryId));
}

function Snippet({ text, marks }) {
  const out = [];
  let at = 0;
  for (const [a, b] of (marks || []).slice().sort((x, y) => x[0] - y[0])) {
    if (a < at) continue;
    out.push(text.slice(at, a), html`<mark>${text.slice(a, b)}</mark>`);
    at = b;
  }
  out.push(text.slice(at));
  return html`<span class="snippet">${out}</span>`;
}

const PAGE = 50; // hits asked for at a time

// QUICK are the filters offered as chips while the box has none of their
// key (the server reads them; the chips only edit the text).
const QUICK = [
  { key: 'branch', token: 'branch:current', label: t('search.qCurrent') },
  { key: 'branch', token: 'branch:abandoned', label: t('search.qAbandoned') },
  { key: 'role', token: 'role:user', label: t('search.qUser') },
  { key: 'role', token: 'role:assistant', label: t('search.qAssistant') },
];

// groupHits groups hits by session in the order of their best hit, each
// group with its number of matches from the answer's sessions.
function groupHits(res) {
  const counts = new Map((res.sessions || []).map((g) => [g.sessionId, g.count]));
  const groups = new Map();
  res.hits.forEach((h, i) => {
    if (!groups.has(h.sessionId)) {
      groups.set(h.sessionId, { id: h.sessionId, session: h.session, hits: [], count: counts.get(h.sessionId) || 0 });
    }
    groups.get(h.sessionId).hits.push({ h, i });
  });
  return [...groups.values()];
}

function Chips({ q, res, setQ }) {
  const filters = res.filters || [];
  const keys = new Set(filters.map((f) => f.key));
  const quick = QUICK.filter((c) => !keys.has(c.key));
  return html`<div class="search-chips" aria-label=${t('search.filters')}>
    ${filters.map((f) => html`<span class="chip on" key=${f.raw} data-key=${f.key}>${f.key}: ${f.value}<button
      type="button" class="chip-x" aria-label=${t('search.removeFilter', { filter: f.raw })}
      title=${t('search.remove')}
      onClick=${() => setQ(withoutToken(q, f.raw))}>×</button></span>`)}
    ${quick.map((c) => html`<button type="button" class="chip add" key=${c.token} data-key=${c.key}
      data-token=${c.token} onClick=${() => setQ((q.trim() + ' ' + c.token).trim())}>+ ${c.label}</button>`)}
  </div>`;
}

function HitRow({ h, i, sel, setSel }) {
  return html`<li key=${h.sessionId + h.entryId} role="option" aria-selected=${i === sel}
    data-session=${h.sessionId} data-entry=${h.entryId}
    class=${'hit' + (i === sel ? ' sel' : '')} onPointerEnter=${() => setSel(i)} onClick=${() => openHit(h)}>
    <div class="hit-snip"><span class=${'role ' + h.role}>${h.role}</span> <${Snippet} text=${h.snippet || ''}
      marks=${h.highlights} />${!h.onCurrentBranch && html` <span class="tag">${t('search.otherBranch')}</span>`}</div>
    <div class="hit-meta muted">${h.machine && html`<span class="hit-machine">${h.machine}</span> · `}<span
      title=${h.session && h.session.cwd}>${baseName(h.session && h.session.cwd)}
      </span> · <span title=${fmtDate(h.timestamp)}>${ago(h.timestamp)}</span></div>
  </li>`;
}

const matches = (n) => t('search.matches', { count: n });

function Group({ g, sel, setSel }) {
  const s = g.session || {};
  const title = s.name || s.firstMessage || g.id;
  return html`<li class="hit-group" role="group" aria-label=${title} data-session=${g.id}>
    <div class="hit-top" aria-hidden="true"><span class="hit-title">${title}</span>${archived.value.has(g.id)
      && html`<span class="tag archived-tag">${t('search.archived')}</span>`}
      <span class="group-count muted">${matches(Math.max(g.count, g.hits.length))}</span></div>
    <ul class="group-hits" role="presentation">${g.hits.map(({ h, i }) => html`<${HitRow} key=${h.sessionId + h.entryId}
      h=${h} i=${i} sel=${sel} setSel=${setSel} />`)}</ul>
  </li>`;
}

export function SearchDialog() {
  const [q, setQ] = useState('');
  const [res, setRes] = useState({ hits: [], total: 0, q: '' });
  const [sel, setSel] = useState(0);
  const [busy, setBusy] = useState(false);
  const [limit, setLimit] = useState(PAGE);
  const input = useRef(null);
  const seq = useRef(0);
  const box = useRef(null);
  useDialogFocus(box);
  useEffect(() => { input.current && input.current.focus(); }, []);
  useEffect(() => {
    const text = q.trim();
    if (!text) { setRes({ hits: [], total: 0, q: '' }); return; }
    const n = ++seq.current;
    const timer = setTimeout(async () => {
      setBusy(true);
      try {
        const f = fleet.peek(); // serve --fleet: every machine's sessions
        const r = await (f ? api.searchFleet(text, f.self, { limit }) : api.search(text, { limit }));
        if (n === seq.current) { setRes({ ...r, hits: r.hits || [], more: !!r.more, q: text }); setSel(0); }
      } catch (e) {
        if (n === seq.current) setRes({ hits: [], total: 0, q: text, error: e.message });
      }
      if (n === seq.current) setBusy(false);
    }, 120);
    return () => clearTimeout(timer);
  }, [q, limit]);
  const edit = (v) => { setQ(v); setLimit(PAGE); };
  const chipEdit = (v) => { edit(v); input.current && input.current.focus(); };
  const onInput = (e) => edit(e.currentTarget.value);
  // The server returns at most the hits asked for, says when more match
  // and how many match in all.
  const more = !!res.more;
  const left = Math.max(0, (res.count ?? 0) - res.hits.length);
  const onKey = (e) => {
    if (e.key === 'ArrowDown') { e.preventDefault(); setSel(Math.min(sel + 1, res.hits.length - 1)); }
    else if (e.key === 'ArrowUp') { e.preventDefault(); setSel(Math.max(sel - 1, 0)); }
    else if (e.key === 'Enter' && res.hits[sel]) { e.preventDefault(); openHit(res.hits[sel]); }
    else if (e.key === 'Escape') { e.preventDefault(); searchOpen.value = false; }
  };
  useEffect(() => {
    const el = document.querySelector('.hit.sel');
    if (el) el.scrollIntoView({ block: 'nearest' });
  }, [sel]);
  const filtersOnly = res.q && res.text === '' && (res.filters || []).length > 0;
  return html`<div class="overlay"
    onPointerDown=${(e) => { if (e.target === e.currentTarget) searchOpen.value = false; }}>
    <div class="dialog search" role="dialog" aria-modal="true" aria-label=${t('search.dialog')} ref=${box}>
      <div class="search-box">
        <span class="search-icon">${glyph.search}</span>
        <input ref=${input} type="search" value=${q} aria-label=${t('search.text')}
          placeholder=${t('search.placeholder')}
          onInput=${onInput} onKeyDown=${onKey} />
        ${busy && html`<span class="spin" aria-label=${t('search.searching')}></span>`}
      </div>
      <${Chips} q=${q} res=${res} setQ=${chipEdit} />
      ${(res.warnings || []).length > 0 && html`<div class="search-warn" role="status">${res.warnings.map((w) =>
        html`<div key=${w}>${w}</div>`)}</div>`}
      ${res.partial && html`<div class="search-warn search-partial" role="status">${partialText(res)}</div>`}
      <ul class="hits" role="listbox">
        ${res.error && html`<li class="muted pad">${res.error}</li>`}
        ${filtersOnly && html`<li class="muted pad">${t('search.filtersOnly')}</li>`}
        ${res.q && !res.hits.length && !res.error && !busy && !filtersOnly && !res.partial
          && html`<li class="muted pad">${t('search.noMatch', { q: res.q })}</li>`}
        ${groupHits(res).map((g) => html`<${Group} key=${g.id} g=${g} sel=${sel} setSel=${setSel} />`)}
        ${more && html`<li class="more-hits"><button class="btn ghost small" type="button"
          onClick=${() => setLimit(limit + PAGE)}>${left > 0 ? t('search.showNMore', { count: Math.min(PAGE, left) })
            : t('search.showMore')}</button>
          <span class="muted">${t('search.shown', { count: res.hits.length })}</span></li>`}
      </ul>
      <div class="dialog-foot muted">${res.q && !res.error
        ? html`<span class="hit-count">${countText(res)}</span>` : ''}<span
        class="keys">${t('search.keys')}</span></div>
    </div>
  </div>`;
}
