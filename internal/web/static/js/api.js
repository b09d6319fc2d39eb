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
  const r = await fetch(url, opt);
  const type = r.headers.get('Content-Type') || '';
  const text = await r.text();
  if (after) await after;
  const data = type.includes('json') ? JSON.parse(text) : text;
  if (!r.ok) {
    const e = (data && data.error) || {};
    throw new APIError(r.status, e.code, e.message || (typeof data === 'string' ? data : ''));
  }
  return data;
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

export const listSessions = (params = {}) =>
  get('/api/sessions' + q(params)).then((d) => d.sessions || []);
export const getSession = (id, after) => request('GET', `/api/sessions/${enc(id)}`, undefined, after);
export const getContext = (id, { leaf, before, limit } = {}) =>
  get(`/api/sessions/${enc(id)}/context` + q({ leaf, before, limit }));
export const getEntries = (id, { leaf, before, limit } = {}) =>
  get(`/api/sessions/${enc(id)}/entries` + q({ leaf, before, limit }));
export const search = (text, params = {}) =>
  get('/api/search' + q({ q: text, limit: 50, ...params }));
export const rename = (id, name) => post(`/api/sessions/${enc(id)}/rename`, { name });
export const setLabel = (id, entryId, label) =>
  post(`/api/sessions/${enc(id)}/label`, { entryId, label });
export const repairSession = (id) => post(`/api/sessions/${enc(id)}/repair`);
export const deleteSession = (id) => request('DELETE', `/api/sessions/${enc(id)}`, {});
export const restoreTrash = (trashId) => post(`/api/trash/${enc(trashId)}/restore`);
export const exportURL = (id, format, leaf, scope) =>
  `/api/sessions/${enc(id)}/export` + q({ format, leaf, scope });
export const listFiles = (id, path) => get(`/api/sessions/${enc(id)}/files` + q({ path }));
export const fileURL = (id, path) => `/api/sessions/${enc(id)}/file` + q({ path });
export const fileEventsURL = (id, path) => `/api/sessions/${enc(id)}/files/events` + q({ path });
export const getStatus = () => get('/api/status');
// signOut revokes this browser's session cookie (when sign-in is on).
export const signOut = () => post('/api/signout');
export const usage = (by, params = {}) => get('/api/usage' + q({ by, ...params }));
export const listTrash = () => get('/api/trash');
export const deleteTrash = (trashId) => request('DELETE', `/api/trash/${enc(trashId)}`, {});
export const listBackups = () => get('/api/backups');
export const listProjects = () => get('/api/projects');
export const createSession = (body) => post('/api/sessions', body);
export const listModels = () => get('/api/models');
export const getModelsConfig = () => get('/api/models-config');
export const putModelsConfig = (config) => put('/api/models-config', { config });
export const fork = (id, entryId) => post(`/api/sessions/${enc(id)}/fork`, { entryId });
export const clone = (id, body = {}) => post(`/api/sessions/${enc(id)}/clone`, body);
// command sends one of the session's pi commands (docs/api.md: commands):
// pi's RPC commands plus piweb's own (navigate, ui_response…).
export const command = (id, body) => post(`/api/sessions/${enc(id)}/commands`, body);
export const indexEventsURL = () => '/api/events';
export const sessionEventsURL = (id, lastEventId) =>
  `/api/sessions/${enc(id)}/events` + q({ lastEventId });

// subscribe opens an SSE stream and calls onEvent with each parsed data
// object; EventSource reconnects by itself (with Last-Event-ID). It returns
// a function that closes the stream.
export function subscribe(url, onEvent, onState) {
  const es = new EventSource(url);
  es.onmessage = (m) => {
    let d;
    try {
      d = JSON.parse(m.data);
    } catch {
      return;
    }
    onEvent(d, m.lastEventId);
  };
  es.onopen = () => onState && onState(true);
  es.onerror = () => onState && onState(false);
  // A page kept in the back/forward cache would hold its streams open and
  // use up the browser's six connections to this origin (live.js reloads
  // such a page when it is shown again).
  const hide = () => es.close();
  window.addEventListener('pagehide', hide);
  return () => { window.removeEventListener('pagehide', hide); es.close(); };
}
