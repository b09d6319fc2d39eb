import { test } from 'node:test';
import assert from 'node:assert/strict';
import { trapNext, spokenAnswer, shortcuts, arrowStep } from '../static/js/a11y.js';

test('trapNext wraps Tab and Shift+Tab inside the dialog', () => {
  const cases = [
    { n: 0, at: -1, back: false, want: -1 },
    { n: 3, at: -1, back: false, want: 0 },
    { n: 3, at: -1, back: true, want: 2 },
    { n: 3, at: 0, back: false, want: 1 },
    { n: 3, at: 2, back: false, want: 0 },
    { n: 3, at: 0, back: true, want: 2 },
    { n: 1, at: 0, back: true, want: 0 },
  ];
  for (const c of cases) assert.equal(trapNext(c.n, c.at, c.back), c.want, JSON.stringify(c));
});

test('spokenAnswer says an ended answer whole, not tools, errors or aborts', () => {
  const text = (t, extra) => ({ role: 'assistant', content: [{ type: 'text', text: t }], ...extra });
  assert.equal(spokenAnswer(text('Hello.')), 'pi answered: Hello.');
  assert.equal(spokenAnswer({ role: 'assistant', content: [{ type: 'thinking', thinking: 'x' },
    { type: 'text', text: 'a' }, { type: 'toolCall', name: 'bash' }, { type: 'text', text: 'b' }] }), 'pi answered: a\nb');
  assert.equal(spokenAnswer({ role: 'assistant', content: [{ type: 'toolCall', name: 'bash' }] }), '');
  assert.equal(spokenAnswer(text('x', { stopReason: 'error' })), '');
  assert.equal(spokenAnswer(text('x', { stopReason: 'aborted' })), '');
  assert.equal(spokenAnswer({ role: 'user', content: [{ type: 'text', text: 'x' }] }), '');
  assert.equal(spokenAnswer(null), '');
  const long = spokenAnswer(text('a'.repeat(5000)));
  assert.ok(long.length < 1600 && long.endsWith('…'));
});

test('every shortcut has a key and a meaning, each key once per group', () => {
  for (const g of shortcuts) {
    const keys = g.keys.map(([k]) => k);
    assert.equal(new Set(keys).size, keys.length, g.group);
    for (const [k, what] of g.keys) assert.ok(k && what, g.group);
  }
});

test('arrowStep moves by its axis, Home and End, wrapping', () => {
  const cases = [
    { n: 3, at: 0, key: 'ArrowDown', axis: 'vertical', want: 1 },
    { n: 3, at: 2, key: 'ArrowDown', axis: 'vertical', want: 0 },
    { n: 3, at: 0, key: 'ArrowUp', axis: 'vertical', want: 2 },
    { n: 3, at: -1, key: 'ArrowDown', axis: 'vertical', want: 0 },
    { n: 3, at: -1, key: 'ArrowUp', axis: 'vertical', want: 2 },
    { n: 3, at: 1, key: 'Home', axis: 'vertical', want: 0 },
    { n: 3, at: 1, key: 'End', axis: 'vertical', want: 2 },
    { n: 3, at: 1, key: 'ArrowRight', axis: 'vertical', want: -1 },
    { n: 3, at: 1, key: 'ArrowRight', axis: 'horizontal', want: 2 },
    { n: 3, at: 0, key: 'ArrowLeft', axis: 'horizontal', want: 2 },
    { n: 0, at: -1, key: 'ArrowDown', axis: 'vertical', want: -1 },
    { n: 3, at: 1, key: 'a', axis: 'vertical', want: -1 },
  ];
  for (const c of cases) assert.equal(arrowStep(c.n, c.at, c.key, c.axis), c.want, JSON.stringify(c));
});
