// icons.js: every icon the page draws, in one place. Glyphs are characters
// (text, so they take the font's colour and size); drawings are inline SVG
// in currentColor (no image request, nothing the CSP must allow); the
// favicon is an SVG data URL. A module that shows an icon takes it from
// here.
import { html } from './html.js';

export const glyph = {
  menu: '☰', // the button that shows the sidebar (a drawer on a phone)
  sidebarHide: '«', // the sidebar's button that collapses it
  search: '⌕',
  close: '×',
  menuOpen: '▾', // a button that opens a menu
  chevron: '▸', // a folder or project that opens (turned by CSS when open)
  fork: '↳',
  compacted: '⇊',
  settings: '⚙',
  prev: '‹',
  next: '›',
  branch: '⎇', // a git branch, a branch point
  current: '●', // the file's current leaf
  fullPage: '⤢',
  widen: '⇤', // a side panel takes the full width
  unwiden: '⇥', // back beside the conversation
  up: '↑', // ahead of upstream; an ascending sort
  down: '↓', // behind upstream; a descending sort
  more: '⋯', // a button that shows more actions
};

const roleGlyphs = { user: '›', assistant: '◆', toolResult: '↳', bashExecution: '$' };
const typeGlyphs = {
  compaction: '⇊', branch_summary: 'Σ', label: '#', session_info: '✎',
  model_change: '⚙', thinking_level_change: '⚙',
};

// treeGlyph is a tree node's glyph: its role for a message, else its type.
export const treeGlyph = (n) => (n.type === 'message' ? roleGlyphs[n.role] : typeGlyphs[n.type]) || '·';

// AttachIcon is a paper clip.
export const AttachIcon = () => html`<svg viewBox="0 0 24 24" width="16" height="16" aria-hidden="true">
  <path fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round"
    d="M21 11.5l-8.6 8.6a5 5 0 0 1-7.1-7.1l8.6-8.6a3.3 3.3 0 0 1 4.7 4.7l-8.6 8.6a1.7 1.7 0 0 1-2.4-2.4l7.9-7.9"/>
      </svg>`;

// line draws a 16 px icon of strokes in currentColor.
const line = (d) => html`<svg viewBox="0 0 16 16" width="15" height="15" aria-hidden="true" fill="none"
  stroke="currentColor" stroke-width="1.4" stroke-linecap="round" stroke-linejoin="round"><path d=${d}/></svg>`;

// msgIcon holds the icons of a message's actions (js/rowactions.js).
export const msgIcon = {
  copy: () => line('M5.5 5.5h7v8h-7zM3.5 10.5v-8h7'),
  label: () => line('M2.5 2.5h5.5l6 6-5.5 5.5-6-6zM5.5 5.5h.01'),
  edit: () => line('M10.5 2.5l3 3-8 8h-3v-3zM9 4l3 3'),
  retry: () => line('M13.5 8a5.5 5.5 0 1 1-1.6-3.9M13.5 2.5v3h-3'),
  fork: () => line('M4.5 2.5v11M4.5 9.5c0-3 7-2 7-5.5M11.5 2.5v2'),
};

// PinIcon is a push pin.
export const PinIcon = () => html`<svg viewBox="0 0 16 16" width="11" height="11" aria-hidden="true">
  <path d="M6 1.5h4M7 1.5v4.5L4.5 9h7L9 6V1.5M8 9v5.5" fill="none" stroke="currentColor" stroke-width="1.4"
    stroke-linecap="round" stroke-linejoin="round"/></svg>`;

// MutedIcon is a struck-out bell.
export const MutedIcon = () => html`<svg viewBox="0 0 16 16" width="11" height="11" aria-hidden="true">
  <path d="M8 2a4 4 0 0 0-4 4v3L2.5 11h11L12 9V6a4 4 0 0 0-4-4zM6.5 12.5a1.5 1.5 0 0 0 3 0" fill="none"
    stroke="currentColor" stroke-width="1.3"/><path d="M2 2l12 12" stroke="currentColor" stroke-width="1.3"/></svg>`;

const faviconSVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">'
  + '<rect width="32" height="32" rx="7" fill="#5b5bd6"/>'
  + '<text x="16" y="22" font-family="monospace" font-size="17" font-weight="700" fill="#fff" '
  + 'text-anchor="middle">π</text>';
const faviconDot = '<circle cx="25" cy="7" r="7" fill="#cf222e" stroke="#fff" stroke-width="1.5"/>';

// faviconURL is the tab's icon, with a red dot when something waits.
export const faviconURL = (dot) => 'data:image/svg+xml,'
  + encodeURIComponent(faviconSVG + (dot ? faviconDot : '') + '</svg>');
