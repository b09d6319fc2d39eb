// A small, safe Markdown renderer. It turns Markdown into Preact elements
// directly; no HTML string is ever built or parsed, so HTML in a message is
// shown as text and can never run. Links keep only http(s) and mailto URLs.
// It covers what models write: headings, paragraphs, fenced code, lists,
// quotes, tables, rules, emphasis, code spans, links and autolinks.
import { h } from 'preact';
import { highlight } from './highlight.js';
import { copyText } from './util.js';

// markdown renders src as Preact children.
export function markdown(src) {
  if (!src) return null;
  return blocks(String(src).replace(/\r\n?/g, '\n').split('\n'));
}

const fenceRE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)?.*$/;
const headRE = /^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const hrRE = /^ {0,3}([-*_])(\s*\1){2,}\s*$/;
const quoteRE = /^ {0,3}> ?(.*)$/;
const itemRE = /^( {0,12})([-*+]|\d{1,9}[.)])\s+(.*)$/;
const tableSepRE = /^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$/;

function blocks(lines) {
  const out = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (!line.trim()) { i++; continue; }
    if ((m = line.match(fenceRE))) {
      const fence = m[1];
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence)) body.push(lines[i++]);
      i++;
      out.push(h(CodeBlock, { code: body.join('\n'), lang: m[2] || '' }));
    } else if ((m = line.match(headRE))) {
      out.push(h('h' + m[1].length, null, inline(m[2])));
      i++;
    } else if (hrRE.test(line)) {
      out.push(h('hr', null));
      i++;
    } else if (quoteRE.test(line)) {
      const body = [];
      while (i < lines.length && (m = lines[i].match(quoteRE))) { body.push(m[1]); i++; }
      out.push(h('blockquote', null, blocks(body)));
    } else if (itemRE.test(line)) {
      i = list(lines, i, out);
    } else if (line.includes('|') && i + 1 < lines.length && tableSepRE.test(lines[i + 1]) && lines[i + 1].includes('-')) {
      i = table(lines, i, out);
    } else {
      const para = [];
      while (i < lines.length && lines[i].trim() && !startsBlock(lines, i)) para.push(lines[i++].trim());
      if (!para.length) para.push(lines[i++].trim());
      out.push(h('p', null, inline(para.join('\n'))));
    }
  }
  return out;
}

function startsBlock(lines, i) {
  const l = lines[i];
  return fenceRE.test(l) || headRE.test(l) || hrRE.test(l) || quoteRE.test(l) || itemRE.test(l);
}

function list(lines, i, out) {
  const first = lines[i].match(itemRE);
  const indent = first[1].length;
  const ordered = /\d/.test(first[2]);
  const items = [];
  while (i < lines.length) {
    const m = lines[i].match(itemRE);
    if (!m || m[1].length !== indent || /\d/.test(m[2]) !== ordered) break;
    const body = [m[3]];
    i++;
    while (i < lines.length) {
      const l = lines[i];
      if (!l.trim()) {
        if (i + 1 < lines.length && lines[i + 1].match(/^\s+/) && lines[i + 1].match(/^\s+/)[0].length > indent) { body.push(''); i++; continue; }
        break;
      }
      const sub = l.match(itemRE);
      if (sub && sub[1].length <= indent) break;
      if (!sub && !/^\s/.test(l) && startsBlock(lines, i)) break;
      body.push(l.replace(new RegExp('^ {0,' + (indent + 4) + '}'), ''));
      i++;
    }
    const tight = !body.includes('');
    const kids = blocks(body);
    items.push(h('li', null, tight ? kids.map((k) => (k.type === 'p' ? k.props.children : k)) : kids));
  }
  const start = ordered ? parseInt(first[2], 10) : undefined;
  out.push(h(ordered ? 'ol' : 'ul', start && start !== 1 ? { start } : null, items));
  return i;
}

function cells(line) {
  let s = line.trim();
  if (s.startsWith('|')) s = s.slice(1);
  if (s.endsWith('|') && !s.endsWith('\\|')) s = s.slice(0, -1);
  return s.split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, '|'));
}

function table(lines, i, out) {
  const head = cells(lines[i]);
  const align = cells(lines[i + 1]).map((c) => (c.endsWith(':') ? (c.startsWith(':') ? 'center' : 'right') : null));
  i += 2;
  const rows = [];
  while (i < lines.length && lines[i].includes('|') && lines[i].trim()) rows.push(cells(lines[i++]));
  const cell = (tag, c, j) => h(tag, align[j] ? { class: 'al-' + align[j] } : null, inline(c));
  out.push(h('div', { class: 'md-table' }, h('table', null,
    h('thead', null, h('tr', null, head.map((c, j) => cell('th', c, j)))),
    h('tbody', null, rows.map((r) => h('tr', null, head.map((_, j) => cell('td', r[j] || '', j))))))));
  return i;
}

// Inline constructs, leftmost first: backslash escape, code span, link,
// autolink, strong, strike, emphasis, hard break.
const inlineRE = new RegExp([
  /\\(?<esc>[\\`*_{}[\]()#+\-.!|~<>])/,
  /(?<ticks>`+)(?<code>[\s\S]*?[^`])\k<ticks>(?!`)/,
  /!?\[(?<label>[^\]\n]*)\]\(\s*<?(?<url>(?:[^()\s<>]|\([^()\s]*\))*)>?(?:\s+"[^"]*")?\s*\)/,
  /(?<auto>https?:\/\/[^\s<>()]*[^\s<>().,;:!?'"*_`])/,
  /\*\*(?=\S)(?<strong>[\s\S]*?\S)\*\*/,
  /__(?=\S)(?<strong2>[\s\S]*?\S)__(?!\w)/,
  /~~(?=\S)(?<del>[\s\S]*?\S)~~/,
  /\*(?=[^\s*])(?<em>[\s\S]*?[^\s*\\])\*/,
  /(?<![\w\\])_(?=[^\s_])(?<em2>[\s\S]*?[^\s_\\])_(?!\w)/,
  /(?<br> {2,}|\\)\n/,
].map((r) => r.source).join('|'), 'g');

export function inline(s) {
  const out = [];
  let last = 0;
  const re = new RegExp(inlineRE.source, 'g');
  let m;
  while ((m = re.exec(s))) {
    const g = m.groups;
    if (m.index > last) out.push(s.slice(last, m.index));
    last = re.lastIndex;
    if (g.esc !== undefined) out.push(g.esc);
    else if (g.ticks) out.push(h('code', null, g.code.replace(/^ (.*) $/, '$1')));
    else if (g.url !== undefined) out.push(link(g.url, g.label ? inline(g.label) : g.url));
    else if (g.auto) out.push(link(g.auto, g.auto));
    else if (g.strong || g.strong2) out.push(h('strong', null, inline(g.strong || g.strong2)));
    else if (g.del) out.push(h('del', null, inline(g.del)));
    else if (g.em || g.em2) out.push(h('em', null, inline(g.em || g.em2)));
    else out.push(h('br', null));
  }
  if (last < s.length) out.push(s.slice(last));
  return out;
}


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
    h('pre', null, h('code', null, highlight(code, lang))));
}
