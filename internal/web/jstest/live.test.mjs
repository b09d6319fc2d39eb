import './browser.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyDelta, blockTimes, liveOf, onLiveEvent, resultText } from '../static/chat/live.js';

let seq = 0;
const session = () => 'live-test-' + ++seq; // each test folds into a Live of its own

const update = (d) => ({ type: 'message_update', assistantMessageEvent: d });

test('message_start and delta-only updates assemble the streamed message', () => {
  const id = session();
  const l = liveOf(id);
  onLiveEvent(id, { type: 'agent_start' });
  assert.equal(l.phase.value, 'streaming');
  onLiveEvent(id, { type: 'message_start', message: { role: 'assistant', timestamp: 1, content: [] } });
  for (const d of [
    { type: 'thinking_start', contentIndex: 0 },
    { type: 'thinking_delta', contentIndex: 0, delta: 'Hmm' },
    { type: 'thinking_end', contentIndex: 0, content: 'Hmm.' },
    { type: 'text_start', contentIndex: 1 },
    { type: 'text_delta', contentIndex: 1, delta: 'Hello, ' },
    { type: 'text_delta', contentIndex: 1, delta: 'world' },
  ]) onLiveEvent(id, update(d));
  assert.deepEqual(l.partial.value.content, [{ type: 'thinking', thinking: 'Hmm.' }, { type: 'text', text: 'Hello, world' }]);
  assert.ok(blockTimes(l, l.partial.value, 0).end > 0, 'the thinking ended when the text began');
  assert.equal(blockTimes(l, l.partial.value, 1).end, 0);
  const final = { role: 'assistant', timestamp: 1, content: [{ type: 'text', text: 'Hello, world!' }], stopReason: 'stop' };
  onLiveEvent(id, { type: 'message_end', message: final });
  assert.equal(l.partial.value, null);
  assert.equal(l.ended.value, final);
});

test('a tool call streams its arguments as far as they parse', () => {
  const m = { role: 'assistant', content: [] };
  applyDelta(m, { type: 'toolcall_start', contentIndex: 0, id: 'c1', toolName: 'bash' });
  applyDelta(m, { type: 'toolcall_delta', contentIndex: 0, delta: '{"command":' });
  assert.deepEqual(m.content[0].arguments, {});
  applyDelta(m, { type: 'toolcall_delta', contentIndex: 0, delta: '"ls"}' }, { input: 5 });
  assert.deepEqual(m.content[0], { type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'ls' }, partialJson: '{"command":"ls"}' });
  assert.deepEqual(m.usage, { input: 5 });
  const call = { type: 'toolCall', id: 'c1', name: 'bash', arguments: { command: 'ls' } };
  applyDelta(m, { type: 'toolcall_end', contentIndex: 0, toolCall: call });
  assert.equal(m.content[0], call);
});

test('a delta whose start was not seen opens its block; one without a message is dropped', () => {
  const m = { role: 'assistant', content: [] };
  applyDelta(m, { type: 'text_delta', contentIndex: 0, delta: 'late' });
  assert.deepEqual(m.content, [{ type: 'text', text: 'late' }]);
  const id = session();
  onLiveEvent(id, update({ type: 'text_delta', contentIndex: 0, delta: 'orphan' }));
  assert.equal(liveOf(id).partial.value, null);
});

test('a replayed tool start is timed from when the server received it', (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: 100_000 });
  const id = session();
  const l = liveOf(id);
  onLiveEvent(id, { type: 'hello', worker: 'streaming', now: 100_000 + 500 }); // the server's clock is 0.5 s ahead
  onLiveEvent(id, { type: 'replay', times: [[7, 100_500 - 60_000]] }); // received a minute ago
  onLiveEvent(id, { type: 'tool_execution_start', toolCallId: 't1', toolName: 'bash', args: {} }, '7');
  assert.equal(l.tools.value.get('t1').start, 100_000 - 60_000);
  t.mock.timers.tick(2_000);
  onLiveEvent(id, { type: 'tool_execution_end', toolCallId: 't1', result: { content: [{ type: 'text', text: 'ok' }] } }, '8');
  assert.deepEqual(l.took.value.get('t1'), { ms: 62_000, isError: false });
  assert.deepEqual(l.running.value, []);
});

test('idle ends a half-streamed message; errors are said once', () => {
  const id = session();
  const l = liveOf(id);
  onLiveEvent(id, { type: 'agent_start' });
  onLiveEvent(id, { type: 'message_start', message: { role: 'assistant', content: [{ type: 'text', text: 'part' }] } });
  assert.ok(l.partial.value);
  onLiveEvent(id, { type: 'piweb_state', phase: 'idle' });
  assert.equal(l.partial.value, null);
  onLiveEvent(id, { type: 'compaction_end', errorMessage: 'Compaction failed: too short' });
  onLiveEvent(id, { type: 'compaction_end', errorMessage: 'too short' });
  assert.deepEqual(l.errors.value.map((e) => e.text), ['Compaction failed: too short']);
});

test('resultText joins the text blocks of a tool result', () => {
  assert.equal(resultText(null), '');
  assert.equal(resultText({ content: 'plain' }), 'plain');
  assert.equal(resultText({ content: [{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }] }), 'a\nb');
});
