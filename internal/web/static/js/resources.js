// The settings page's Resources section: what a pi started in the project
// loads (skills, prompt templates, extension commands from pi's RPC;
// extensions, MCP servers and packages from pi's files), the resources
// `pi config` lists with a switch each (enabled or disabled exactly as pi
// config writes it: GET/PUT /api/config/resources), and pi packages
// installed and removed through pi's own `pi install` / `pi remove`
// (POST /api/config/packages), with pi's output shown.
import { useEffect, useState } from 'preact/hooks';
import { html } from './html.js';
import * as api from './api.js';
import { toast, confirm } from './state.js';
import { matches } from './settingsearch.js';
import { t } from './i18n.js';

// Under a search (q) that does not name resources, only the ones it
// names are listed, and the section hides when there are none; it stays
// mounted, so that pi is not asked again after the search.
export function Resources({ cwd, rev, trusted, q }) {
  const [res, setRes] = useState(null);
  const [n, setN] = useState(0);
  useEffect(() => setRes(null), [cwd]);
  // A reload keeps the list shown until pi's new answer replaces it.
  useEffect(() => {
    if (!cwd) return undefined;
    let live = true;
    api.listResources(cwd).then((d) => live && setRes(d), (e) => live && setRes({ error: e.message }));
    return () => { live = false; };
  }, [cwd, rev, n]);
  const reload = () => setN((x) => x + 1);
  const toProject = () => document.querySelector('.set-project-select')?.focus();
  const all = matches(q, 'resources extensions skills prompt templates themes mcp servers packages commands',
    t('res.title'));
  const pick = all ? everything : (x) => matches(q, x.name, x.path, x.description, x.detail);
  const hidden = !all && !(res && !res.error && resourceItems(res).some(pick));
  return html`<section class="set-section set-resources" hidden=${hidden}><h2>${t('res.title')} <span
    class="muted">${cwd
    ? t('res.loadsIn', { cwd }) : ''}</span></h2>
    ${!cwd && html`<p class="muted">${t('res.dependsOn')} <button class="btn-link" type="button"
      onClick=${toProject}>${t('res.chooseOne')}</button>.</p>`}
    ${cwd && !res && html`<p class="muted">${t('res.asking')}</p>`}
    ${res && res.error && html`<div class="stop error">${res.error}</div>`}
    ${res && !res.error && html`
      <${Loaded} res=${res} cwd=${cwd} trusted=${trusted} changed=${reload} pick=${pick} />
      <${Switches} cwd=${cwd} res=${res} setStates=${(states) => { setRes({ ...res, states }); reload(); }}
        pick=${pick} />
      ${all && html`<${Packages} cwd=${cwd} res=${res} trusted=${trusted} changed=${reload} />`}`}
  </section>`;
}

const GROUPS = ['skill', 'prompt', 'extension', 'installed-extension', 'mcp', 'package']
  .map((k) => [k, t('res.g.' + k)]);

// Loaded lists what pi loads, by kind, with where each comes from; an MCP
// server has a switch, which writes its mcp.json as pi's /mcp does.
function Loaded({ res, cwd, trusted, changed, pick }) {
  const mcp = async (x, enabled, inProject) => {
    try {
      await api.setMCPEnabled({ cwd, scope: inProject ? 'project' : x.scope, name: x.name, enabled,
        override: inProject || undefined });
      const key = (enabled ? 'res.mcpEnabled' : 'res.mcpDisabled') + (inProject ? 'Here' : 'In');
      toast(t(key, { name: x.name, path: x.path }));
    } catch (e) { toast(t('res.notChanged', { why: e.message }), { kind: 'error', ms: 8000 }); }
    changed();
  };
  // pi's /mcp offers a global server "Enable (or Disable) in this
  // project" in a trusted project. A project entry that only overrides a
  // global server shows on the global server's row (one server, one row):
  // its state in this project, and the button flips the override.
  const installed = res.installed || [];
  const mcpOf = (scope) => new Map(installed.filter((x) => x.kind === 'mcp' && x.scope === scope).map((x) => [x.name,
    x]));
  const globals = mcpOf('user');
  const overrides = new Map([...mcpOf('project')].filter(([, o]) => o.override));
  const overrideOf = (x) => x.kind === 'mcp' && x.scope === 'user' && overrides.get(x.name);
  const folded = (x) => x.kind === 'mcp' && x.scope === 'project' && x.override && globals.has(x.name);
  const inProject = (x) => trusted && x.kind === 'mcp' && x.scope === 'user';
  const flipInProject = (x) => {
    const o = overrideOf(x);
    return o ? mcp(o, !!o.disabled) : mcp(x, !!x.disabled, true);
  };
  const projectState = (x) => {
    const o = overrideOf(x);
    return o ? html`<span class="muted mcp-here">${t(o.disabled ? 'res.hereDisabled' : 'res.hereEnabled')}</span>` : '';
  };
  const stateHere = (x) => { const o = overrideOf(x); return o ? !o.disabled : !x.disabled; };
  const all = [...(res.resources || []), ...installed.filter((x) => !folded(x)).map((x) => ({ ...x,
    installed: true })), ...listedExtensions(res, installed)];
  const kindOf = (x) => (x.installed && x.kind === 'extension' ? 'installed-extension' : x.kind);
  return GROUPS.map(([kind, title]) => {
    const items = all.filter((x) => kindOf(x) === kind && pick(x));
    if (!items.length && pick !== everything) return null;
    return html`<h3 key=${kind}>${title} <span class="muted">${items.length}</span></h3>
      ${!items.length && html`<p class="muted">${t('res.none')}</p>`}
      <ul class="set-res-list">${items.map((x) => html`<li key=${x.name + x.path} class="set-res" data-kind=${kind}>
        ${kind === 'mcp' && html`<input type="checkbox" class="mcp-enabled" data-name=${x.name} data-scope=${x.scope}
          aria-label=${t('res.enable', { name: x.name })}
          checked=${!x.disabled} onChange=${(e) => mcp(x, e.currentTarget.checked)} />`}
        <span class="set-res-name">${kind === 'extension' || kind === 'prompt' ? '/' : ''}${x.name}</span>
        ${x.detail && html`<code class="set-res-detail">${x.detail}</code>`}
        ${x.override && html`<span class="muted">${t('res.overrides')}</span>`}
        ${x.disabled && html`<span class="set-off">${t('res.disabled')}</span>`}
        ${projectState(x)}
        ${inProject(x) && html`<button class="btn small mcp-project" type="button" data-name=${x.name}
          onClick=${() => flipInProject(x)}>${t(stateHere(x) ? 'res.disableHere' : 'res.enableHere')}</button>`}
        <span class="muted set-res-from">${x.scope || ''}${x.source && x.source !== 'local' ? ' · ' + x.source : ''}
          </span>
        ${x.description && html`<span class="set-res-doc">${x.description}</span>`}
        ${x.path && html`<span class="muted set-res-path">${x.path}</span>`}</li>`)}</ul>
      ${kind === 'mcp' && pick === everything && res.piwebMcp && html`<${PiwebMCP} p=${res.piwebMcp} cwd=${cwd}
        changed=${changed} />`}`;
  });
}

const everything = () => true;

// resourceItems is everything the section can list, for the search.
const resourceItems = (res) => [...(res.resources || []), ...(res.installed || []),
  ...((res.states && (res.states.project || res.states.global)) || []).map((s) => ({ ...s, name: displayName(s) }))];

// listedExtensions are the extensions pi config lists (built-in ones
// included) that pi's files did not already name, so that the Extensions
// count is what pi loads.
function listedExtensions(res, installed) {
  const st = res.states || {};
  const named = new Set(installed.filter((x) => x.kind === 'extension').map((x) => x.path));
  return (st.project || st.global || []).filter((s) => s.type === 'extensions' && !named.has(s.path))
    .map((s) => ({ kind: 'extension', installed: true, name: displayName(s), path: s.source === 'builtin' ? ''
      : s.path, scope: s.source === 'builtin' ? 'built-in' : s.scope, disabled: !s.enabled }));
}

// PiwebMCP offers to make piweb one of pi's MCP servers (piweb mcp:
// search and read every session), written into the agent dir's mcp.json
// as `pi mcp add` writes it, with the entry to copy instead.
function PiwebMCP({ p, cwd, changed }) {
  const [busy, setBusy] = useState(false);
  const entry = JSON.stringify({ mcpServers: { [p.name]: p.config } }, null, 2);
  if (p.added) {
    const reload = html`<code>/reload</code>`;
    return html`<p class="set-piweb-mcp added muted">${split(t('res.piwebAdded'), 'reload', reload)}</p>`;
  }
  const add = async () => {
    setBusy(true);
    try {
      await api.addPiwebMCP({ cwd });
      toast(t('res.piwebAddedTo', { path: p.path }));
    } catch (e) { toast(t('res.notAdded', { why: e.message }), { kind: 'error', ms: 8000 }); }
    setBusy(false);
    changed();
  };
  return html`<div class="set-piweb-mcp">
    <p><strong>${t('res.letPi')}</strong> ${t('res.letPiDoc')}</p>
    <button class="btn small set-piweb-mcp-add" type="button" disabled=${busy} onClick=${add}>${t('res.addPiweb')}
      </button>
    <details><summary>${split(t('res.orAdd'), 'path', html`<code>${p.path}</code>`)}</summary><pre
      class="set-piweb-mcp-entry">${entry}
      </pre></details></div>`;
}

// OVERRIDES are pi config --local's states of a global resource in one
// project (project settings; the global switch stays as it is).
const OVERRIDES = { inherit: t('res.ov.inherit'), load: t('res.ov.load'), unload: t('res.ov.unload') };

const TYPE_LABELS = { extensions: t('res.t.extensions'), skills: t('res.t.skills'), prompts: t('res.t.prompts'),
  themes: t('res.t.themes') };

// groupLabel is pi config's getGroupLabel.
function groupLabel(s) {
  if (s.origin === 'package') return s.source + ' (' + s.scope + ')';
  if (s.source === 'builtin') return s.scope === 'user' ? 'Built-in' : 'Built-in (project override)';
  if (s.source === 'auto') return s.scope === 'user' ? 'User (' + (s.baseDir || '') + '/)' : 'Project (.pi/)';
  return s.scope === 'user' ? 'User settings' : 'Project settings';
}

// displayName is pi config's name for a resource.
function displayName(s) {
  const parts = s.path.split('/');
  const file = parts[parts.length - 1];
  const parent = parts[parts.length - 2] || '';
  if (s.source === 'builtin') return s.path.slice('builtin:'.length);
  if (s.type === 'extensions' && parent !== 'extensions') return parent + '/' + file;
  if (s.type === 'skills' && file === 'SKILL.md') return parent;
  return file;
}

// Switches lists what `pi config` lists for the project (its project
// view when pi trusts the project, else the global one), grouped as pi
// config groups it, each with a switch (pi config's own-scope toggle)
// and, in a trusted project, a global resource with pi config --local's
// override for this project.
function Switches({ cwd, res, setStates, pick }) {
  const [busy, setBusy] = useState('');
  if (res.statesError) return html`<div class="stop error">${t('res.listNA', { why: res.statesError })}</div>`;
  const st = res.states || {};
  const list = st.project || st.global || [];
  const groups = [];
  for (const s of list.filter((x) => pick({ ...x, name: displayName(x) }))) {
    const label = groupLabel(s);
    let g = groups.find((x) => x.label === label);
    if (!g) groups.push((g = { label, items: [] }));
    g.items.push(s);
  }
  if (pick !== everything && !groups.length) return null;
  const change = async (s, body, done) => {
    setBusy(s.type + s.path);
    try {
      setStates(await api.setResourceEnabled({ cwd, type: s.type, path: s.path, ...body }));
      toast(done);
    } catch (e) {
      toast(t('res.notChanged', { why: e.message }), { kind: 'error', ms: 8000 });
    }
    setBusy('');
  };
  const flip = (s, enabled) => change(s, { enabled }, t(enabled ? 'res.enabledIn' : 'res.disabledIn',
    { name: displayName(s), file: s.scope === 'project' ? cwd + '/.pi/settings.json' : 'settings.json' }));
  const override = (s, project) => change(s, { project },
    t('res.overrideDone', { name: displayName(s), state: OVERRIDES[project] }));
  return html`<h3 class="set-res-switches">${t('res.enabledRes')} <span class="muted">${
    split(t('res.asPiConfig'), 'cmd', html`<code>pi config</code>`)}</span></h3>
    ${(st.installFailures || []).map((f) => html`<div class="stop error" key=${f}>${f}</div>`)}
    ${!list.length && html`<p class="muted">${t('res.listsNone')}</p>`}
    ${groups.map((g) => html`<div class="set-res-group" key=${g.label}><h4>${g.label}</h4>
      <ul class="set-res-list">${g.items.map((s) => html`<li key=${s.type + s.path} class="set-res set-toggle"
        data-type=${s.type}>
        <label class="set-toggle-label"><input type="checkbox" class="res-enabled" data-path=${s.path}
          data-type=${s.type}
          checked=${s.enabled} disabled=${busy === s.type + s.path}
            onChange=${(e) => flip(s, e.currentTarget.checked)} />
          <span class="set-res-name">${displayName(s)}</span> <span class="muted">${TYPE_LABELS[s.type]}</span>
          ${!s.enabled && html`<span class="set-off">${t('res.disabled')}</span>`}</label>
        ${st.project && s.inherited && html`<select class="res-override" data-path=${s.path} data-type=${s.type}
          aria-label=${t('res.inProjectOf', { name: displayName(s) })}
          value=${s.override || 'inherit'} disabled=${busy === s.type + s.path}
            onChange=${(e) => override(s, e.currentTarget.value)}>
          ${Object.entries(OVERRIDES).map(([v, label]) => html`<option key=${v} value=${v}>${
            t('res.inProjectOpt', { state: label })}</option>`)}</select>`}
        <span class="muted set-res-path">${s.path}</span></li>`)}</ul></div>`)}`;
}

// Packages installs a pi package by name (or URL, or local path) through
// `pi install`, removes one through `pi remove`, and shows what pi said.
function Packages({ cwd, res, trusted, changed }) {
  const [source, setSource] = useState('');
  const [local, setLocal] = useState(false);
  const [run, setRun] = useState(null); // {command, output, exitCode, timedOut} or {running}
  const pkgs = (res.installed || []).filter((x) => x.kind === 'package');
  const go = async (action, src, isLocal) => {
    setRun({ running: true, command: 'pi ' + action + ' ' + src + (isLocal ? ' -l' : '') });
    try {
      const r = await api.packageCommand({ cwd, action, source: src, local: isLocal });
      setRun(r);
      if (r.exitCode === 0) {
        toast(t(action === 'install' ? 'res.installed' : 'res.removed', { src }));
        if (action === 'install') setSource('');
      } else toast(t(r.timedOut ? 'res.cmdTimedOut' : 'res.cmdFailed', { action }), { kind: 'error', ms: 8000 });
    } catch (e) {
      setRun({ command: 'pi ' + action + ' ' + src, output: e.message, exitCode: -1 });
    }
    changed();
  };
  const remove = async (x) => {
    const src = x.resolved || x.detail;
    const cmd = 'pi remove ' + src + (x.scope === 'project' ? ' -l' : '');
    if (await confirm(t('res.removeTitle', { name: x.name }), t('res.removeText', { cmd, path: x.path }),
      { ok: t('prov.remove'), danger: true })) {
      go('remove', src, x.scope === 'project');
    }
  };
  const submit = (e) => { e.preventDefault(); if (source.trim()) go('install', source.trim(), local); };
  return html`<h3>${t('res.pkgs')} <span class="muted">${through()}</span></h3>
    <ul class="set-res-list set-pkg-list">${pkgs.map((x) => html`<li key=${x.scope + x.detail} class="set-res set-pkg">
      <span class="set-res-name">${x.name}</span> <span class="muted">${x.scope}</span>
      <button class="btn small set-pkg-remove" type="button" disabled=${run && run.running}
        onClick=${() => remove(x)}>${t('prov.remove')}</button>
      <span class="muted set-res-path">${x.resolved || x.detail}</span></li>`)}</ul>
    ${!pkgs.length && html`<p class="muted">${t('res.noPkgs')}</p>`}
    <form class="set-pkg-form" onSubmit=${submit}>
      <input class="set-pkg-source" placeholder=${t('res.pkgHint')}
        aria-label=${t('res.pkgSource')}
        value=${source} onInput=${(e) => setSource(e.currentTarget.value)} />
      <label class="set-pkg-local" title=${trusted ? '' : t('res.trustFirst')}>
        <input type="checkbox" checked=${local} disabled=${!trusted}
          onChange=${(e) => setLocal(e.currentTarget.checked)} /> ${t('res.localOnly')}</label>
      <button class="btn small set-pkg-install" type="submit"
        disabled=${!source.trim() || (run && run.running)}>${t('res.install')}</button></form>
    <p class="muted">${t('res.localFrom', { cwd })}</p>
    ${run && html`<div class=${'set-pkg-run' + (run.running ? '' : run.exitCode === 0 ? ' ok' : ' bad')}>
      <div class="set-pkg-cmd"><code>${run.command}</code> ${run.running
        ? html`<span class="muted">${t('res.running')}</span>`
        : html`<span class="set-pkg-exit">${run.timedOut ? t('res.timedOut') : t('res.exit', { code: run.exitCode })}
          </span>`}
        </div>
      ${!run.running && html`<pre class="set-pkg-output">${run.output || t('res.noOutput')}</pre>`}</div>`}`;
}

// split puts el where msg has {name}: a sentence with a code element inside.
function split(msg, name, el) {
  const [before, after = ''] = msg.split('{' + name + '}');
  return html`${before}${el}${after}`;
}

// through names the commands pi packages go through, as code.
function through() {
  const [a, rest = ''] = t('res.through').split('{install}');
  const [b, c = ''] = rest.split('{remove}');
  return html`${a}<code>pi install</code>${b}<code>pi remove</code>${c}`;
}
