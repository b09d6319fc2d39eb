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
import { t } from './i18n.js';
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
  const all = matches(q, 'providers and keys api auth.json', t('prov.title'));
  const shown = all ? ids : ids.filter((id) => matches(q, id));
  const adding = all || matches(q, 'add an api key provider', ...others);
  const signing = all || matches(q, 'sign in subscription account login');
  if (!shown.length && !adding && !signing) return null;
  return html`<section class="set-section set-providers"><h2>${t('prov.title')} <span class="muted">${cfg.auth.path}
    </span></h2>
    ${cfg.auth.error && html`<div class="stop error set-file-error">
      ${t('prov.authError', { error: cfg.auth.error })}</div>`}
    ${!ids.length && html`<p class="muted">${t('prov.none')}</p>`}
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
    const ok = { ok: t('prov.remove'), danger: true };
    if (!(await confirm(t('prov.removeTitle'), t('prov.removeText', { id }), ok))) return;
    try { await api.removeKey(id); toast(t('prov.removed', { id })); } catch (e) {
      toast(t('prov.notRemoved', { why: e.message }), { kind: 'error' });
    }
    changed();
  };
  return html`<li class=${'set-prov' + (wanted ? ' wanted' : '')} data-provider=${id} ref=${ref}>
    <div class="set-prov-main"><strong>${id}</strong>
      <span class="muted">${models.length ? t('prov.models', { count: models.length }) : t('prov.noModels')}</span>
      ${cred && html`<span class="set-key muted">${cred.type === 'api_key'
        ? t('prov.keyIs', { masked: cred.masked || '' })
        : t('prov.signedIn')}</span>`}
      ${!cred && models.length > 0 && html`<span class="muted">${t('prov.envKey')}</span>`}
      ${test && html`<span class=${'set-test ' + (test.busy ? 'muted' : test.ok ? 'ok' : 'bad')}>
        ${test.busy ? t('prov.testing') : test.ok ? t('prov.works', { ms: test.ms }) : test.error}</span>`}</div>
    <div class="set-prov-actions">
      ${models.length > 0 && html`<button class="btn small set-test-btn" type="button" disabled=${test && test.busy}
        title=${t('prov.testTitle', { model: models[0].id })} onClick=${runTest}>${t('prov.test')}</button>`}
      ${(!info || !info.ambient) && html`<button class="btn small" type="button" onClick=${() => setKeyOpen(!keyOpen)}>
        ${t(cred && cred.type === 'api_key' ? 'prov.replaceKey' : 'prov.setKey')}</button>`}
      ${cred && html`<button class="btn small danger" type="button"
        onClick=${remove}>${t('prov.remove')}</button>`}</div>
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
    <div class="set-row"><label class="set-label" for="set-add-provider">${t('prov.addFor')}</label>
      <select id="set-add-provider" class="set-add-provider" value=${id} onChange=${(e) => setId(e.target.value)}>
        <option value="">${t('prov.choose')}</option>
        ${ids.map((x) => html`<option key=${x} value=${x}>${x}</option>`)}</select></div>
    ${info && info.env && html`<p class="muted">${t('prov.alsoReads')} ${
      info.env.map((e, i) => html`${i ? t('prov.or') : ''}
      <code>${e}</code>`)}.</p>`}
    ${info && info.signIn && html`<p class="muted">${t('prov.orSignIn')}</p>`}
    ${info && info.ambient && html`<p class="muted">${t('prov.ambient', { id })}</p>`}
    ${id && !(info && info.ambient) && html`<${KeyForm} id=${id} changed=${() => { setId(''); changed(); }} />`}
  </div>`;
}

// KeyForm takes a key and stores it; it is never read back.
function KeyForm({ id, changed }) {
  const [key, setKey] = useState('');
  const [err, setErr] = useState('');
  const save = async (e) => {
    e.preventDefault();
    if (/[\r\n]/.test(key)) return setErr(t('prov.lineBreak'));
    let replace = false;
    for (;;) {
      try {
        await api.setKey(id, key.trim(), replace);
        toast(t('prov.savedKey', { id }));
        setKey('');
        return changed();
      } catch (x) {
        if (x.code === 'corrupt' && !replace && (await confirm(t('prov.replaceAuthTitle'),
          t('prov.replaceAuthText', { error: x.message }), { ok: t('set.replace'), danger: true }))) {
          replace = true;
          continue;
        }
        return setErr(x.message);
      }
    }
  };
  return html`<form class="set-key-form" onSubmit=${save}>
    <input type="password" class="set-key-input" name="key" autocomplete="off" spellcheck="false"
      aria-label=${t('prov.keyFor', { id })}
      placeholder=${t('prov.keyFor', { id })} value=${key}
        onInput=${(e) => { setKey(e.currentTarget.value); setErr(''); }} />
    <button class="btn small primary" type="submit" disabled=${!key.trim()}>${t('prov.saveKey')}</button>
    ${err && html`<div class="stop error">${err}</div>`}
  </form>`;
}
