// Completion in the composer, as pi's editor offers it: "/" at the start
// completes pi's commands (its built-in ones that work in a browser, then
// get_commands: extension commands, prompt templates and skills), "@" at the start of a word completes paths in the
// session's cwd one folder at a time (GET /api/sessions/{id}/files). Up and
// Down choose, Tab takes the choice, Enter takes it too and, for a command,
// sends the message (as pi's editor does); Escape closes the list.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../js/html.js';
import { listFiles } from '../js/api.js';
import { commandsOf } from './store.js';
import { BUILTINS } from './commands.js';

const MAX = 50; // the list scrolls (chat.css)

// useCompletion follows the composer's text and caret; it returns the
// list to show and a key handler that reports whether it used the key.
// submit sends a given text.
export function useCompletion(view, ta, text, setText, submit) {
  const [list, setList] = useState(null); // {token, items: [{label, insert, hint, dir}]}
  const [sel, setSel] = useState(0);
  const cache = useRef(new Map()); // "dir:<path>" -> promise of its entries
  const seq = useRef(0);
  const closed = useRef(''); // the text Escape closed the list for

  useEffect(() => {
    const n = ++seq.current;
    const tok = tokenAt(text, ta.current ? ta.current.selectionStart : text.length);
    if (!tok || closed.current === text) { setList(null); return; }
    candidates(view.id, tok, cache.current).then((items) => {
      if (n !== seq.current) return;
      setList(items.length ? { tok, items: items.slice(0, MAX) } : null);
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
    const next = text.slice(0, t.start) + it.insert + (it.dir ? '' : ' ') + text.slice(t.end).replace(/^ /, '');
    const caret = t.start + it.insert.length + (it.dir ? 0 : 1);
    setList(null);
    if (andSend && t.kind === 'cmd' && !it.needsArg) return submit(next);
    setText(next);
    setTimeout(() => { const el = ta.current; if (el) { el.focus(); el.setSelectionRange(caret, caret); } });
  };

  const onKey = (e) => {
    if (!list) return false;
    const n = list.items.length;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') setSel((s) => (s + (e.key === 'ArrowDown' ? 1 : n - 1)) % n);
    else if (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey)) take(sel, e.key === 'Enter');
    else if (e.key === 'Escape') { closed.current = text; setList(null); }
    else return false;
    e.preventDefault();
    return true;
  };

  const popup = list && html`<ul class="completions" role="listbox" aria-label="Completions">
    ${list.items.map((it, i) => html`<li key=${it.insert}
      role="option" aria-selected=${i === sel} class=${i === sel ? 'sel' : ''}
      onPointerDown=${(e) => { e.preventDefault(); take(i); }}>
      <span class="c-label">${it.label}</span>${it.hint && html`<span class="muted c-hint">${it.hint}</span>`}</li>`)}
        </ul>`;
  return { popup, onKey };
}

// tokenAt finds what to complete before the caret: a command name when the
// text so far is "/name", or a path after an "@" that starts a word.
export function tokenAt(text, caret) {
  const before = text.slice(0, caret);
  const end = caret + (text.slice(caret).match(/^\S*/) || [''])[0].length;
  if (/^\/\S*$/.test(before)) return { kind: 'cmd', query: before.slice(1), start: 0, end };
  const m = before.match(/(^|\s)@("?)([^\s"]*)$/);
  if (!m) return null;
  return { kind: 'file', path: m[3], start: before.length - m[2].length - m[3].length - 1, end };
}

function candidates(id, tok, cache) {
  return tok.kind === 'cmd' ? commandItems(id, tok.query, cache) : fileItems(id, tok.path, cache);
}

async function commandItems(id, query, cache) {
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

async function fileItems(id, path, cache) {
  const slash = path.lastIndexOf('/');
  const dir = path.slice(0, slash + 1);
  const query = path.slice(slash + 1);
  const entries = (await dirEntries(id, dir, cache)).filter((e) => e.name !== '.git' && (query.startsWith('.')
    || !e.name.startsWith('.')));
  return rank(entries, (e) => e.name, query).map((e) => {
    const isDir = e.type === 'dir';
    const p = dir + e.name + (isDir ? '/' : '');
    return { label: p, insert: '@' + (/\s/.test(p) ? '"' + p + '"' : p), dir: isDir, hint: isDir ? 'folder' : '' };
  });
}

// dirEntries lists dir ('' or 'a/b/') of the session's cwd. It asks the
// server only for a folder its parent's listing showed, so that a typed
// path that does not exist, a '..', or a cwd that is gone costs no request
// that fails (each would be an error in the browser console).
function dirEntries(id, dir, cache) {
  const key = 'dir:' + dir;
  if (!cache.has(key)) cache.set(key, listedDir(id, dir, cache));
  return cache.get(key);
}

async function listedDir(id, dir, cache) {
  const path = dir.replace(/\/$/, '');
  if (path) {
    const slash = path.lastIndexOf('/');
    const up = await dirEntries(id, path.slice(0, slash + 1), cache);
    if (!up.some((e) => e.name === path.slice(slash + 1) && e.type === 'dir')) return [];
  }
  return listFiles(id, path).then((r) => r.entries || [], () => []);
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
