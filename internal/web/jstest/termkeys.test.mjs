import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BAR, keyBytes, withCtrl } from '../static/js/termkeys.js';

test('the key bar sends what a terminal sends', () => {
  for (const [key, app, want] of [['Esc', false, '\x1b'], ['Tab', false, '\t'], ['↑', false, '\x1b[A'],
    ['↓', true, '\x1bOB'], ['→', false, '\x1b[C'], ['←', true, '\x1bOD'], ['Ctrl', false, '']]) {
    assert.equal(keyBytes(key, app), want, key);
  }
  assert.ok(BAR.every((k) => k === 'Ctrl' || keyBytes(k) !== ''));
});

test('Ctrl makes control codes of the next key', () => {
  for (const [d, want] of [['c', '\x03'], ['C', '\x03'], ['a', '\x01'], ['[', '\x1b'], ['?', '\x7f'], [' ', '\x00'],
    ['1', '1'], ['ab', 'ab']]) assert.equal(withCtrl(d), want, d);
});
