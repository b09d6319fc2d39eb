import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelOf, keyName, matches, settingMatches, SECTIONS } from '../static/js/settingsearch.js';

test('human names, pi key kept', () => {
  assert.equal(labelOf({ key: 'steeringMode' }), 'Steering messages');
  assert.equal(keyName({ key: 'retry', sub: 'maxRetries' }), 'retry.maxRetries');
  assert.equal(labelOf({ key: 'retry', sub: 'maxRetries' }), 'Retries before giving up');
  assert.equal(labelOf({ key: 'shellCommandPrefix' }), 'Shell command prefix'); // one we do not name
  assert.equal(labelOf({ key: 'terminal', sub: 'showImages' }), 'Terminal show images');
});

test('search: every word, any case, over name, key, description and choices', () => {
  const st = { key: 'compaction', sub: 'reserveTokens', doc: 'tokens kept free for the answer before compacting' };
  for (const [q, want] of [['', true], ['  ', true], ['Reserve', true], ['compaction.reserve', true],
    ['free answer', true], ['tokens free', true], ['retry', false], ['free retry', false]]) {
    assert.equal(settingMatches(q, st), want, q);
  }
  assert.equal(settingMatches('one-at', { key: 'steeringMode', options: ['all', 'one-at-a-time'] }), true);
  assert.equal(matches('a b', 'a', undefined, null, 'B'), true);
});

test('search: a setting is found by a value it has, global or the project\'s', () => {
  const st = { key: 'shellCommandPrefix', doc: 'prefix for bash commands' };
  assert.equal(settingMatches('direnv', st, 'eval "$(direnv export bash)"'), true);
  assert.equal(settingMatches('direnv', st, undefined, 'direnv exec .'), true);
  assert.equal(settingMatches('direnv', st), false);
  assert.equal(settingMatches('7', { key: 'retry', sub: 'maxRetries' }, 7), true);
  assert.equal(settingMatches('zsh', { key: 'shellPath' }, ['/bin/zsh']), true);
  assert.equal(settingMatches('true', { key: 'hideThinkingBlock' }, true), false); // a switch: by its name only
});

test('the sections, in order', () => {
  assert.deepEqual(SECTIONS.map(([, l]) => l), ['Providers and keys', 'Models', 'Agent', 'Resources', 'Alerts',
    'piweb']);
});
