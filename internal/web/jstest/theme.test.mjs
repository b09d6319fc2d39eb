import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import vm from 'node:vm';

const boot = readFileSync(new URL('../static/theme.js', import.meta.url), 'utf8');

// page runs the boot script (static/theme.js) on a stand-in page with the
// stored choice and the system's scheme, and returns what it set and how
// to change them.
function page(stored, systemDark) {
  const store = new Map(stored === undefined ? [] : [['piweb.theme', stored]]);
  const on = { media: [], window: [], document: [] };
  const mq = { matches: systemDark, addEventListener: (_, f) => on.media.push(f) };
  const attrs = {};
  const window = {
    matchMedia: () => mq,
    localStorage: { getItem: (k) => (store.has(k) ? store.get(k) : null) },
    addEventListener: (_, f) => on.window.push(f),
  };
  const document = {
    documentElement: { setAttribute: (k, v) => { attrs[k] = v; } },
    addEventListener: (_, f) => on.document.push(f),
  };
  vm.runInNewContext(boot, { window, document });
  return {
    theme: () => attrs['data-theme'],
    system(dark) { mq.matches = dark; on.media.forEach((f) => f()); },
    choose(v) { store.set('piweb.theme', v); on.document.forEach((f) => f()); },
    other(v) { store.set('piweb.theme', v); on.window.forEach((f) => f({ key: 'piweb.theme' })); },
  };
}

test('the theme is set before the first paint from the choice and the system', () => {
  for (const [stored, dark, want] of [
    [undefined, false, 'light'], [undefined, true, 'dark'], ['system', true, 'dark'],
    ['light', true, 'light'], ['dark', false, 'dark'], ['bogus', true, 'dark'],
  ]) {
    assert.equal(page(stored, dark).theme(), want, `stored ${stored}, system dark ${dark}`);
  }
});

test('the theme follows the system, a new choice and another tab', () => {
  const p = page(undefined, false);
  p.system(true);
  assert.equal(p.theme(), 'dark');
  p.choose('light');
  assert.equal(p.theme(), 'light');
  p.system(false);
  p.system(true);
  assert.equal(p.theme(), 'light', 'a chosen theme ignores the system');
  p.other('system');
  assert.equal(p.theme(), 'dark');
});
