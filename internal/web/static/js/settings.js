// The settings page: pi's own configuration, changed in pi's own files
// (GET /api/config, PUT /api/config/settings, /api/config/auth/{provider}),
// the way pi changes them, in six sections with a navigation list and a
// search box (settingsearch.js): providers and their API keys (auth.json,
// never shown back in full), the models the pickers offer and the
// defaults, pi's other settings each once with a project's overrides
// beside them (settingsform.js), what pi loads in the project
// (resources.js), alerts, and piweb's own preferences. Every change is
// saved at once.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import { SidebarButton } from './sidebarbutton.js';
import * as api from './api.js';
import { toast, confirm, listed } from './state.js';
import { globalMute, setGlobalMute } from './attention.js';
import { ModelsButton } from '../chat/models.js';
import { refreshModels, scoped } from '../chat/store.js';
import { Providers } from './providers.js';
import { Resources } from './resources.js';
import { pushWhy } from './util.js';
import { SECTIONS, matches } from './settingsearch.js';
import { AgentForm, agentRows } from './settingsform.js';
import { SharesSection } from './share.js';
import { t, LANGS, choice, localeOf, setLocale } from './i18n.js';

export function SettingsPage() {
  const [cwd, setCwd] = useState(localStorage.getItem('piweb.settings.cwd') || '');
  const [cfg, setCfg] = useState(null);
  const [models, setModels] = useState(null);
  const [projects, setProjects] = useState([]);
  const [err, setErr] = useState('');
  const [rev, setRev] = useState(0);
  const [q, setQ] = useState('');
  // Asked again when the listing gains or loses a folder (a session just
  // started in a new one), not only when the page opens.
  const folders = Object.keys(listed.value.projects).length;
  useEffect(() => { api.listProjects().then((d) => setProjects(d.projects || []), () => {}); }, [folders]);
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
  const project = html`<${ProjectPicker} cfg=${cfg} cwd=${cwd} projects=${projects} pick=${pick} changed=${reload} />`;
  const sections = {
    providers: () => html`<${Providers} cfg=${cfg} models=${models} changed=${reload} q=${q} />`,
    models: () => html`<${ModelsSection} cfg=${cfg} models=${models} changed=${reload} q=${q} />`,
    agent: () => html`<${AgentSection} cfg=${cfg} cwd=${cwd} q=${q} changed=${reload} project=${project} />`,
    resources: () => html`<${Resources} cwd=${cwd} rev=${rev} trusted=${!!(cfg.trust && cfg.trust.trusted)} q=${q} />`,
    alerts: () => html`<${Alerts} q=${q} />`,
    piweb: () => html`<${Names} q=${q} /><${SharesSection} q=${q} />`,
  };
  return html`<div class="usage settings-page">
    <header class="sess-head"><${SidebarButton} />
      <div class="sess-head-main"><h1 class="sess-name">${t('nav.settings')}</h1>
        <div class="sess-facts"><span
          class="fact">${t('set.factsLine')}</span></div></div>
          </header>
    <div class="usage-body settings-body">
      <div class="set-layout">
        <${SettingsNav} q=${q} setQ=${setQ} ready=${!!cfg} />
        <div class="set-main">
          ${err && html`<div class="stop error">${err}</div>`}
          ${!cfg && !err && html`<div class="muted pad">${t('common.loading')}</div>`}
          ${cfg && SECTIONS.map(([id]) => html`<div key=${id} id=${'set-' + id} class="set-anchor">${sections[id]()}
            </div>`)}
          ${q && html`<p class="muted set-nomatch">${t('set.noMatch', { q })}</p>`}
        </div></div>
    </div></div>`;
}

// SettingsNav is the search box and the list of sections (a select on a
// phone); choosing a section scrolls to it, and the one in view is marked
// (of those the search leaves shown).
function SettingsNav({ q, setQ, ready }) {
  const [at, setAt] = useState(() => sectionOf(location.search));
  const spy = () => setAt(sectionInView() || SECTIONS[0][0]);
  useEffect(() => {
    const body = document.querySelector('.settings-body');
    if (!body) return undefined;
    body.addEventListener('scroll', spy, { passive: true });
    return () => body.removeEventListener('scroll', spy);
  }, []);
  useEffect(() => { if (ready) spy(); }, [q, ready]);
  useEffect(() => {
    const want = sectionOf(location.search);
    if (ready && want !== SECTIONS[0][0]) go(want);
  }, [ready]);
  const go = (id) => {
    setAt(id);
    const el = document.getElementById('set-' + id);
    if (el) el.scrollIntoView({ block: 'start' });
  };
  return html`<nav class="set-nav" aria-label=${t('set.sections')}>
    <input type="search" class="set-search" placeholder=${t('set.search')} aria-label=${t('set.search')} value=${q}
      onInput=${(e) => setQ(e.currentTarget.value)} onKeyDown=${(e) => {
        if (e.key === 'Escape' && q) { e.stopPropagation(); setQ(''); } }} />
    <ul class="set-nav-list">${SECTIONS.map(([id, label]) => html`<li key=${id}><a href=${'?section=' + id}
      class=${at === id ? 'on' : ''} aria-current=${at === id ? 'true' : undefined}
      onClick=${(e) => { e.preventDefault(); go(id); }}>${label}</a></li>`)}</ul>
    <select class="set-nav-select" aria-label=${t('set.section')} value=${at}
      onChange=${(e) => go(e.currentTarget.value)}>
      ${SECTIONS.map(([id, label]) => html`<option key=${id} value=${id}>${label}</option>`)}</select>
  </nav>`;
}

// sectionInView is the last shown section whose top has passed the top of
// the page's scroll area, else the first shown ('' when none is shown).
function sectionInView() {
  const body = document.querySelector('.settings-body');
  if (!body) return '';
  const top = body.getBoundingClientRect().top + 60;
  let cur = '';
  for (const [id] of SECTIONS) {
    const sec = document.getElementById('set-' + id)?.firstElementChild;
    if (!sec || sec.hidden) continue;
    if (!cur || sec.getBoundingClientRect().top <= top) cur = id;
  }
  return cur;
}

// sectionOf is the section a URL's query asks for: ?section=ID, or the
// providers for an error's ?provider= link.
function sectionOf(search) {
  const p = new URLSearchParams(search);
  const s = p.get('section');
  return SECTIONS.some(([id]) => id === s) ? s : SECTIONS[0][0];
}

function FileError({ f }) {
  return f.error ? html`<div class="stop error set-file-error">
    ${t('set.fileError', { error: f.error })}</div>` : null;
}

// save writes changes to settings.json (cwd: a project's), asking before
// it replaces a file that does not parse.
export async function saveSettings(changes, cwd = '') {
  const body = { cwd: cwd || undefined, changes };
  try {
    return await api.putSettings(body);
  } catch (e) {
    if (e.code !== 'corrupt') throw e;
    const ok = await confirm(t('set.replaceTitle'), t('set.replaceText', { error: e.message }), { ok: t('set.replace'),
      danger: true });
    if (!ok) throw e;
    return api.putSettings({ ...body, replaceCorrupt: true });
  }
}

async function apply(changes, cwd, changed, what) {
  try {
    await saveSettings(changes, cwd);
    toast(t('set.saved', { what, file: cwd ? cwd + '/.pi/settings.json' : 'settings.json' }));
  } catch (e) {
    toast(t('common.notSaved', { why: e.message }), { kind: 'error', ms: 8000 });
  }
  changed();
}

const keyOf = (m) => m.provider + '/' + m.id;

function ModelsSection({ cfg, models, changed, q }) {
  const s = cfg.global.settings || {};
  const list = (models && models.models) || [];
  const enabled = new Set(scoped(list, s.enabledModels).map(keyOf));
  const toggle = (m, on) => {
    const next = list.filter((x) => (x === m ? on : enabled.has(keyOf(x)))).map(keyOf);
    if (!next.length) return toast(t('set.keepOne'), { kind: 'error' });
    const all = next.length === list.length;
    apply([{ key: 'enabledModels', value: all ? undefined : next }], '', changed,
      t(all ? 'set.whatAllModels' : 'set.whatModels'));
  };
  const def = s.defaultProvider && s.defaultModel ? s.defaultProvider + '/' + s.defaultModel : '';
  const setDefault = (k) => {
    const i = k.indexOf('/');
    apply([{ key: 'defaultProvider', value: k.slice(0, i) }, { key: 'defaultModel', value: k.slice(i + 1) }], '',
      changed, t('set.whatDefaultModel'));
  };
  const levels = cfg.schema.find((x) => x.key === 'defaultThinkingLevel');
  const showDefault = matches(q, t('set.defaultModel'), 'Default model defaultProvider defaultModel', def);
  const showThinking = matches(q, t('set.defaultThinking'), 'Default thinking level defaultThinkingLevel',
    levels.options.join(' '));
  const offered = matches(q, t('set.modelsOffered'), 'Models offered enabledModels') ? list
    : list.filter((m) => matches(q, m.name, keyOf(m)));
  const showCustom = matches(q, t('set.customProviders'), 'Custom providers models.json');
  if (q && !showDefault && !showThinking && !offered.length && !showCustom) return null;
  return html`<section class="set-section set-models"><h2>${t('set.models')}</h2>
    ${models && models.error && html`<div class="stop error">${models.error}</div>`}
    ${showDefault && html`<div class="set-row"><label class="set-label" for="set-default-model"><span
      class="set-name">${t('set.defaultModel')}</span> <code
        class="set-pikey">defaultProvider, defaultModel</code></label>
      <span class="set-control"><select id="set-default-model" class="set-default-model" value=${def}
        onChange=${(e) => setDefault(e.target.value)}>
        ${!def && html`<option value="">${t('set.piChoice')}</option>`}
        ${def && !list.some((m) => keyOf(m) === def) && html`<option value=${def}>${def}</option>`}
        ${list.map((m) => html`<option key=${keyOf(m)} value=${keyOf(m)}>${keyOf(m)}</option>`)}</select></span></div>`}
    ${showThinking && html`<div class="set-row"><label class="set-label" for="set-default-thinking"><span
      class="set-name">${t('set.defaultThinking')}</span> <code class="set-pikey">defaultThinkingLevel</code></label>
      <span class="set-control"><select id="set-default-thinking" value=${s.defaultThinkingLevel || ''}
        onChange=${(e) => apply([{ key: 'defaultThinkingLevel', value: e.target.value || undefined }], '', changed,
        t('set.whatDefaultThinking'))}>
        <option value="">${t('set.defaultIs', { value: levels.default })}</option>
        ${levels.options.map((o) => html`<option key=${o} value=${o}>${o}</option>`)}</select></span></div>`}
    ${offered.length > 0 && html`<div class="set-row set-offered"><span class="set-label"><span class="set-name">${
      t('set.modelsOffered')}</span> <code class="set-pikey">enabledModels</code><span class="set-doc muted">${
        t('set.modelsOfferedDoc')}</span></span>
      <ul class="set-model-list">${offered.map((m) => html`<li key=${keyOf(m)}><label>
        <input type="checkbox" class="model-enabled" data-model=${keyOf(m)} checked=${enabled.has(keyOf(m))}
          onChange=${(e) => toggle(m, e.currentTarget.checked)} />
        <span class="set-model-name">${m.name || m.id}</span> <span class="muted">${keyOf(m)}</span></label></li>`)}
        </ul></div>`}
    ${!q && !list.length && html`<p class="muted">${t('set.noModels')}</p>`}
    ${showCustom && html`<div class="set-row"><span class="set-label">
      <span class="set-name">${t('set.customProviders')}</span>
      <code class="set-pikey">models.json</code></span><span class="set-control"><${ModelsButton} /></span></div>`}
  </section>`;
}

// AgentSection is pi's other settings, each once, with the chosen
// project's overrides beside them.
function AgentSection({ cfg, cwd, q, changed, project }) {
  const rows = agentRows(cfg, q);
  const showProject = !q || matches(q, 'project overrides trust');
  if (q && !rows.length && !showProject) return null;
  return html`<section class="set-section set-agent"><h2>${t('set.agent')} <span
    class="muted">${cfg.global.path}</span></h2>
    <${FileError} f=${cfg.global} />
    ${showProject && project}
    <${AgentForm} cfg=${cfg} cwd=${cwd} q=${q}
      apply=${(changes, scope, what) => apply(changes, scope, changed, what)} />
  </section>`;
}

// ProjectPicker chooses the project whose overrides the Agent section
// shows beside the global values and whose resources Resources lists,
// with pi's trust of it.
function ProjectPicker({ cfg, cwd, projects, pick, changed }) {
  const tr = cfg && cfg.trust;
  const trust = async () => {
    try { await api.trustFolder(cwd); toast(t('set.trusted', { cwd })); } catch (e) {
      toast(t('set.notTrusted', { why: e.message }), { kind: 'error' });
    }
    changed();
  };
  return html`<div class="set-project">
    <div class="set-row"><label class="set-label"><span class="set-name">${
      t('set.project')}</span><span class="set-doc muted">${t('set.projectDoc')}</span></label>
      <span class="set-control"><select class="set-project-select" aria-label=${t('set.project')} value=${cwd}
        onChange=${(e) => pick(e.target.value)}>
        <option value="">${t('set.noProject')}</option>
        ${cwd && !projects.some((p) => p.cwd === cwd) && html`<option value=${cwd}>${cwd}</option>`}
        ${projects.map((p) => html`<option key=${p.cwd} value=${p.cwd}>${p.cwd}</option>`)}</select></span></div>
    ${cwd && cfg && cfg.project && html`
      <p class="muted set-path">${cfg.project.path}${cfg.project.exists ? '' : t('set.notCreated')}</p>
      ${tr && html`<div class=${'set-trust ' + (tr.trusted ? 'ok' : 'warn')}>
        ${tr.trusted ? t('set.trustsProject') : t('set.distrustsProject', { default: tr.default })}
        ${!tr.trusted && html` <button class="btn small set-trust-btn" type="button"
          onClick=${trust}>${t('set.trustProject')}</button>`}</div>`}
      <${FileError} f=${cfg.project} />`}
  </div>`;
}

// Names: piweb's own preferences: the page's language (this browser's,
// i18n.js) and (GET/PUT /api/prefs, not pi's settings) model-made session
// titles, off by default; serve --model-titles forces them on.
function Names({ q }) {
  const [p, setP] = useState(null);
  useEffect(() => { api.getPrefs().then(setP, () => {}); }, []);
  const lang = matches(q, 'piweb language', t('lang.label'), LANGS.map(([, n]) => n).join(' '));
  const titles = p && matches(q, 'piweb session names titles written by a model modelTitles', t('set.titlesName'));
  if (!lang && !titles) return null;
  const set = async (on) => {
    try {
      setP(await api.putPrefs({ modelTitles: on }));
      toast(t(on ? 'set.titlesOn' : 'set.titlesOff'));
    } catch (e) { toast(t('common.notSaved', { why: e.message }), { kind: 'error' }); }
  };
  return html`<section class="set-section set-names"><h2>piweb <span class="muted">${t('set.piwebDoc')}</span></h2>
    ${lang && html`<${LanguageRow} />`}
    ${titles && html`<div class="set-row"><label class="set-label" for="set-model-titles"><span class="set-name">${
      t('set.titlesName')}</span> <code class="set-pikey">modelTitles</code><span
      class="set-doc muted">${t('set.titlesDoc')}</span></label>
      <span class="set-control"><input id="set-model-titles" class="set-model-titles" type="checkbox"
        checked=${p.modelTitles || p.modelTitlesForced}
        disabled=${p.modelTitlesForced} onChange=${(e) => set(e.currentTarget.checked)} />
        ${p.modelTitlesForced && html`<span class="muted">${t('set.titlesForced')}</span>`}</span>
          </div>`}
  </section>`;
}

// LanguageRow is the page's language: the browser's, or one chosen here
// (kept in this browser, as the theme is); a change reloads the page.
function LanguageRow() {
  const name = (code) => LANGS.find(([c]) => c === code)[1];
  return html`<div class="set-row"><label class="set-label" for="set-language"><span class="set-name">${
    t('lang.label')}</span><span class="set-doc muted">${t('lang.doc')}</span></label>
    <span class="set-control"><select id="set-language" class="set-language" value=${choice}
      onChange=${(e) => setLocale(e.currentTarget.value)}>
      <option value="">${t('lang.browser', { lang: name(localeOf(navigator.languages)) })}</option>
      ${LANGS.map(([code, n]) => html`<option key=${code} value=${code} lang=${code}>${n}</option>`)}</select></span>
  </div>`;
}

// Alerts: the global mute, and Web Push on this device (a closed tab or a
// phone hears that a run ended), through the service worker's push
// subscription and piweb's VAPID key.
function Alerts({ q }) {
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
        throw new Error(t('set.pushDenied'));
      }
      const { publicKey } = await api.pushKey();
      const reg = await navigator.serviceWorker.ready;
      const s = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: fromB64(publicKey) });
      await api.pushSubscribe(s.toJSON());
      setSub(s);
      toast(t('set.pushOn'));
    } catch (e) { setWhy(t('set.notTurnedOn', { why: pushWhy(e) })); }
    setBusy(false);
  };
  const off = async () => {
    setBusy(true);
    try { await api.pushUnsubscribe(sub.endpoint); await sub.unsubscribe(); setSub(null); } catch (e) { toast(e.message,
      { kind: 'error' }); }
    setBusy(false);
  };
  const mute = matches(q, 'alerts mute all toasts sounds notifications pushes', t('set.allAlerts'), t('set.alerts'));
  const push = matches(q, 'alerts push to this device web push notifications', t('set.pushHere'), t('set.alerts'));
  if (!mute && !push) return null;
  return html`<section class="set-section set-alerts"><h2>${t('set.alerts')}</h2>
    ${mute && html`<div class="set-row"><span class="set-label"><span class="set-name">${t('set.allAlerts')}</span><span
      class="set-doc muted">${t('set.allAlertsDoc')}</span></span>
      <span class="set-control"><button class=${'btn small set-mute' + (globalMute.value ? ' on' : '')} type="button"
        aria-pressed=${globalMute.value} onClick=${() => setGlobalMute(!globalMute.value)}>
        ${t(globalMute.value ? 'set.mutedTurnOn' : 'set.muteAll')}</button></span></div>`}
    ${push && html`<div class="set-row"><span class="set-label"><span class="set-name">${t('set.pushHere')}</span><span
      class="set-doc muted">${t('set.pushHereDoc')}</span></span>
      <span class="set-control">
        ${!supported ? html`<span class="muted">${t('set.noPush')}</span>`
        : sub ? html`<button class="btn small set-push" type="button" disabled=${busy}
          onClick=${off}>${t('set.turnOff')}</button>`
          : html`<button class="btn small set-push" type="button" disabled=${busy}
            onClick=${on}>${t('set.turnOn')}</button>`}
        ${why && html`<span class="set-push-why muted" role="status">${why}</span>`}
            </span></div>`}
  </section>`;
}

function fromB64(s) {
  const b = atob(s.replace(/-/g, '+').replace(/_/g, '/') + '==='.slice((s.length + 3) % 4));
  return Uint8Array.from(b, (c) => c.charCodeAt(0));
}
