// The settings page: pi's own configuration, changed in pi's own files
// (GET /api/config, PUT /api/config/settings, /api/config/auth/{provider}),
// the way pi changes them. Providers and their API keys (auth.json, never
// shown back in full), the models the pickers offer and the defaults
// (settings.json), and the settings users change most, global and per
// project with the project's trust. Every change is saved at once.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { SidebarButton } from './sidebarbutton.js';
import * as api from './api.js';
import { toast, confirm } from './state.js';
import { globalMute, setGlobalMute } from './attention.js';
import { ModelsButton } from '../chat/models.js';
import { refreshModels, scoped } from '../chat/store.js';
import { Providers } from './providers.js';
import { Resources } from './resources.js';
import { pushWhy } from './util.js';

export function SettingsPage() {
  const [cwd, setCwd] = useState(localStorage.getItem('piweb.settings.cwd') || '');
  const [cfg, setCfg] = useState(null);
  const [models, setModels] = useState(null);
  const [projects, setProjects] = useState([]);
  const [err, setErr] = useState('');
  const [rev, setRev] = useState(0);
  useEffect(() => { api.listProjects().then((d) => setProjects(d.projects || []), () => {}); }, []);
  useEffect(() => {
    let live = true;
    api.getConfig(cwd).then((c) => live && (setCfg(c), setErr('')), (e) => live && setErr(e.message));
    return () => { live = false; };
  }, [cwd, rev]);
  useEffect(() => {
    let live = true;
    refreshModels().then((d) => live && setModels(d), (e) => live && setModels({ error: e.message, models: [] }));
    return () => { live = false; };
  }, [rev]);
  const reload = () => setRev((n) => n + 1);
  const pick = (c) => { localStorage.setItem('piweb.settings.cwd', c); setCwd(c); };
  return html`<div class="usage settings-page">
    <header class="sess-head"><${SidebarButton} />
      <div class="sess-head-main"><h1 class="sess-name">Settings</h1>
        <div class="sess-facts"><span
          class="fact">pi's own files: a pi already running keeps what it read until it restarts</span></div></div>
          </header>
    <div class="usage-body settings-body">
      ${err && html`<div class="stop error">${err}</div>`}
      ${!cfg && !err && html`<div class="muted pad">Loading…</div>`}
      ${cfg && html`
        <${Alerts} />
        <${Names} />
        <${Providers} cfg=${cfg} models=${models} changed=${reload} />
        <${ModelsSection} cfg=${cfg} models=${models} changed=${reload} />
        <section class="set-section"><h2>Settings <span class="muted">${cfg.global.path}</span></h2>
          <${FileError} f=${cfg.global} />
          <${SettingsForm} cfg=${cfg} scope="" changed=${reload} /></section>
        <${ProjectSection} cfg=${cfg} cwd=${cwd} projects=${projects} pick=${pick} changed=${reload} />
        ${cwd && html`<${Resources} cwd=${cwd} rev=${rev} trusted=${!!(cfg.trust && cfg.trust.trusted)} />`}`}
    </div></div>`;
}

function FileError({ f }) {
  return f.error ? html`<div class="stop error set-file-error">
    ${f.error}. pi ignores it; piweb replaces it only when you confirm, keeping a copy.</div>` : null;
}

// save writes changes to settings.json (cwd: a project's), asking before
// it replaces a file that does not parse.
export async function saveSettings(changes, cwd = '') {
  const body = { cwd: cwd || undefined, changes };
  try {
    return await api.putSettings(body);
  } catch (e) {
    if (e.code !== 'corrupt') throw e;
    const ok = await confirm('Replace the settings file?', e.message
      + '. Replace it with only this change? A copy of the broken file is kept beside it.', { ok: 'Replace',
      danger: true });
    if (!ok) throw e;
    return api.putSettings({ ...body, replaceCorrupt: true });
  }
}

async function apply(changes, cwd, changed, what) {
  try {
    await saveSettings(changes, cwd);
    toast('Saved ' + what + ' in ' + (cwd ? cwd + '/.pi/settings.json' : 'settings.json'));
  } catch (e) {
    toast('Not saved: ' + e.message, { kind: 'error', ms: 8000 });
  }
  changed();
}

const keyOf = (m) => m.provider + '/' + m.id;

function ModelsSection({ cfg, models, changed }) {
  const s = cfg.global.settings || {};
  const list = (models && models.models) || [];
  const enabled = new Set(scoped(list, s.enabledModels).map(keyOf));
  const toggle = (m, on) => {
    const next = list.filter((x) => (x === m ? on : enabled.has(keyOf(x)))).map(keyOf);
    if (!next.length) return toast('Keep at least one model offered', { kind: 'error' });
    const all = next.length === list.length;
    apply([{ key: 'enabledModels', value: all ? undefined : next }], '', changed,
      all ? 'all models offered' : 'the models offered');
  };
  const def = s.defaultProvider && s.defaultModel ? s.defaultProvider + '/' + s.defaultModel : '';
  const setDefault = (k) => {
    const i = k.indexOf('/');
    apply([{ key: 'defaultProvider', value: k.slice(0, i) }, { key: 'defaultModel', value: k.slice(i + 1) }], '',
      changed, 'the default model');
  };
  const levels = cfg.schema.find((x) => x.key === 'defaultThinkingLevel');
  return html`<section class="set-section set-models"><h2>Models</h2>
    ${models && models.error && html`<div class="stop error">${models.error}</div>`}
    <div class="set-row"><label class="set-label" for="set-default-model">Default model</label>
      <select id="set-default-model" class="set-default-model" value=${def}
        onChange=${(e) => setDefault(e.target.value)}>
        ${!def && html`<option value="">(pi's choice)</option>`}
        ${def && !list.some((m) => keyOf(m) === def) && html`<option value=${def}>${def}</option>`}
        ${list.map((m) => html`<option key=${keyOf(m)} value=${keyOf(m)}>${keyOf(m)}</option>`)}</select></div>
    <div class="set-row"><label class="set-label" for="set-default-thinking">Default thinking level</label>
      <select id="set-default-thinking" value=${s.defaultThinkingLevel || ''}
        onChange=${(e) => apply([{ key: 'defaultThinkingLevel', value: e.target.value || undefined }], '', changed,
        'the default thinking level')}>
        <option value="">default (${levels.default})</option>
        ${levels.options.map((o) => html`<option key=${o} value=${o}>${o}</option>`)}</select></div>
    <p class="muted">Offered in the model pickers (pi's <code>enabledModels</code>; all when none is chosen):</p>
    ${!list.length && html`<p class="muted">pi lists no models: add an API key above, or a custom provider.</p>`}
    <ul class="set-model-list">${list.map((m) => html`<li key=${keyOf(m)}><label>
      <input type="checkbox" class="model-enabled" data-model=${keyOf(m)} checked=${enabled.has(keyOf(m))}
        onChange=${(e) => toggle(m, e.currentTarget.checked)} />
      <span class="set-model-name">${m.name || m.id}</span> <span class="muted">${keyOf(m)}</span></label></li>`)}</ul>
    <div class="set-row"><span class="set-label">Custom providers</span><${ModelsButton} /></div>
  </section>`;
}

// SettingsForm edits the schema's settings other than the model ones, in
// the global file (scope "") or a project's (scope = its cwd), showing
// pi's default beside each.
function SettingsForm({ cfg, scope, changed }) {
  const file = scope ? cfg.project : cfg.global;
  const own = (file && file.settings) || {};
  const global = cfg.global.settings || {};
  const rows = cfg.schema.filter((st) => !MODEL_KEYS.has(st.key));
  const disabled = !!scope && !(cfg.trust && cfg.trust.trusted);
  return html`<div class="set-form">${rows.map((st) => {
    const name = st.sub ? st.key + '.' + st.sub : st.key;
    const v = valueOf(own, st);
    const inherited = scope ? valueOf(global, st) : undefined;
    const save = (value) => apply([{ key: st.key, sub: st.sub || undefined, value }], scope, changed, name);
    return html`<div class="set-row" key=${name}>
      <label class="set-label" for=${'set-' + scope + name} title=${st.doc}>${name}<span class="set-doc muted">${st.doc}
        </span></label>
      <span class="set-control"><${Control} id=${'set-' + scope + name} st=${st} value=${v} inherited=${inherited}
        disabled=${disabled} save=${save} />
        <span class="muted set-default">${defaultText(st, inherited)}</span>
        ${v !== undefined && html`<button class="btn-link set-reset" type="button" disabled=${disabled}
          onClick=${() => save(undefined)}>reset</button>`}</span></div>`;
  })}</div>`;
}

const MODEL_KEYS = new Set(['defaultProvider', 'defaultModel', 'defaultThinkingLevel', 'enabledModels']);

function valueOf(obj, st) {
  const v = obj[st.key];
  if (!st.sub) return v;
  return v && typeof v === 'object' ? v[st.sub] : undefined;
}

function defaultText(st, inherited) {
  if (inherited !== undefined) return 'global: ' + JSON.stringify(inherited);
  return st.default !== undefined ? 'default: ' + JSON.stringify(st.default) : '';
}

function Control({ id, st, value, inherited, disabled, save }) {
  const cls = 'set-input';
  if (st.kind === 'bool') {
    return html`<select id=${id} class=${cls} disabled=${disabled} value=${value === undefined ? '' : String(value)}
      onChange=${(e) => save(e.target.value === '' ? undefined : e.target.value === 'true')}>
      <option value="">default</option><option value="true">on</option><option value="false">off</option></select>`;
  }
  if (st.kind === 'enum') {
    return html`<select id=${id} class=${cls} disabled=${disabled} value=${value === undefined ? '' : value}
      onChange=${(e) => save(e.target.value || undefined)}>
      <option value="">default</option>${st.options.map((o) => html`<option key=${o} value=${o}>${o}</option>`)}
        </select>`;
  }
  if (st.kind === 'int') {
    const commit = (e) => {
      const t = e.currentTarget.value.trim();
      if (t === (value === undefined ? '' : String(value))) return;
      save(t === '' ? undefined : Number(t));
    };
    return html`<input id=${id} class=${cls + ' num'} type="number" min="0" step="1" inputmode="numeric"
      disabled=${disabled}
      value=${value === undefined ? '' : value} placeholder=${inherited !== undefined
        ? String(inherited) : st.default !== undefined ? String(st.default) : ''}
      onChange=${commit} onKeyDown=${(e) => { if (e.key === 'Enter') commit(e); }} />`;
  }
  return html`<input id=${id} class=${cls} disabled=${disabled} value=${value === undefined ? '' : value}
    onChange=${(e) => save(e.currentTarget.value || undefined)} />`;
}

function ProjectSection({ cfg, cwd, projects, pick, changed }) {
  const t = cfg.trust;
  const trust = async () => {
    try { await api.trustFolder(cwd); toast('Trusted ' + cwd); } catch (e) { toast('Not trusted: ' + e.message,
      { kind: 'error' }); }
    changed();
  };
  return html`<section class="set-section set-project"><h2>Project settings</h2>
    <div class="set-row"><label class="set-label" for="set-project">Project</label>
      <select id="set-project" class="set-project-select" value=${cwd} onChange=${(e) => pick(e.target.value)}>
        <option value="">(choose a project)</option>
        ${cwd && !projects.some((p) => p.cwd === cwd) && html`<option value=${cwd}>${cwd}</option>`}
        ${projects.map((p) => html`<option key=${p.cwd} value=${p.cwd}>${p.cwd}</option>`)}</select></div>
    ${cwd && cfg.project && html`
      <p class="muted set-path">${cfg.project.path}${cfg.project.exists ? '' : ' (not created yet)'}</p>
      ${t && html`<div class=${'set-trust ' + (t.trusted ? 'ok' : 'warn')}>
        ${t.trusted ? 'pi trusts this project: it loads its settings and resources.'
          : 'pi does not trust this project, so it ignores these settings (and refuses to write them). '
            + 'Default for projects: ' + t.default + '.'}
        ${!t.trusted && html` <button class="btn small set-trust-btn" type="button"
          onClick=${trust}>Trust this project</button>`}</div>`}
      <${FileError} f=${cfg.project} />
      <${SettingsForm} cfg=${cfg} scope=${cwd} changed=${changed} />`}
  </section>`;
}

// Names: piweb's own switch (GET/PUT /api/prefs, not pi's settings) for
// model-made session titles, off by default; serve --model-titles forces
// it on.
function Names() {
  const [p, setP] = useState(null);
  useEffect(() => { api.getPrefs().then(setP, () => {}); }, []);
  if (!p) return null;
  const set = async (on) => {
    try {
      setP(await api.putPrefs({ modelTitles: on }));
      toast(on ? 'New sessions get a title from pi\'s default model' : 'New sessions keep their first line as name');
    } catch (e) { toast('Not saved: ' + e.message, { kind: 'error' }); }
  };
  return html`<section class="set-section set-names"><h2>Session names <span class="muted">piweb's own preference</span>
    </h2>
    <div class="set-row"><label class="set-label" for="set-model-titles">Titles written by a model<span
      class="set-doc muted">a new session is named from its first line; with this on, pi's default model then writes a
        short title (one small extra request)</span></label>
      <span class="set-control"><input id="set-model-titles" class="set-model-titles" type="checkbox"
        checked=${p.modelTitles || p.modelTitlesForced}
        disabled=${p.modelTitlesForced} onChange=${(e) => set(e.currentTarget.checked)} />
        ${p.modelTitlesForced && html`<span class="muted">on: piweb was started with --model-titles</span>`}</span>
          </div>
  </section>`;
}

// Alerts: the global mute, and Web Push on this device (a closed tab or a
// phone hears that a run ended), through the service worker's push
// subscription and piweb's VAPID key.
function Alerts() {
  const [sub, setSub] = useState(null); // the PushSubscription, or null
  const [busy, setBusy] = useState(false);
  const [why, setWhy] = useState(''); // why the last Turn on failed, in words
  const supported = 'serviceWorker' in navigator && 'PushManager' in window;
  useEffect(() => {
    if (supported) navigator.serviceWorker.ready.then((r) => r.pushManager.getSubscription()).then(setSub, () => {});
  }, []);
  const on = async () => {
    setBusy(true);
    setWhy('');
    try {
      if (Notification.permission !== 'granted' && (await Notification.requestPermission()) !== 'granted') {
        throw new Error('the browser did not allow notifications');
      }
      const { publicKey } = await api.pushKey();
      const reg = await navigator.serviceWorker.ready;
      const s = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromB64(publicKey) });
      await api.pushSubscribe(s.toJSON());
      setSub(s);
      toast('Push notifications are on for this device');
    } catch (e) { setWhy('Not turned on: ' + pushWhy(e)); }
    setBusy(false);
  };
  const off = async () => {
    setBusy(true);
    try { await api.pushUnsubscribe(sub.endpoint); await sub.unsubscribe(); setSub(null); } catch (e) { toast(e.message,
      { kind: 'error' }); }
    setBusy(false);
  };
  return html`<section class="set-section set-alerts"><h2>Alerts</h2>
    <div class="set-row"><span class="set-label">All alerts<span
      class="set-doc muted">toasts, sounds, notifications and pushes when a run ends, fails or waits, on every
        device</span></span>
      <span class="set-control"><button class=${'btn small set-mute' + (globalMute.value ? ' on' : '')} type="button"
        aria-pressed=${globalMute.value} onClick=${() => setGlobalMute(!globalMute.value)}>
        ${globalMute.value ? 'Muted: turn on' : 'Mute all'}</button></span></div>
    <div class="set-row"><span class="set-label">Push to this device<span
      class="set-doc muted">also when no piweb tab is open (Web Push)</span></span>
      <span class="set-control">
        ${!supported ? html`<span class="muted">This browser has no Web Push here (it needs HTTPS or localhost).</span>`
        : sub ? html`<button class="btn small set-push" type="button" disabled=${busy} onClick=${off}>Turn off</button>`
          : html`<button class="btn small set-push" type="button" disabled=${busy} onClick=${on}>Turn on</button>`}
        ${why && html`<span class="set-push-why muted" role="status">${why}</span>`}
            </span></div>
  </section>`;
}

function fromB64(s) {
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}
