import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_CHARS, diffLines, highlight, langOf } from '../static/js/highlight.js';
import { html } from './vdom.mjs';

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
