// The usage page: tokens and cost by day, model and project, from the index.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import * as api from './api.js';
import { sidebarOpen } from './state.js';
import { fmtTokens, fmtCost } from './util.js';

export function UsagePage() {
  const [by, setBy] = useState('day');
  const [data, setData] = useState(null);
  useEffect(() => {
    let live = true;
    setData(null);
    api.usage(by).then((d) => live && setData(d), (e) => live && setData({ error: e.message }));
    return () => { live = false; };
  }, [by]);
  const rows = (data && data.rows) || [];
  const max = Math.max(1e-9, ...rows.map((r) => r.cost || 0));
  const maxTok = Math.max(1, ...rows.map((r) => (r.input || 0) + (r.output || 0)));
  const sum = rows.reduce((a, r) => ({ cost: a.cost + (r.cost || 0), tok: a.tok + (r.input || 0) + (r.output || 0) + (r.cacheRead || 0) + (r.cacheWrite || 0), msgs: a.msgs + (r.messages || 0) }), { cost: 0, tok: 0, msgs: 0 });
  return html`<div class="usage">
    <header class="sess-head"><button class="btn ghost icon only-mobile" type="button" aria-label="Sessions" onClick=${() => { sidebarOpen.value = !sidebarOpen.value; }}>☰</button>
      <div class="sess-head-main"><h1 class="sess-name">Usage</h1>
        <div class="sess-facts"><span class="fact">${fmtTokens(sum.tok)} tokens</span><span class="fact">${fmtCost(sum.cost)}</span><span class="fact">${sum.msgs} responses</span></div></div>
      <div class="seg" role="tablist">${['day', 'model', 'project'].map((k) => html`<button key=${k} role="tab" type="button" aria-selected=${by === k}
        class=${'btn ghost' + (by === k ? ' on' : '')} onClick=${() => setBy(k)}>by ${k}</button>`)}</div></header>
    <div class="usage-body">
      ${!data && html`<div class="muted pad">Loading…</div>`}
      ${data && data.error && html`<div class="stop error">${data.error}</div>`}
      ${data && !data.error && !rows.length && html`<div class="muted pad">No usage recorded.</div>`}
      ${rows.length > 0 && html`<table class="grid">
        <thead><tr><th>${by}</th><th class="num">input</th><th class="num">output</th><th class="num">cache read</th><th class="num">cache write</th><th class="num">responses</th><th class="num">cost</th><th class="bar-col"></th></tr></thead>
        <tbody>${rows.map((r) => html`<tr key=${r.key}><td class="key" title=${r.key}>${r.key || '(none)'}</td>
          <td class="num">${fmtTokens(r.input)}</td><td class="num">${fmtTokens(r.output)}</td><td class="num">${fmtTokens(r.cacheRead)}</td><td class="num">${fmtTokens(r.cacheWrite)}</td>
          <td class="num">${r.messages}</td><td class="num">${fmtCost(r.cost)}</td>
          <td class="bar-col"><span class="bar" style=${{ width: (100 * (max > 1e-9 ? (r.cost || 0) / max : ((r.input || 0) + (r.output || 0)) / maxTok)).toFixed(1) + '%' }}></span></td></tr>`)}</tbody>
      </table>`}
    </div></div>`;
}
