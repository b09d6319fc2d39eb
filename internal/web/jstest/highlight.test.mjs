import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_CHARS, diffLines, highlight, langOf } from '../static/js/highlight.js';
import { html } from './vdom.mjs';
import { LANGS } from '../static/js/langs.js';

test('langOf maps fence infos, file names and aliases to a language', () => {
  for (const [in_, want] of [
    ['go', 'go'], ['main.go', 'go'], ['/src/app/Makefile', 'sh'], ['go.mod', 'go'], ['go.sum', ''],
    ['JS', 'js'], ['diff', 'diff'], ['', ''], [null, ''], ['nonsense-lang', ''],
  ]) assert.equal(langOf(in_), want, String(in_));
});

test('highlight gives spans of token classes and keeps every character', () => {
  const code = 'const x = "a" // note\nfoo(1)';
  const out = highlight(code, 'js');
  assert.equal(html(out), '<span class="tok-k">const</span> x = <span class="tok-s">&quot;a&quot;</span> <span class="tok-c">// note</span>\n<span class="tok-f">foo</span>(<span class="tok-n">1</span>)');
  assert.equal(html(out).replace(/<[^>]+>/g, '').replace(/&quot;/g, '"'), code);
});

test('unknown languages and inputs over MAX_CHARS stay plain text', () => {
  assert.equal(highlight('<b>', 'nope'), '<b>');
  const big = 'x'.repeat(MAX_CHARS + 1);
  assert.equal(highlight(big, 'js'), big);
});

test('HTML: tags, attributes, and the script inside as JavaScript', () => {
  assert.equal(html(highlight('<a href="x">&amp;<script>let y</script>', 'html')),
    '<span class="tok-k">&lt;a</span> <span class="tok-p">href</span>=<span class="tok-s">&quot;x&quot;</span><span class="tok-k">&gt;</span>' +
    '<span class="tok-n">&amp;amp;</span><span class="tok-k">&lt;script</span><span class="tok-k">&gt;</span><span class="tok-k">let</span> y' +
    '<span class="tok-k">&lt;/script</span><span class="tok-k">&gt;</span>');
});

test('diffLines: one span per line by its first character, code highlighted', () => {
  assert.equal(html(diffLines('--- a\n@@ -1 +1 @@\n-old\n+12 return', 'go')),
    '<span class="tok-meta">--- a</span><span class="tok-hunk">@@ -1 +1 @@</span>' +
    '<span class="tok-del">-old</span><span class="tok-add">+<span class="tok-ln">12</span> <span class="tok-k">return</span></span>');
});

// Hostile inputs: each used to make the scan retry a rule from every later
// position (an unclosed string of escaped quotes, a long run of spaces
// under a lookbehind, a YAML key candidate before a long run of spaces),
// taking seconds to a minute at 60,000 characters. They are timed with the
// budget off, so the rules themselves are shown to be linear: each takes
// well under half a second on a loaded 2-core machine, and the bound
// leaves room for a slower one.
const HOSTILE = {
  'escaped double quotes': '"' + '\\"'.repeat(50000),
  'escaped single quotes': "'" + "\\'".repeat(50000),
  'quote lines': '"\\"\\"\\"\n'.repeat(12000),
  'spaces': ' '.repeat(100000) + 'x',
  'tabs': '\t'.repeat(100000) + 'x',
  'keyword then spaces': 'class' + ' '.repeat(100000) + 'X',
  'semicolon then spaces': ';' + ' '.repeat(100000) + 'a:',
  'newlines': '\n'.repeat(100000),
  'dashes': '- '.repeat(50000) + 'x',
  'doubled quotes': "'".repeat(100001),
};

test('hostile inputs highlight in linear time in every language', () => {
  for (const [name, code] of Object.entries(HOSTILE)) {
    for (const lang of [...Object.keys(LANGS), 'diff']) {
      const t0 = performance.now();
      const out = highlight(code, lang, Infinity);
      const ms = performance.now() - t0;
      assert.ok(ms < 3000, `${name} as ${lang}: ${Math.round(ms)} ms`);
      // (a diff is one block per line, its newlines are the blocks)
      if (lang !== 'diff') assert.ok(text(out) === code, `${name} as ${lang} keeps every character`);
    }
  }
});

test('an unclosed string ends at the end of its line, and the next line is code', () => {
  assert.equal(html(highlight('x = "ab\\"c\nlet y', 'js')),
    'x = <span class="tok-s">&quot;ab\\&quot;c</span>\n<span class="tok-k">let</span> y');
  assert.equal(html(highlight('{"a": "b\\', 'json')),
    '{<span class="tok-p">&quot;a&quot;</span>: <span class="tok-s">&quot;b\\</span>');
});

test('past its time budget the rest of the input stays plain text', () => {
  const code = 'const x = 1;\n'.repeat(1000);
  const out = highlight(code, 'js', -1);
  assert.equal(text(out), code);
  assert.ok(!html(out).includes('<span'), 'no span after the budget');
  assert.ok(html(highlight(code, 'js')).includes('<span'), 'the default budget highlights it');
  assert.ok(!html(diffLines('+const x\n'.repeat(10), 'js', -1)).includes('tok-k'), 'diffs share the budget');
});

function text(out) {
  return html(out).replace(/<[^>]+>/g, '').replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}
