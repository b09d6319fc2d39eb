// The chat's shared state that outlives its components: composer drafts,
// pi's model list and each session's command list (cached promises), and
// the revision of the model list as a signal. Components read and write
// it here rather than in each other, so that no two chat modules import
// one another for state (the import graph stays acyclic: web's
// TestModuleGraph).
import { signal } from '@preact/signals';
import * as api from '../js/api.js';

// drafts holds composer text for a session about to open or re-open (a
// fork's message, the text of a message edited from the tree), by
// session id; the composer takes it once.
export const drafts = new Map();

// takeDraft returns and forgets the draft of session id ('' when none).
export function takeDraft(id) {
  const d = drafts.get(id) || '';
  drafts.delete(id);
  return d;
}

const modelLists = new Map(); // machine ('' for this one) -> promise of its model list
// modelsRev is bumped when the model list is read again.
export const modelsRev = signal(0);

// models is a machine's model list (GET /api/models, of another machine
// sent on to its piweb: its pi, its models.json), fetched once.
export function models(machine = '') {
  if (!modelLists.has(machine)) {
    modelLists.set(machine, api.listModels(machine).catch((e) => { modelLists.delete(machine); throw e; }));
  }
  return modelLists.get(machine);
}

// scoped keeps the models settings.json's enabledModels offers in the
// pickers (all when it is unset or empty), as pi's model scope reads the
// patterns: provider/id or id, exactly (case-insensitive), or a glob
// with * ? [ on either; a :thinking suffix is ignored. pi also matches
// plain patterns fuzzily (a part of an id): a pattern matching nothing
// exactly falls back to ids containing it.
export function scoped(list, patterns) {
  if (!patterns || !patterns.length) return list;
  const keep = new Set();
  for (const raw of patterns) {
    const p = String(raw).replace(/:(off|minimal|low|medium|high|xhigh|max)$/, '').toLowerCase();
    const full = (m) => (m.provider + '/' + m.id).toLowerCase();
    let hit;
    if (/[*?[]/.test(p)) {
      const re = globRE(p);
      hit = list.filter((m) => re.test(full(m)) || re.test(m.id.toLowerCase()));
    } else {
      hit = list.filter((m) => full(m) === p || m.id.toLowerCase() === p);
      if (!hit.length) hit = list.filter((m) => full(m).includes(p));
    }
    hit.forEach((m) => keep.add(m));
  }
  return list.filter((m) => keep.has(m));
}

function globRE(p) {
  let s = '';
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '*') s += '.*';
    else if (c === '?') s += '.';
    else if (c === '[') { const j = p.indexOf(']', i + 1); if (j > i) { s += '[' + p.slice(i + 1, j).replace(/\\/g,
      '\\\\') + ']'; i = j; } else s += '\\['; }
    else s += c.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  return new RegExp('^' + s + '$');
}

// refreshModels reads pi's model list again (after models.json changed).
export function refreshModels() {
  modelLists.clear();
  modelsRev.value++;
  return models();
}

// picker is an open list to choose from above the composer (/fork's user
// messages): {title, items: [{key, label}], pick(item)}, or null.
export const picker = signal(null);

// sessionInfo is what /session shows: {id, stats (pi's get_session_stats),
// session (the listing's item), at (the view's last message when asked)},
// or null.
export const sessionInfo = signal(null);

// lastShown is the id of the view's last message ('' when none).
export function lastShown(view) {
  const items = view.items.value;
  return items.length ? items[items.length - 1].id : '';
}

// loadSessionInfo asks pi for the session's stats and shows them; the
// card asks again when the view's messages change (it never shows stale
// counts), and closes when pi cannot answer.
export async function loadSessionInfo(view) {
  const at = lastShown(view);
  try {
    const r = await api.command(view.id, { type: 'get_session_stats' });
    const d = view.detail.peek();
    sessionInfo.value = { id: view.id, stats: r.data || {}, session: (d && d.session) || {}, at };
  } catch (e) {
    if (sessionInfo.peek()) sessionInfo.value = null;
    throw e;
  }
}

// newSessionIn opens the new-session dialog for a folder ({cwd, machine}), as /new
// does; null when closed.
export const newSessionIn = signal(null);

// compactAsked is the id of the session whose composer shows the
// compaction form (its optional instructions), asked from a menu or the
// palette; modelsAsked opens the custom models editor.
export const compactAsked = signal('');
export const modelsAsked = signal(false);

// starting holds, by session id, what a session just started from the
// new-session dialog was started with ({message, cwd, model}): pi writes
// the file only with its first answer, and until then the page shows the
// message and what pi is doing (chat/starting.js) rather than a blank pane.
export const starting = new Map();

// piStatus is pi as the server found it (GET /api/status's pi: found,
// version, install), null until known.
export const piStatus = signal(null);
let statusAsked = false;

// askPiStatus reads the server's status once per page.
export function askPiStatus() {
  if (statusAsked) return;
  statusAsked = true;
  api.getStatus().then((s) => { piStatus.value = s.pi || null; }, () => { statusAsked = false; });
}

// trustOf holds, per folder and session, what pi makes of the folder's
// project resources for that session (GET /api/trust: resources, trusted,
// skipped, approved), as a signal, asked once.
const trusts = new Map();
export function trustOf(cwd, id) {
  const key = cwd + '\n' + id;
  if (!trusts.has(key)) {
    const s = signal(null);
    trusts.set(key, s);
    api.getTrust(cwd, id).then((t) => { s.value = t; }, () => {});
  }
  return trusts.get(key);
}

// trustFolder saves the user's decision to trust cwd (pi's trust.json),
// then has the session's pi start again so that it loads them. Every
// session of the folder is asked again.
export async function trustFolder(id, cwd) {
  const t = await api.trustFolder(cwd, id);
  await api.command(id, { type: 'reload' });
  forgetCommands(id);
  for (const key of [...trusts.keys()]) if (key.startsWith(cwd + '\n')) trusts.delete(key);
  trustOf(cwd, id).value = t;
  return t;
}

// trustSession trusts cwd for session id only: its pi starts again with
// --approve (the server stops the idle one); trust.json is left alone.
export async function trustSession(id, cwd) {
  const t = await api.trustSession(cwd, id);
  forgetCommands(id);
  trustOf(cwd, id).value = t;
  return t;
}

const commandLists = new Map(); // session id -> promise of pi's get_commands list

// commandsOf is pi's command list for session id (get_commands: extension
// commands, prompt templates, skills), fetched once per session; a failure
// is forgotten so the next call asks again.
export function commandsOf(id) {
  if (!commandLists.has(id)) {
    commandLists.set(id, api.command(id, { type: 'get_commands' })
      .then((r) => (r.data && r.data.commands) || [], () => { commandLists.delete(id); return []; }));
  }
  return commandLists.get(id);
}

// forgetCommands drops the cached list (after /reload or a trust change).
export function forgetCommands(id) {
  commandLists.delete(id);
}
