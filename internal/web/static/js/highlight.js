// A small syntax highlighter: one regular expression per language family
// that splits code into comments, strings, numbers, keywords and the rest.
// It returns Preact children (text and <span class="tok-…">), never HTML, so
// highlighted code is as safe as plain text.
import { h } from 'preact';

const kw = (s) => s.split(' ');
const C_LIKE = {
  comment: /\/\/[^\n]*|\/\*[\s\S]*?\*\//,
  string: /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/,
};
const HASH = { comment: /#[^\n]*/, string: /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/ };

const langs = {
  js: { ...C_LIKE, keywords: kw('async await break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while with yield true false null undefined interface type enum implements private public protected readonly as declare namespace abstract keyof') },
  go: { ...C_LIKE, keywords: kw('break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var true false nil iota any error string int int64 uint8 byte rune bool float64') },
  rust: { ...C_LIKE, keywords: kw('as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while Some None Ok Err') },
  c: { ...C_LIKE, keywords: kw('auto break case char class const continue default do double else enum extern float for goto if int long namespace new private public protected register return short signed sizeof static struct switch template this typedef union unsigned using virtual void volatile while true false null nullptr final import package boolean extends implements throws') },
  py: { ...HASH, string: /"""[\s\S]*?"""|'''[\s\S]*?'''|[rbfu]?"(?:[^"\\\n]|\\.)*"|[rbfu]?'(?:[^'\\\n]|\\.)*'/, keywords: kw('and as assert async await break class continue def del elif else except False finally for from global if import in is lambda None nonlocal not or pass raise return True try while with yield self') },
  sh: { ...HASH, keywords: kw('if then else elif fi for while until do done case esac in function return local export set unset echo cd exit source alias readonly shift trap') },
  json: { string: /"(?:[^"\\\n]|\\.)*"/, keywords: kw('true false null') },
  css: { comment: /\/\*[\s\S]*?\*\//, string: /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/, keywords: [] },
  yaml: { ...HASH, keywords: kw('true false null yes no') },
  sql: { comment: /--[^\n]*/, string: /'(?:[^']|'')*'/, keywords: kw('select from where and or not insert into values update set delete create table index join left right inner outer on group by order limit offset as null is in like primary key references begin commit') },
};
const aliases = {
  javascript: 'js', jsx: 'js', ts: 'js', typescript: 'js', tsx: 'js', mjs: 'js', cjs: 'js',
  golang: 'go', rs: 'rust', cpp: 'c', 'c++': 'c', h: 'c', hpp: 'c', java: 'c', cs: 'c', kotlin: 'c', swift: 'c', zig: 'c',
  python: 'py', bash: 'sh', shell: 'sh', zsh: 'sh', console: 'sh', sh: 'sh', toml: 'yaml', yml: 'yaml', ini: 'yaml',
  scss: 'css', less: 'css', jsonl: 'json',
};

const extLang = { md: 'md', markdown: 'md', diff: 'diff', patch: 'diff', html: 'html', xml: 'html', svg: 'html', vue: 'html' };

// langOf maps a fence info string or a file name to a language key.
export function langOf(s) {
  if (!s) return '';
  s = String(s).toLowerCase().trim();
  const m = s.match(/\.([a-z0-9+]+)$/);
  if (m) s = m[1];
  if (s === 'makefile' || s === 'dockerfile') return 'sh';
  return langs[s] ? s : aliases[s] || extLang[s] || '';
}

const cache = new Map();

function compile(lang) {
  if (cache.has(lang)) return cache.get(lang);
  const L = langs[lang];
  const parts = [];
  if (L.comment) parts.push(`(${L.comment.source})`); else parts.push('(?!)');
  parts.push(`(${L.string.source})`);
  parts.push('(\\b(?:0x[0-9a-fA-F_]+|\\d[\\d_]*(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)\\b)');
  parts.push(L.keywords.length ? `\\b(${L.keywords.map(esc).join('|')})\\b` : '(?!)');
  parts.push('(\\b[A-Za-z_$][\\w$]*(?=\\s*\\())');
  const re = new RegExp(parts.join('|'), 'g');
  cache.set(lang, re);
  return re;
}

const esc = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const classes = [null, 'tok-c', 'tok-s', 'tok-n', 'tok-k', 'tok-f'];

// highlight returns children for code in lang; unknown languages and very
// long inputs come back as plain text.
export function highlight(code, lang) {
  lang = langOf(lang);
  if (lang === 'diff') return diffLines(code);
  if (lang === 'html') return markup(code);
  if (!langs[lang] || code.length > 200000) return code;
  const re = compile(lang);
  re.lastIndex = 0;
  const out = [];
  let last = 0;
  let m;
  while ((m = re.exec(code))) {
    if (m[0] === '') { re.lastIndex++; continue; }
    if (m.index > last) out.push(code.slice(last, m.index));
    let k = 1;
    while (m[k] === undefined) k++;
    out.push(h('span', { class: classes[k] }, m[0]));
    last = m.index + m[0].length;
  }
  if (last < code.length) out.push(code.slice(last));
  return out;
}

// diffLines gives one block per line, coloured by its first character.
function diffLines(code) {
  return code.split('\n').map((line) => {
    const c = line[0] === '+' ? 'tok-add' : line[0] === '-' ? 'tok-del' : line.startsWith('@@') ? 'tok-hunk' : 'tok-line';
    return h('span', { class: c }, line || ' ');
  });
}

function markup(code) {
  const out = [];
  const re = /<!--[\s\S]*?-->|<\/?[A-Za-z][^>]*>/g;
  let last = 0;
  let m;
  while ((m = re.exec(code))) {
    if (m.index > last) out.push(code.slice(last, m.index));
    out.push(h('span', { class: m[0].startsWith('<!--') ? 'tok-c' : 'tok-k' }, m[0]));
    last = re.lastIndex;
  }
  out.push(code.slice(last));
  return out;
}
