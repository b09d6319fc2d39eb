import './browser.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { topicRoute, sessionTopic, filesTopic, gitTopic, fleetRefs } from '../static/js/api.js';

// A topic of another machine's session is followed on that machine's
// stream, named as that machine names it; this machine's stay here.
test('topicRoute', () => {
  const cases = [
    [sessionTopic('abc'), { machine: '', topic: 's/abc' }],
    [sessionTopic('abc@beta'), { machine: 'beta', topic: 's/abc' }],
    [filesTopic('abc@beta', 'src/../lib/a@b.js'), { machine: 'beta', topic: 'f/abc/lib/a@b.js' }],
    [filesTopic('abc', 'x@y/z'), { machine: '', topic: 'f/abc/x@y/z' }],
    [gitTopic('abc@my-box.lan'), { machine: 'my-box.lan', topic: 'g/abc' }],
    ['index', { machine: '', topic: 'index' }],
  ];
  for (const [topic, want] of cases) assert.deepEqual(topicRoute(topic), want, topic);
});

// Two machines holding one session id (a copied file) stay two groups of
// a fleet search, each named by its own machine.
test('fleetRefs', () => {
  const id = '0199aaaa';
  const hit = (machine) => ({ sessionId: id, machine, entryId: 'e', session: { id, machine } });
  const r = fleetRefs({ hits: [hit('desk'), hit('cloud')],
    sessions: [{ sessionId: id, machine: 'desk', count: 3 }, { sessionId: id, machine: 'cloud', count: 1 }] }, 'desk');
  assert.deepEqual(r.sessions.map((g) => [g.sessionId, g.count]), [[id, 3], [id + '@cloud', 1]]);
  assert.deepEqual(r.hits.map((h) => h.sessionId), [id, id + '@cloud']);
});
