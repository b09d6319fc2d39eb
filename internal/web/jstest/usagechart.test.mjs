import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dayKeys, addDays, rankGroups, stackBars, seriesOf, tipSide, OTHER, bucketOf, chartKeys, inBuckets }
  from '../static/js/usagechart.js';

test('days: the whole period ending today, or all time from the first day, at most cap', () => {
  assert.equal(addDays('2026-12-31', 1), '2027-01-01');
  assert.equal(addDays('2026-03-01', -1), '2026-02-28');
  assert.deepEqual(dayKeys(['2026-12-04', '2026-12-02'], { days: '3', today: '2026-12-05' }),
    ['2026-12-03', '2026-12-04', '2026-12-05']);
  assert.deepEqual(dayKeys(['2026-12-04', '', '2026-12-02'], { days: '', today: '2026-12-09' }),
    ['2026-12-02', '2026-12-03', '2026-12-04']);
  // All time longer than cap: the days with usage only, the latest.
  assert.deepEqual(dayKeys(['2025-01-01', '2026-01-01', '2026-12-04', '2026-12-04'], { days: '', today: '2026-12-05',
    cap: 2 }), ['2026-01-01', '2026-12-04']);
  assert.deepEqual(dayKeys(['2026-12-01'], { days: '90', today: '2026-12-05', cap: 3 }),
    ['2026-12-03', '2026-12-04', '2026-12-05']);
  assert.deepEqual(dayKeys([], { days: '7', today: '2026-12-05' }), []);
  assert.deepEqual(dayKeys([''], { days: '7', today: '2026-12-05' }), []);
});

const row = (key, group, cost, input = 0) => ({ key, group, cost, input, output: 0, cacheRead: 0, cacheWrite: 0,
  messages: 1 });

test('groups: the costliest get a colour, the rest are "other"', () => {
  const rows = [row('d1', 'a', 1), row('d1', 'b', 3), row('d2', 'c', 2), row('d2', 'a', 0.5), row('d2', 'd', 0.1)];
  assert.deepEqual(rankGroups(rows), ['b', 'c', 'a', 'd']);
  assert.deepEqual(rankGroups(rows, 2), ['b', 'c', OTHER]);
  assert.equal(seriesOf(['b', 'c', OTHER], 'a'), 2);
  assert.equal(seriesOf(['b', 'c', OTHER], 'c'), 1);
  // Nothing cost anything: ranked by tokens.
  assert.deepEqual(rankGroups([row('d', 'x', 0, 5), row('d', 'y', 0, 9)]), ['y', 'x']);
});

test('bars: segments in series order, as shares of the tallest day; empty days stay empty', () => {
  const rows = [row('d1', 'a', 1, 100), row('d1', 'b', 3, 10), row('d3', 'a', 2, 50), row('d9', 'a', 7)];
  const { bars, max } = stackBars(rows, ['d1', 'd2', 'd3'], ['b', 'a'], 'cost');
  assert.equal(max, 4);
  assert.deepEqual(bars.map((b) => b.key), ['d1', 'd2', 'd3']);
  assert.deepEqual(bars[0].segs.map((s) => [s.group, s.pct]), [['b', 75], ['a', 25]]);
  assert.deepEqual(bars[1].segs, []);
  assert.deepEqual(bars[2].segs.map((s) => [s.group, s.pct]), [['a', 50]]);
  assert.equal(bars[0].tokens, 110);
  assert.equal(bars[0].messages, 2);
  const t = stackBars(rows, ['d1', 'd2', 'd3'], ['b', 'a'], 'tokens');
  assert.equal(t.max, 110);
  assert.deepEqual(t.bars[2].segs.map((s) => s.value), [50]);
});

test('tips stay inside the chart', () => {
  assert.deepEqual([0, 5, 9].map((i) => tipSide(i, 10)), ['start', 'mid', 'end']);
  assert.equal(tipSide(0, 1), 'mid');
});

test('long periods: a bar per week, then per month, so that every day is in one', () => {
  assert.equal(bucketOf('week', '2026-12-05'), '2026-11-30'); // a Saturday: its week's Monday
  assert.equal(bucketOf('week', '2026-11-30'), '2026-11-30');
  assert.equal(bucketOf('week', '2026-12-06'), '2026-11-30'); // Sunday ends the week
  assert.equal(bucketOf('month', '2026-12-05'), '2026-12');
  assert.deepEqual(chartKeys(['2026-12-01', '2026-12-03'], { days: '', today: '2026-12-05' }),
    { unit: 'day', keys: ['2026-12-01', '2026-12-02', '2026-12-03'] });
  // 200 days of all time: weeks, the first and the last day's included.
  const w = chartKeys(['2026-05-01', '2026-11-16'], { days: '', today: '2026-12-05' });
  assert.equal(w.unit, 'week');
  assert.equal(w.keys[0], '2026-04-27');
  assert.equal(w.keys.at(-1), '2026-11-16');
  assert.equal(w.keys.length, 30);
  // Three years: months.
  const m = chartKeys(['2024-01-15', '2026-12-01'], { days: '', today: '2026-12-05' });
  assert.deepEqual([m.unit, m.keys[0], m.keys.at(-1), m.keys.length], ['month', '2024-01', '2026-12', 36]);
  const rows = inBuckets([row('2026-12-01', 'a', 1), row('2026-12-05', 'a', 2), row('', 'a', 4)], 'week');
  assert.deepEqual(rows.map((r) => r.key), ['2026-11-30', '2026-11-30']);
  assert.equal(stackBars(rows, ['2026-11-30'], ['a'], 'cost').bars[0].cost, 3);
});
