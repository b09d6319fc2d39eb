// Markdown rendering: markdown-it (vendored, CommonMark with GFM tables and
// strikethrough) parses in linear time, and its TOKENS are turned into
// Preact elements here. No HTML string is ever built or parsed: raw HTML is
// off (html: false), so it stays text, and every piece of text ends up in a
// text node. Links keep only http(s) and mailto URLs; images are shown as
// links (nothing is fetched from a message). One text draws at most
// textCap characters until the reader asks for all of it.
import { h } from 'preact';
import { useState } from 'preact/hooks';
import MarkdownIt from 'markdown-it';
import { highlight } from './highlight.js';
import { copyText, fmtBytes } from './util.js';

const md = new MarkdownIt('default', { html: false, linkify: true, typographer: false });
md.linkify.set({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });

// textCap is how many characters of one text are drawn before "Show all".
export const textCap = 60000;

// markdown renders src as Preact children: the first textCap characters,
// with a button that draws the rest.
export function markdown(src) {
  if (!src) return null;
  return capped(String(src), render);
}

// capped draws text through draw (a function of a string returning
// Preact children), at most textCap characters of it until the reader
// clicks "Show all".
export function capped(text, draw = (s) => s) {
  if (typeof text !== 'string') text = text == null ? '' : String(text);
  if (text.length <= textCap) return draw(text);
  return h(Capped, { text, draw });
}

function Capped({ text, draw }) {
  const [all, setAll] = useState(false);
  if (all) return draw(text);
  const cut = cutAt(text, textCap);
  return [draw(text.slice(0, cut)), h(ShowAll, { rest: text.length - cut, onClick: () => setAll(true) })];
}

// cutAt picks where a capped text ends: the last line break near the cap,
// else the cap itself (one huge line).
function cutAt(src, cap) {
  const nl = src.lastIndexOf('\n', cap);
  return nl > cap * 0.8 ? nl : cap;
}

// ShowAll is the button under a capped text.
export function ShowAll({ rest, onClick }) {
  return h('div', { class: 'show-all' },
    h('button', { class: 'btn ghost small', type: 'button', onClick }, `Show all (${fmtBytes(rest)} more)`));
}

// render parses src and builds the elements of its block tokens. Text
// nested deeper than markdown-it's maxNesting would be dropped by the
// parser, so such a text is shown as it was written instead.
export function render(src) {
  const tokens = md.parse(src, {});
  if (tokens.some((t) => t.level >= md.options.maxNesting - 1)) return h('p', { class: 'md-plain' }, src);
  return build(tokens);
}

// build turns a flat markdown-it token list (opening tokens nest +1,
// closing ones -1) into a list of Preact children.
function build(tokens) {
  const stack = [{ kids: [] }];
  for (const t of tokens) {
    const top = stack[stack.length - 1];
    if (t.nesting === 1) stack.push({ t, kids: [] });
    else if (t.nesting === -1) {
      const open = stack.pop();
      if (stack.length === 0) return open.kids; // unbalanced: never from markdown-it
      stack[stack.length - 1].kids.push(element(open.t, open.kids));
    } else top.kids.push(leaf(t));
  }
  // Unclosed tokens (never from markdown-it) are drawn as their children.
  while (stack.length > 1) {
    const open = stack.pop();
    stack[stack.length - 1].kids.push(...open.kids);
  }
  return stack[0].kids;
}

// element builds the element of an opening token with its children.
function element(t, kids) {
  if (t.hidden) return kids; // the paragraphs of a tight list
  switch (t.type) {
    case 'link_open': return link(t.attrGet('href') || '', kids);
    case 'table_open': return h('div', { class: 'md-table' }, h('table', null, kids));
    case 'ordered_list_open': {
      const start = +t.attrGet('start');
      return h('ol', start && start !== 1 ? { start } : null, kids);
    }
    case 'th_open': case 'td_open': {
      const m = /text-align:(left|right|center)/.exec(t.attrGet('style') || '');
      return h(t.tag, m ? { class: 'al-' + m[1] } : null, kids);
    }
  }
  return h(allowed.has(t.tag) ? t.tag : 'span', null, kids);
}

const allowed = new Set(['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'ul', 'ol', 'li',
  'em', 'strong', 's', 'del', 'thead', 'tbody', 'tr', 'th', 'td']);

// leaf builds the element or text of a token without children.
function leaf(t) {
  switch (t.type) {
    case 'inline': return build(t.children || []);
    case 'text': return t.content;
    case 'softbreak': return '\n';
    case 'hardbreak': return h('br', null);
    case 'code_inline': return h('code', null, t.content);
    case 'fence': return h(CodeBlock, { code: t.content.replace(/\n$/, ''),
      lang: t.info.trim().split(/\s+/)[0] || '' });
    case 'code_block': return h(CodeBlock, { code: t.content.replace(/\n$/, ''), lang: '' });
    case 'hr': return h('hr', null);
    case 'image': return link(t.attrGet('src') || '', t.content || t.attrGet('src') || 'image');
  }
  return t.content || null; // html_block / html_inline cannot occur with html off; text if they did
}

// link keeps http(s) and mailto URLs; any other is shown as its label.
function link(url, label) {
  if (!/^(https?:|mailto:)/i.test(url)) return h('span', { class: 'md-badlink' }, label);
  return h('a', { href: url, target: '_blank', rel: 'noopener noreferrer nofollow' }, label);
}

// CodeBlock shows highlighted code with its language and a copy button.
export function CodeBlock({ code, lang }) {
  const onCopy = async (e) => {
    const b = e.currentTarget;
    b.textContent = (await copyText(code)) ? 'copied' : 'failed';
    setTimeout(() => { b.textContent = 'copy'; }, 1200);
  };
  return h('div', { class: 'code' },
    h('div', { class: 'code-bar' }, h('span', null, lang || 'text'),
      h('button', { class: 'btn-link', onClick: onCopy, type: 'button' }, 'copy')),
    capped(code, (s) => h('pre', null, h('code', null, highlight(s, lang)))));
}
