// The settings page's providers: every provider pi has built in or
// models.json adds, whether pi can use it (pi lists its models), the API
// key stored in auth.json (masked; set, replace, remove), a test that sends
// one tiny request through pi, and account sign-in through pi's own
// `pi auth login` (signin.js).
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import * as api from './api.js';
import { toast, confirm } from './state.js';
import { SignIns } from './signin.js';
import { matches } from './settingsearch.js';

export function Providers({ cfg, models, changed, q }) {
  const list = (models && models.models) || [];
  const creds = new Map((cfg.auth.credentials || []).map((c) => [c.provider, c]));
  const known = new Map(cfg.providers.map((p) => [p.id, p]));
  const byProv = new Map();
  for (const m of list) byProv.set(m.provider, [...(byProv.get(m.provider) || []), m]);
  const ids = [...new Set([...byProv.keys(), ...creds.keys()])].sort();
  const others = [...new Set([...(cfg.custom || []), ...known.keys(),
    ...byProv.keys()])].filter((id) => !ids.includes(id)).sort();
  // ?provider=ID (an error's "No API key" link, errtext.js) opens that
  // provider's row, or the form to add its key.
  const want = new URLSearchParams(location.search).get('provider') || '';
  // The search box shows the providers it names, and the forms when it
  // asks for them.
  const all = matches(q, 'providers and keys api auth.json');
  const shown = all ? ids : ids.filter((id) => matches(q, id));
  const adding = all || matches(q, 'add an api key provider', ...others);
  const signing = all || matches(q, 'sign in subscription account login');
  if (!shown.length && !adding && !signing) return null;
  return html`<section class="set-section set-providers"><h2>Providers and keys <span class="muted">${cfg.auth.path}
    </span></h2>
    ${cfg.auth.error && html`<div class="stop error set-file-error">
      ${cfg.auth.error}. pi cannot read its keys; piweb replaces the file only when you confirm, keeping a copy.</div>`}
    ${!ids.length && html`<p class="muted">No provider is configured yet: add an API key below.</p>`}
    <ul class="set-prov-list">${shown.map((id) => html`<${ProviderRow} key=${id} id=${id} models=${byProv.get(id) || []}
      cred=${creds.get(id)} info=${known.get(id)} changed=${changed} wanted=${want === id} />`)}</ul>
    ${adding && html`<${AddKey} ids=${[...others, ...ids]} known=${known} changed=${changed}
      wanted=${others.includes(want) ? want : ''} />`}
    ${signing && html`<${SignIns} cfg=${cfg} changed=${changed} />`}
  </section>`;
}

function ProviderRow({ id, models, cred, info, changed, wanted }) {
  const [test, setTest] = useState(null);
  const [keyOpen, setKeyOpen] = useState(wanted && !(info && info.ambient));
  const ref = useWanted(wanted);
  const runTest = async () => {
    setTest({ busy: true });
    try { setTest(await api.testModel(id, models[0].id)); } catch (e) { setTest({ ok: false, error: e.message }); }
  };
  const remove = async () => {
    if (!(await confirm('Remove the key?', `pi will no longer use the ${id} key stored in auth.json.`, { ok: 'Remove',
      danger: true }))) return;
    try { await api.removeKey(id); toast('Removed the ' + id + ' key'); } catch (e) { toast('Not removed: ' + e.message,
      { kind: 'error' }); }
    changed();
  };
  return html`<li class=${'set-prov' + (wanted ? ' wanted' : '')} data-provider=${id} ref=${ref}>
    <div class="set-prov-main"><strong>${id}</strong>
      <span class="muted">${models.length ? models.length + (models.length === 1
        ? ' model' : ' models') : 'no models listed'}</span>
      ${cred && html`<span class="set-key muted">${cred.type === 'api_key' ? 'key ' + (cred.masked || '') : 'signed in'}
        </span>`}
      ${!cred && models.length > 0 && html`<span class="muted">(key from the environment or models.json)</span>`}
      ${test && html`<span class=${'set-test ' + (test.busy ? 'muted' : test.ok ? 'ok' : 'bad')}>
        ${test.busy ? 'testing…' : test.ok ? 'works (' + test.ms + ' ms)' : test.error}</span>`}</div>
    <div class="set-prov-actions">
      ${models.length > 0 && html`<button class="btn small set-test-btn" type="button" disabled=${test && test.busy}
        title=${'Send one tiny request to ' + models[0].id} onClick=${runTest}>Test</button>`}
      ${(!info || !info.ambient) && html`<button class="btn small" type="button" onClick=${() => setKeyOpen(!keyOpen)}>
        ${cred && cred.type === 'api_key' ? 'Replace key' : 'Set key'}</button>`}
      ${cred && html`<button class="btn small danger" type="button" onClick=${remove}>Remove</button>`}</div>
    ${keyOpen && html`<${KeyForm} id=${id} changed=${() => { setKeyOpen(false); changed(); }} />`}
  </li>`;
}

// useWanted scrolls the element of the provider a link asked for into
// view, once.
function useWanted(wanted) {
  const ref = useRef(null);
  useEffect(() => { if (wanted && ref.current) ref.current.scrollIntoView({ block: 'center' }); }, [wanted]);
  return ref;
}

function AddKey({ ids, known, changed, wanted }) {
  const [id, setId] = useState(wanted || '');
  const ref = useWanted(!!wanted);
  const info = known.get(id);
  return html`<div class=${'set-add-key' + (wanted ? ' wanted' : '')} ref=${ref}>
    <div class="set-row"><label class="set-label" for="set-add-provider">Add a key for</label>
      <select id="set-add-provider" class="set-add-provider" value=${id} onChange=${(e) => setId(e.target.value)}>
        <option value="">(choose a provider)</option>
        ${ids.map((x) => html`<option key=${x} value=${x}>${x}</option>`)}</select></div>
    ${info && info.env && html`<p class="muted">pi also reads it from ${info.env.map((e, i) => html`${i ? ' or ' : ''}
      <code>${e}</code>`)}.</p>`}
    ${info && info.signIn && html`<p class="muted">Or sign in with a subscription below.</p>`}
    ${info && info.ambient && html`<p class="muted">${id} is configured outside pi (cloud credentials).</p>`}
    ${id && !(info && info.ambient) && html`<${KeyForm} id=${id} changed=${() => { setId(''); changed(); }} />`}
  </div>`;
}

// KeyForm takes a key and stores it; it is never read back.
function KeyForm({ id, changed }) {
  const [key, setKey] = useState('');
  const [err, setErr] = useState('');
  const save = async (e) => {
    e.preventDefault();
    if (/[\r\n]/.test(key)) return setErr('The key has a line break: paste it on one line.');
    let replace = false;
    for (;;) {
      try {
        await api.setKey(id, key.trim(), replace);
        toast('Saved the ' + id + ' key in auth.json');
        setKey('');
        return changed();
      } catch (x) {
        if (x.code === 'corrupt' && !replace && (await confirm('Replace auth.json?',
          x.message + '. Replace it with only this key? A copy of the broken file is kept beside it.', { ok: 'Replace',
          danger: true }))) {
          replace = true;
          continue;
        }
        return setErr(x.message);
      }
    }
  };
  return html`<form class="set-key-form" onSubmit=${save}>
    <input type="password" class="set-key-input" name="key" autocomplete="off" spellcheck="false"
      aria-label=${'API key for ' + id}
      placeholder=${'API key for ' + id} value=${key}
        onInput=${(e) => { setKey(e.currentTarget.value); setErr(''); }} />
    <button class="btn small primary" type="submit" disabled=${!key.trim()}>Save key</button>
    ${err && html`<div class="stop error">${err}</div>`}
  </form>`;
}
