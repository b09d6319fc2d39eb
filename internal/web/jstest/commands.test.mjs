import './browser.mjs';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BUILTINS, parseInput } from '../static/chat/commands.js';
import { tokenAt, atPath, applyItem, fileItem } from '../static/chat/complete.js';

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
    ['see @"my dir', 12, { kind: 'file', path: 'my dir', quoted: true, start: 4, end: 12 }],
    ['see @"my dir/a" now', 14, { kind: 'file', path: 'my dir/a', quoted: true, start: 4, end: 15 }],
    ['see @"my', 8, { kind: 'file', path: 'my', quoted: true, start: 4, end: 8 }],
    ['mail a@b', 8, null],
    ['plain', 5, null],
  ]) assert.deepEqual(tokenAt(text, caret), want, `${text}|${caret}`);
});

test('atPath writes a path as pi\'s editor does: quoted when it has a space', () => {
  for (const [path, quoted, want] of [
    ['src/main.go', false, '@src/main.go'],
    ['my dir/a b.txt', false, '@"my dir/a b.txt"'],
    ['notes\tx', false, '@"notes\tx"'],
    ['文档，草稿.md', false, '@"文档，草稿.md"'],
    ['src/', true, '@"src/"'], // the user opened a quote: pi keeps it
  ]) assert.equal(atPath(path, quoted), want, path);
});

test('applyItem: a file gets a space after it, a folder keeps the caret in it', () => {
  const cases = [
    ['look at @ma', 11, { path: 'src/main.go', dir: false }, 'look at @src/main.go ', 21],
    ['look at @sr rest', 11, { path: 'src/', dir: true }, 'look at @src/ rest', 13],
    ['see @my', 7, { path: 'my dir/', dir: true }, 'see @"my dir/"', 13],
    ['see @"my dir/a" and', 14, { path: 'my dir/a b.txt', dir: false }, 'see @"my dir/a b.txt" and', 22],
  ];
  for (const [text, caret, m, want, wantCaret] of cases) {
    const tok = tokenAt(text, caret);
    const got = applyItem(text, tok, fileItem(m, tok.quoted));
    assert.deepEqual(got, { text: want, caret: wantCaret }, text);
  }
});

test('fileItem mutes the folder part of the label', () => {
  assert.deepEqual(fileItem({ path: 'a/b/c.go', dir: false }), { label: 'a/b/c.go', dirPart: 'a/b/', insert: '@a/b/c.go',
    dir: false, hint: '' });
  assert.equal(fileItem({ path: 'a/b/', dir: true }).dirPart, 'a/');
});
