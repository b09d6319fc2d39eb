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

const LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'];
const PRESETS = ['default', 'read-only', 'none', 'all'];

export function NewSessionButton() {
  const [open, setOpen] = useState(false);
  return html`<button class="btn primary new-session" type="button" onClick=${() => setOpen(true)}>New session</button>
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
    if (!f.cwd.startsWith('/')) return setErr('The working directory must be an absolute path.');
    if (exists === false) return setErr(`There is no folder ${f.cwd} on this machine.`);
    if (!f.message.trim()) return setErr('Write the first message.');
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
    <form class="dialog new-session-dialog" role="dialog" aria-modal="true" aria-label="New session" ref=${box}
      onSubmit=${submit}
      onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); close(); } }}>
      <h2>New session</h2>
      <${MachinePicker} value=${f.machine} onChange=${pick} />
      ${f.machine ? html`<label>Working directory<select name="cwd" value=${f.cwd} onChange=${set('cwd')} required>
        ${projects.map((p) => html`<option key=${p.cwd} value=${p.cwd}>${p.cwd}</option>`)}</select></label>`
      : html`<label>Working directory<input name="cwd" list="ns-projects" value=${f.cwd} onInput=${set('cwd')}
        required /></label>
      ${f.cwd.trim() && exists === false && html`<p class="stop error ns-folder-missing" role="alert">There is no
        folder ${f.cwd.trim()} on this machine: pi cannot start there. Pick or type one that exists.</p>`}
      <datalist id="ns-projects">${projects.map((p) => html`<option key=${p.cwd} value=${p.cwd} />`)}</datalist>`}
      <label>Model<select name="model" value=${f.model} onChange=${set('model')}><option value="">pi's default</option>
        ${list.map((m) => html`<option key=${m.provider + '/' + m.id} value=${m.provider + '/' + m.id}>${m.name || m.id}
          </option>`)}</select></label>
      <label>Thinking<select name="thinkingLevel" value=${f.thinkingLevel} onChange=${set('thinkingLevel')}><option
        value="">pi's default</option>
        ${LEVELS.map((x) => html`<option key=${x} value=${x}>${x}</option>`)}</select></label>
      <label>Tools<select name="tools" value=${f.tools} onChange=${set('tools')}>
        ${PRESETS.map((x) => html`<option key=${x} value=${x}>${x}</option>`)}</select></label>
      <label>First message<textarea name="message" rows="4" value=${f.message} onInput=${set('message')}
        onKeyDown=${(e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) submit(e); }}></textarea></label>
      ${err && html`<p class="stop error ns-error" role="alert">${err}</p>`}
      ${busy && html`<p class="muted ns-starting"
        role="status">Starting pi in ${f.cwd}${f.machine ? ' on ' + f.machine : ''}: it loads its settings,
          extensions and models, then sends your message to ${f.model || "pi's default model"}. The first start can
          take several seconds.</p>`}
      <div class="dialog-actions"><button class="btn" type="button" onClick=${close}>Cancel</button>
        <button class="btn primary" type="submit" disabled=${busy || exists === false}>
          ${busy ? 'Starting…' : 'Start'}</button></div>
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
  return html`<label>Machine<select name="machine" value=${value} onChange=${onChange}>
    <option value="">${fl ? fl.self + ' (this machine)' : 'this machine'}</option>
    ${others.map((n) => html`<option key=${n} value=${n}>${n}</option>`)}</select></label>`;
}
