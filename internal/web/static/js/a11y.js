// a11y.js: the pure side of keyboard and screen-reader support: the list
// of the app's shortcuts (the ? dialog shows it), where Tab goes inside a
// dialog that holds the focus, and what is said when an answer ends.
import { t } from './i18n.js';

// shortcuts are the app's keys, in the groups the ? dialog shows.
export const shortcuts = [
  { group: t('keys.anywhere'), keys: [
    ['Ctrl+K', t('keys.search')],
    ['Ctrl+Shift+P', t('keys.commands')],
    ['/', t('keys.filter')],
    ['?', t('keys.help')],
    ['Esc', t('keys.esc')],
  ] },
  { group: t('keys.session'), keys: [
    ['j / k', t('keys.nextPrev')],
    ['t', t('keys.tree')],
    ['f', t('keys.files')],
  ] },
  { group: t('keys.composer'), keys: [
    ['Enter', t('keys.send')],
    ['Shift+Enter', t('keys.newLine')],
    ['Esc', t('keys.stop')],
    ['Tab', t('keys.complete')],
  ] },
  { group: t('keys.terminal'), keys: [
    ['Ctrl+Shift+C', t('keys.copy')],
    ['Ctrl+Shift+V', t('keys.paste')],
  ] },
];

// phoneControls are what a phone has instead of keys (the page's phone
// layout, up to 760 px wide, shows these buttons), which the ? dialog
// lists first there.
export const phoneControls = [
  ['☰', t('keys.p.sessions')],
  ['⌕', t('keys.search')],
  ['⌘', t('keys.commands')],
  ['⋯', t('keys.p.actions')],
  [t('keys.p.onMessage'), t('keys.p.msgActions')],
  [t('keys.p.more'), t('keys.p.moreWhat')],
  [t('keys.p.tapOutside'), t('keys.p.close')],
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
  return t('keys.spoken', { text: text.length > sayMax ? text.slice(0, sayMax) + '…' : text });
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
