import { test } from 'node:test';
import assert from 'node:assert/strict';
import { panelFit, MIN_CONV } from '../static/js/panelfit.js';

test('a panel never squeezes the conversation below a readable width', () => {
  for (const [name, args, want] of [
    ['tree by default', { viewport: 1280, side: 284, width: 0, wide: false }, { width: 340, mode: 'column' }],
    ['a wide panel leaves the conversation readable', { viewport: 1280, side: 284, width: 0, wide: true },
      { width: 1280 - 284 - MIN_CONV, mode: 'column' }],
    ['a wide panel takes 42% when there is room', { viewport: 1920, side: 284, width: 0, wide: true },
      { width: 806, mode: 'column' }],
    ['the sidebar collapsed gives room', { viewport: 1280, side: 0, width: 0, wide: true },
      { width: 538, mode: 'column' }],
    ['a chosen width', { viewport: 1280, side: 284, width: 420, wide: true }, { width: 420, mode: 'column' }],
    ['dragged wider: over the conversation', { viewport: 1280, side: 284, width: 700, wide: false },
      { width: 700, mode: 'over' }],
    ['a small screen: over', { viewport: 900, side: 284, width: 0, wide: true }, { width: 360, mode: 'over' }],
    ['never narrower than 260', { viewport: 1280, side: 284, width: 40, wide: false }, { width: 260, mode: 'column' }],
    ['never wider than the room', { viewport: 1280, side: 284, width: 5000, wide: false },
      { width: 996, mode: 'over' }],
    ['full width', { viewport: 1280, side: 284, width: 420, wide: true, full: true }, { width: 996, mode: 'full' }],
  ]) {
    assert.deepEqual(panelFit(args), want, name);
  }
});
