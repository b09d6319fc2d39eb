import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunks, hasLines, LAZY } from '../static/js/lazylines.js';

test('hasLines counts lines as an editor does, without splitting', () => {
  for (const [text, n, want] of [
    ['', 1, false], ['a', 1, true], ['a\n', 2, false], ['a\nb', 2, true], ['a\nb\n', 3, false],
    ['\n\n', 3, false], ['\n\nx', 3, true], ['a\nb\nc', 4, false],
  ]) assert.equal(hasLines(text, n), want, JSON.stringify([text, n]));
  assert.equal(hasLines('x\n'.repeat(LAZY), LAZY), true);
  assert.equal(hasLines('x\n'.repeat(LAZY - 1), LAZY), false);
});

test('chunks cut at line ends, by lines and by characters, and cover the text', () => {
  const cases = [
    ['', 2, 100, []],
    ['a', 2, 100, [[0, 1, 1]]],
    ['a\nb\nc\nd\ne', 2, 100, [[0, 4, 2], [4, 8, 2], [8, 9, 1]]],
    ['a\nb\n', 2, 100, [[0, 4, 2]]],
    ['aaaa\nb\nc\n', 10, 3, [[0, 5, 1], [5, 9, 2]]], // past 3 characters a chunk ends at the next line end
    ['xxxxxxxx', 10, 3, [[0, 8, 1]]], // one line longer than the bound is one chunk
  ];
  for (const [text, per, chars, want] of cases) {
    const got = chunks(text, per, chars);
    assert.deepEqual(got, want, JSON.stringify([text, per, chars]));
    assert.equal(got.map(([a, b]) => text.slice(a, b)).join(''), text);
  }
});

test('a long output is cut in linear time into chunks of at most 200 lines', () => {
  const text = 'line of output\n'.repeat(100000);
  const got = chunks(text);
  assert.equal(got.length, 500);
  assert.ok(got.every(([, , n]) => n === 200));
});
