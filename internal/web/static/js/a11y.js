// a11y.js: the pure side of keyboard and screen-reader support: the list
// of the app's shortcuts (the ? dialog shows it), where Tab goes inside a
// dialog that holds the focus, and what is said when an answer ends.

// shortcuts are the app's keys, in the groups the ? dialog shows.
export const shortcuts = [
  { group: 'Anywhere', keys: [
    ['Ctrl+K', 'Search all sessions'],
    ['Ctrl+Shift+P', 'Commands: every action on the page and the session'],
    ['/', 'Filter the session list'],
    ['?', 'Show these shortcuts'],
    ['Esc', 'Close the innermost menu, dialog or panel'],
  ] },
  { group: 'Session', keys: [
    ['j / k', 'Next / previous message'],
    ['t', 'Tree panel'],
    ['f', 'Files panel'],
  ] },
  { group: 'Composer', keys: [
    ['Enter', 'Send'],
    ['Shift+Enter', 'New line'],
    ['Esc', 'Stop the answer being streamed'],
    ['Tab', 'Take a completion'],
  ] },
  { group: 'Terminal', keys: [
    ['Ctrl+Shift+C', 'Copy the selection'],
    ['Ctrl+Shift+V', 'Paste'],
  ] },
];

// phoneControls are what a phone has instead of keys (the page's phone
// layout, up to 760 px wide, shows these buttons), which the ? dialog
// lists first there.
export const phoneControls = [
  ['☰', 'The session list'],
  ['⌕', 'Search all sessions'],
  ['⌘', 'Commands: every action on the page and the session'],
  ['⋯', 'Actions on the session (top right): panels, rename, pin, export, delete'],
  ['⋯ on a message', 'Copy, label, edit from here, retry, fork'],
  ['More ▾', 'Compact, clone, custom models, alerts, mute'],
  ['Tap outside', 'Close a menu, dialog or the session list'],
];

// trapNext is the index of the element Tab (or Shift+Tab, back) moves to
// among n focusable elements when element at is focused (-1: none of
// them): it wraps at both ends, so the focus never leaves the dialog.
export function trapNext(n, at, back) {
  if (n === 0) return -1;
  if (at < 0) return back ? n - 1 : 0;
  return (at + (back ? n - 1 : 1)) % n;
}

const sayMax = 1500;

// spokenAnswer is what a screen reader is told when an assistant message
// ends: its text, cut at sayMax characters; '' when it has no text (a
// message of tool calls only) or ended in an error (shown and said as an
// error already).
export function spokenAnswer(m) {
  if (!m || m.role !== 'assistant' || m.stopReason === 'error' || m.stopReason === 'aborted') return '';
  const text = (m.content || []).filter((b) => b && b.type === 'text').map((b) => b.text || '').join('\n').trim();
  if (!text) return '';
  return 'pi answered: ' + (text.length > sayMax ? text.slice(0, sayMax) + '…' : text);
}

const nextKey = { vertical: 'ArrowDown', horizontal: 'ArrowRight' };
const prevKey = { vertical: 'ArrowUp', horizontal: 'ArrowLeft' };

// arrowStep is the index of the item an arrow key (by axis), Home or End
// moves to among n items when item at has the focus (-1: none of them),
// wrapping at both ends; -1 for any other key.
export function arrowStep(n, at, key, axis = 'vertical') {
  if (n === 0) return -1;
  if (key === 'Home') return 0;
  if (key === 'End') return n - 1;
  if (key === nextKey[axis]) return at < 0 ? 0 : (at + 1) % n;
  if (key === prevKey[axis]) return at < 0 ? n - 1 : (at + n - 1) % n;
  return -1;
}
