import './browser.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTINS, parseInput } from '../static/chat/commands.js';
import { tokenAt } from '../static/chat/complete.js';

test('parseInput tells built-in commands and shell commands from prompts', () => {
  for (const [text, want] of [
    ['hello', null],
    ['/compact', { kind: 'builtin', name: 'compact', arg: '' }],
    ['  /compact keep the tests \n', { kind: 'builtin', name: 'compact', arg: 'keep the tests' }],
    ['/model\n anthropic/claude', { kind: 'builtin', name: 'model', arg: 'anthropic/claude' }],
    ['/skill:tidy now', null], // pi's to expand
    ['/review', null], // a prompt template: sent as typed
    ['/compactx', null],
    ['!ls -la', { kind: 'bash', command: 'ls -la', exclude: false }],
    ['!! git status ', { kind: 'bash', command: 'git status', exclude: true }],
    ['!', null],
    ['!!  ', null],
  ]) assert.deepEqual(parseInput(text), want, JSON.stringify(text));
});

test('every built-in parses as itself', () => {
  for (const c of BUILTINS) assert.deepEqual(parseInput('/' + c.name), { kind: 'builtin', name: c.name, arg: '' });
});

test('tokenAt finds the command or @path before the caret', () => {
  for (const [text, caret, want] of [
    ['/mo', 3, { kind: 'cmd', query: 'mo', start: 0, end: 3 }],
    ['/model x', 8, null],
    ['see @src/ma', 11, { kind: 'file', path: 'src/ma', start: 4, end: 11 }],
    ['see @src/ma.go rest', 9, { kind: 'file', path: 'src/', start: 4, end: 14 }],
    ['see @"my dir', 12, null],
    ['see @"my', 8, { kind: 'file', path: 'my', start: 4, end: 8 }],
    ['mail a@b', 8, null],
    ['plain', 5, null],
  ]) assert.deepEqual(tokenAt(text, caret), want, `${text}|${caret}`);
});
