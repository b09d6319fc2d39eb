// The settings page's Agent section: pi's settings other than the model
// ones, each once, by its human name with pi's key shown small; the
// global value (settings.json) and, when a project is chosen, the
// project's override beside it (its .pi/settings.json), which pi reads
// only when it trusts the project.
import { html } from './html.js';
import { keyName, labelOf, settingMatches } from './settingsearch.js';
import { baseName } from './util.js';
import { t } from './i18n.js';

export const MODEL_KEYS = new Set(['defaultProvider', 'defaultModel', 'defaultThinkingLevel', 'enabledModels']);

// agentRows are the settings the Agent section shows for query q, found
// by their values too (the global one, the chosen project's).
export const agentRows = (cfg, q) => cfg.schema.filter((st) => !MODEL_KEYS.has(st.key) && settingMatches(q, st,
  valueOf(cfg.global.settings || {}, st), cfg.project ? valueOf(cfg.project.settings || {}, st) : undefined));

export function AgentForm({ cfg, cwd, q, apply }) {
  const rows = agentRows(cfg, q);
  const global = cfg.global.settings || {};
  const project = cwd && cfg.project ? cfg.project.settings || {} : null;
  const locked = !!project && !(cfg.trust && cfg.trust.trusted);
  const head = project && html`<div class="set-row set-cols muted" aria-hidden="true"><span class="set-label"></span>
    <span class="set-control">${t('form.everywhere')} <code>settings.json</code></span>
    <span class="set-control set-override">${t('form.inProject', { name: baseName(cwd) })} <code
      >.pi/settings.json</code></span></div>`;
  return html`<div class=${'set-form' + (project ? ' with-project' : '')}>${head}${rows.map((st) => {
    const name = keyName(st);
    const g = valueOf(global, st);
    const p = project ? valueOf(project, st) : undefined;
    const save = (scope) => (value) => apply([{ key: st.key, sub: st.sub || undefined, value }], scope,
      t('form.what', { label: labelOf(st), key: name }));
    return html`<div class="set-row" key=${name} data-key=${name}>
      <label class="set-label" for=${'set-' + name}><span class="set-name">${labelOf(st)}</span>
        <code class="set-pikey">${name}</code><span class="set-doc muted">${st.doc}</span></label>
      <span class="set-control"><span class="set-scope muted">${t('form.everywhere')}</span>
        <${Control} id=${'set-' + name} st=${st} value=${g} save=${save('')} label=${labelOf(st)} />
        <span class="muted set-default">${defaultText(st)}</span>
        ${g !== undefined && html`<button class="btn-link set-reset" type="button"
          onClick=${() => save('')(undefined)}>${t('form.reset')}</button>`}</span>
      ${project && html`<span class=${'set-control set-override' + (p !== undefined ? ' set' : '')}>
        <span class="set-scope muted">${t('form.inProject', { name: baseName(cwd) })}</span>
        <${Control} id=${'set-' + cwd + name} st=${st} value=${p} inherited=${g !== undefined ? g : st.default}
          disabled=${locked} save=${save(cwd)} label=${t('form.labelIn', { label: labelOf(st), cwd })} />
        ${p !== undefined && html`<button class="btn-link set-reset" type="button" disabled=${locked}
          onClick=${() => save(cwd)(undefined)}>${t('form.asGlobalBtn')}</button>`}</span>`}
    </div>`;
  })}</div>`;
}

function valueOf(obj, st) {
  const v = obj[st.key];
  if (!st.sub) return v;
  return v && typeof v === 'object' ? v[st.sub] : undefined;
}

const shown = (st, v) => (st.kind === 'bool' ? t(v ? 'common.on' : 'common.off') : String(v));

function defaultText(st) {
  return st.default !== undefined ? t('form.defaultIs', { value: shown(st, st.default) }) : '';
}

// Control edits one value; inherited (a project's control) is what
// applies when it is left unset, named in its empty choice.
function Control({ id, st, value, inherited, disabled, save, label }) {
  const cls = 'set-input';
  const unset = inherited !== undefined ? t('form.asGlobal', { value: shown(st, inherited) }) : t('form.default');
  if (st.kind === 'bool') {
    return html`<select id=${id} class=${cls} disabled=${disabled} aria-label=${label}
      value=${value === undefined ? '' : String(value)}
      onChange=${(e) => save(e.target.value === '' ? undefined : e.target.value === 'true')}>
      <option value="">${unset}</option><option value="true">${t('common.on')}</option><option value="false">${
        t('common.off')}</option></select>`;
  }
  if (st.kind === 'enum') {
    return html`<select id=${id} class=${cls} disabled=${disabled} aria-label=${label}
      value=${value === undefined ? '' : value} onChange=${(e) => save(e.target.value || undefined)}>
      <option value="">${unset}</option>${st.options.map((o) => html`<option key=${o} value=${o}>${o}</option>`)}
        </select>`;
  }
  if (st.kind === 'int') {
    const commit = (e) => {
      const v = e.currentTarget.value.trim();
      if (v === (value === undefined ? '' : String(value))) return;
      save(v === '' ? undefined : Number(v));
    };
    return html`<input id=${id} class=${cls + ' num'} type="number" min="0" step="1" inputmode="numeric"
      disabled=${disabled} aria-label=${label}
      value=${value === undefined ? '' : value} placeholder=${inherited !== undefined
        ? String(inherited) : st.default !== undefined ? String(st.default) : ''}
      onChange=${commit} onKeyDown=${(e) => { if (e.key === 'Enter') commit(e); }} />`;
  }
  return html`<input id=${id} class=${cls} disabled=${disabled} aria-label=${label}
    value=${value === undefined ? '' : value} onChange=${(e) => save(e.currentTarget.value || undefined)} />`;
}
