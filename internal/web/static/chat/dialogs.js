// Extension dialogs (select, confirm, input, editor) as cards at the end of
// the conversation, where pi's TUI asks them, answered with ui_response.
// They block nothing: the page scrolls and the composer still sends. They
// vanish when answered in any tab or when their timeout passes
// (piweb_ui_answered / piweb_ui_timeout; a timeout the extension set
// counts down on the card). Extension status lines are shown above the
// composer, as pi's footer shows them.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../js/html.js';
import { command } from '../js/api.js';
import { t } from '../js/i18n.js';

export function ExtensionStatus({ l }) {
  const st = Object.entries(l.status.value).filter(([, v]) => v);
  return st.length > 0 && html`<div class="ext-status muted" role="status">
    ${st.map(([k, v]) => html`<span key=${k}>${v}</span>`)}</div>`;
}

// ExtensionDialogs draws the open dialogs of the session, oldest first.
export function ExtensionDialogs({ view, l }) {
  const ds = l.dialogs.value;
  return ds.length > 0 && html`<div class="ext-dialogs">${ds.map((d) => html`<${Card} key=${d.id} view=${view} l=${l}
    d=${d} />`)}</div>`;
}

function Card({ view, l, d }) {
  const [value, setValue] = useState(d.prefill || '');
  const box = useRef(null);
  useEffect(() => {
    const el = box.current;
    const f = el.querySelector('input, textarea, button');
    if (f) f.focus({ preventScroll: true });
    el.scrollIntoView({ block: 'nearest' });
  }, []);
  const answer = (body) => {
    l.dialogs.value = l.dialogs.value.filter((x) => x.id !== d.id);
    command(view.id, { type: 'ui_response', requestId: d.id, ...body }).catch(() => {});
  };
  const onKey = (e) => {
    if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); answer({ cancelled: true }); }
    else if (e.key === 'Enter' && d.method === 'input') { e.preventDefault(); answer({ value }); }
    else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)
      && d.method === 'editor') { e.preventDefault(); answer({ value }); }
  };
  return html`<section class="card ext-card" role="dialog" aria-label=${d.title || t('dlg.extension')} ref=${box}
    onKeyDown=${onKey}>
    <div class="card-head"><span class="card-icon">?</span><strong>${d.title || t('dlg.extension')}</strong>
      ${d.timeout > 0 && html`<${Countdown} until=${d.received + d.timeout} />`}</div>
    ${d.message && html`<div class="ext-message">${d.message}</div>`}
    ${(d.method === 'input' || d.method === 'editor') && (d.method === 'input'
      ? html`<input class="ext-input" value=${value} placeholder=${d.placeholder || ''}
        onInput=${(e) => setValue(e.target.value)} />`
      : html`<textarea class="ext-input" rows="4" value=${value} onInput=${(e) => setValue(e.target.value)}>
        </textarea>`)}
    <div class="ext-actions">
      ${d.method === 'select' && (d.options || []).map((o) => html`<button key=${o} class="btn small ext-option"
        type="button" onClick=${() => answer({ value: o })}>${o}</button>`)}
      ${d.method === 'confirm' && html`<button class="btn small primary ext-yes" type="button"
        onClick=${() => answer({ confirmed: true })}>${t('dlg.yes')}</button>
        <button class="btn small ext-no" type="button" onClick=${() => answer({ confirmed: false })}>${t('dlg.no')}
          </button>`}
      ${(d.method === 'input' || d.method === 'editor') && html`<button class="btn small primary ext-ok" type="button"
        onClick=${() => answer({ value })}>${t('dlg.ok')}</button>`}
      <button class="btn-link small ext-cancel" type="button"
        onClick=${() => answer({ cancelled: true })}>${t('common.cancel')}</button>
    </div></section>`;
}

// Countdown shows the seconds left before the extension gives up.
function Countdown({ until }) {
  const [, tick] = useState(0);
  const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
  useEffect(() => { const iv = setInterval(() => tick((x) => x + 1), 500); return () => clearInterval(iv); }, []);
  return html`<span class="muted ext-countdown">${t('dlg.closesIn', { s: left })}</span>`;
}
