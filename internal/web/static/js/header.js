// The session header, one line: name (renamed inline), project, model,
// tokens and cost, with the rest on demand (folder, every model, dates,
// messages and size), the side panels and the actions on the session.
import { useState, useRef, useEffect } from 'preact/hooks';
import { html } from './html.js';
import { onArrows } from './roving.js';
import { SidebarButton } from './sidebarbutton.js';
import * as api from './api.js';
import { toast, navigate, setPanel, panel, searchOpen, upsertSession,
  sessionById, sessionOf, sessionURL, renameAsked } from './state.js';
import { paletteOpen } from './palette.js';
import { sessionActions } from './actionlist.js';
import { MenuItems } from './menuitems.js';
import { DamageBanner } from './damage.js';
import { panels } from './panels.js';
import { fmtDate, ago, fmtTokens, fmtCost, fmtBytes, shortId, countLine, baseName } from './util.js';
import { glyph } from './icons.js';
import { RemoteBanner, readOnly } from './fleet.js';
import { archived, archive } from './order.js';
import { usePopover } from './popover.js';
import { t } from './i18n.js';

export function SessionHeader({ view }) {
  const d = view.detail.value;
  const s = sessionOf(view);
  const tot = view.totals.value;
  const [editing, setEditing] = useState(false);
  const ro = readOnly(view); // another machine's session, read from the fleet database
  // Until the listing or the metadata names it, the title waits (an
  // "(unnamed session)" would flash for a session listed a moment later).
  const known = !!d || sessionById.value.has(view.id);
  const title = s.name || s.firstMessage || (known ? t('head.unnamed') : '');
  // The model the next message uses first, then the others that answered.
  const models = [...new Set([view.model.value && view.model.value.modelId,
    ...(tot ? tot.models : [])].filter(Boolean))];
  const tokens = tot ? tot.input + tot.output + tot.cacheRead + tot.cacheWrite : 0;
  const ask = renameAsked.value && !ro;
  useEffect(() => { if (ask) { renameAsked.value = false; setEditing(true); } }, [ask]);
  return html`<header class="sess-head">
    <${SidebarButton} />
    <div class="sess-head-main">
      <div class="sess-line">
        ${editing ? html`<${RenameForm} view=${view} name=${s.name || ''} done=${() => setEditing(false)} />`
          : html`<h1 class=${'sess-name' + (s.name ? '' : ' unnamed')}
            title=${ro ? '' : s.name ? t('head.clickRename') : t('head.notNamed')}
            onClick=${() => ro || setEditing(true)}>${title}</h1>`}
        <${Facts} view=${view} s=${s} tot=${tot} models=${models} tokens=${tokens} />
      </div>
      ${view.leaf && html`<div class="sess-branch">${t('head.viewingBranch', { id: shortId(view.leaf) })} <a
        href=${sessionURL(view.id)} onClick=${(e) => { e.preventDefault(); navigate(sessionURL(view.id)); }}>${
          t('head.backToCurrent')}</a></div>`}
      ${archived.value.has(view.id) && html`<div class="sess-archived archived-fact">${t('head.archived')} <button
        type="button" class="btn-link unarchive"
          onClick=${() => archive(view.id, false)}>${t('head.restore')}</button></div>`}
      ${view.deleted.value && html`<div class="stop error">${t('head.trashed')}</div>`}
      ${view.missing.value && !view.deleted.value && html`<div class="stop error session-missing">${view.machine
        ? t('head.fleetMissing', { machine: view.machine }) : t('head.fileMissing')}</div>`}
      ${view.machine && html`<${RemoteBanner} view=${view} />`}
      <${DamageBanner} view=${view} />
    </div>
    <div class="sess-actions">
      <button class="btn ghost icon only-mobile phone-search" type="button" aria-label=${t('head.searchAll')}
        onClick=${() => { searchOpen.value = true; }}>${glyph.search}</button>
      <button class="btn ghost icon only-mobile phone-palette" type="button" aria-label=${t('head.commands')}
        title=${t('head.commandsTitle')} onClick=${() => { paletteOpen.value = true; }}>⌘</button>
      ${panels.filter((p) => !ro || p.remote).map((p) => html`<button type="button"
        class=${'btn ghost panel-btn' + (panel.value === p.name ? ' on' : '')} data-panel=${p.name}
        aria-pressed=${panel.value === p.name} onClick=${() => setPanel(p.name)} title=${p.title}>${p.label}</button>`)}
      <${Menu} view=${view} />
    </div>
  </header>`;
}

// Facts is the header's brief (project, model, tokens and cost), a button
// that opens the details: folder, every model, tokens and cost by kind,
// dates, messages and size.
function Facts({ view, s, tot, models, tokens }) {
  const [open, setOpen] = usePopover();
  const count = countLine(view.total.value, s.messageCount || 0); // one count everywhere (util.js)
  return html`<span class="sess-details" ref=${open.ref}>
    <button class="sess-more" type="button" aria-expanded=${open.on} aria-controls="sess-facts"
      title=${t('head.detailsTitle')} onClick=${() => setOpen(!open.on)}>
      ${s.cwd && html`<span class="brief project">${baseName(s.cwd)}</span>`}
      ${models.length > 0 && html`<span class="brief model-name">${models[0]}</span>`}
      ${tokens > 0 && html`<span class="brief spend">${fmtTokens(tokens)}
        <span class="brief-unit">${t('head.tokensUnit')}</span> · ${
        fmtCost(tot.cost)}</span>`}
      <span class="brief-open" aria-hidden="true">${glyph.menuOpen}</span></button>
    <div class="sess-facts sess-pop" id="sess-facts" hidden=${!open.on}>
      <span class="fact cwd" title="cwd">${s.cwd}</span>
      ${models.length > 0 && html`<span class="fact" title=${t('head.models')}>${models.join(', ')}</span>`}
      ${tokens > 0 && html`<span class="fact"
        title=${t('head.tokenKinds', tot)}>
        ${t('head.tokensCost', { tokens: fmtTokens(tokens), cost: fmtCost(tot.cost) })}</span>`}
      <span class="fact" title=${t('head.datesTitle', { created: fmtDate(s.created), modified: fmtDate(s.modified) })}
        >${t('head.dates', { created: ago(s.created), active: ago(s.modified) })}</span>
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
      toast(t('head.renamed'));
    } catch (err) {
      toast(t('head.renameFailed', { why: err.message }), { kind: 'error' });
    }
    done();
  };
  return html`<form class="rename" onSubmit=${save}>
    <input ref=${ref} value=${text} onInput=${(e) => setText(e.target.value)} aria-label=${t('head.sessionName')}
      placeholder=${t('head.sessionName')}
      onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); done(); } }} onBlur=${save} />
  </form>`;
}


// ACTIONS is the Actions menu's part of the action list (actionlist.js),
// in its order; on a phone the side panels are here too.
const ACTIONS = [{ prefix: 'panel-', cls: 'only-mobile panel-item' }, { sep: 'only-mobile' }, 'rename', 'pin',
  'archive', '-', 'copy-id', 'copy-path', '-', 'share', 'export-html', 'export-md', 'export-jsonl', 'export-branch',
  '-', 'delete'];

function Menu({ view }) {
  const [{ on: open, ref }, setOpen] = usePopover({ menu: true });
  return html`<div class="menu" ref=${ref}>
    <button class="btn ghost sess-menu-btn" type="button" aria-haspopup="menu" aria-expanded=${open}
      aria-label=${t('head.actions')} onClick=${() => setOpen(!open)}><span class="menu-label">${t('head.actions')} ${
          glyph.menuOpen}
        </span><span class="menu-icon" aria-hidden="true">${glyph.more}</span></button>
    ${open && html`<div class="menu-pop" role="menu" onKeyDown=${onArrows('[role=menuitem]')}>
      <${MenuItems} actions=${sessionActions(view)} layout=${ACTIONS} done=${() => setOpen(false)} /></div>`}
  </div>`;
}
