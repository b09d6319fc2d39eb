// Starting is what a session just started from the new-session dialog
// shows until its file holds the first message (pi writes the file only
// with its first answer): the message sent, and that pi is starting in
// the folder with the model, so the pane is never blank.
import { html } from '../js/html.js';
import { markdown } from '../js/markdown.js';
import { starting } from './store.js';
import { liveOf } from './live.js';
import { t } from '../js/i18n.js';

export function Starting({ view }) {
  const s = starting.get(view.id);
  const items = view.items.value;
  if (!s) return null;
  if (items.some((it) => it.m.role === 'user')) {
    starting.delete(view.id);
    return null;
  }
  const streaming = liveOf(view.id).phase.value === 'streaming';
  return html`<article class="row starting-msg" aria-busy="true">
    <div class="msg user"><div class="msg-head"><span class="who u">${t('msg.you')}</span></div>
      <div class="bubble"><div class="md">${markdown(s.message)}</div></div></div>
    ${!streaming && html`<div class="phase-line starting-line" role="status"><span class="spinner"></span>${
      t(s.model ? 'start.lineWith' : 'start.line', { cwd: s.cwd, model: s.model })}</div>`}</article>`;
}
