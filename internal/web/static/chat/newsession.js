// The new-session dialog: the machine (under serve --fleet: this one or
// another online one this piweb drives), cwd (that machine's recent
// projects; here also a typed path the server validates, another machine
// starts sessions only in its known folders), model (that machine's),
// thinking level, tool preset and the first message.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from '../js/html.js';
import { useDialogFocus } from '../js/dialogfocus.js';
import { listProjects, createSession, sessionRef } from '../js/api.js';
import { navigate, sessionURL } from '../js/state.js';
import { fleet, drives, whenPushed } from '../js/fleet.js';
import { models, scoped, starting } from './store.js';
import { useFolderCheck } from './folders.js';
import { t } from '../js/i18n.js';

const LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'];
const PRESETS = ['default', 'read-only', 'none', 'all'];

export function NewSessionButton() {
  const [open, setOpen] = useState(false);
  return html`<button class="btn primary new-session" type="button"
    onClick=${() => setOpen(true)}>${t('ns.button')}</button>
    ${open && html`<${NewSession} close=${() => setOpen(false)} />`}`;
}

// NewSession is the dialog; cwd preselects a folder (pi's /new: a new
// session where this one runs) on machine ('' for this one). Only folders
// that exist are offered or filled in; one typed here is checked as it is
// typed, and Start waits for a folder that exists.
export function NewSession({ close, cwd = '', machine = '' }) {
  const [projects, setProjects] = useState([]);
  const [list, setList] = useState([]);
  const [f, setF] = useState({ machine, cwd, model: '', thinkingLevel: '', tools: 'default', message: '' });
  const [err, setErr] = useState('');
  const [busy, setBusy] = useState(false);
  const box = useRef(null);
  useDialogFocus(box);
  useEffect(() => { const m = document.querySelector('.new-session-dialog [name=message]'); if (m) m.focus(); }, []);
  useEffect(() => {
    let gone = false; // another machine picked meanwhile
    listProjects(f.machine).then((d) => {
      if (gone) return;
      const here = (d.projects || []).filter((p) => !p.missing);
      setProjects(here);
      setF((x) => (x.cwd ? x : { ...x, cwd: (here[0] || {}).cwd || '' }));
    }).catch(() => { if (!gone) setProjects([]); });
    models(f.machine).then((d) => { if (!gone) setList(scoped(d.models || [], d.enabledModels)); })
      .catch(() => { if (!gone) setList([]); });
    return () => { gone = true; };
  }, [f.machine]);
  const set = (k) => (e) => setF({ ...f, [k]: e.target.value });
  const exists = useFolderCheck(f.machine ? '' : f.cwd.trim()); // another machine: only its known folders
  const pick = (e) => setF({ ...f, machine: e.target.value, cwd: '', model: '' });
  const submit = async (e) => {
    e.preventDefault();
    if (!f.cwd.startsWith('/')) return setErr(t('ns.absolute'));
    if (exists === false) return setErr(t('ns.noFolder', { cwd: f.cwd }));
    if (!f.message.trim()) return setErr(t('ns.writeFirst'));
    const body = { cwd: f.cwd, message: f.message.trim(), tools: f.tools };
    if (f.model) body.model = f.model;
    if (f.thinkingLevel) body.thinkingLevel = f.thinkingLevel;
    setBusy(true);
    try {
      const r = await createSession(body, f.machine);
      const ref = sessionRef(r.id, f.machine);
      starting.set(ref, { message: body.message, cwd: f.cwd, model: f.model });
      if (f.machine) await whenPushed(ref, f.machine); // read from the fleet database, once pushed
      close();
      navigate(sessionURL(ref));
    } catch (x) {
      setErr(x.message);
      setBusy(false);
    }
  };
  return html`<div class="overlay" onPointerDown=${(e) => { if (e.target === e.currentTarget) close(); }}>
    <form class="dialog new-session-dialog" role="dialog" aria-modal="true" aria-label=${t('ns.button')} ref=${box}
      onSubmit=${submit}
      onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); close(); } }}>
      <h2>${t('ns.button')}</h2>
      <${MachinePicker} value=${f.machine} onChange=${pick} />
      ${f.machine ? html`<label>${t('ns.cwd')}<select name="cwd" value=${f.cwd} onChange=${set('cwd')} required>
        ${projects.map((p) => html`<option key=${p.cwd} value=${p.cwd}>${p.cwd}</option>`)}</select></label>`
      : html`<label>${t('ns.cwd')}<input name="cwd" list="ns-projects" value=${f.cwd} onInput=${set('cwd')}
        required /></label>
      ${f.cwd.trim() && exists === false && html`<p class="stop error ns-folder-missing" role="alert">${
        t('ns.folderMissing', { cwd: f.cwd.trim() })}</p>`}
      <datalist id="ns-projects">${projects.map((p) => html`<option key=${p.cwd} value=${p.cwd} />`)}</datalist>`}
      <label>${t('ns.model')}<select name="model" value=${f.model} onChange=${set('model')}><option value="">${
        t('ns.piDefault')}</option>
        ${list.map((m) => html`<option key=${m.provider + '/' + m.id} value=${m.provider + '/' + m.id}>${m.name || m.id}
          </option>`)}</select></label>
      <label>${t('ns.thinking')}<select name="thinkingLevel" value=${f.thinkingLevel}
        onChange=${set('thinkingLevel')}><option value="">${t('ns.piDefault')}</option>
        ${LEVELS.map((x) => html`<option key=${x} value=${x}>${x}</option>`)}</select></label>
      <label>${t('ns.tools')}<select name="tools" value=${f.tools} onChange=${set('tools')}>
        ${PRESETS.map((x) => html`<option key=${x} value=${x}>${x}</option>`)}</select></label>
      <label>${t('ns.first')}<textarea name="message" rows="4" value=${f.message} onInput=${set('message')}
        onKeyDown=${(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit(e); }}></textarea></label>
      ${err && html`<p class="stop error ns-error" role="alert">${err}</p>`}
      ${busy && html`<p class="muted ns-starting"
        role="status">${t(f.machine ? 'ns.startingOn' : 'ns.starting', { cwd: f.cwd, machine: f.machine,
          model: f.model || t('ns.piDefaultModel') })}</p>`}
      <div class="dialog-actions"><button class="btn" type="button" onClick=${close}>${t('common.cancel')}</button>
        <button class="btn primary" type="submit" disabled=${busy || exists === false}>
          ${t(busy ? 'ns.startingBtn' : 'ns.start')}</button></div>
    </form></div>`;
}

// MachinePicker chooses where a new session runs under serve --fleet:
// this machine first, then each other machine online that this piweb
// drives ('' is this machine). Without such a machine it shows nothing.
function MachinePicker({ value, onChange }) {
  const fl = fleet.value;
  const others = fl ? (fl.machines || []).filter((m) => m.name !== fl.self && drives(m.name)).map((m) => m.name) : [];
  if (!others.length && !value) return null;
  if (value && !others.includes(value)) others.push(value);
  return html`<label>${t('ns.machine')}<select name="machine" value=${value} onChange=${onChange}>
    <option value="">${fl ? t('ns.thisMachineNamed', { name: fl.self }) : t('side.thisMachine')}</option>
    ${others.map((n) => html`<option key=${n} value=${n}>${n}</option>`)}</select></label>`;
}
