// actionlist.js: the registry of what the command palette (Ctrl/Cmd+Shift+P)
// offers on the current page and session. Each action is a label, a group,
// the shortcut that does the same elsewhere (a key or a slash command) and
// run(); the session's actions run through the composer's slash commands
// (chat/commands.js run) and the header's own functions, so each action
// has one implementation whichever way it is asked for.
import { navigate, setPanel, searchOpen, toggleSidebar, renameAsked, toast, confirm, loadSessions, removeSession,
  sessionURL, sessionOf } from './state.js';
import * as api from './api.js';
import { copyText } from './util.js';
import { panels } from './panels.js';
import { readOnly } from './fleet.js';
import { pinned, archived, togglePin, archive } from './order.js';
import { run } from '../chat/commands.js';
import { LEVELS } from '../chat/controls.js';
import { liveOf } from '../chat/live.js';
import { newSessionIn } from '../chat/store.js';
import { shareAsked, canShare } from './share.js';

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
    ...(canShare(view.id) ? [{ group: 'Session', label: 'Share a read-only link…',
      run: () => { shareAsked.value = { id: view.id, leaf: view.leaf || '' }; } }] : []),
    slash(view, 'Copy the last answer', 'copy'),
    slash(view, 'Session info', 'session'),
    slash(view, 'New session in this folder', 'new'),
    ...marks,
    { group: 'Session', label: 'Copy id', run: () => copy('id', api.splitRef(view.id).id) },
    { group: 'Session', label: 'Copy path', run: () => copy('path', sessionOf(view).path || '') },
    { group: 'Session', label: 'Delete…', run: () => remove(view, sessionOf(view)) },
    ...open,
  ];
}

// pageActions are the actions on every page.
export function pageActions() {
  const go = (label, url) => ({ group: 'Go to', label, run: () => navigate(url) });
  return [
    { group: 'Page', label: 'New session…', run: () => { newSessionIn.value = { cwd: '', machine: '' }; } },
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

// copy puts v on the clipboard and says so.
export const copy = (what, v) => copyText(v).then((ok) => toast(ok ? `Copied ${what}` : 'Copy failed'));

// remove moves the session to the trash, after asking, with an Undo.
export async function remove(view, s) {
  const name = s.name || s.firstMessage || view.id;
  if (!(await confirm('Delete session?', `"${name.slice(0, 80)}" will be moved to the trash. You can undo this.`,
    { ok: 'Delete', danger: true }))) return;
  if (view.unsub) view.unsub(); // the stream ends with the file; do not reconnect to a 404
  view.unsub = null;
  try {
    const r = await api.deleteSession(view.id);
    removeSession(view.id);
    navigate('/');
    toast('Session moved to the trash', {
      action: 'Undo', ms: 10000,
      onAction: async () => {
        try {
          await api.restoreTrash(r.trashId || (await trashIdOf(view.id)));
          await loadSessions();
          navigate(sessionURL(view.id));
          toast('Session restored');
        } catch (e) {
          toast('Restore failed: ' + e.message, { kind: 'error' });
        }
      },
    });
  } catch (e) {
    view.watch();
    toast('Delete failed: ' + e.message, { kind: 'error' });
  }
}

// trashIdOf finds the newest trash item of a session, for servers that do
// not answer the delete with its trash id.
async function trashIdOf(id) {
  const { items = [] } = await api.listTrash();
  const mine = items.filter((it) => it.session && it.session.id === id);
  mine.sort((a, b) => String(b.deleted).localeCompare(String(a.deleted)));
  if (!mine.length) throw new Error('not in the trash');
  return mine[0].trashId;
}
