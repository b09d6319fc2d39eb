// Access to piweb's JSON API (docs/api.md). Every request goes through here
// so that the shapes the views rely on are adapted in one place.

export class APIError extends Error {
  constructor(status, code, message) {
    super(message || code || 'HTTP ' + status);
    this.status = status;
    this.code = code;
  }
}

// request sends a request and decodes the answer; with after, decoding
// (JSON.parse on the main thread) waits for that promise. The body is read
// at once all the same: an unread body holds one of the browser's six
// connections to the server, and the request being waited for may need it.
async function request(method, url, body, after) {
  const opt = { method, headers: {} };
  if (body !== undefined) {
    opt.headers['Content-Type'] = 'application/json';
    opt.body = JSON.stringify(body);
  }
  let r;
  try {
    r = await fetch(url, opt);
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    setConnected(false);
    throw new APIError(0, 'disconnected', 'piweb cannot be reached (disconnected, retrying)');
  }
  const type = r.headers.get('Content-Type') || '';
  const text = await r.text();
  if (after) await after;
  const data = type.includes('json') ? JSON.parse(text) : text;
  if (!r.ok) {
    const e = (data && data.error) || {};
    if (e.code === 'unavailable') unavailable(url);
    throw new APIError(r.status, e.code, e.message || (typeof data === 'string' ? data : ''));
  }
  return data;
}

// connected is whether the page reaches piweb: false from the moment a
// request or this machine's event stream fails until the stream opens
// again (it retries by itself). The page hears of each change as a
// "piweb-connection" event ({detail: {connected}}; js/state.js).
export let connected = true;
function setConnected(v) {
  if (connected === v) return;
  connected = v;
  window.dispatchEvent(new CustomEvent('piweb-connection', { detail: { connected: v } }));
}

// unavailable tells the page (js/fleet.js) that the machine a request was
// sent on to did not answer.
function unavailable(url) {
  const machine = new URL(url, location.href).searchParams.get('machine');
  if (machine) window.dispatchEvent(new CustomEvent('piweb-unavailable', { detail: machine }));
}

export const get = (url) => request('GET', url);
export const post = (url, body = {}) => request('POST', url, body);
export const put = (url, body) => request('PUT', url, body);
export const del = (url) => request('DELETE', url);

const q = (params) => {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v != null && v !== '') u.set(k, v);
  const s = u.toString();
  return s ? '?' + s : '';
};
const enc = encodeURIComponent;

// A session of another machine of the fleet (serve --fleet) is named in
// the page by its ref, `ID@MACHINE` (a session of this machine: its id);
// its routes are this machine's with ?machine=MACHINE (docs/api.md), which
// the server answers from the fleet database or sends on to that machine.
export const sessionRef = (id, machine) => (machine ? `${id}@${machine}` : id);
export function splitRef(ref) {
  const s = String(ref);
  const i = s.indexOf('@');
  return i < 0 ? { id: s, machine: '' } : { id: s.slice(0, i), machine: s.slice(i + 1) };
}
// sp is the URL of a session's route: /api/sessions/{id}{rest}?params.
function sp(ref, rest = '', params = {}) {
  const { id, machine } = splitRef(ref);
  return `/api/sessions/${enc(id)}${rest}` + q({ ...params, machine });
}
// refItem is a fleet listing's item as the page names it: its id and its
// parent's as refs, its own id as localId.
const refItem = (s, self) => (s.machine === self ? s : { ...s, localId: s.id, id: sessionRef(s.id, s.machine),
  parentSessionId: s.parentSessionId ? sessionRef(s.parentSessionId, s.machine) : s.parentSessionId });
// listFleet lists one machine's sessions as pushed to the fleet database,
// the first limit of them in order ({sort, order}; default newest first).
export const listFleet = (machine, self, limit, order = {}) => get('/api/sessions'
  + q({ fleet: 1, machine, limit, ...order }))
  .then((d) => ({ total: d.total || 0, sessions: (d.sessions || []).map((s) => refItem(s, self)) }));
// fleetMachines lists the fleet's machines, online by their heartbeat.
export const fleetMachines = () => get('/api/fleet/machines');
// searchFleet searches every machine's sessions; a hit of another machine
// names its session by ref.
export const searchFleet = (text, self, params = {}) => search(text, { ...params, fleet: 1 })
  .then((r) => fleetRefs(r, self));
// fleetRefs names a fleet search's sessions and hits of another machine
// by ref, each by its own machine: two machines may hold one session id
// (a copied file), and their groups stay apart.
export function fleetRefs(r, self) {
  const ref = (id, machine) => (!machine || machine === self ? id : sessionRef(id, machine));
  return { ...r, sessions: (r.sessions || []).map((g) => ({ ...g, sessionId: ref(g.sessionId, g.machine) })),
    hits: (r.hits || []).map((h) => (h.machine === self ? h
      : { ...h, sessionId: sessionRef(h.sessionId, h.machine), session: refItem(h.session || {}, self) })) };
}

// listSessions is a page of the listing ({sessions, total}; with archived=,
// also projects and archived: counts).
export const listSessions = (params = {}) => get('/api/sessions' + q(params))
  .then((d) => ({ ...d, sessions: d.sessions || [], total: d.total || 0, archived: d.archived || 0 }));
export const getSession = (id, after) => request('GET', sp(id), undefined, after);
export const getContext = (id, { leaf, before, limit } = {}) =>
  get(sp(id, '/context', { leaf, before, limit }));
export const getEntries = (id, { leaf, before, limit } = {}) =>
  get(sp(id, '/entries', { leaf, before, limit }));
// search's text may hold filters (project:, after:, before:, role:,
// model:, branch:), read by the server; dates are in the page's zone.
export const search = (text, params = {}) =>
  get('/api/search' + q({ q: text, limit: 50, tz: Intl.DateTimeFormat().resolvedOptions().timeZone, ...params }));
export const rename = (id, name) => post(sp(id, '/rename'), { name });
export const setLabel = (id, entryId, label) =>
  post(sp(id, '/label'), { entryId, label });
export const repairSession = (id) => post(sp(id, '/repair'));
export const deleteSession = (id) => request('DELETE', sp(id), {});
export const restoreTrash = (trashId) => post(`/api/trash/${enc(trashId)}/restore`);
export const exportURL = (id, format, leaf, scope) =>
  sp(id, '/export', { format, leaf, scope });
export const listFiles = (id, path) => get(sp(id, '/files', { path }));
// findFiles is the composer's "@" completion: paths of the session's folder
// matching q fuzzily, best first ({matches: [{path, dir}], partial, reason}).
export const findFiles = (id, q, limit) => get(sp(id, '/files/find', { q, limit }));
// uploadFile streams a File (or Blob) as the body, raw bytes, into the
// folder path of the session's cwd; overwrite is the user's confirmation.
export async function uploadFile(id, path, name, file, overwrite) {
  const u = sp(id, '/upload', { path, name, overwrite: overwrite ? '1' : '' });
  const r = await fetch(u, { method: 'POST', headers: { 'Content-Type': 'application/octet-stream' }, body: file });
  const data = (r.headers.get('Content-Type') || '').includes('json') ? await r.json() : await r.text();
  if (!r.ok) {
    const e = (data && data.error) || {};
    if (e.code === 'unavailable') unavailable(u);
    throw new APIError(r.status, e.code, e.message || (typeof data === 'string' ? data : ''));
  }
  return data;
}
export const fileURL = (id, path) => sp(id, '/file', { path });
// Changes: git's view of the session's cwd and the session's own edits.
export const gitStatus = (id) => get(sp(id, '/git/status'));
export const gitDiff = (id, path, which) => get(sp(id, '/git/diff', { path, which }));
// Stage, unstage and discard answer the new git/status; discarding an
// untracked path deletes it, and needs untracked (the user confirmed).
export const gitStage = (id, paths) => post(sp(id, '/git/stage'), { paths });
export const gitUnstage = (id, paths) => post(sp(id, '/git/unstage'), { paths });
export const gitDiscard = (id, paths, untracked) => post(sp(id, '/git/discard'), { paths, untracked });
export const gitCommits = (id, limit) => get(sp(id, '/git/commits', { limit }));
export const gitCommit = (id, message) => post(sp(id, '/git/commits'), { message });
export const sessionChanges = (id) => get(sp(id, '/changes'));
export const listWorktrees = (id) => get(sp(id, '/worktrees'));
export const addWorktree = (id, folder, branch, base) => post(sp(id, '/worktrees'), { folder, branch,
  base });
export const removeWorktree = (id, path, force) => post(sp(id, '/worktrees/remove'), { path, force });
export const listRepos = () => get('/api/repos');
// Terminals of a session (a POST starts a shell; the socket only attaches).
export const listTerminals = (id) => get(sp(id, '/terminals'));
export const startTerminal = (id, cols, rows) => post(sp(id, '/terminals'), { cols, rows });
export const closeTerminal = (id, tid) => request('DELETE', sp(id, `/terminals/${enc(tid)}`), {});
export const terminalSocketURL = (id, tid) =>
  `${location.protocol === 'https:' ? 'wss:' : 'ws:'}//${location.host}${sp(id, `/terminals/${enc(tid)}/socket`)}`;
export const terminalPageURL = (id) => `/s/${enc(splitRef(id).id)}/terminal` + q({ machine: splitRef(id).machine });
export const getStatus = () => get('/api/status');
export const leaveDemo = () => post('/api/demo/leave');
// signOut revokes this browser's session cookie (when sign-in is on).
export const signOut = () => post('/api/signout');
export const usage = (by, params = {}) => get('/api/usage' + q({ by, ...params }));
export const usageSessions = (params = {}) => get('/api/usage/sessions' + q(params));
// usageSessionsFleet lists every machine's costliest sessions, another
// machine's named by ref.
export const usageSessionsFleet = (self, params = {}) => usageSessions({ ...params, fleet: 1 })
  .then((d) => ({ ...d, sessions: (d.sessions || []).map((x) => ({ ...x, session: refItem(x.session, self) })) }));
export const listTrash = () => get('/api/trash');
// Trust is asked of the session's machine (another machine's: sent on to it).
export const getTrust = (cwd, ref) => get('/api/trust' + q({ cwd, session: splitRef(ref).id,
  machine: splitRef(ref).machine }));
export const trustFolder = (cwd, ref) => post('/api/trust' + q({ machine: splitRef(ref || '').machine }), { cwd });
export const trustSession = (cwd, ref) => post('/api/trust' + q({ machine: splitRef(ref).machine }), { cwd,
  session: splitRef(ref).id });
export const deleteTrash = (trashId) => request('DELETE', `/api/trash/${enc(trashId)}`, {});
export const listBackups = () => get('/api/backups');
// Projects, new sessions and models are the machine's (another one's:
// sent on to it, which starts sessions only in its known folders).
export const listProjects = (machine) => get('/api/projects' + q({ machine }));
export const createSession = (body, machine) => post('/api/sessions' + q({ machine }), body);
export const listModels = (machine) => get('/api/models' + q({ machine }));
export const getModelsConfig = () => get('/api/models-config');
export const putModelsConfig = (config) => put('/api/models-config', { config });
// pi's own configuration (docs/api.md: pi's configuration).
export const getConfig = (cwd) => get('/api/config' + q({ cwd }));
export const putSettings = (body) => put('/api/config/settings', body);
export const setKey = (provider, key, replaceCorrupt) =>
  put(`/api/config/auth/${enc(provider)}`, { key, replaceCorrupt });
export const removeKey = (provider) => request('DELETE', `/api/config/auth/${enc(provider)}`, {});
export const testModel = (provider, modelId) => post('/api/config/test', { provider, modelId });
// Account sign-in through pi's `pi auth login` (docs/api.md: sign-in).
const signInURL = (provider) => `/api/config/signin/${enc(provider)}`;
export const startSignIn = (provider) => post(signInURL(provider));
export const signInState = (provider, after) => get(signInURL(provider) + q({ after }));
export const answerSignIn = (provider, text) => post(signInURL(provider) + '/answer', { text });
export const cancelSignIn = (provider) => request('DELETE', signInURL(provider), {});
export const listResources = (cwd) => get('/api/config/resources' + q({ cwd }));
export const setResourceEnabled = (body) => put('/api/config/resources', body);
export const setMCPEnabled = (body) => put('/api/config/mcp', body);
export const addPiwebMCP = (body) => post('/api/config/mcp/piweb', body);
export const packageCommand = (body) => post('/api/config/packages', body);
// piweb's own preferences (docs/api.md: piweb's preferences).
export const getPrefs = () => get('/api/prefs');
export const putPrefs = (body) => put('/api/prefs', body);
export const pushKey = () => get('/api/push/key');
export const pushSubscribe = (subscription) => post('/api/push/subscribe', subscription);
export const pushUnsubscribe = (endpoint) => post('/api/push/unsubscribe', { endpoint });
// The user's read marks and mutes, kept by the server for every device.
export const attentionState = () => get('/api/attention');
// unreadCount is the count of attentionState alone ({unread}), without the
// marks: asked again as the listing changes.
export const unreadCount = () => get('/api/attention?only=unread');
export const markRead = (ids) => post('/api/attention/read', { ids });
// markAllRead marks every unread session of the sidebar's listing read.
export const markAllRead = () => post('/api/attention/read', { ids: [], all: true });
export const setMuted = (id, muted) => post('/api/attention/mute', { id, muted });
// The user's pins and archive, kept by the server for every device
// (docs/api.md: pins and archive): pinned and archived map a session's
// ref to when.
export const getOrder = () => get('/api/order');
export const setOrder = (ids, change) => post('/api/order', { ids, ...change });
// Read-only share links (docs/api.md: share links): a new link's path
// holds its token, given this once.
// listShares and revokeShare take a machine this piweb drives too (its
// links, made there: decision 0046).
export const listShares = (machine) => get('/api/shares' + q({ machine }));
// createShare asks another machine's session's link of that machine
// (decision 0046): the link opens there.
export const createShare = (body) => {
  const { id, machine } = splitRef(body.session);
  return post('/api/shares' + q({ machine }), { ...body, session: id });
};
export const revokeShare = (id, machine) => request('DELETE', `/api/shares/${enc(id)}` + q({ machine }), {});
// exportMany downloads sessions as one zip (jsonl, md or html each):
// this machine's by id, another's by ref, as pushed to the fleet.
export async function exportMany(ids, format) {
  const r = await fetch('/api/export', { method: 'POST', headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ids, format }) });
  if (!r.ok) {
    const e = ((r.headers.get('Content-Type') || '').includes('json') ? (await r.json()).error : null) || {};
    throw new APIError(r.status, e.code, e.message);
  }
  return { blob: await r.blob(), name: /filename="?([^";]+)/.exec(r.headers.get('Content-Disposition') || '')?.[1]
    || 'pi-sessions.zip' };
}
export const fork = (id, entryId, cwd) => post(sp(id, '/fork'), cwd ? { entryId, cwd } : { entryId });
export const clone = (id, body = {}) => post(sp(id, '/clone'), body);
// command sends one of the session's pi commands (docs/api.md: commands):
// pi's RPC commands plus piweb's own (navigate, ui_response…).
export const command = (id, body) => post(sp(id, '/commands'), body);

// The tab's ONE event stream (GET /api/stream): the sidebar, the session
// view, the chat and the files panel subscribe to topics over it, so that
// however many folders are open the tab holds one of the browser's six
// connections per host. Each topic gets its events in order (hello, then a
// reset or replay, then live ones) with their ids; after a lost
// connection EventSource reconnects, the server names a new stream, and
// every topic is subscribed again after the last id it got.
export const indexTopic = 'index';
export const sessionTopic = (id) => 's/' + id;
export const filesTopic = (id, path) => 'f/' + id + '/' + cleanPath(path);
export const gitTopic = (id) => 'g/' + id;

// cleanPath is path.Clean("/" + p) without its leading slash, as the
// server checks it.
function cleanPath(p) {
  const out = [];
  for (const part of String(p || '').split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') out.pop(); else out.push(part);
  }
  return out.join('/');
}

// A topic of another machine's session names it by its ref (s/ID@M,
// f/ID@M/path, g/ID@M): it is followed over that machine's stream, the
// /api/stream the server sends on to it (?machine=M), as that machine
// names it (s/ID...). Each machine's stream is opened by its first topic.
const streams = new Map(); // machine ('' for this one) -> {machine, es, id, topics, ops}
function streamOf(machine) {
  let s = streams.get(machine);
  if (!s) { s = { machine, es: null, id: null, topics: new Map(), ops: Promise.resolve() }; streams.set(machine, s); }
  return s;
}

// topicRoute is the machine a topic is followed on and the topic as that
// machine names it.
export function topicRoute(topic) {
  const m = /^([a-z])\/([^/@]+)@([^/]+)(.*)$/.exec(topic);
  return m ? { machine: m[3], topic: `${m[1]}/${m[2]}${m[4]}` } : { machine: '', topic };
}

// follow subscribes onEvent(event, id) to a topic; after is the last id the
// caller has (none: no replay). It returns a function that unsubscribes.
export function follow(topic, onEvent, { after } = {}) {
  const r = topicRoute(topic);
  const s = streamOf(r.machine);
  let t = s.topics.get(r.topic);
  if (!t) {
    t = { fns: new Set(), last: after != null && after !== '' ? String(after) : null };
    s.topics.set(r.topic, t);
    open(s);
    if (s.id) send(s, 'subscribe', r.topic, t.last);
  }
  t.fns.add(onEvent);
  return () => {
    if (!t.fns.delete(onEvent) || t.fns.size || s.topics.get(r.topic) !== t) return;
    s.topics.delete(r.topic);
    if (s.id) send(s, 'unsubscribe', r.topic);
  };
}

// hearing reports whether a followed topic has had its first event (its
// hello) on the current stream: what happens from then on reaches the
// page. Tests wait for it before acting from outside.
export function hearing(topic) {
  const r = topicRoute(topic);
  const s = streams.get(r.machine);
  const t = s && s.topics.get(r.topic);
  return !!t && !!t.heard && !!s.id;
}

// send queues one subscription change: they reach the server in order.
function send(s, op, topic, after) {
  const id = s.id;
  const body = { stream: id, topic };
  if (after != null) body.after = Number(after);
  const url = `/api/stream/${op}` + q({ machine: s.machine });
  s.ops = s.ops.then(() => (s.id === id ? post(url, body) : null)).catch(() => {});
}

// closeStream ends the tab's event streams, as a page about to be replaced
// does (leaving the demo ends every stream on the server's side: one ended
// there mid-answer is a console error in the browser).
export function closeStream() {
  for (const s of streams.values()) {
    if (s.es) s.es.close();
    clearTimeout(s.timer);
    s.es = null;
    s.id = null;
  }
}

// resumeStream opens the tab's streams again after closeStream; every
// topic still followed is subscribed again after its last id.
export const resumeStream = () => { for (const s of streams.values()) if (s.topics.size || !s.machine) open(s); };

function open(s) {
  if (s.es) return;
  const es = new EventSource('/api/stream' + q({ machine: s.machine }));
  s.es = es;
  es.onmessage = (m) => {
    let d;
    try {
      d = JSON.parse(m.data);
    } catch {
      return;
    }
    if (d.type === 'stream') {
      s.id = d.id;
      if (!s.machine) { s.retries = 0; setConnected(true); }
      for (const [topic, t] of s.topics) { t.heard = false; send(s, 'subscribe', topic, t.last); }
      return;
    }
    const t = s.topics.get(d.topic);
    if (!t) return;
    t.heard = true;
    const id = d.id != null ? String(d.id) : '';
    if (id) t.last = id;
    for (const fn of [...t.fns]) fn(d.event, id);
  };
  es.onerror = () => {
    s.id = null;
    if (!s.machine) return reconnect(s, es);
    // Another machine's stream that the server could not send on (its 502
    // is no event stream, so EventSource gives up): that machine does not
    // answer, and the stream opens again with the next topic followed.
    if (s.machine && es.readyState === EventSource.CLOSED) {
      s.es = null;
      window.dispatchEvent(new CustomEvent('piweb-unavailable', { detail: s.machine }));
    }
  };
}
// reconnect says at once that this machine's stream is lost and opens it
// again soon, sooner after the first tries (EventSource alone waits
// seconds, and gives up on an answer that is no event stream).
function reconnect(s, es) {
  setConnected(false);
  if (s.es !== es) return;
  es.close();
  s.es = null;
  clearTimeout(s.timer);
  const wait = Math.min(5000, 250 * 2 ** Math.min(s.retries || 0, 5));
  s.retries = (s.retries || 0) + 1;
  s.timer = setTimeout(() => { if (!s.es && streams.get('') === s) open(s); }, wait);
}

// The browser's own word on the network: offline is lost at once, and
// online retries at once.
window.addEventListener('offline', () => setConnected(false));
window.addEventListener('online', () => {
  const s = streams.get('');
  if (s && !connected) { s.retries = 0; if (s.es) reconnect(s, s.es); else open(s); }
});

// A page kept in the back/forward cache would hold its streams open and
// use up the browser's connections to this origin (live.js reloads such
// a page when it is shown again).
window.addEventListener('pagehide', closeStream);
