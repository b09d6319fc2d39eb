// The syntax highlighter for code blocks, tool output and the files viewer.
// Each language (langs.js) is one regular expression, an alternation of its
// rules plus identifiers; a scan finds the next match, identifiers are
// classified by word lists (keyword, literal, type, a call when "(" follows).
// It returns Preact children (strings and <span class="tok-…">), never
// HTML, so highlighted code is as safe as plain text.
//
// Work is bounded: inputs over MAX_CHARS are plain text, and after
// MAX_SPANS spans, or MAX_MS milliseconds, the rest of the input stays
// plain, so a huge file costs a scan and a few thousand elements, not a
// frozen tab. The rules themselves must stay linear (langs.js: strings end
// at the end of their line or of the input, lookbehinds are bounded): the
// budget is looked at between matches, and one search for the next match
// runs to its end.
import { h } from 'preact';
import { LANGS, ALIASES } from './langs.js';

export const MAX_CHARS = 400000;
export const MAX_SPANS = 12000;
export const MAX_MS = 1000;

const NAMES = { makefile: 'sh', dockerfile: 'sh', gnumakefile: 'sh', containerfile: 'sh', justfile: 'sh',
  '.bashrc': 'sh', '.zshrc': 'sh', '.profile': 'sh', '.env': 'sh', 'go.mod': 'go', 'go.sum': '', 'cargo.lock': 'toml',
  'pipfile': 'toml' };

// langOf maps a fence info string or a file name or path to a language
// key; '' when unknown.
export function langOf(s) {
  if (!s) return '';
  s = String(s).trim().toLowerCase();
  const base = s.slice(s.lastIndexOf('/') + 1);
  if (base in NAMES) return NAMES[base];
  const m = base.match(/\.([a-z0-9+_-]+)$/);
  const k = m ? m[1] : base.split(/[\s{,]/)[0];
  if (LANGS[k] || k === 'diff') return k;
  return ALIASES[k] || '';
}

const compiled = new Map();
const esc = (w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alt = (set) => [...set].sort((a, b) => b.length - a.length).map(esc).join('|');

// DECL are the keywords after which a name is a type being declared.
const DECL = ['class', 'struct', 'interface', 'enum', 'trait', 'type', 'impl', 'extends', 'implements', 'union',
  'protocol', 'extension', 'object', 'record', 'new'];

// wordRules turns a language's word lists into rules, so that plain
// identifiers never leave the regular expression engine: keywords,
// literals and types by name, a name declared after class or struct…, a
// call (a name before "("), a Rust macro, a shell command in command
// position, a capitalized name as a type.
function wordRules(L) {
  const wc = L.wordChars || '\\w$';
  const B = '(?<![' + wc + '])', E = '(?![' + wc + '])';
  const ident = B + (L.ident || '[A-Za-z_$][\\w$]*');
  const out = [];
  for (const [cls, set] of [['k', L.keywords], ['n', L.literals], ['t', L.types]]) {
    if (set && set.size) out.push([cls, B + '(?:' + alt(set) + ')' + E]);
  }
  const decl = DECL.filter((k) => L.keywords && L.keywords.has(k));
  if (decl.length) out.push(['t', '(?<=' + B + '(?:' + decl.join('|') + ')[ \\t]{1,16})' + ident]);
  out.push(['f', ident + '(?=[ \\t]*\\()']);
  if (L.macros) out.push(['a', ident + '!(?!=)']);
  if (L.builtins) out.push(['f', '(?<=(?:^|[\\n;|&({`]|' + B + '(?:do|then|else|sudo|time|exec))[ \\t]{0,16})(?:'
    + alt(L.builtins) + ')' + E]);
  if (L.capTypes) out.push(['t', B + '[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*' + E]);
  return out;
}

// compile joins a language's rules into one global regular expression,
// noting the group each rule starts at.
function compile(key) {
  if (compiled.has(key)) return compiled.get(key);
  const L = LANGS[key];
  const rules = (L.rules || []).concat(L.noWords ? [] : wordRules(L));
  const starts = [];
  let group = 1;
  const parts = rules.map(([, src]) => {
    starts.push(group);
    group += new RegExp('(?:' + src + ')|').exec('').length;
    return '(' + src + ')';
  });
  const c = { rules, starts, re: new RegExp(parts.join('|'), L.nocase ? 'gi' : 'g') };
  compiled.set(key, c);
  return c;
}

// Out collects children, merging plain text and counting spans, until
// the deadline (a performance.now() time).
class Out {
  constructor(deadline) { this.list = []; this.spans = 0; this.deadline = deadline; }
  text(s) {
    if (!s) return;
    const n = this.list.length;
    if (n && typeof this.list[n - 1] === 'string') this.list[n - 1] += s;
    else this.list.push(s);
  }
  span(cls, s) {
    if (!s) return;
    this.list.push(h('span', { class: 'tok-' + cls }, s));
    this.spans++;
  }
  full() { return this.spans >= MAX_SPANS || performance.now() > this.deadline; }
}

// highlight returns children for code in lang (a key, an alias, a file
// name or a fence info string). Unknown languages, and inputs too large,
// come back as plain text; budget is MAX_MS unless given.
export function highlight(code, lang, budget = MAX_MS) {
  code = String(code ?? '');
  const key = langOf(lang);
  if (code.length > MAX_CHARS || (!LANGS[key] && key !== 'diff')) return code;
  if (key !== 'diff' && !LANGS[key].markup) compile(key); // the clock starts after the one-time compile
  const out = new Out(performance.now() + budget);
  if (key === 'diff') diff(code, '', out);
  else scan(key, code, out);
  return out.list;
}

// scan highlights code into out; it stops highlighting when out is full.
function scan(key, code, out) {
  if (LANGS[key].markup) return markup(code, out);
  const { rules, starts, re } = compile(key);
  re.lastIndex = 0;
  let last = 0;
  let m;
  while (!out.full() && (m = re.exec(code))) {
    if (!m[0]) { re.lastIndex++; continue; }
    let i = 0;
    while (m[starts[i]] === undefined) i++;
    out.text(code.slice(last, m.index));
    if (rules[i][0] === 'fence') fence(m[0], out);
    else out.span(rules[i][0], m[0]);
    last = re.lastIndex;
  }
  out.text(code.slice(last));
}

// fence is a Markdown code fence: the fence lines as meta, the body in the
// fence's language.
function fence(s, out) {
  const nl = s.indexOf('\n');
  if (nl < 0) return out.span('a', s);
  const head = s.slice(0, nl);
  const close = s.match(/\n[ \t]*(`{3,}|~{3,})[ \t]*$/);
  const body = s.slice(nl + 1, close ? close.index : s.length);
  out.span('a', head);
  out.text('\n');
  const key = langOf(head.replace(/^[ \t]*[`~]+/, ''));
  if (LANGS[key]) scan(key, body, out);
  else out.text(body);
  if (close) { out.text('\n'); out.span('a', close[0].slice(1)); }
}

const tagRE = new RegExp([
  /<!--[\s\S]*?(?:-->|$)/, /<!\[CDATA\[[\s\S]*?(?:\]\]>|$)/, /<![^>]*>?/, /<\?[\s\S]*?(?:\?>|$)/,
  /<\/?[A-Za-z][\w:.-]*(?:[^<>"']|"[^"]*"|'[^']*')*>?/, /&#?\w+;/,
].map((r) => r.source).join('|'), 'g');
const attrRE = /([^\s=/>"']+)(\s*=\s*)?("[^"]*"?|'[^']*'?|[^\s>"']+)?/g;

// markup highlights HTML and XML: comments, tags with their attributes,
// entities, and the contents of <script> and <style> as JavaScript and CSS.
function markup(code, out) {
  tagRE.lastIndex = 0;
  let last = 0;
  let m;
  while (!out.full() && (m = tagRE.exec(code))) {
    out.text(code.slice(last, m.index));
    const t = m[0];
    last = tagRE.lastIndex;
    if (t[0] === '&') { out.span('n', t); continue; }
    if (t.startsWith('<!--')) { out.span('c', t); continue; }
    if (t[1] === '!' || t[1] === '?') { out.span('a', t); continue; }
    tag(t, out);
    const inner = t[1] !== '/' && !t.endsWith('/>') && t.match(/^<(script|style)\b/i);
    if (inner) {
      const end = code.toLowerCase().indexOf('</' + inner[1].toLowerCase(), last);
      const stop = end < 0 ? code.length : end;
      scan(inner[1].toLowerCase() === 'style' ? 'css' : 'js', code.slice(last, stop), out);
      last = tagRE.lastIndex = stop;
    }
  }
  out.text(code.slice(last));
}

function tag(t, out) {
  const name = t.match(/^<\/?[\w:.-]+/)[0];
  out.span('k', name);
  const end = t.endsWith('/>') ? 2 : t.endsWith('>') ? 1 : 0;
  const body = t.slice(name.length, t.length - end);
  attrRE.lastIndex = 0;
  let last = 0;
  let m;
  while ((m = attrRE.exec(body))) {
    if (!m[0]) { attrRE.lastIndex++; continue; }
    out.text(body.slice(last, m.index));
    out.span('p', m[1]);
    out.text(m[2] || '');
    if (m[3]) out.span('s', m[3]);
    last = attrRE.lastIndex;
  }
  out.text(body.slice(last));
  if (end) out.span('k', t.slice(t.length - end));
}

const numbered = /^([+\- ])(\s*\d+) (.*)$/;

// diff gives one block per line, coloured by its first character; with
// lang the code of each line is highlighted too (pi's edit diffs carry
// line numbers: "+12 code"). Unified diff headers are meta.
export function diffLines(code, lang, budget = MAX_MS) {
  code = String(code ?? '');
  if (code.length > MAX_CHARS) return code;
  const out = new Out(performance.now() + budget);
  diff(code, langOf(lang), out);
  return out.list;
}

function diff(code, key, out) {
  const inner = LANGS[key] && !LANGS[key].markup ? key : '';
  for (const line of code.replace(/\n$/, '').split('\n')) {
    const c = line[0];
    let cls = c === '+' ? 'add' : c === '-' ? 'del' : line.startsWith('@@') ? 'hunk' : 'line';
    if (/^(?:diff |index |\+\+\+ |--- |new file|deleted file|similarity|rename )/.test(line)) cls = 'meta';
    if (!inner || cls === 'hunk' || cls === 'meta' || out.full()) {
      out.list.push(h('span', { class: 'tok-' + cls }, line || ' '));
      continue;
    }
    const m = line.match(numbered);
    const kids = new Out(out.deadline);
    if (m) {
      kids.text(m[1]);
      kids.span('ln', m[2]);
      kids.text(' ');
      scan(inner, m[3], kids);
    } else {
      kids.text(c === '+' || c === '-' || c === ' ' ? c : '');
      scan(inner, c === '+' || c === '-' || c === ' ' ? line.slice(1) : line, kids);
    }
    out.spans += kids.spans;
    out.list.push(h('span', { class: 'tok-' + cls }, kids.list.length ? kids.list : ' '));
  }
}
