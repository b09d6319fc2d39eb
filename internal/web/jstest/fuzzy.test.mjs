import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuzzyScore, rankActions } from '../static/js/fuzzy.js';

test('fuzzyScore matches letters in order, case-insensitive', () => {
  for (const [q, text, ok] of [
    ['', 'Fork', true], ['frk', 'Fork from a message…', true], ['FORK', 'fork', true], ['kf', 'Fork', false],
    ['exp md', 'Export Markdown', true], ['zz', 'Compact', false],
  ]) assert.equal(fuzzyScore(q, text) >= 0, ok, `${q} in ${text}`);
});

test('rankActions puts word starts and runs first, then shorter, then registry order', () => {
  const a = (label, group = 'Session') => ({ label, group });
  const list = [a('Thinking: off'), a('Open Terminal', 'Panel'), a('Open Tree', 'Panel'), a('Compact the context'),
    a('Clone this branch'), a('Toggle the sidebar', 'Page')];
  const labels = (q) => rankActions(list, q).map((x) => x.label);
  assert.deepEqual(labels('').slice(0, 2), ['Thinking: off', 'Open Terminal']);
  assert.deepEqual(labels('tree'), ['Open Tree']);
  assert.equal(labels('term')[0], 'Open Terminal');
  assert.equal(labels('cl')[0], 'Clone this branch');
  assert.deepEqual(labels('panel tre'), ['Open Tree']);
  assert.deepEqual(labels('qqq'), []);
});
