// The models editor: pi's models.json (custom providers and their models)
// as a form. GET/PUT /api/models-config; the server masks literal API keys
// as "***" and keeps the stored key when "***" comes back, so a key never
// reaches the page. Fields the form does not show (compat, headers, cost,
// modelOverrides…) are kept as they are. The form checks what pi 0.73's
// model registry requires before saving; after saving it asks pi for its
// models and warns about any it did not load.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../js/html.js';
import { useDialogFocus } from '../js/dialogfocus.js';
import { getModelsConfig, putModelsConfig } from '../js/api.js';
import { toast } from '../js/state.js';
import { refreshModels } from './store.js';
import { glyph } from '../js/icons.js';
import { t } from '../js/i18n.js';

const MASKED = '***';
const APIS = ['openai-completions', 'openai-responses', 'anthropic-messages', 'google-generative-ai'];

export function ModelsButton() {
  const [open, setOpen] = useState(false);
  return html`<button class="btn ghost small edit-models" type="button" title=${t('ctl.modelsTitle')}
    onClick=${() => setOpen(true)}>${t('ctl.modelsDots')}</button>
    ${open && html`<${ModelsEditor} close=${() => setOpen(false)} />`}`;
}

export function ModelsEditor({ close }) {
  const [provs, setProvs] = useState(null); // [{name, p}] with p the provider object
  const [rest, setRest] = useState({}); // top-level members other than providers
  const [errors, setErrors] = useState([]);
  const [busy, setBusy] = useState(false);
  const box = useRef(null);
  useDialogFocus(box);
  useEffect(() => {
    getModelsConfig().then((d) => load(d.config || {}), (e) => setErrors([e.message]));
  }, []);
  const load = (cfg) => {
    const { providers, ...others } = cfg;
    setRest(others);
    // stored: the server holds a key for the provider, which an emptied
    // field keeps (after a key was typed in and taken out again too).
    setProvs(Object.entries(providers || {}).map(([name, p]) => ({ name, stored: p.apiKey === MASKED, p: { ...p,
      models: (p.models || []).map((m) => ({ ...m })) } })));
  };
  const change = (i, f) => setProvs(provs.map((x, j) => (j === i ? f(x) : x)));
  const save = async (e) => {
    e.preventDefault();
    const errs = check(provs);
    setErrors(errs);
    if (errs.length) return;
    const config = { ...rest, providers: Object.fromEntries(provs.map((x) => [x.name.trim(), clean(x.p)])) };
    setBusy(true);
    try {
      await putModelsConfig(config);
      toast(t('mod.saved'), { ms: 8000 });
      const missing = await notLoaded(config);
      if (missing.length) toast(t('mod.notLoaded', { names: missing.join(', ') }),
        { kind: 'error', ms: 10000 });
      close();
    } catch (x) {
      setErrors([x.message]);
    }
    setBusy(false);
  };
  return html`<div class="overlay" onPointerDown=${(e) => { if (e.target === e.currentTarget) close(); }}>
    <form class="dialog models-dialog" role="dialog" aria-modal="true" aria-label=${t('mod.title')} ref=${box}
      onSubmit=${save}
      onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); close(); } }}>
      <h2>${t('mod.title')} <span class="muted">models.json</span></h2>
      <p class="muted small">${intro()}</p>
      ${!provs ? html`<p class="muted">${t('common.loading')}</p>`
        : provs.map((x, i) => html`<${Provider} key=${i} x=${x}
        set=${(f) => change(i, f)} remove=${() =>
          setProvs(provs.filter((_, j) => j !== i))} />`)}
      ${provs && html`<button class="btn small add-provider" type="button"
        onClick=${() => setProvs([...provs, { name: '', p: { baseUrl: '', api: 'openai-completions', apiKey: '',
        models: [{ id: '' }] } }])}>${t('mod.addProvider')}</button>`}
      ${errors.length > 0 && html`<ul class="stop error models-errors" role="alert">
        ${errors.map((m) => html`<li key=${m}>${m}</li>`)}</ul>`}
      <div class="dialog-actions"><button class="btn" type="button" onClick=${close}>${t('common.cancel')}</button>
        <button class="btn primary save-models" type="submit" disabled=${busy || !provs}>${
          t(busy ? 'mod.saving' : 'common.save')}
          </button></div>
    </form></div>`;
}

function Provider({ x, set, remove }) {
  const p = x.p;
  const setP = (k, v) => set((y) => ({ ...y, p: { ...y.p, [k]: v } }));
  const setModel = (i, m) => setP('models', p.models.map((o, j) => (j === i ? m : o)));
  const masked = p.apiKey === MASKED;
  return html`<fieldset class="provider">
    <div class="prov-row">
      <label>${t('mod.provider')}<input name="provider" value=${x.name} onInput=${(e) => set((y) => ({ ...y,
        name: e.target.value }))} /></label>
      <label>${t('mod.baseUrl')}<input name="baseUrl" value=${p.baseUrl || ''} placeholder="https://…/v1"
        onInput=${(e) => setP('baseUrl', e.target.value)} /></label>
      <label>${t('mod.api')}<select name="api" value=${p.api || ''} onChange=${(e) => setP('api', e.target.value)}>
        <option value="">${t('mod.perModel')}</option>${APIS.map((a) => html`<option key=${a} value=${a}>${a}
          </option>`)}</select></label>
      <label>${t('mod.apiKey')}<input name="apiKey" type=${masked || isLiteral(p.apiKey) ? 'password' : 'text'}
        autocomplete="off" value=${masked ? '' : p.apiKey || ''}
        placeholder=${t(masked ? 'mod.stored' : 'mod.keyHint')}
        onInput=${(e) => setP('apiKey', e.target.value || (x.stored ? MASKED : ''))} /></label>
      <button class="btn-link small remove-provider" type="button" onClick=${remove}>${t('prov.remove')}</button>
    </div>
    <table class="models-table"><thead><tr><th>${t('mod.modelId')}</th><th>${t('mod.name')}</th><th>${
      t('mod.reasoning')}</th><th>${t('mod.images')}</th><th>${t('mod.context')}</th>
        <th>${t('mod.maxOut')}</th><th></th>
      </tr></thead>
      <tbody>${(p.models || []).map((m, i) => html`<${ModelRow} key=${i} m=${m} set=${(v) => setModel(i, v)}
        remove=${() => setP('models', p.models.filter((_, j) => j !== i))} />`)}</tbody></table>
    <button class="btn-link small add-model" type="button" onClick=${() => setP('models', [...(p.models || []),
      { id: '' }])}>${t('mod.addModel')}</button>
  </fieldset>`;
}

function ModelRow({ m, set, remove }) {
  const num = (k) => (e) => {
    const v = e.target.value.trim();
    const n = { ...m };
    if (v === '') delete n[k]; else n[k] = Number(v);
    set(n);
  };
  const images = (m.input || ['text']).includes('image');
  return html`<tr>
    <td data-label=${t('mod.modelId')}><input name="id" aria-label=${t('mod.modelId')} value=${m.id || ''}
      onInput=${(e) => set({ ...m, id: e.target.value })} /></td>
    <td data-label=${t('mod.name')}><input name="name" aria-label=${t('mod.name')} value=${m.name || ''}
      placeholder=${m.id || ''}
      onInput=${(e) => { const n = { ...m, name: e.target.value }; if (!n.name) delete n.name; set(n); }} /></td>
    <td class="check" data-label=${t('mod.reasoning')}><input name="reasoning" aria-label=${t('mod.reasoning')}
      type="checkbox"
      checked=${!!m.reasoning} onChange=${(e) => set({ ...m, reasoning: e.target.checked })} /></td>
    <td class="check" data-label=${t('mod.images')}><input name="images" aria-label=${t('mod.images')} type="checkbox"
      checked=${images}
      onChange=${(e) => set({ ...m, input: e.target.checked ? ['text', 'image'] : ['text'] })} /></td>
    <td data-label=${t('mod.context')}><input name="contextWindow" aria-label=${t('mod.contextWindow')}
      inputmode="numeric"
      value=${m.contextWindow ?? ''} placeholder="128000" onInput=${num('contextWindow')} /></td>
    <td data-label=${t('mod.maxOut')}><input name="maxTokens"
      aria-label=${t('mod.maxOutTokens')} inputmode="numeric"
      value=${m.maxTokens ?? ''} placeholder="16384" onInput=${num('maxTokens')} /></td>
    <td class="remove"><button class="btn-link x remove-model" type="button" aria-label=${t('mod.removeModel')}
      onClick=${remove}>${glyph.close}</button></td></tr>`;
}

// isLiteral tells a secret from a reference, as the server does.
function isLiteral(k) {
  return !!k && !/^[A-Z_][A-Z0-9_]*$/.test(k) && k[0] !== '!';
}

// check returns what pi's model registry (0.73) and the server would
// refuse, in words.
export function check(provs) {
  const errs = [];
  const names = new Set();
  for (const { name, p } of provs) {
    const n = name.trim();
    if (!n) { errs.push(t('mod.errName')); continue; }
    if (names.has(n)) errs.push(t('mod.errTwice', { name: n }));
    names.add(n);
    const models = p.models || [];
    if (!models.length && !p.baseUrl && !p.headers && !p.compat
      && !p.modelOverrides) errs.push(t('mod.errUrlOrModel', { name: n }));
    if (models.length && (!p.baseUrl
      || !p.api)) errs.push(t('mod.errUrlApi', { name: n }));
    if (models.length && !p.apiKey) errs.push(t('mod.errKey', { name: n }));
    const ids = new Set();
    models.forEach((m, i) => {
      const id = (m.id || '').trim();
      if (!id) errs.push(t('mod.errNoId', { name: n, n: i + 1 }));
      else if (ids.has(id)) errs.push(t('mod.errIdTwice', { name: n, id }));
      ids.add(id);
      for (const k of ['contextWindow', 'maxTokens']) {
        if (m[k] !== undefined && !(Number.isFinite(m[k]) && m[k] > 0)) {
          errs.push(t('mod.errPositive', { name: n, id: id || i + 1, key: k }));
        }
      }
    });
  }
  return errs;
}

// clean drops empty optional strings, so pi sees them as absent.
function clean(p) {
  const q = { ...p, models: (p.models || []).map((m) => ({ ...m, id: m.id.trim() })) };
  for (const k of ['baseUrl', 'api', 'apiKey']) if (q[k] === '') delete q[k];
  if (!p.models) delete q.models;
  return q;
}

// notLoaded asks pi (GET /api/models, refreshed) which saved models it
// does not list: pi ignores a whole models.json it finds invalid.
async function notLoaded(config) {
  try {
    const d = await refreshModels();
    const have = new Set((d.models || []).map((m) => m.provider + '/' + m.id));
    const out = [];
    for (const [name, p] of Object.entries(config.providers)) for (const m of p.models || []) if (!have.has(name + '/'
      + m.id)) out.push(name + '/' + m.id);
    return out;
  } catch {
    return [];
  }
}

// intro is the editor's help line, "!command" as code.
function intro() {
  const [before, after] = t('mod.intro').split('{command}');
  return html`${before}<code>!command</code>${after}`;
}
