// Long outputs drawn lazily (issue 24 item 5, decision 0047): a text of
// LAZY lines or more is cut into chunks of at most CHUNK lines, and only
// the chunks near the screen are in the DOM; each other chunk is an empty
// box as tall as its lines (or as it was when last drawn). Find in page
// sees only the drawn chunks, so the list says so and copies all of the
// text with one button. A shorter text is drawn by markdown.js's capped.
import { h } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { capped } from './markdown.js';
import { copyText } from './util.js';
import { t } from './i18n.js';

export const LAZY = 3000; // lines from which a text is drawn lazily
const CHUNK = 200; // lines per chunk
const CHUNK_CHARS = 20000; // a chunk ends at the first line end past this many characters
const MARGIN = '100% 0px'; // how near the screen a chunk is drawn: a screen above and below

// hasLines reports whether text has at least n lines (n-1 line breaks and
// something after), without splitting it.
export function hasLines(text, n) {
  let i = -1;
  for (let k = 1; k < n; k++) {
    i = text.indexOf('\n', i + 1);
    if (i < 0) return false;
  }
  return i + 1 < text.length;
}

// chunks cuts text into [start, end, lines] ranges at line ends: at most
// per lines each, fewer once a chunk passes chars characters (a line
// longer than that is a chunk of its own, capped when drawn).
export function chunks(text, per = CHUNK, chars = CHUNK_CHARS) {
  const out = [];
  for (let start = 0; start < text.length;) {
    let end = start;
    let n = 0;
    while (n < per && end < text.length && end - start < chars) {
      const nl = text.indexOf('\n', end);
      end = nl < 0 ? text.length : nl + 1;
      n++;
    }
    out.push([start, end, n]);
    start = end;
  }
  return out;
}

// lazy draws text through draw (a function of a string returning inline
// Preact children, drawn inside the caller's pre): lazily from LAZY
// lines, else capped.
export function lazy(text, draw = (s) => s) {
  if (typeof text !== 'string') text = text == null ? '' : String(text);
  if (!hasLines(text, LAZY)) return capped(text, draw);
  return h(LazyLines, { text, draw });
}

// LazyLines is the virtual list of a long text's chunks: the first is
// drawn at once, the others as they come near the screen, and emptied
// again once they leave it.
function LazyLines({ text, draw }) {
  const parts = useMemo(() => chunks(text), [text]);
  const [shown, setShown] = useState(() => new Set([0]));
  const heights = useRef(new Map());
  const box = useRef(null);
  useEffect(() => {
    const io = new IntersectionObserver((entries) => setShown((old) => next(old, entries, heights.current)),
      { rootMargin: MARGIN, scrollMargin: MARGIN });
    for (const el of box.current.querySelectorAll(':scope > .lazy-chunk')) io.observe(el);
    return () => io.disconnect();
  }, [parts]);
  return h('span', { class: 'lazy', ref: box },
    h(LazyBar, { text, lines: parts.reduce((n, p) => n + p[2], 0) }),
    parts.map(([a, b, n], i) => {
      const on = shown.has(i);
      const height = on ? undefined : heights.current.has(i) ? heights.current.get(i) + 'px' : n + 'lh';
      return h('span', { key: i, class: 'lazy-chunk', 'data-chunk': i, style: height ? { height } : undefined },
        on ? capped(text.slice(a, b), draw) : null);
    }));
}

// next is the set of drawn chunks after the observer's entries; a chunk
// that leaves keeps its drawn height for its empty box.
function next(old, entries, heights) {
  const s = new Set(old);
  for (const e of entries) {
    const i = +e.target.dataset.chunk;
    if (e.isIntersecting) s.add(i);
    else if (s.has(i)) {
      heights.set(i, e.boundingClientRect.height);
      s.delete(i);
    }
  }
  return s;
}

// LazyBar says that the text is drawn as it is scrolled to, and copies
// all of it.
function LazyBar({ text, lines }) {
  const [copied, setCopied] = useState('');
  const onCopy = async () => {
    setCopied((await copyText(text)) ? t('lazy.copied') : t('lazy.copyFailed'));
    setTimeout(() => setCopied(''), 1200);
  };
  return h('span', { class: 'lazy-bar' }, h('span', null, t('lazy.note', { count: lines })),
    h('button', { class: 'btn-link', type: 'button', onClick: onCopy }, copied || t('lazy.copyAll')));
}
