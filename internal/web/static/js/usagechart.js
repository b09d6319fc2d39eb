// usagechart.js: the usage page's stacked bars as numbers, without the
// DOM (node --test checks them): which days a chart shows, which models or
// projects get a colour of their own (the costliest; the rest are
// "other"), and each day's bar with its segments as shares of the
// tallest bar.

// SERIES is how many groups get a colour of their own; the rest share
// "other".
export const SERIES = 5;
export const OTHER = 'other';
const DAY = 86400000;

export const tokensOf = (r) => (r.input || 0) + (r.output || 0) + (r.cacheRead || 0) + (r.cacheWrite || 0);

// dayKey is a YYYY-MM-DD day key of a date in the browser's zone (the
// server counts days in that zone too).
export function dayKey(d) {
  const p = (n) => String(n).padStart(2, '0');
  return d.getFullYear() + '-' + p(d.getMonth() + 1) + '-' + p(d.getDate());
}

// addDays is the day key n days after key.
export function addDays(key, n) {
  return new Date(Date.parse(key + 'T00:00:00Z') + n * DAY).toISOString().slice(0, 10);
}

// dayKeys lists the days a chart shows, oldest first: every calendar day
// of the period (days, ending today), or for all time (days empty) every
// day from the first with usage to the last, or when that is more than
// cap days only the days with usage; never more than cap, the latest.
export function dayKeys(keys, { days, today, cap = 90 }) {
  const known = [...new Set(keys.filter(Boolean))].sort();
  if (!known.length) return [];
  const last = known[known.length - 1];
  const end = days && today > last ? today : last;
  const start = days ? addDays(end, 1 - Number(days)) : known[0];
  const span = Math.round((Date.parse(end) - Date.parse(start)) / DAY) + 1;
  if (!days && span > cap) return known.slice(-cap);
  const out = [];
  for (let k = span > cap ? addDays(end, 1 - cap) : start; k <= end; k = addDays(k, 1)) out.push(k);
  return out;
}

// bucketOf is the key of the bar a day falls in: the day itself, its
// week's Monday (a week runs Monday to Sunday), or its month (YYYY-MM).
export function bucketOf(unit, key) {
  if (unit === 'month') return key.slice(0, 7);
  if (unit !== 'week') return key;
  const dow = new Date(key + 'T00:00:00Z').getUTCDay();
  return addDays(key, -((dow + 6) % 7));
}

// chartKeys is what a chart's bars are: one per day while the period has
// at most cap days, else one per week, else one per month, so that every
// day of a long "all time" is in a bar; at most cap bars, the latest.
// unit says which; keys lists the bars' keys (bucketOf), oldest first.
export function chartKeys(keys, { days, today, cap = 90 }) {
  const all = dayKeys(keys, { days, today, cap: Infinity });
  const unit = all.length <= cap ? 'day' : all.length <= cap * 7 ? 'week' : 'month';
  const bars = [...new Set(all.map((k) => bucketOf(unit, k)))];
  return { unit, keys: bars.slice(-cap) };
}

// inBuckets re-keys day rows to their bar's key (stackBars adds rows of
// one key up); rows without a day are left out.
export const inBuckets = (rows, unit) => rows.filter((r) => r.key).map((r) => ({ ...r, key: bucketOf(unit, r.key) }));

// rankGroups names the groups that get their own colour: the SERIES
// costliest over rows (by tokens when nothing cost anything), in that
// order, then OTHER when more are left.
export function rankGroups(rows, n = SERIES) {
  const cost = new Map(), toks = new Map();
  for (const r of rows) {
    const g = r.group || '';
    cost.set(g, (cost.get(g) || 0) + (r.cost || 0));
    toks.set(g, (toks.get(g) || 0) + tokensOf(r));
  }
  const names = [...cost.keys()].sort((a, b) => (cost.get(b) - cost.get(a)) || (toks.get(b) - toks.get(a))
    || (a < b ? -1 : a > b ? 1 : 0));
  if (names.length <= n) return names;
  return [...names.slice(0, n), OTHER];
}

// seriesOf is the series a row's group is drawn in.
export const seriesOf = (groups, g) => {
  const i = groups.indexOf(g || '');
  return i >= 0 && (g || '') !== OTHER ? i : groups.length - 1;
};

// stackBars is one bar per day of keys: its total of metric ("cost" or
// "tokens"), its segments in the order of groups (only those above 0),
// each with its share of the tallest bar in per cent (pct), and the
// rows' numbers by series (for the bar's tip); max is the tallest total.
export function stackBars(rows, keys, groups, metric) {
  const val = (r) => (metric === 'cost' ? r.cost || 0 : tokensOf(r));
  const at = new Map(keys.map((k) => [k, { key: k, total: 0, by: groups.map(() => null) }]));
  for (const r of rows) {
    const b = at.get(r.key);
    if (!b) continue;
    const i = seriesOf(groups, r.group);
    const s = b.by[i] || (b.by[i] = { cost: 0, tokens: 0, input: 0, output: 0, messages: 0 });
    s.cost += r.cost || 0;
    s.tokens += tokensOf(r);
    s.messages += r.messages || 0;
    b.total += val(r);
  }
  const bars = [...at.values()];
  const max = Math.max(0, ...bars.map((b) => b.total));
  for (const b of bars) {
    b.segs = b.by.map((s, i) => s && { i, group: groups[i], value: metric === 'cost' ? s.cost : s.tokens })
      .filter((s) => s && s.value > 0).map((s) => ({ ...s, pct: max > 0 ? (100 * s.value) / max : 0 }));
    b.cost = b.by.reduce((a, s) => a + (s ? s.cost : 0), 0);
    b.tokens = b.by.reduce((a, s) => a + (s ? s.tokens : 0), 0);
    b.messages = b.by.reduce((a, s) => a + (s ? s.messages : 0), 0);
  }
  return { bars, max };
}

// tipSide places a bar's tip so that it stays inside the chart: the first
// bars' tips start at the bar, the last ones' end at it.
export function tipSide(i, n) {
  if (n <= 1) return 'mid';
  const x = (i + 0.5) / n;
  return x < 0.2 ? 'start' : x > 0.8 ? 'end' : 'mid';
}
