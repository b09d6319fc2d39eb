// The usage page's pictures: cost and tokens per day as stacked bars by
// model or project (usagechart.js computes them; drawn with CSS boxes,
// no chart library), each bar a button whose label and tip give its
// numbers on hover, focus or tap (←→ move between bars), and the
// sessions that cost the most, each a link to it (under --fleet, on its
// machine).
import { useState } from 'preact/hooks';
import { html } from './html.js';
import { fmtTokens, fmtCost, baseName } from './util.js';
import { t, dateFmt } from './i18n.js';
import { navigate, sessionURL } from './state.js';
import { onArrows } from './roving.js';
import { stackBars, tipSide, OTHER } from './usagechart.js';

// groupName is how a model or project is shown.
export function groupName(g, split) {
  if (!split) return t('use.allGroup');
  if (g === OTHER) return t('use.other');
  if (!g) return t(split === 'project' ? 'use.noProject' : 'use.noModel');
  return split === 'project' ? baseName(g) : g;
}

const fmtDay = (key) => dateFmt({ weekday: 'short', month: 'short', day: 'numeric' })
  .format(new Date(key + 'T12:00:00'));

// fmtBar names a bar: its day, its week (by its Monday) or its month.
export function fmtBar(unit, key) {
  const date = (k, o) => dateFmt(o).format(new Date(k + 'T12:00:00'));
  if (unit === 'month') return date(key + '-15', { month: 'long', year: 'numeric' });
  if (unit === 'week') return t('use.weekOf', { date: date(key, { month: 'short', day: 'numeric', year: 'numeric' }) });
  return fmtDay(key);
}

const amount = (metric, v) => (metric === 'cost' ? fmtCost(v) : t('use.tokens', { tokens: fmtTokens(v) }));

// barLabel is what a bar says to a screen reader (and its tooltip): the
// day, its totals, and each model's or project's share.
function barLabel(b, unit, groups, split) {
  const parts = b.by.map((s, i) => s && t('use.barShare', { name: groupName(groups[i], split), cost: fmtCost(s.cost),
    tokens: fmtTokens(s.tokens) })).filter(Boolean);
  return t('use.barLabel', { bar: fmtBar(unit, b.key), cost: fmtCost(b.cost), tokens: fmtTokens(b.tokens) })
    + (parts.length ? '; ' + parts.join('; ') : '');
}

// UsageChart draws one metric ("cost" or "tokens") per bar of keys, a
// bar being a day, a week or a month (unit).
export function UsageChart({ rows, keys, unit = 'day', groups, split, metric }) {
  const title = t((metric === 'cost' ? 'use.costPer.' : 'use.tokensPer.') + unit);
  const [active, setActive] = useState(-1);
  const [focus, setFocus] = useState(keys.length - 1);
  const { bars, max } = stackBars(rows, keys, groups, metric);
  const tab = Math.min(focus, bars.length - 1);
  const at = active >= 0 && active < bars.length ? bars[active] : null;
  const show = (i) => { setActive(i); setFocus(i); };
  return html`<figure class="uchart" data-metric=${metric}>
    <figcaption class="uchart-head"><strong>${title}</strong>
      <span class="muted">${t('use.tallest.' + unit, { amount: amount(metric, max) })}</span></figcaption>
    <div class="uchart-plot" role="group" aria-label=${t('use.oneBarPer.' + unit, { title })}
      onKeyDown=${onArrows('.ubar', 'horizontal')} onMouseLeave=${() => setActive(-1)}>
      ${bars.map((b, i) => html`<button key=${b.key} type="button" data-day=${b.key}
        class=${'ubar' + (i === active ? ' on' : '')} tabindex=${i === tab ? 0 : -1}
        aria-label=${barLabel(b, unit, groups, split)}
        onMouseEnter=${() => setActive(i)} onFocus=${() => show(i)} onBlur=${() => setActive(-1)}
        onClick=${() => show(i)}>
        <span class="ubar-stack">${b.segs.map((s) => html`<span key=${s.i} class=${'useg ser-' + s.i}
          style=${{ height: s.pct.toFixed(2) + '%' }}></span>`)}</span></button>`)}
      ${at && html`<${Tip} b=${at} i=${active} n=${bars.length} unit=${unit} groups=${groups} split=${split}
        metric=${metric} />`}
    </div>
    <div class="uchart-axis muted" aria-hidden="true"><span>${keys.length ? fmtBar(unit, keys[0]) : ''}</span>
      <span>${keys.length > 1 ? fmtBar(unit, keys[keys.length - 1]) : ''}</span></div>
  </figure>`;
}

function Tip({ b, i, n, unit, groups, split, metric }) {
  const side = tipSide(i, n);
  const x = (100 * (i + 0.5)) / n;
  return html`<div class=${'uchart-tip ' + side} style=${{ left: x.toFixed(2) + '%' }} aria-hidden="true">
    <div class="uchart-tip-day">${fmtBar(unit, b.key)}</div>
    <div class="uchart-tip-total"><strong>${fmtCost(b.cost)}</strong>${t('use.tipTotal',
      { tokens: fmtTokens(b.tokens), responses: t('use.responses', { count: b.messages }) })}</div>
    ${b.by.map((s, k) => s && html`<div key=${k} class="uchart-tip-row"><span class=${'swatch ser-' + k}></span>
      <span class="uchart-tip-name">${groupName(groups[k], split)}</span>
      <span class="num">${metric === 'cost' ? fmtCost(s.cost) : fmtTokens(s.tokens)}</span></div>`)}
  </div>`;
}

// Legend names each colour, with its total over the period.
export function Legend({ rows, groups, split }) {
  const totals = groups.map(() => ({ cost: 0, tokens: 0 }));
  const { bars } = stackBars(rows, [...new Set(rows.map((r) => r.key))], groups, 'cost');
  for (const b of bars) b.by.forEach((s, i) => { if (s) { totals[i].cost += s.cost; totals[i].tokens += s.tokens; } });
  return html`<ul class="uchart-legend">${groups.map((g, i) => html`<li key=${g}>
    <span class=${'swatch ser-' + i}></span><span class="uchart-legend-name" title=${g}>${groupName(g, split)}</span>
    <span class="muted">${fmtCost(totals[i].cost)} · ${fmtTokens(totals[i].tokens)}</span></li>`)}</ul>`;
}

// CostlySessions lists the sessions that cost the most over the period,
// each a link to it; ten at first.
export function CostlySessions({ list }) {
  const [all, setAll] = useState(false);
  if (!list) return html`<p class="muted">${t('common.loading')}</p>`;
  if (list.error) return html`<div class="stop error">${list.error}</div>`;
  const shown = all ? list.sessions : list.sessions.slice(0, 10);
  const go = (e, url) => {
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button === 1) return;
    e.preventDefault();
    navigate(url);
  };
  return html`<ol class="usage-sessions">${shown.map(({ session: s, usage: u }) => {
    const url = sessionURL(s.id);
    return html`<li key=${s.id}><a href=${url} onClick=${(e) => go(e, url)} class="usage-sess">
      <span class="usage-sess-name">${s.name || s.firstMessage || t('side.empty')}</span>
      <span class="muted usage-sess-meta">${t('use.sessMeta',
        { where: (s.machine ? s.machine + ' · ' : '') + baseName(s.cwd),
        tokens: fmtTokens(u.input + u.output + u.cacheRead + u.cacheWrite),
        responses: t('use.responses', { count: u.messages }) })}</span></a>
      <span class="usage-sess-cost">${fmtCost(u.cost)}</span></li>`;
  })}</ol>
  ${!list.sessions.length && html`<p class="muted">${t('use.noSession')}</p>`}
  ${!all && list.sessions.length > 10 && html`<button class="btn small" type="button" onClick=${() => setAll(true)}>
    ${t('use.showMore', { count: list.sessions.length - 10 })}</button>`}`;
}
