// actionlist.js: the one list of what can be done on the current page and
// session. The command palette (Ctrl/Cmd+Shift+P) offers all of it; the
// session's Actions menu and the composer's "More" menu are drawn from it
// (js/menuitems.js, by id), so a label, a shortcut or whether an action
// is available is said once. Each action is an id, a group, a label, the
// shortcut that does the same elsewhere (keys: a key or a slash command),
// a title, whether it is unavailable now (disabled), run() or, for a
// download, href; the session's actions run through the composer's slash
// commands (chat/commands.js run) and the header's own functions, so each
// has one implementation whichever way it is asked for.
import { navigate, setPanel, searchOpen, toggleSidebar, renameAsked, toast, confirm, loadSessions, removeSession,
  sessionURL, sessionOf } from './state.js';
import * as api from './api.js';
import { copyText } from './util.js';
import { panels } from './panels.js';
import { readOnly } from './fleet.js';
import { pinned, archived, togglePin, archive } from './order.js';
import { muted, toggleMuted } from './attention.js';
import { run } from '../chat/commands.js';
import { LEVELS } from '../chat/controls.js';
import { liveOf } from '../chat/live.js';
import { newSessionIn, compactAsked, modelsAsked } from '../chat/store.js';
import { cloneBranch } from '../chat/actions.js';
import { shareAsked, canShare } from './share.js';
import { t } from './i18n.js';
import { shortcutsOpen } from './shortcuts.js';

// slash is an action that runs pi's slash command name (with arg).
const slash = (view, id, label, name, arg = '', extra = {}) => ({ id, group: t('pal.groupSession'), label,
  keys: '/' + name
  + (arg ? ' ' + arg : ''), run: () => run(view, liveOf(view.id), { kind: 'builtin', name, arg }), ...extra });

// sessionActions are the actions on an open session; view is null on
// other pages, and another machine's session (readOnly) only reads.
export function sessionActions(view) {
  if (!view) return [];
  const ro = readOnly(view);
  const open = panels.filter((p) => !ro || p.remote).map((p) => ({ id: 'panel-' + p.name,
    group: t('pal.groupPanel'),
    label: p.label, title: p.title, keys: p.key ? p.key.toUpperCase() : '', run: () => setPanel(p.name) }));
  const S = t('pal.groupSession');
  const reading = [
    ...open,
    { id: 'pin', group: S, label: t(pinned.value.has(view.id) ? 'head.unpin' : 'head.pin'),
      title: t('head.pinTip'), run: () => togglePin(view.id) },
    { id: 'archive', group: S, label: t(archived.value.has(view.id) ? 'head.unarchive' : 'head.archive'),
      title: t('head.archiveTip'), run: () => archive(view.id, !archived.value.has(view.id)) },
    { id: 'copy-id', group: S, label: t('head.copyId'), run: () => copy('id', api.splitRef(view.id).id) },
    { id: 'copy-path', group: S, label: t('head.copyPath'),
      run: () => copy('path', sessionOf(view).path || '') },
    // Another machine's session is shared by that machine when this piweb drives it (decision 0046).
    ...(canShare(view.id) ? [{ id: 'share', group: S, label: t('head.share'), title: t('head.shareTip'),
      run: () => { shareAsked.value = { id: view.id, leaf: view.leaf || '' }; } }] : []),
    ...exports(view, ro),
  ];
  if (ro) return reading;
  const phase = liveOf(view.id).phase.value;
  return [
    slash(view, 'fork', t('pal.forkFrom'), 'fork'),
    { id: 'clone', group: S, label: t('pal.clone'), keys: '/clone',
      title: t('ctl.cloneTitle'), run: () => cloneBranch(view) },
    { id: 'compact', group: S, label: t('pal.compactDots'), keys: '/compact',
      disabled: phase === 'streaming' || phase === 'compacting',
      title: t('pal.compactTitle'), run: () => { compactAsked.value = view.id; } },
    { id: 'rename', group: S, label: t('head.rename'), keys: '/name',
      run: () => { renameAsked.value = true; } },
    slash(view, 'model', t('pal.model'), 'model'),
    ...LEVELS.map((lv) => slash(view, 'thinking-' + lv, t('pal.thinking', { level: lv }), 'thinking', lv)),
    { id: 'models', group: S, label: t('pal.customModels'), title: t('ctl.modelsTitle'),
      run: () => { modelsAsked.value = true; } },
    slash(view, 'copy', t('pal.copyAnswer'), 'copy'),
    slash(view, 'info', t('pal.info'), 'session'),
    slash(view, 'new', t('pal.newHere'), 'new'),
    { id: 'mute', group: S, label: t(muted.value.has(view.id) ? 'ctl.unmute' : 'ctl.mute'),
      checked: muted.value.has(view.id), title: t('ctl.muteTitle'), run: () => toggleMuted(view.id) },
    ...reading,
    { id: 'delete', group: S, label: t('head.deleteDots'), danger: true,
      run: () => remove(view, sessionOf(view)) },
  ];
}

// exports are the session's downloads: the page as HTML or Markdown, the
// file, the branch as pi's /export writes it; of the branch shown.
function exports(view, ro) {
  const leaf = view.leaf || undefined;
  const dl = (id, label, href, keys, title) => ({ id, group: t('pal.groupExport'),
    label, href, keys: ro ? '' : keys, title,
    run: () => download(href) });
  return [
    dl('export-html', t('head.exportHtml'), api.exportURL(view.id, 'html', leaf), '/export html',
      t('head.exportHtmlTip')),
    dl('export-md', t('head.exportMd'), api.exportURL(view.id, 'md', leaf), '/export md'),
    dl('export-jsonl', t('head.exportJsonl'), api.exportURL(view.id, 'jsonl'), '/export jsonl',
      t('head.exportJsonlTip')),
    dl('export-branch', t('head.exportBranch'), api.exportURL(view.id, 'jsonl', leaf, 'branch'), '',
      t('head.exportBranchTip')),
  ];
}

// download fetches href as a file.
function download(href) {
  const a = document.createElement('a');
  a.href = href;
  a.download = '';
  document.body.append(a);
  a.click();
  a.remove();
}

// pageActions are the actions on every page.
export function pageActions() {
  const go = (label, url) => ({ group: t('pal.groupGo'), label, run: () => navigate(url) });
  const P = t('pal.groupPage');
  return [
    { group: P, label: t('pal.newSession'), run: () => { newSessionIn.value = { cwd: '', machine: '' }; } },
    { group: P, label: t('head.searchAll'), keys: 'Ctrl+K', run: () => { searchOpen.value = true; } },
    { group: P, label: t('pal.toggleSidebar'), run: toggleSidebar },
    { group: P, label: t('pal.shortcuts'), keys: '?', run: () => { shortcutsOpen.value = true; } },
    go(t('app.allSessions'), '/'), go(t('nav.settings'), '/settings'), go(t('nav.usage'), '/usage'),
    go(t('nav.trash'), '/trash'),
  ];
}

// allActions is the palette's list for the page showing view (or null):
// what can be done now.
export function allActions(view) {
  const s = sessionActions(view).filter((a) => !a.disabled);
  // On a session page "New session in this folder" stands for the dialog.
  const p = pageActions().filter((a) => !(s.length && !readOnly(view) && a.label === t('pal.newSession')));
  return [...s, ...p];
}

// copy puts v on the clipboard and says so.
export const copy = (what, v) => copyText(v).then((ok) => toast(t(ok ? 'al.copied.' + what : 'share.copyFailed')));

// remove moves the session to the trash, after asking, with an Undo.
export async function remove(view, s) {
  const name = s.name || s.firstMessage || view.id;
  if (!(await confirm(t('al.deleteTitle'), t('al.deleteText', { name: name.slice(0, 80) }),
    { ok: t('common.delete'), danger: true }))) return;
  if (view.unsub) view.unsub(); // the stream ends with the file; do not reconnect to a 404
  view.unsub = null;
  try {
    const r = await api.deleteSession(view.id);
    removeSession(view.id);
    navigate('/');
    toast(t('al.moved'), {
      action: t('order.undo'), ms: 10000,
      onAction: async () => {
        try {
          await api.restoreTrash(r.trashId || (await trashIdOf(view.id)));
          await loadSessions();
          navigate(sessionURL(view.id));
          toast(t('trash.restored'));
        } catch (e) {
          toast(t('trash.restoreFailed', { why: e.message }), { kind: 'error' });
        }
      },
    });
  } catch (e) {
    view.watch();
    toast(t('trash.deleteFailed', { why: e.message }), { kind: 'error' });
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
