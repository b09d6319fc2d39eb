import { test } from 'node:test';
import assert from 'node:assert/strict';
import { countText, partialText } from '../static/js/searchtext.js';

test('countText: a capped or partial count is a lower bound', () => {
  const hits = [{}, {}];
  assert.equal(countText({ hits, count: 63, sessionCount: 2 }), '63 hits in 2 sessions');
  assert.equal(countText({ hits, count: 1, sessionCount: 1 }), '1 hit in 1 session');
  assert.equal(countText({ hits, count: 2000, countCapped: true, sessionCount: 40 }), '2000+ hits in 40 sessions');
  assert.equal(countText({ hits, count: 1, partial: true, sessionCount: 1 }), '1+ hits in 1 session');
});

test('partialText: says that a search stopped at its time limit', () => {
  assert.equal(partialText({ hits: [{}] }), '');
  assert.match(partialText({ hits: [{}], partial: true }), /^Partial results: .*best of the newest matches it read/);
  assert.match(partialText({ hits: [], partial: true }), /found none in what it read/);
});
