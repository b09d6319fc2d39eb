// The session header, one line: name (renamed inline), project, model,
// tokens and cost, with the rest on demand (folder, every model, dates,
// messages and size), the side panels and the actions on the session.
import { useState, useRef, useEffect, useLayoutEffect } from 'preact/hooks';
import { html } from './html.js';
import { onArrows } from './roving.js';
import { SidebarButton } from './sidebarbutton.js';
import * as api from './api.js';
import { toast, navigate, setPanel, panel, searchOpen, upsertSession,
  sessionById, sessionOf, sessionURL, renameAsked } from './state.js';
import { paletteOpen } from './palette.js';
import { remove, copy } from './actionlist.js';
import { DamageBanner } from './damage.js';
import { panels } from './panels.js';
import { fmtDate, ago, fmtTokens, fmtCost, fmtBytes, shortId, countLine, baseName } from './util.js';
import { glyph } from './icons.js';
import { RemoteBanner, readOnly } from './fleet.js';
import { pinned, archived, togglePin, archive } from './order.js';
import { usePopover } from './popover.js';
import { shareAsked, canShare } from './share.js';

export function SessionHeader({ view }) {
  const d = view.detail.value;
  const s = sessionOf(view);
  const t = view.totals.value;
  const [editing, setEditing] = useState(false);
  const ro = readOnly(view); // another machine's session, read from the fleet database
  // Until the listing or the metadata names it, the title waits (an
  // "(unnamed session)" would flash for a session listed a moment later).
  const known = !!d || sessionById.value.has(view.id);
  const title = s.name || s.firstMessage || (known ? '(unnamed session)' : '');
  // The model the next message uses first, then the others that answered.
  const models = [...new Set([view.model.value && view.model.value.modelId, ...(t ? t.models : [])].filter(Boolean))];
  const tokens = t ? t.input + t.output + t.cacheRead + t.cacheWrite : 0;
  const ask = renameAsked.value && !ro;
  useEffect(() => { if (ask) { renameAsked.value = false; setEditing(true); } }, [ask]);
  return html`<header class="sess-head">
    <${SidebarButton} />
    <div class="sess-head-main">
      <div class="sess-line">
        ${editing ? html`<${RenameForm} view=${view} name=${s.name || ''} done=${() => setEditing(false)} />`
          : html`<h1 class=${'sess-name' + (s.name ? '' : ' unnamed')}
            title=${ro ? '' : s.name ? 'Click to rename'
              : 'Not named yet: its first message stands in. Click to name it.'}
            onClick=${() => ro || setEditing(true)}>${title}</h1>`}
        <${Facts} view=${view} s=${s} t=${t} models=${models} tokens=${tokens} />
      </div>
      ${view.leaf && html`<div class="sess-branch">viewing branch at ${shortId(view.leaf)} <a
        href=${sessionURL(view.id)} onClick=${(e) => { e.preventDefault(); navigate(sessionURL(view.id)); }}>back
        to current</a></div>`}
      ${archived.value.has(view.id) && html`<div class="sess-archived archived-fact">Archived <button type="button"
        class="btn-link unarchive" onClick=${() => archive(view.id, false)}>Restore</button></div>`}
      ${view.deleted.value && html`<div class="stop error">This session was moved to the trash.</div>`}
      ${view.missing.value && !view.deleted.value && html`<div class="stop error session-missing">${view.machine
        ? `The fleet no longer lists this session: it was deleted or moved on ${view.machine}. What was read stays.`
        : 'The session file was deleted or moved outside piweb. This notice goes when the file is back.'}</div>`}
      ${view.machine && html`<${RemoteBanner} view=${view} />`}
      <${DamageBanner} view=${view} />
    </div>
    <div class="sess-actions">
      <button class="btn ghost icon only-mobile phone-search" type="button" aria-label="Search all sessions"
        onClick=${() => { searchOpen.value = true; }}>${glyph.search}</button>
      <button class="btn ghost icon only-mobile phone-palette" type="button" aria-label="Commands"
        title="Commands (Ctrl+Shift+P)" onClick=${() => { paletteOpen.value = true; }}>⌘</button>
      ${panels.filter((p) => !ro || p.remote).map((p) => html`<button type="button"
        class=${'btn ghost panel-btn' + (panel.value === p.name ? ' on' : '')} data-panel=${p.name}
        aria-pressed=${panel.value === p.name} onClick=${() => setPanel(p.name)} title=${p.title}>${p.label}</button>`)}
      <${Menu} view=${view} s=${s} rename=${ro ? null : () => setEditing(true)} />
    </div>
  </header>`;
}

// Facts is the header's brief (project, model, tokens and cost), a button
// that opens the details: folder, every model, tokens and cost by kind,
// dates, messages and size.
function Facts({ view, s, t, models, tokens }) {
  const [open, setOpen] = usePopover();
  const count = countLine(view.total.value, s.messageCount || 0); // one count everywhere (util.js)
  return html`<span class="sess-details" ref=${open.ref}>
    <button class="sess-more" type="button" aria-expanded=${open.on} aria-controls="sess-facts"
      title="Details: folder, models, tokens, dates, messages" onClick=${() => setOpen(!open.on)}>
      ${s.cwd && html`<span class="brief project">${baseName(s.cwd)}</span>`}
      ${models.length > 0 && html`<span class="brief model-name">${models[0]}</span>`}
      ${tokens > 0 && html`<span class="brief spend">${fmtTokens(tokens)}<span class="brief-unit"> tokens</span> · ${
        fmtCost(t.cost)}</span>`}
      <span class="brief-open" aria-hidden="true">${glyph.menuOpen}</span></button>
    <div class="sess-facts sess-pop" id="sess-facts" hidden=${!open.on}>
      <span class="fact cwd" title="cwd">${s.cwd}</span>
      ${models.length > 0 && html`<span class="fact" title="models">${models.join(', ')}</span>`}
      ${tokens > 0 && html`<span class="fact"
        title=${`input ${t.input}, output ${t.output}, cache read ${t.cacheRead}, cache write ${t.cacheWrite}`}>
        ${fmtTokens(tokens)} tokens · ${fmtCost(t.cost)}</span>`}
      <span class="fact" title=${'created ' + fmtDate(s.created) + '\nmodified '
        + fmtDate(s.modified)}>created ${ago(s.created)} · active ${ago(s.modified)}</span>
      <span class="fact count">${count} · ${fmtBytes(s.size)}</span>
    </div></span>`;
}

function RenameForm({ view, name, done }) {
  const ref = useRef(null);
  const saved = useRef(false);
  // The typed text is state: with value=name alone, any re-render of the
  // header (an index event) put the old name back under the user's fingers.
  const [text, setText] = useState(name);
  useEffect(() => { ref.current.focus(); ref.current.select(); }, []);
  const save = async (e) => {
    e.preventDefault();
    if (saved.current || !ref.current) return;
    saved.current = true;
    const v = ref.current.value.trim();
    if (!v || v === name) return done();
    try {
      const r = await api.rename(view.id, v);
      view.setSession({ ...(r.session || {}), name: v });
      if (r.session) upsertSession(r.session);
      toast('Renamed');
    } catch (err) {
      toast('Rename failed: ' + err.message, { kind: 'error' });
    }
    done();
  };
  return html`<form class="rename" onSubmit=${save}>
    <input ref=${ref} value=${text} onInput=${(e) => setText(e.target.value)} aria-label="Session name"
      placeholder="Session name"
      onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); done(); } }} onBlur=${save} />
  </form>`;
}

const ARCHIVE_TIP = 'An archived session is hidden from the sidebar and home, still found by search';

function Menu({ view, s, rename }) {
  const [open, setOpen] = useState(false);
  const ref = useRef(null);
  useLayoutEffect(() => { // at once: a key pressed right after opening closes it
    if (!open) return;
    ref.current?.querySelector('[role=menuitem]')?.focus(); // as a menu button's menu does: ↑↓ move from there
    const close = (e) => { if (!ref.current || !ref.current.contains(e.target)) setOpen(false); };
    // Escape closes the menu (and only the menu) and gives focus back to its button.
    const esc = (e) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      setOpen(false);
      ref.current?.querySelector('button')?.focus();
    };
    document.addEventListener('pointerdown', close);
    document.addEventListener('keydown', esc, true);
    return () => {
      document.removeEventListener('pointerdown', close);
      document.removeEventListener('keydown', esc, true);
    };
  }, [open]);
  const act = (fn) => () => { setOpen(false); fn(); };
  const leaf = view.leaf || undefined;
  return html`<div class="menu" ref=${ref}>
    <button class="btn ghost sess-menu-btn" type="button" aria-haspopup="menu" aria-expanded=${open}
      aria-label="Actions" onClick=${() => setOpen(!open)}><span class="menu-label">Actions ${glyph.menuOpen}
        </span><span class="menu-icon" aria-hidden="true">${glyph.more}</span></button>
    ${open && html`<div class="menu-pop" role="menu" onKeyDown=${onArrows('[role=menuitem]')}>
      ${panels.filter((p) => !readOnly(view) || p.remote).map((p) => html`<button role="menuitem" type="button"
        class="only-mobile panel-item" onClick=${act(() => setPanel(p.name))}>${p.label}</button>`)}
      <div class="menu-sep only-mobile"></div>
      ${rename && html`<button role="menuitem" type="button" onClick=${act(rename)}>Rename</button>`}
      <button role="menuitem" type="button" class="pin-item" onClick=${act(() => togglePin(view.id))}
        title="A pinned session is listed first in its project">${pinned.value.has(view.id) ? 'Unpin' : 'Pin'}</button>
      <button role="menuitem" type="button" class="archive-item" title=${ARCHIVE_TIP}
        onClick=${act(() => archive(view.id, !archived.value.has(view.id)))}>${archived.value.has(view.id)
          ? 'Restore from the archive' : 'Archive'}</button>
      <div class="menu-sep"></div>
      <button role="menuitem" type="button" onClick=${act(() => copy('id', api.splitRef(view.id).id))}>Copy id</button>
      <button role="menuitem" type="button" onClick=${act(() => copy('path', s.path || ''))}>Copy path</button>
      <div class="menu-sep"></div>
      ${rename && canShare(view.id) && html`<button role="menuitem" type="button" class="share-item"
        title="A read-only page of this session for whoever has the link"
        onClick=${act(() => { shareAsked.value = { id: view.id, leaf: view.leaf || '' }; })}>Share…</button>`}
      <a role="menuitem" href=${api.exportURL(view.id, 'html', leaf)} download onClick=${() => setOpen(false)}
        title="One page that reads like this one, to keep or share; opens offline">Export HTML</a>
      <a role="menuitem" href=${api.exportURL(view.id, 'md', leaf)} download
        onClick=${() => setOpen(false)}>Export Markdown</a>
      <a role="menuitem" href=${api.exportURL(view.id, 'jsonl')} download onClick=${() => setOpen(false)}
        title="The session file as it is, every branch">Export JSONL (whole file)</a>
      <a role="menuitem" href=${api.exportURL(view.id, 'jsonl', leaf, 'branch')} download
        onClick=${() => setOpen(false)}
        title="Only the branch shown, as pi's /export writes it (a new header)">Export this branch as JSONL</a>
      ${rename && html`<div class="menu-sep"></div>
      <button role="menuitem" class="danger" type="button" onClick=${act(() => remove(view, s))}>Delete…</button>`}
    </div>`}
  </div>`;
}
