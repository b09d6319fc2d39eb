import './browser.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';

// The page asks the server for the marks when it loads: answered here
// with none, so that only the events below change them.
globalThis.fetch = async () => new Response(JSON.stringify({ since: '2026-12-01T00:00:00Z', read: {}, muted: [],
  globalMute: false, rev: 0, unread: 0 }), { headers: { 'Content-Type': 'application/json' } });
const { muted, globalMute } = await import('../static/js/attention.js');
const { marksEvent } = await import('../static/js/state.js');

const state = (rev, mutedIds, extra = {}) => ({ type: 'attention_state', since: '2026-12-01T00:00:00Z', read: {},
  muted: mutedIds, globalMute: false, rev, unread: 0, ...extra });

test('the marks of the highest rev stay, whatever order two changes arrive in', () => {
  marksEvent.value = state(2, ['s1']); // a mute, made after a read mark
  marksEvent.value = state(1, []); // the read mark's event, late
  assert.deepEqual([...muted.value], ['s1']);
  marksEvent.value = state(3, ['s1'], { globalMute: true });
  assert.equal(globalMute.value, true);
  // After a reconnection any state is taken: a restarted server may count from 0.
  marksEvent.value = { type: 'reload' };
  marksEvent.value = state(0, []);
  assert.deepEqual([...muted.value], []);
  assert.equal(globalMute.value, false);
});
