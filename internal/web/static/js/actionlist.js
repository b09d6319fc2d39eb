// actionlist.js: the registry of what the command palette (Ctrl/Cmd+Shift+P)
// offers on the current page and session. Each action is a label, a group,
// the shortcut that does the same elsewhere (a key or a slash command) and
// run(); the session's actions run through the composer's slash commands
// (chat/commands.js run) and the header's own functions, so each action
// has one implementation whichever way it is asked for.
import { navigate, setPanel, searchOpen, toggleSidebar, renameAsked } from './state.js';
import { panels } from './panels.js';
import { readOnly } from './fleet.js';
import { pinned, archived, togglePin, archive } from './order.js';
import { run } from '../chat/commands.js';
import { LEVELS } from '../chat/controls.js';
import { liveOf } from '../chat/live.js';

// slash is an action that runs pi's slash command name (with arg).
const slash = (view, label, name, arg = '', extra = {}) => ({ group: 'Session', label, keys: '/' + name
  + (arg ? ' ' + arg : ''), run: () => run(view, liveOf(view.id), { kind: 'builtin', name, arg }), ...extra });

// sessionActions are the actions on an open session; view is null on
// other pages, and another machine's session (readOnly) only reads.
export function sessionActions(view) {
  if (!view) return [];
  const ro = readOnly(view);
  const open = panels.filter((p) => !ro || p.remote).map((p) => ({ group: 'Panel', label: 'Open ' + p.label,
    keys: p.key ? p.key.toUpperCase() : '', run: () => setPanel(p.name) }));
  const marks = [
    { group: 'Session', label: pinned.value.has(view.id) ? 'Unpin' : 'Pin', run: () => togglePin(view.id) },
    { group: 'Session', label: archived.value.has(view.id) ? 'Restore from the archive' : 'Archive',
      run: () => archive(view.id, !archived.value.has(view.id)) },
  ];
  if (ro) return [...open, ...marks];
  return [
    slash(view, 'Fork from a message…', 'fork'),
    slash(view, 'Clone this branch', 'clone'),
    slash(view, 'Compact the context', 'compact'),
    { group: 'Session', label: 'Rename…', keys: '/name', run: () => { renameAsked.value = true; } },
    slash(view, 'Switch model…', 'model'),
    ...LEVELS.map((lv) => slash(view, 'Thinking: ' + lv, 'thinking', lv)),
    slash(view, 'Export HTML', 'export', 'html'),
    slash(view, 'Export Markdown', 'export', 'md'),
    slash(view, 'Export JSONL', 'export', 'jsonl'),
    slash(view, 'Copy the last answer', 'copy'),
    slash(view, 'Session info', 'session'),
    slash(view, 'New session in this folder', 'new'),
    ...marks, ...open,
  ];
}

// pageActions are the actions on every page.
export function pageActions() {
  const go = (label, url) => ({ group: 'Go to', label, run: () => navigate(url) });
  return [
    { group: 'Page', label: 'New session…', run: () => document.querySelector('.new-session')?.click() },
    { group: 'Page', label: 'Search all sessions', keys: 'Ctrl+K', run: () => { searchOpen.value = true; } },
    { group: 'Page', label: 'Toggle the sidebar', run: toggleSidebar },
    go('All sessions', '/'), go('Settings', '/settings'), go('Usage', '/usage'), go('Trash', '/trash'),
  ];
}

// allActions is the palette's list for the page showing view (or null).
export function allActions(view) {
  const s = sessionActions(view);
  // On a session page "New session in this folder" stands for the dialog.
  const p = pageActions().filter((a) => !(s.length && !readOnly(view) && a.label === 'New session…'));
  return [...s, ...p];
}
