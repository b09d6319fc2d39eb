// Full-text search over every session (Ctrl+K): hits with highlighted
// snippets, project and date; opening one shows the hit's branch scrolled to
// the entry.
import { useState, useEffect, useRef } from 'preact/hooks';
import { html } from './html.js';
import * as api from './api.js';
import { searchOpen, navigate, sessionURL, toast } from './state.js';
import { fetchDetail } from './view.js';
import { buildTree, pathSet, tipOf } from './tree.js';
import { baseName, ago, fmtDate } from './util.js';
import { glyph } from './icons.js';
import { fleet } from './fleet.js';

// openHit navigates to the hit on its own branch, which may be an
// abandoned one.
export async function openHit(hit) {
  let leaf = '';
  if (!hit.onCurrentBranch) {
    try {
      const d = await fetchDetail(hit.sessionId);
      const t = buildTree(d.tree);
      leaf = tipOf(t, hit.entryId, pathSet(t, d.leaf), d.leaf);
      if (leaf === d.leaf) leaf = '';
    } catch (e) {
      toast('Could not open the hit: ' + e.message, { kind: 'error' });
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

export function SearchDialog() {
  const [q, setQ] = useState('');
  const [res, setRes] = useState({ hits: [], total: 0, q: '' });
  const [sel, setSel] = useState(0);
  const [busy, setBusy] = useState(false);
  const [limit, setLimit] = useState(PAGE);
  const input = useRef(null);
  const seq = useRef(0);
  useEffect(() => { input.current && input.current.focus(); }, []);
  useEffect(() => {
    const text = q.trim();
    if (!text) { setRes({ hits: [], total: 0, q: '' }); return; }
    const n = ++seq.current;
    const t = setTimeout(async () => {
      setBusy(true);
      try {
        const f = fleet.peek(); // serve --fleet: every machine's sessions
        const r = await (f ? api.searchFleet(text, f.self, { limit }) : api.search(text, { limit }));
        if (n === seq.current) { setRes({ hits: r.hits || [], total: r.total || 0, more: !!r.more,
          q: text }); setSel(0); }
      } catch (e) {
        if (n === seq.current) setRes({ hits: [], total: 0, q: text, error: e.message });
      }
      if (n === seq.current) setBusy(false);
    }, 120);
    return () => clearTimeout(t);
  }, [q, limit]);
  const onInput = (e) => { setQ(e.currentTarget.value); setLimit(PAGE); };
  // The server returns at most the hits asked for and says when more match.
  const more = !!res.more;
  const count = more ? `${res.hits.length}+ hits` : `${res.hits.length} ${res.hits.length === 1 ? 'hit' : 'hits'}`;
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
  return html`<div class="overlay"
    onPointerDown=${(e) => { if (e.target === e.currentTarget) searchOpen.value = false; }}>
    <div class="dialog search" role="dialog" aria-label="Search">
      <div class="search-box">
        <span class="search-icon">${glyph.search}</span>
        <input ref=${input} type="search" placeholder="Search all sessions" value=${q} aria-label="Search text"
          onInput=${onInput} onKeyDown=${onKey} />
        ${busy && html`<span class="spin" aria-label="searching"></span>`}
      </div>
      <ul class="hits" role="listbox">
        ${res.error && html`<li class="muted pad">${res.error}</li>`}
        ${res.q && !res.hits.length && !res.error && !busy
          && html`<li class="muted pad">No match for “${res.q}”.</li>`}
        ${res.hits.map((h, i) => html`<li key=${h.sessionId + h.entryId} role="option" aria-selected=${i === sel}
          data-session=${h.sessionId} data-entry=${h.entryId}
            class=${'hit' + (i === sel ? ' sel' : '')} onPointerEnter=${() => setSel(i)} onClick=${() => openHit(h)}>
          <div class="hit-top">
            <span class="hit-title">${(h.session && (h.session.name || h.session.firstMessage)) || h.sessionId}</span>
            ${!h.onCurrentBranch && html`<span class="tag">other branch</span>`}
          </div>
          <div class="hit-snip"><span class=${'role ' + h.role}>${h.role}</span> <${Snippet} text=${h.snippet || ''}
            marks=${h.highlights} /></div>
          <div class="hit-meta muted">${h.machine && html`<span class="hit-machine">${h.machine}</span> · `}<span
            title=${h.session && h.session.cwd}>${baseName(h.session && h.session.cwd)}
            </span> · <span title=${fmtDate(h.timestamp)}>${ago(h.timestamp)}</span></div>
        </li>`)}
        ${more && html`<li class="more-hits"><button class="btn ghost small" type="button"
          onClick=${() => setLimit(limit + PAGE)}>Show more</button></li>`}
      </ul>
      <div class="dialog-foot muted">${res.q && !res.error ? html`<span class="hit-count">${count}</span>` : ''}<span
        class="keys"> · ↑↓ to move · Enter to open · Esc to close</span></div>
    </div>
  </div>`;
}
