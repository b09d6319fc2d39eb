import './browser.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The page asks the server for the pins and archive when it starts:
// answered here with none, so that only the events below change them.
globalThis.fetch = async () => new Response(JSON.stringify({ pinned: {}, archived: {}, rev: 0 }),
  { headers: { 'Content-Type': 'application/json' } });
const { pinned, archived, startOrder } = await import('../static/js/order.js');
const { orderEvent } = await import('../static/js/state.js');

const state = (rev, pins, arch = {}) => ({ type: 'order_state', pinned: pins, archived: arch, rev });

test('the order of the highest rev stays, whatever order two changes arrive in', () => {
  startOrder();
  orderEvent.value = state(2, {}, { s1: '2026-12-05T00:00:00Z' }); // archived, then
  orderEvent.value = state(1, { s1: '2026-12-05T00:00:00Z' }); // the pin before it, late
  assert.deepEqual([...archived.value.keys()], ['s1']);
  assert.deepEqual([...pinned.value.keys()], []);
  // After a reconnection any state is taken: a restarted server may count from 0.
  orderEvent.value = { type: 'reload' };
  orderEvent.value = state(0, { s2: '2026-12-05T00:00:00Z' });
  assert.deepEqual([...pinned.value.keys()], ['s2']);
  assert.deepEqual([...archived.value.keys()], []);
});
