// What pi 1.x writes beside the chat itself: the system prompt pi records
// as a `system` message (the first one whole, later ones as patches), and
// the context edits that make what the model sees differ from the file
// (an attempt pi retried left out, content replaced). A system message is
// a collapsed card, never a chat bubble; an entry left out of the context
// is greyed with why; replaced content shows what the model sees, the
// original on demand.
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { capped } from './markdown.js';
import { fmtTime, fmtDate, textOf } from './util.js';
import { t } from './i18n.js';
import { glyph } from './icons.js';

// SystemPrompt shows a system message collapsed: its sections as text, its
// tools as a list. full is false for a patch (a later system message),
// which shows only what changed: sections set or removed (null), tools
// added and removed.
export function SystemPrompt({ m, full }) {
  const sections = Object.entries(m.sections || {});
  const added = Array.isArray(m.toolsAdded) ? m.toolsAdded : [];
  const removed = Array.isArray(m.toolsRemoved) ? m.toolsRemoved : [];
  const text = textOf(m.content);
  const what = t(full ? 'sys.prompt' : 'sys.changed');
  const facts = [
    sections.length && t('sys.sections', { count: sections.length }),
    added.length && t(full ? 'sys.tools' : 'sys.toolsAdded', { count: added.length }),
    removed.length && t('sys.toolsRemoved', { count: removed.length }),
  ].filter(Boolean).join(' · ');
  return html`<details class=${'card system-prompt' + (full ? '' : ' patch')}>
    <summary><span class="card-icon">${glyph.settings}</span> <strong>${what}</strong> <span class="muted">${facts}
      </span>
      <time class="ts" title=${fmtDate(m.timestamp)}>${fmtTime(m.timestamp)}</time></summary>
    <div class="sys-body">
      ${text && html`<pre class="sys-text">${capped(text)}</pre>`}
      ${sections.map(([name, body]) => html`<section key=${name} class="sys-section">
        <h4>${name}${body === null ? html` <span class="muted">${t('sys.removed')}</span>` : ''}</h4>
        ${body !== null && html`<pre class="sys-text">${capped(String(body))}</pre>`}</section>`)}
      ${added.length > 0 && html`<section class="sys-section">
        <h4>${t(full ? 'sys.toolsHead' : 'sys.toolsAddedHead')}</h4>
        <ul class="sys-tools">${added.map((x) => html`<li key=${x.name}><code>${x.name}</code> <span class="muted">
          ${firstLine(x.description)}</span></li>`)}</ul></section>`}
      ${removed.length > 0 && html`<section class="sys-section"><h4>${t('sys.toolsRemovedHead')}</h4>
        <ul class="sys-tools">${removed.map((x) => html`<li key=${x.name}><code>${x.name}</code></li>`)}</ul>
          </section>`}
    </div></details>`;
}

function firstLine(s) {
  return String(s || '').split('\n')[0];
}

// omittedNote says why an entry the model does not see is shown: pi drops
// each failed attempt it retried with a context_edit.
export function omittedNote(m) {
  return m && m.role === 'assistant' && m.stopReason === 'error'
    ? t('sys.retried')
    : t('sys.leftOut');
}

// EditedNote marks content the model sees replaced, with the file's
// original on demand; render draws a message.
export function EditedNote({ original, render }) {
  const [open, setOpen] = useState(false);
  return html`<div class="edited-note muted">
    <span class="tag">${t('sys.edited')}</span> ${t('sys.editedShown')}
    ${original && html`<button class="btn-link small show-original" type="button" onClick=${() => setOpen(!open)}>
      ${t(open ? 'sys.hideOriginal' : 'sys.showOriginal')}</button>`}
    ${open && html`<div class="original">${render(original)}</div>`}</div>`;
}
