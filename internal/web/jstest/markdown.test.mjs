import { test } from 'node:test';
import assert from 'node:assert/strict';
import { capped, markdown, render, textCap } from '../static/js/markdown.js';
import { html } from './vdom.mjs';

test('markdown renders CommonMark with GFM tables and strikethrough', () => {
  for (const [src, want] of [
    ['# Title\n\nSome *em* and **strong**.', '<h1>Title</h1><p>Some <em>em</em> and <strong>strong</strong>.</p>'],
    ['- a\n- b', '<ul><li>a</li><li>b</li></ul>'],
    ['3. three\n4. four', '<ol start="3"><li>three</li><li>four</li></ol>'],
    ['~~gone~~ `code`', '<p><s>gone</s> <code>code</code></p>'],
    ['| a | b |\n|:-|-:|\n| 1 | 2 |', '<div class="md-table"><table><thead><tr><th class="al-left">a</th><th class="al-right">b</th></tr></thead><tbody><tr><td class="al-left">1</td><td class="al-right">2</td></tr></tbody></table></div>'],
    ['line one\nline two', '<p>line one\nline two</p>'],
    ['> quoted', '<blockquote><p>quoted</p></blockquote>'],
  ]) assert.equal(html(render(src)), want, src);
});

test('raw HTML stays text and only http(s) and mailto links are links', () => {
  for (const [src, want] of [
    ['<script>alert(1)</script>', '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>'],
    ['[x](javascript:alert(1))', '<p>[x](javascript:alert(1))</p>'],
    ['[x](data:text/html,hi)', '<p>[x](data:text/html,hi)</p>'],
    ['[site](https://example.com)', '<p><a href="https://example.com" target="_blank" rel="noopener noreferrer nofollow">site</a></p>'],
    ['see https://example.com/a', '<p>see <a href="https://example.com/a" target="_blank" rel="noopener noreferrer nofollow">https://example.com/a</a></p>'],
    ['[mail](mailto:a@b.c)', '<p><a href="mailto:a@b.c" target="_blank" rel="noopener noreferrer nofollow">mail</a></p>'],
    ['[f](file:///etc/passwd)', '<p>[f](file:///etc/passwd)</p>'],
    ['[rel](/etc/passwd) [ftp](ftp://h/x)', '<p><span class="md-badlink">rel</span> <span class="md-badlink">ftp</span></p>'],
    ['![cat](https://example.com/cat.png)', '<p><a href="https://example.com/cat.png" target="_blank" rel="noopener noreferrer nofollow">cat</a></p>'],
  ]) assert.equal(html(render(src)), want, src);
});

test('a fence is a code block with its language, highlighted', () => {
  const out = html(render('```go\nreturn nil\n```'));
  assert.equal(out, '<div class="code"><div class="code-bar"><span>go</span><button class="btn-link" type="button">copy</button></div>' +
    '<pre><code><span class="tok-k">return</span> <span class="tok-n">nil</span></code></pre></div>');
  assert.match(html(render('    indented')), /<span>text<\/span>.*<pre><code>indented<\/code><\/pre>/);
});

test('text nested deeper than markdown-it keeps is shown as written', () => {
  const deep = '>'.repeat(200) + ' deep';
  assert.equal(html(render(deep)), `<p class="md-plain">${deep.replace(/>/g, '&gt;')}</p>`);
});

test('a text over textCap is capped; empty is nothing', () => {
  assert.equal(markdown(''), null);
  assert.equal(capped('short'), 'short');
  const long = 'x'.repeat(textCap + 1);
  const v = capped(long);
  assert.equal(typeof v.type, 'function');
  assert.equal(v.props.text, long);
});
