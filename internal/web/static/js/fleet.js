// The fleet in the page (serve --fleet, issue 22): the fleet's machines,
// online or offline by their heartbeat, and each other machine's sessions
// as it pushed them to the fleet database, kept current by the index
// topic's fleet_changed events. Another machine's session is named by its
// ref (api.sessionRef) and opens read-only from the database unless this
// piweb drives it on its machine (fleet.drive and the machine online).
import { signal } from '@preact/signals';
import { html } from './html.js';
import * as api from './api.js';
import { fleetEvent, PAGE, listSort } from './state.js';
import { ago, fmtDate } from './util.js';
import { t } from './i18n.js';

// fleet is GET /api/fleet/machines ({self, drive, machines}) under serve
// --fleet, else null.
export const fleet = signal(null);
// remote maps another machine's name to its listing: {sessions, total, limit}.
export const remote = signal(new Map());
// unreachable holds the machines whose piweb did not answer a request
// sent on to it (502), until their next heartbeat.
export const unreachable = signal(new Map()); // name -> lastHeartbeat when it failed

// PAGE (state.js) sessions are listed per machine until the user asks for more.

// startFleet learns whether the fleet is on and, when it is, loads it and
// follows its changes.
export async function startFleet() {
  let st;
  try {
    st = await api.getStatus();
  } catch {
    return;
  }
  if (!st.fleet) return;
  await loadMachines();
  fleetEvent.subscribe((ev) => { if (ev) changed(ev.machine); });
  let sort = listSort.peek(); // subscribe calls back at once: only a new sort reads the pages again
  listSort.subscribe((o) => { if (o !== sort) { sort = o; changed(''); } }); // pages of its first sessions
  window.addEventListener('piweb-unavailable', (e) => markUnreachable(e.detail));
  setInterval(loadMachines, 30000); // a machine that stops its heartbeats turns offline
}

// loadMachines reads the machines, and the listing of each other machine
// not listed yet. Readings may overlap (a push's notice, the 30 s timer):
// only the newest asked is kept, or an older answer coming last would
// bring back a machine as it was (online after its heartbeat went old).
let machinesAsked = 0;
async function loadMachines() {
  const asked = ++machinesAsked;
  try {
    const f = await api.fleetMachines();
    if (asked !== machinesAsked) return;
    fleet.value = f;
    for (const m of f.machines || []) if (m.name !== f.self && !remote.peek().has(m.name)) loadMachine(m.name);
  } catch { /* the status in the sidebar's foot says why the fleet does not answer */ }
}

// asking is the newest reading asked of each machine: only its answer
// is kept (as loadMachines'), and it asks for the most sessions any
// reading asked for. name -> { seq, n }
const asking = new Map();

// loadMachine reads the first sessions of a machine in the sidebar's sort
// (limit: how many).
export async function loadMachine(name, limit) {
  const had = remote.peek().get(name);
  const prev = asking.get(name) || { seq: 0, n: 0 };
  const n = limit || Math.max((had && had.limit) || PAGE, prev.n);
  const seq = prev.seq + 1;
  asking.set(name, { seq, n });
  try {
    const d = await api.listFleet(name, fleet.peek().self, n, listSort.peek());
    if (asking.get(name).seq !== seq) return; // a newer reading was asked meanwhile
    const m = new Map(remote.peek());
    m.set(name, { ...d, limit: n });
    remote.value = m;
  } catch { /* kept as it was */ }
}

// moreOf lists PAGE more sessions of a machine.
export const moreOf = (name) => loadMachine(name, ((remote.peek().get(name) || {}).limit || PAGE) + PAGE);

// changed reloads what a machine's push changed, a moment later so that a
// burst of pushes costs one reading ("": any machine, after a reconnection).
const pending = new Set();
let timer = null;
function changed(machine) {
  if (!fleet.peek()) return;
  pending.add(machine);
  clearTimeout(timer);
  timer = setTimeout(() => {
    const names = [...pending];
    pending.clear();
    loadMachines();
    const all = names.includes('');
    for (const name of remote.peek().keys()) if (all || names.includes(name)) loadMachine(name);
  }, 100);
}

// whenPushed waits until another machine's new session (by ref) is in
// the fleet database, where its page reads it: its machine pushes it
// within moments. Each push of that machine (fleet_changed) looks at its
// newest sessions again, and a second at most passes between two looks;
// after 20 s the page opens anyway and says what the database has.
export async function whenPushed(ref, machine) {
  const { id } = api.splitRef(ref);
  const end = Date.now() + 20000;
  while (Date.now() < end) {
    try {
      const d = await api.listFleet(machine, '', 20);
      if (d.sessions.some((s) => s.localId === id)) return;
    } catch {
      return;
    }
    await new Promise((resolve) => {
      let first = true; // subscribe calls back at once with the latest event, an old one
      let un = null;
      const done = () => { clearTimeout(timer); if (un) un(); resolve(); };
      const timer = setTimeout(done, 1000);
      un = fleetEvent.subscribe((ev) => {
        if (first) { first = false; return; }
        if (ev && (!ev.machine || ev.machine === machine)) done();
      });
    });
  }
}

// sessionCount says how many sessions the page lists: this machine's
// (local), and under serve --fleet every machine's, each other one as
// its fleet listing counts them (its total once read, else the count
// GET /api/fleet/machines gave), and on how many machines.
export function sessionCount(local) {
  const f = fleet.value;
  if (!f) return t('fleet.sessions', { count: local });
  let n = local;
  const others = (f.machines || []).filter((m) => m.name !== f.self);
  for (const m of others) {
    const r = remote.value.get(m.name);
    n += r ? r.total : m.sessions || 0;
  }
  return t('fleet.sessionsOn', { count: n, machines: others.length + 1 });
}

// machineOf is what the fleet says of a machine, or null.
export function machineOf(name) {
  const f = fleet.value;
  return (f && (f.machines || []).find((m) => m.name === name)) || null;
}

// isOnline: a heartbeat within the last two minutes, and no request sent
// on to it failed since.
export function isOnline(m) {
  if (!m || !m.online) return false;
  return unreachable.value.get(m.name) !== m.lastHeartbeat;
}

// drives says whether this piweb drives a session of machine name there
// (a page of it is live and writable), else it reads from the database.
export function drives(name) {
  const f = fleet.value;
  const m = machineOf(name);
  return !!(f && f.drive && m && m.advertise && isOnline(m));
}

// readOnly says whether an open session is another machine's that this
// piweb reads from the fleet database and does not drive.
export const readOnly = (view) => !!view.machine && !drives(view.machine);

// markUnreachable records that machine did not answer (a 502 for a
// request sent on to it) until its next heartbeat.
export function markUnreachable(name) {
  const m = machineOf(name);
  const u = new Map(unreachable.peek());
  u.set(name, m ? m.lastHeartbeat : '');
  unreachable.value = u;
}

// machineState says in words how a machine is: online, or since when it
// is offline.
export function machineState(m) {
  if (!m) return t('fleet.notInFleet');
  if (isOnline(m)) return t('fleet.online');
  if (m.online) return t('fleet.notAnswering');
  return t('fleet.offline', { when: ago(m.lastHeartbeat) });
}

// versions says which piweb and pi a machine runs (the fleet records
// both at each push: machines of different versions share one fleet).
export function versions(m) {
  if (!m) return '';
  return t('fleet.versions', { piweb: m.piwebVersion || t('fleet.unknown'), pi: m.piVersion || t('fleet.notFound') });
}

// MachineDot is a machine's online/offline mark.
export function MachineDot({ m }) {
  const on = isOnline(m);
  return html`<span class=${'machine-dot ' + (on ? 'on' : 'off')}
    aria-label=${t(on ? 'fleet.online' : 'fleet.offlineWord')}
    title=${m ? t(m.lastPush ? 'fleet.heartbeatPush' : 'fleet.heartbeat', { when: fmtDate(m.lastHeartbeat),
      push: fmtDate(m.lastPush) }) : ''}></span>`;
}

// RemoteBanner says that an open session is another machine's, read from
// the fleet database, and why it cannot be driven from here.
export function RemoteBanner({ view }) {
  const name = view.machine;
  const m = machineOf(name);
  const f = fleet.value;
  let why;
  if (!m) why = t('fleet.notInFleetMachine', { name });
  else if (!isOnline(m)) why = t('fleet.lastPush', { name, state: machineState(m) });
  else if (!f || !f.drive || !m.advertise) why = t('fleet.noDrive', { name });
  else return null;
  return html`<div class="banner remote-banner" role="status" data-machine=${name}><${MachineDot} m=${m} />
    <span><strong>${t('fleet.readOnly')}</strong> ${why}</span></div>`;
}
