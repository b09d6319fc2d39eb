import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareBy, groupSessions, shownIds, pick, toggleAll, validSort, placed } from '../static/js/sorting.js';

const s = (id, cwd, modified, created, name, extra = {}) => ({ id, cwd, modified, created, name, firstMessage: '',
  ...extra });
const list = [
  s('a', '/p/api', '2026-12-05T10:00:00Z', '2026-12-01T00:00:00Z', 'zeta'),
  s('b', '/p/api', '2026-12-05T09:00:00Z', '2026-12-04T00:00:00Z', 'alpha'),
  s('c', '/p/api', '2026-12-05T08:00:00Z', '2026-12-03T00:00:00Z', 'item 10'),
  s('d', '/p/api', '2026-12-05T07:00:00Z', '2026-12-02T00:00:00Z', 'item 9'),
  s('f', '/p/api', '2026-12-05T11:00:00Z', '2026-12-05T00:00:00Z', 'fork of d', { parentSessionId: 'd' }),
  s('w', '/p/web', '2026-12-05T12:00:00Z', '2026-11-01T00:00:00Z', 'web'),
];
const ids = (g) => shownIds([g]);

test('sorts by activity, creation or name; pinned first; forks under their parent', () => {
  for (const [by, pins, want, groups] of [
    ['activity', [], ['a', 'b', 'c', 'd', 'f'], ['/p/web', '/p/api']],
    ['created', [], ['b', 'c', 'd', 'f', 'a'], ['/p/api', '/p/web']],
    ['name', [], ['b', 'd', 'f', 'c', 'a'], ['/p/api', '/p/web']],
    ['activity', ['d', 'c'], ['c', 'd', 'f', 'a', 'b'], ['/p/web', '/p/api']],
    ['name', ['a'], ['a', 'b', 'd', 'f', 'c'], ['/p/api', '/p/web']],
    ['bogus', [], ['a', 'b', 'c', 'd', 'f'], ['/p/web', '/p/api']],
  ]) {
    const gs = groupSessions(list, '', { by, pinned: new Set(pins) });
    assert.deepEqual(gs.map((g) => g.cwd), groups, `${by} groups`);
    assert.deepEqual(ids(gs.find((g) => g.cwd === '/p/api')), want, `${by} pinned ${pins}`);
  }
});

test('archived sessions are left out, or alone in the archived view; the filter applies to both', () => {
  const archived = new Map([['b', '2026-12-05T00:00:00Z'], ['w', '2026-12-05T00:00:00Z']]);
  assert.deepEqual(shownIds(groupSessions(list, '', { archived })), ['a', 'c', 'd', 'f']);
  assert.deepEqual(shownIds(groupSessions(list, '', { archived, archivedView: true })), ['w', 'b']);
  assert.deepEqual(shownIds(groupSessions(list, 'alp', { archived, archivedView: true })), ['b']);
  // A fork whose parent is archived stands alone.
  const g = groupSessions(list, '', { archived: new Set(['d']) })[1];
  assert.ok(g.roots.some((x) => x.id === 'f'));
});

test('shownIds skips closed groups', () => {
  const gs = groupSessions(list, '');
  assert.deepEqual(shownIds(gs, (g) => g.cwd === '/p/api'), ['w']);
});

test('pick: a click toggles, a shift-click sets the range to the anchor\'s state', () => {
  const order = ['a', 'b', 'c', 'd', 'e'];
  let st = pick(new Set(), order, '', 'b', false);
  assert.deepEqual([...st.selected], ['b']);
  st = pick(st.selected, order, st.anchor, 'd', true); // b..d on
  assert.deepEqual([...st.selected].sort(), ['b', 'c', 'd']);
  st = pick(st.selected, order, 'a', 'c', true); // a is off: a..c off, d stays
  assert.deepEqual([...st.selected].sort(), ['d']);
  st = pick(st.selected, order, 'e', 'd', true); // backwards, e off: d and e off
  assert.deepEqual([...st.selected], []);
  st = pick(new Set(['x']), order, 'gone', 'c', true); // an anchor no longer shown: a plain toggle
  assert.deepEqual([...st.selected].sort(), ['c', 'x']);
  assert.equal(st.anchor, 'c');
  st = pick(st.selected, order, 'c', 'c', false);
  assert.deepEqual([...st.selected], ['x']);
});

test('toggleAll selects all of a project or filter, or none when all are', () => {
  let sel = toggleAll(new Set(['a', 'z']), ['a', 'b']);
  assert.deepEqual([...sel].sort(), ['a', 'b', 'z']);
  sel = toggleAll(sel, ['a', 'b']);
  assert.deepEqual([...sel], ['z']);
  assert.deepEqual([...toggleAll(sel, [])], ['z']);
});

test('compareBy breaks ties by id; validSort falls back to activity', () => {
  const same = [s('y', '/p', 0, 0, 'n'), s('x', '/p', 0, 0, 'n')];
  assert.deepEqual([...same].sort(compareBy('name')).map((x) => x.id), ['x', 'y']);
  assert.equal(validSort('created'), 'created');
  assert.equal(validSort(null), 'activity');
});

test('placed puts a new or changed session where the page\'s order puts it, or leaves it to a later page', () => {
  const [a, b, c, d] = list; // zeta, alpha, item 10, item 9
  const pinned = new Set(['a']);
  const byName = [a, b, c]; // a pinned first, then by name: a page of a longer listing
  const beta = s('n', '/p/api', '2026-12-06T00:00:00Z', '2026-12-06T00:00:00Z', 'beta');
  const omega = s('o', '/p/api', '2026-12-06T00:00:00Z', '2026-12-06T00:00:00Z', 'omega');
  const later = { modified: '2026-12-06T00:00:00Z' };
  for (const [what, page, item, opts, want] of [
    ['new, within the page', byName, beta, { by: 'name', pinned, partial: true }, ['zeta', 'alpha', 'beta', 'item 10']],
    ['new, after the page: a later page brings it', byName, omega, { by: 'name', pinned, partial: true },
      ['zeta', 'alpha', 'item 10']],
    ['new, after the page, in view', byName, omega, { by: 'name', pinned, partial: true, keep: true },
      ['zeta', 'alpha', 'item 10', 'omega']],
    ['new, the page holds the whole listing', byName, omega, { by: 'name', pinned },
      ['zeta', 'alpha', 'item 10', 'omega']],
    ['renamed, moves', byName, { ...b, name: 'item 2' }, { by: 'name', pinned, partial: true },
      ['zeta', 'item 2', 'item 10']],
    ['renamed past the page, leaves it', byName, { ...b, name: 'zz' }, { by: 'name', pinned, partial: true },
      ['zeta', 'item 10']],
    ['active again, by activity: first after the pins', [a, b, c], { ...c, ...later },
      { by: 'activity', pinned, partial: true }, ['zeta', 'item 10', 'alpha']],
    ['an old one active again, by creation: past the page', [b, c], { ...d, ...later },
      { by: 'created', partial: true }, ['alpha', 'item 10']],
    ['a new one, by creation: first', [b, c], omega, { by: 'created', partial: true }, ['omega', 'alpha', 'item 10']],
  ]) {
    assert.deepEqual(placed(page, item, opts).map((x) => x.name), want, what);
  }
});
