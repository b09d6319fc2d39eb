// literals.mjs: finds the user-visible English a page module writes
// itself instead of taking it from the message catalogs (js/i18n.js):
// the text between the tags of its htm templates (not a <code>'s: a key,
// a command), the static values of
// title, aria-label, placeholder and alt attributes, and a literal first
// argument of toast() and confirm(). A small JS scanner (strings,
// templates, comments, regular expressions) finds the html`` templates,
// also those nested in a template's ${…}.

const ATTRS = /\s(title|aria-label|placeholder|alt|label)\s*=\s*(["'])([^"'\u0001]*?)\2/g;
const CALLS = /\b(toast|confirm|prompt)\(\s*(['"`])((?:\\.|(?!\2).)*)\2/g;

// visible is whether a text has words to translate.
const visible = (s) => /[A-Za-z]{2,}/.test(s);

// scan returns {line, kind, text} for each English literal of a module.
export function scan(src) {
  const out = [];
  const lineAt = (i) => src.slice(0, i).split('\n').length;
  code(src, 0, false, (start, parts) => template(parts, start, lineAt, out));
  for (const m of src.matchAll(CALLS)) {
    if (visible(m[3].replace(/\$\{[^}]*\}/g, ''))) out.push({ line: lineAt(m.index), kind: m[1], text: m[3] });
  }
  return out;
}

// template looks at one html`` template's static parts (joined by \u0001
// where an expression was).
function template(parts, start, lineAt, out) {
  const s = parts.join('\u0001');
  const line = lineAt(start);
  for (const m of s.matchAll(ATTRS)) {
    if (visible(m[3])) out.push({ line, kind: m[1], text: m[3] });
  }
  const text = s.replace(/<!--[\s\S]*?-->/g, ' ').replace(/<code\b[^>]*>[^<]*<\/code>/g, '\u0001')
    .replace(/<[^>]*>/g, '\u0001');
  for (const piece of text.split('\u0001')) {
    const t = piece.replace(/\s+/g, ' ').trim();
    if (visible(t)) out.push({ line, kind: 'text', text: t });
  }
}

const REGEX_BEFORE = new Set([...'(,=:[!&|?{};+-*%<>~^'].concat(['']));
const REGEX_WORDS = /(?:^|[^\w$])(return|typeof|case|of|in|yield|await|void|delete)\s*$/;

// code scans JS from i (stopping after the } that closes a ${ when nested)
// and reports each html`` template; it returns where it stopped.
function code(src, i, nested, found) {
  let depth = 0;
  while (i < src.length) {
    const c = src[i];
    if (c === '/' && src[i + 1] === '/') { i = src.indexOf('\n', i); if (i < 0) return src.length; continue; }
    if (c === '/' && src[i + 1] === '*') { i = src.indexOf('*/', i + 2) + 2; if (i < 2) return src.length; continue; }
    if (c === '"' || c === "'") { i = quoted(src, i); continue; }
    if (c === '`') {
      const tagged = /\bhtml\s*$/.test(src.slice(Math.max(0, i - 8), i));
      const start = i;
      const [end, parts] = tpl(src, i, found);
      if (tagged) found(start, parts);
      i = end;
      continue;
    }
    if (c === '/' && regexAllowed(src, i)) { i = regex(src, i); continue; }
    if (c === '{') depth++;
    if (c === '}') { if (nested && depth === 0) return i + 1; depth--; }
    i++;
  }
  return i;
}

function regexAllowed(src, i) {
  const before = src.slice(0, i).replace(/\s+$/, '');
  return REGEX_BEFORE.has(before.slice(-1)) || REGEX_WORDS.test(before);
}

function quoted(src, i) {
  const q = src[i];
  for (i++; i < src.length && src[i] !== q; i++) if (src[i] === '\\') i++;
  return i + 1;
}

function regex(src, i) {
  let cls = false;
  for (i++; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') i++;
    else if (c === '[') cls = true;
    else if (c === ']') cls = false;
    else if (c === '/' && !cls) break;
    else if (c === '\n') return i;
  }
  for (i++; /[a-z]/.test(src[i] || ''); i++);
  return i;
}

// tpl reads a template literal from its backquote: where it ends, and its
// static parts.
function tpl(src, i, found) {
  const parts = [];
  let cur = '';
  for (i++; i < src.length; i++) {
    const c = src[i];
    if (c === '\\') { cur += src[i] + src[i + 1]; i++; continue; }
    if (c === '`') break;
    if (c === '$' && src[i + 1] === '{') { parts.push(cur); cur = ''; i = code(src, i + 2, true, found) - 1; continue; }
    cur += c;
  }
  parts.push(cur);
  return [i + 1, parts];
}
