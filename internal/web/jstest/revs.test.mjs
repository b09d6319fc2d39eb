import './browser.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The page asks the server for the marks and the order when it loads:
// answered here with none (one answer fits both), so that only the events
// below change them.
globalThis.fetch = async () => new Response(JSON.stringify({ since: '2026-12-01T00:00:00Z', read: {}, muted: [],
  globalMute: false, pinned: {}, archived: {}, rev: 0, unread: 0 }), { headers: { 'Content-Type': 'application/json' } });
const { muted, globalMute } = await import('../static/js/attention.js');
const { pinned, archived, startOrder } = await import('../static/js/order.js');
const { marksEvent, orderEvent } = await import('../static/js/state.js');

const marks = (rev, mutedIds, extra = {}) => ({ type: 'attention_state', since: '2026-12-01T00:00:00Z', read: {},
  muted: mutedIds, globalMute: false, rev, unread: 0, ...extra });
const order = (rev, pins, arch = {}) => ({ type: 'order_state', pinned: pins, archived: arch, rev });
const at = '2026-12-05T00:00:00Z';

test('the marks of the highest rev stay, whatever order two changes arrive in', () => {
  marksEvent.value = marks(2, ['s1']); // a mute, made after a read mark
  marksEvent.value = marks(1, []); // the read mark's event, late
  assert.deepEqual([...muted.value], ['s1']);
  marksEvent.value = marks(3, ['s1'], { globalMute: true });
  assert.equal(globalMute.value, true);
  // After a reconnection any state is taken: a restarted server may count from 0.
  marksEvent.value = { type: 'reload' };
  marksEvent.value = marks(0, []);
  assert.deepEqual([...muted.value], []);
  assert.equal(globalMute.value, false);
});

test('the order of the highest rev stays, whatever order two changes arrive in', () => {
  startOrder();
  orderEvent.value = order(2, {}, { s1: at }); // archived, then
  orderEvent.value = order(1, { s1: at }); // the pin before it, late
  assert.deepEqual([...archived.value.keys()], ['s1']);
  assert.deepEqual([...pinned.value.keys()], []);
  orderEvent.value = { type: 'reload' };
  orderEvent.value = order(0, { s2: at });
  assert.deepEqual([...pinned.value.keys()], ['s2']);
  assert.deepEqual([...archived.value.keys()], []);
});
