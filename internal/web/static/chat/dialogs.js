// Extension dialogs (select, confirm, input, editor) as cards above the
// composer, answered with ui_response; they vanish when answered in any
// tab or when their timeout passes (piweb_ui_answered / piweb_ui_timeout;
// a timeout the extension set counts down on the card). Extension status
// lines are shown beside them.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../js/html.js';
import { command } from './composer.js';

export function ExtensionCards({ view, l }) {
  const st = Object.entries(l.status.value).filter(([, v]) => v);
  return html`${st.length > 0 && html`<div class="ext-status muted" role="status">${st.map(([k, v]) => html`<span key=${k}>${v}</span>`)}</div>`}
    ${l.dialogs.value.map((d) => html`<${Card} key=${d.id} view=${view} l=${l} d=${d} />`)}`;
}

function Card({ view, l, d }) {
  const [value, setValue] = useState(d.prefill || '');
  const box = useRef(null);
  useEffect(() => { const f = box.current && box.current.querySelector('input, textarea, button'); if (f) f.focus(); }, []);
  const answer = (body) => {
    l.dialogs.value = l.dialogs.value.filter((x) => x.id !== d.id);
    command(view.id, { type: 'ui_response', requestId: d.id, ...body }).catch(() => {});
  };
  const onKey = (e) => {
    if (e.key === 'Escape') { e.preventDefault(); answer({ cancelled: true }); }
    else if (e.key === 'Enter' && d.method === 'input') { e.preventDefault(); answer({ value }); }
    else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && d.method === 'editor') { e.preventDefault(); answer({ value }); }
  };
  return html`<div class="banner card ext-card" role="dialog" aria-label=${d.title || 'Extension'} ref=${box} onKeyDown=${onKey}>
    <strong>${d.title || 'Extension'}</strong>${d.message && html`<span>${d.message}</span>`}
    ${d.method === 'select' && (d.options || []).map((o) => html`<button key=${o} class="btn small ext-option" type="button" onClick=${() => answer({ value: o })}>${o}</button>`)}
    ${d.method === 'confirm' && html`<button class="btn small primary ext-yes" type="button" onClick=${() => answer({ confirmed: true })}>Yes</button>
      <button class="btn small ext-no" type="button" onClick=${() => answer({ confirmed: false })}>No</button>`}
    ${(d.method === 'input' || d.method === 'editor') && html`${d.method === 'input'
      ? html`<input class="ext-input" value=${value} placeholder=${d.placeholder || ''} onInput=${(e) => setValue(e.target.value)} />`
      : html`<textarea class="ext-input" rows="4" value=${value} onInput=${(e) => setValue(e.target.value)}></textarea>`}
      <button class="btn small primary ext-ok" type="button" onClick=${() => answer({ value })}>OK</button>`}
    <button class="btn-link small ext-cancel" type="button" onClick=${() => answer({ cancelled: true })}>Cancel</button>
    ${d.timeout > 0 && html`<${Countdown} until=${d.received + d.timeout} />`}</div>`;
}

// Countdown shows the seconds left before the extension gives up.
function Countdown({ until }) {
  const [, tick] = useState(0);
  const left = Math.max(0, Math.ceil((until - Date.now()) / 1000));
  useEffect(() => { const t = setInterval(() => tick((x) => x + 1), 500); return () => clearInterval(t); }, []);
  return html`<span class="muted ext-countdown">closes in ${left} s</span>`;
}
