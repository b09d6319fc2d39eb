// Completion in the composer, as pi's editor offers it: "/" at the start
// completes pi's commands (its built-in ones that work in a browser, then
// get_commands: extension commands, prompt templates and skills), "@" at
// the start of a word completes the paths of the session's folder, fuzzily
// (GET /api/sessions/{id}/files/find: git's files, .gitignore respected),
// and inserts them as pi's editor does: @path, or @"path" when it has a
// space; a folder keeps the caret in it. Up and Down choose, Tab takes the
// choice, Enter takes it too and, for a command, sends the message (as
// pi's editor does); Escape closes the list.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../js/html.js';
import { findFiles } from '../js/api.js';
import { commandsOf } from './store.js';
import { BUILTINS } from './commands.js';
import { t } from '../js/i18n.js';

const MAX = 50; // the list scrolls (chat.css)

// useCompletion follows the composer's text and caret; it returns the
// list to show and a key handler that reports whether it used the key.
// submit sends a given text.
export function useCompletion(view, ta, text, setText, submit) {
  const [list, setList] = useState(null); // {tok, items: [{label, insert, hint, dir}], note}
  const [sel, setSel] = useState(0);
  const seq = useRef(0);
  const closed = useRef(''); // the text Escape closed the list for

  useEffect(() => {
    const n = ++seq.current;
    const tok = tokenAt(text, ta.current ? ta.current.selectionStart : text.length);
    if (!tok || closed.current === text) { setList(null); return; }
    candidates(view.id, tok).then((items) => {
      if (n !== seq.current) return;
      setList(items.length || items.note ? { tok, items: items.slice(0, MAX), note: items.note } : null);
      setSel(0);
    });
  }, [text]);

  useEffect(() => {
    const el = document.querySelector('.completions li.sel');
    if (el) el.scrollIntoView({ block: 'nearest' });
  }, [sel, list]);

  const take = (i, andSend) => {
    const it = list.items[i];
    const t = list.tok;
    const { text: next, caret } = applyItem(text, t, it);
    setList(null);
    if (andSend && t.kind === 'cmd' && !it.needsArg) return submit(next);
    setText(next);
    setTimeout(() => { const el = ta.current; if (el) { el.focus(); el.setSelectionRange(caret, caret); } });
  };

  const onKey = (e) => {
    if (!list || !list.items.length) return false;
    const n = list.items.length;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') setSel((s) => (s + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
    else if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey)) take(sel, e.key === 'Enter');
    else if (e.key === 'Escape') { closed.current = text; setList(null); }
    else return false;
    e.preventDefault();
    return true;
  };

  const popup = list && html`<ul class="completions" role="listbox" aria-label=${t('complete.label')}>
    ${list.items.map((it, i) => html`<li key=${it.insert}
      role="option" aria-selected=${i === sel} class=${i === sel ? 'sel' : ''}
      onPointerDown=${(e) => { e.preventDefault(); take(i); }}>
      <span class="c-label">${it.dirPart && html`<span class="c-dir">${it.dirPart}</span>`}${it.label.slice((it.dirPart
        || '').length)}</span>${it.hint && html`<span class="muted c-hint">${it.hint}</span>`}</li>`)}
    ${list.note && html`<li class="c-note muted" role="presentation">${list.note}</li>`}</ul>`;
  return { popup, onKey };
}

// tokenAt finds what to complete before the caret: a command name when the
// text so far is "/name", or a path after an "@" that starts a word, also
// quoted as pi writes a path with spaces (@"my dir/fi).
export function tokenAt(text, caret) {
  const before = text.slice(0, caret);
  const end = caret + restOf(text, caret);
  if (/^\/\S*$/.test(before)) return { kind: 'cmd', query: before.slice(1), start: 0, end };
  const q = before.match(/(^|\s)@"([^"]*)$/);
  if (q) {
    const after = text.slice(caret).match(/^[^"\s]*"?/)[0];
    const start = before.length - q[2].length - 2;
    return { kind: 'file', path: q[2], quoted: true, start, end: caret + after.length };
  }
  const m = before.match(/(^|\s)@([^\s"]*)$/);
  if (!m) return null;
  return { kind: 'file', path: m[2], start: before.length - m[2].length - 1, end };
}

const restOf = (text, caret) => (text.slice(caret).match(/^\S*/) || [''])[0].length;

// needsQuotes is pi's rule (pi-tui's autocompleteSeparatorRegex): a path
// with whitespace or CJK punctuation is quoted.
const needsQuotes = (p) => /[\s，．：；！？（）［］｛｝“”‘’…—、。「」『』【】《》〈〉]/u.test(p);

// atPath is how pi's editor writes a path reference: @path, or @"path".
export function atPath(path, quoted = false) {
  return '@' + (quoted || needsQuotes(path) ? '"' + path + '"' : path);
}

// applyItem puts a chosen item in place of the token: a file or a command
// with a space after it, a folder without, the caret inside its closing
// quote, so that typing goes on into the folder (pi's applyCompletion).
export function applyItem(text, tok, it) {
  const tail = text.slice(tok.end).replace(it.dir ? /^$/ : /^ /, '');
  const space = it.dir ? '' : ' ';
  const next = text.slice(0, tok.start) + it.insert + space + tail;
  const inQuote = it.dir && it.insert.endsWith('"') ? 1 : 0;
  return { text: next, caret: tok.start + it.insert.length - inQuote + space.length };
}

function candidates(id, tok) {
  return tok.kind === 'cmd' ? commandItems(id, tok.query) : fileItems(id, tok);
}

async function commandItems(id, query) {
  const own = rank(BUILTINS, (c) => c.name, query).map((c) => ({
    label: '/' + c.name + (c.args ? ' ' + c.args : ''), insert: '/' + c.name, needsArg: c.args.startsWith('<'),
    hint: c.description,
  }));
  const taken = new Set(BUILTINS.map((c) => c.name));
  const cmds = (await commandsOf(id)).filter((c) => !isBridge(c) && !taken.has(c.name));
  return own.concat(rank(cmds, (c) => c.name, query).map((c) => ({
    label: '/' + c.name, insert: '/' + c.name,
    hint: [c.source === 'extension' ? '' : c.source, c.description].filter(Boolean).join(' · '),
  })));
}

// isBridge hides piweb's own pi extension (agent/ext): its commands are
// for piweb, not to be typed.
function isBridge(c) {
  return c.source === 'extension' && /piweb-bridge-[0-9a-f]+\.ts$/.test((c.sourceInfo && c.sourceInfo.path) || '');
}

// insertAt puts words into text at index at, with a space before and after
// unless one is there, and says where the caret goes (after them).
export function insertAt(text, at, words) {
  const pre = text.slice(0, at);
  const post = text.slice(at);
  const ins = (pre && !/\s$/.test(pre) ? ' ' : '') + words + (/^\s/.test(post) ? '' : ' ');
  return { text: pre + ins + post, caret: pre.length + ins.length };
}

// fileItems asks the server for the paths matching the token; a list cut
// short (a huge folder, unreadable folders) says so under the items.
async function fileItems(id, tok) {
  let r;
  try { r = await findFiles(id, tok.path, MAX); } catch { return []; }
  const items = (r.matches || []).map((m) => fileItem(m, tok.quoted));
  if (r.partial) items.note = t('complete.partial', { why: r.reason || t('complete.notEvery') });
  return items;
}

// fileItem is one path of the answer: its folder part muted in the label.
export function fileItem(m, quoted) {
  const bare = m.path.replace(/\/$/, '');
  const cut = bare.lastIndexOf('/') + 1;
  return { label: m.path, dirPart: m.path.slice(0, cut), insert: atPath(m.path, quoted), dir: m.dir,
    hint: m.dir ? 'folder' : '' };
}

// rank keeps the names that start with the query (case-insensitively),
// then those that contain it, each group in its original order.
function rank(list, name, query) {
  const q = query.toLowerCase();
  const starts = [], has = [];
  for (const x of list) {
    const n = name(x).toLowerCase();
    if (n.startsWith(q)) starts.push(x);
    else if (q && n.includes(q)) has.push(x);
  }
  return starts.concat(has);
}
