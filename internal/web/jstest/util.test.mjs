import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ago, baseName, countLine, fmtBytes, fmtCost, fmtTokens, plural, statsParts, relTime, shortId, textOf, toMs, withoutToken } from '../static/js/util.js';

const now = Date.parse('2026-12-04T12:00:00Z');

test('relTime and ago', () => {
  for (const [t, rel, words] of [
    [now - 10e3, 'now', 'just now'],
    [now - 5 * 60e3, '5m', '5m ago'],
    [now - 3 * 3600e3, '3h', '3h ago'],
    [now - 2 * 86400e3, '2d', '2d ago'],
    [now - 8 * 86400e3, '1w', '1w ago'],
    [now - 40 * 86400e3, '1mo', '1mo ago'],
    [now - 400 * 86400e3, '1y', '1y ago'],
    [new Date(now - 60e3).toISOString(), '1m', '1m ago'],
    [0, '', ''],
    ['not a date', '', ''],
  ]) {
    assert.equal(relTime(t, now), rel, `relTime(${t})`);
    assert.equal(ago(t, now), words, `ago(${t})`);
  }
});

test('toMs reads numbers and ISO strings; nothing or 0 is NaN', () => {
  assert.equal(toMs('2026-12-04T12:00:00Z'), now);
  assert.equal(toMs(now), now);
  for (const t of [null, undefined, 0, '', 'x']) assert.ok(Number.isNaN(toMs(t)), String(t));
});

test('fmtBytes, fmtTokens, fmtCost, plural', () => {
  const cases = [
    [fmtBytes, -1, ''], [fmtBytes, 0, '0 B'], [fmtBytes, 1023, '1023 B'], [fmtBytes, 1536, '1.5 KB'],
    [fmtBytes, 20480, '20 KB'], [fmtBytes, 1048576 * 2.25, '2.3 MB'], [fmtBytes, 1048576 * 20, '20 MB'],
    [fmtTokens, 0, '0'], [fmtTokens, 999, '999'], [fmtTokens, 1234, '1.2k'], [fmtTokens, 45678, '46k'], [fmtTokens, 2.5e6, '2.5M'],
    [fmtCost, 0, '$0'], [fmtCost, 0.00001, '<$0.0001'], [fmtCost, 0.0067, '$0.0067'], [fmtCost, 0.25, '$0.250'], [fmtCost, 3.456, '$3.46'],
  ];
  for (const [f, in_, want] of cases) assert.equal(f(in_), want, `${f.name}(${in_})`);
  assert.equal(plural(1, 'session'), '1 session');
  assert.equal(plural(2, 'session'), '2 sessions');
});

test('baseName, shortId, textOf', () => {
  assert.equal(baseName('/home/u/proj/'), 'proj');
  assert.equal(baseName('C:\\work\\app'), 'app');
  assert.equal(baseName(''), '(no cwd)');
  assert.equal(shortId('01a23634-a5ab-746b'), '01a23634');
  assert.equal(shortId(undefined), '');
  assert.equal(textOf('plain'), 'plain');
  assert.equal(textOf([{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }]), 'a\nb');
  assert.equal(textOf({}), '');
});

test('withoutToken removes a whole filter token', () => {
  for (const [q, raw, want] of [
    ['zebra role:user', 'role:user', 'zebra'],
    ['role:user zebra', 'role:user', 'zebra'],
    ['a role:user b', 'role:user', 'a b'],
    ['xrole:user role:user', 'role:user', 'xrole:user'],
    ['zebra project:"my app" x', 'project:"my app"', 'zebra x'],
    ['a model:gpt-4.1 b', 'model:gpt-4.1', 'a b'],
    ['a (x)+ b', '(x)+', 'a b'],
    ['nothing here', 'role:user', 'nothing here'],
  ]) {
    assert.equal(withoutToken(q, raw), want, `${q} - ${raw}`);
  }
});

test('one message count: the header line and /session parts that add up', () => {
  assert.equal(countLine(1, 1), '1 message');
  assert.equal(countLine(3, 3), '3 messages');
  assert.equal(countLine(2, 4), '2 messages on this branch · 4 in the file');
  assert.equal(countLine(2, 0), '2 messages'); // a file not listed yet
  assert.equal(statsParts({ userMessages: 2, assistantMessages: 2, toolResults: 1, totalMessages: 7 }),
    '2 user + 2 assistant + 1 tool result + 2 other = 7');
  assert.equal(statsParts({ userMessages: 1, assistantMessages: 1, toolResults: 0, totalMessages: 2 }),
    '1 user + 1 assistant + 0 tool results = 2');
});

test('noKeyProvider', async () => {
  const { noKeyProvider } = await import('../static/js/util.js');
  for (const [text, want] of [
    ['No API key for provider: openai', 'openai'],
    ['Error: No API key for anthropic/claude-sonnet-4-5', 'anthropic'],
    ['No API key found for Anthropic.\n\nUse /login', 'anthropic'],
    ['No API key provided for provider "google"', 'google'],
    ['No API key for this model', ''],
    ['No API key found', ''],
    ['429 rate limited', null],
    ['', null],
  ]) assert.equal(noKeyProvider(text), want, text);
});

test('whyNoCompact', async () => {
  const { whyNoCompact } = await import('../static/js/util.js');
  const user = { m: { role: 'user', content: 'hi' } };
  const answer = (n) => ({ m: { role: 'assistant', usage: { input: n, output: 0, cacheRead: 0, cacheWrite: 0 } } });
  assert.equal(whyNoCompact([], 20000), 'Nothing to compact yet: the session has no answer.');
  assert.match(whyNoCompact([user, answer(1200)], 20000), /^Too small to compact: pi keeps the last 20k tokens/);
  assert.equal(whyNoCompact([user, answer(25000)], 20000), '');
  assert.equal(whyNoCompact([user, answer(25000), { m: { role: 'compactionSummary' } }], 20000),
    'Already compacted: nothing new since the last compaction.');
});

test('pushWhy', async () => {
  const { pushWhy } = await import('../static/js/util.js');
  const abort = Object.assign(new Error('Registration failed - push service error'), { name: 'AbortError' });
  assert.match(pushWhy(abort), /cannot reach its push service/);
  assert.match(pushWhy(Object.assign(new Error('x'), { name: 'NotAllowedError' })), /does not allow notifications/);
  assert.match(pushWhy(new Error('the browser did not allow notifications')), /does not allow/);
  assert.equal(pushWhy(new Error('502 from piweb')), '502 from piweb');
});
