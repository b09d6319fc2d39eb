// The usage page: tokens and cost by day, model and project, from the
// index (GET /api/usage), for the last 7, 30 or 90 days or all time. Days
// are the reader's calendar days: the browser's time zone is sent along.
// First the pictures (stacked bars per day by model or project,
// usagebars.js), then the table, then the costliest sessions
// (GET /api/usage/sessions).
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { SidebarButton } from './sidebarbutton.js';
import * as api from './api.js';
import { fmtTokens, fmtCost, baseName } from './util.js';
import { glyph } from './icons.js';
import { fleet } from './fleet.js';
import { UsageChart, Legend, CostlySessions } from './usagebars.js';
import { chartKeys, inBuckets, dayKey, rankGroups } from './usagechart.js';
import { t } from './i18n.js';

const SPLITS = [['model', t('use.byModel')], ['project', t('use.byProject')]];
const RANGES = [['7', t('use.7')], ['30', t('use.30')], ['90', t('use.90')], ['', t('use.all')]];
const COLS = ['input', 'output', 'cacheRead', 'cacheWrite', 'messages', 'cost'].map((k) => [k, t('use.col.' + k)]);
const zone = () => { try { return Intl.DateTimeFormat().resolvedOptions().timeZone || ''; } catch { return ''; } };

// sortRows orders rows by a column; days default to newest first, models
// and projects to the costliest first.
export function sortRows(rows, by, sort) {
  const s = sort || (by === 'day' ? { col: 'key', desc: true } : { col: 'cost', desc: true });
  const val = (r) => (s.col === 'key' ? r.key : s.col === 'tokens' ? tokens(r) : r[s.col] || 0);
  const tie = (a, b) => (s.col !== 'key' && s.col !== 'cost' ? (b.cost || 0) - (a.cost || 0) : 0) || (a.key < b.key
    ? -1 : a.key > b.key ? 1 : 0);
  return rows.slice().sort((a, b) => {
    const x = val(a), y = val(b);
    const c = x < y ? -1 : x > y ? 1 : 0;
    return (s.desc ? -c : c) || tie(a, b);
  });
}

const tokens = (r) => (r.input || 0) + (r.output || 0) + (r.cacheRead || 0) + (r.cacheWrite || 0);

export function UsagePage() {
  // Under serve --fleet: every machine's usage, and by machine too.
  const f = !!fleet.value;
  const [chosen, setBy] = useState(localStorage.getItem('piweb.usage.by') || 'day');
  const by = chosen === 'machine' && !f ? 'day' : chosen;
  const [days, setDays] = useState(localStorage.getItem('piweb.usage.days') ?? '30');
  const [splitChosen, setSplit] = useState(localStorage.getItem('piweb.usage.split') || 'model');
  const split = SPLITS.some(([k]) => k === splitChosen) || (f && splitChosen === 'machine') ? splitChosen : 'model';
  const [sort, setSort] = useState(null);
  const data = useAnswer(() => api.usage(by, { days, tz: zone(), fleet: f ? 1 : '' }), [by, days, f]);
  const split0 = useAnswer(() => api.usage('day', { days, tz: zone(), split, fleet: f ? 1 : '' }), [days, split, f]);
  const costly = useAnswer(() => (f ? api.usageSessionsFleet(fleet.value.self, { days, tz: zone() })
    : api.usageSessions({ days, tz: zone() })), [days, f]);
  useEffect(() => {
    localStorage.setItem('piweb.usage.by', by);
    localStorage.setItem('piweb.usage.days', days);
    localStorage.setItem('piweb.usage.split', split);
  }, [by, days, split]);
  const rows = sortRows((data && data.rows) || [], by, sort);
  const sum = rows.reduce((a, r) => {
    for (const [k] of COLS) a[k] += r[k] || 0;
    return a;
  }, Object.fromEntries(COLS.map(([k]) => [k, 0])));
  const pick = (list, value, set, label, cls) => html`<div class=${'seg ' + cls} role="group" aria-label=${label}>
    ${list.map(([k, text]) => html`<button key=${k}
    type="button" aria-pressed=${value === k} class=${'btn ghost' + (value === k ? ' on' : '')}
      onClick=${() => { set(k); setSort(null); }}>${text}</button>`)}</div>`;
  return html`<div class="usage">
    <header class="sess-head"><${SidebarButton} />
      <div class="sess-head-main"><h1 class="sess-name">${t('nav.usage')}</h1>
        <div class="sess-facts"><span class="fact total-cost">${fmtCost(sum.cost)}</span><span class="fact">
          ${t('use.tokens', { tokens: fmtTokens(tokens(sum)) })}</span>
          <span class="fact">${t('use.responses', { count: sum.messages })}</span>
            ${data && data.tz && html`<span class="fact muted" title=${t('use.tzTitle')}>${data.tz}
            </span>`}</div></div>
      <div class="usage-controls">${pick(RANGES, days, setDays, t('use.period'), 'usage-period')}</div></header>
    <div class="usage-body">
      ${!data && html`<div class="muted pad">${t('common.loading')}</div>`}
      ${data && data.error && html`<div class="stop error">${data.error}</div>`}
      ${data && !data.error && !rows.length && html`<div class="muted pad">${days
        ? t('use.noneDays', { days }) : t('use.none')}</div>`}
      ${rows.length > 0 && html`
        <section class="usage-section usage-charts"><div class="usage-section-head"><h2>${t('use.overTime')}</h2>
          ${pick([...SPLITS, ...(f ? [['machine', t('use.byMachine')]] : [])], split, setSplit, t('use.colour'),
            'usage-split')}</div>
          <${Charts} answer=${split0} days=${days} split=${split} /></section>
        <section class="usage-section"><div class="usage-section-head"><h2>${t('use.table')}</h2>
          ${pick([['day', t('use.byDay')], ['model', t('use.byModel')], ['project', t('use.byProject')],
            ...(f ? [['machine', t('use.byMachine')]] : [])], by, setBy, t('use.group'), 'usage-group')}</div>
          <${Table} rows=${rows} by=${by} sort=${sort} setSort=${setSort} sum=${sum} /></section>
        <section class="usage-section"><div class="usage-section-head"><h2>${t('use.costly')}</h2>
          </div><${CostlySessions} list=${costly} /></section>`}
    </div></div>`;
}

// useAnswer is the answer of ask() for deps (null until it comes, or
// {error}); an answer to older deps is never shown under newer ones.
function useAnswer(ask, deps) {
  const [answer, setAnswer] = useState(null);
  const key = JSON.stringify(deps);
  useEffect(() => {
    let live = true;
    ask().then((d) => live && setAnswer({ d, key }), (e) => live && setAnswer({ d: { error: e.message }, key }));
    return () => { live = false; };
  }, deps);
  return answer && answer.key === key ? answer.d : null;
}

function Charts({ answer, days, split }) {
  if (!answer) return html`<div class="muted pad">${t('common.loading')}</div>`;
  if (answer.error) return html`<div class="stop error">${answer.error}</div>`;
  const day = (answer.rows || []).filter((r) => r.key);
  const { unit, keys } = chartKeys(day.map((r) => r.key), { days, today: dayKey(new Date()) });
  const shown = inBuckets(day, unit).filter((r) => keys.includes(r.key));
  const groups = rankGroups(shown);
  const older = day.length > 0 && inBuckets(day, unit).some((r) => r.key < keys[0]);
  return html`${split && html`<${Legend} rows=${shown} groups=${groups} split=${split} />`}
    <div class="uchart-pair">
      <${UsageChart} rows=${shown} keys=${keys} unit=${unit} groups=${groups} split=${split} metric="cost" />
      <${UsageChart} rows=${shown} keys=${keys} unit=${unit} groups=${groups} split=${split} metric="tokens" /></div>
    ${unit !== 'day' && html`<p class="muted uchart-unit">${t(unit === 'week' ? 'use.weekBar' : 'use.monthBar')}</p>`}
    ${older && html`<p class="muted">${t('use.latest', { count: keys.length, unit: t('use.unit.' + unit) })}</p>`}`;
}

function Table({ rows, by, sort, setSort, sum }) {
  const scale = { cost: Math.max(0, ...rows.map((x) => x.cost || 0)), tokens: Math.max(1, ...rows.map(tokens)) };
  const head = (col, label, cls = 'num') => {
    const on = sort ? sort.col === col : (by === 'day' ? col === 'key' : col === 'cost');
    const desc = sort ? sort.desc : true;
    return html`<th class=${cls + (on ? ' sorted' : '')} aria-sort=${on ? (desc ? 'descending' : 'ascending') : 'none'}>
      <button type="button" class="th-btn" onClick=${() => setSort({ col, desc: on ? !desc : col !== 'key' })}>${label}
        ${on ? ' ' + (desc ? glyph.down : glyph.up) : ''}</button></th>`;
  };
  return html`<table class="grid">
    <thead><tr>${head('key', by, 'key-col')}${COLS.map(([k, label]) => head(k, label, 'num col-' + k))}<th
      class="bar-col"></th></tr></thead>
    <tbody>${rows.map((r) => html`<${Row} key=${r.key} r=${r} by=${by} scale=${scale} />`)}</tbody>
    <tfoot><tr><td class="key">${t('use.total')}</td>
      ${COLS.map(([k]) => html`<td class=${'num col-' + k}>${cell(k, sum[k])}
      </td>`)}<td class="bar-col"></td></tr></tfoot>
  </table>`;
}

const cell = (k, v) => (k === 'cost' ? fmtCost(v) : k === 'messages' ? String(v) : fmtTokens(v));

function Row({ r, by, scale }) {
  const w = scale.cost > 0 ? (r.cost || 0) / scale.cost : tokens(r) / scale.tokens;
  const label = !r.key ? html`<span class="muted">${t(by === 'day' ? 'use.noTime' : 'use.noneKey')}</span>`
    : by === 'project' ? html`<strong>${baseName(r.key)}</strong> <span class="muted">${r.key}</span>` : r.key;
  return html`<tr><td class="key" title=${r.key}>${label}</td>
    ${COLS.map(([k]) => html`<td class=${'num col-' + k} title=${k === 'cost' ? '$' + (r.cost
      || 0).toFixed(6) : String(r[k] || 0)}>${cell(k, r[k])}</td>`)}
    <td class="bar-col"><span class="bar" style=${{ width: (100 * w).toFixed(1) + '%' }}></span></td></tr>`;
}
