// share.js: read-only share links (docs/decisions/0042). The dialog makes
// one for the session shown, whole or only the branch on screen, and
// copies it; Settings lists the live links with Revoke. piweb keeps only
// a link's hash, so the link is shown once, in the dialog that made it.
import { useEffect, useRef, useState } from 'preact/hooks';
import { signal } from '@preact/signals';
import { html } from './html.js';
import * as api from './api.js';
import { toast, confirm, navigate, sessionURL } from './state.js';
import { useDialogFocus } from './dialogfocus.js';
import { copyText, fmtDate } from './util.js';
import { matches } from './settingsearch.js';
import { fleet, drives, machineOf } from './fleet.js';

// shareAsked is the session to share ({ id, leaf }: the branch shown), or
// null; the app draws the dialog while it is set.
export const shareAsked = signal(null);

// canShare says whether a session can be shared from this piweb: one of
// this machine's, or one of a machine this piweb drives, whose piweb
// makes the link and serves it (decision 0046).
export const canShare = (id) => {
  const { machine } = api.splitRef(id);
  return !machine || drives(machine);
};

// shareLink is a new link in full: on this piweb's address, or on the
// address the owning machine advertises to the fleet, where it was made.
export function shareLink(path, machine) {
  const m = machine && machineOf(machine);
  return (m && m.advertise ? m.advertise.replace(/\/+$/, '') : location.origin) + path;
}

export const EXPIRIES = [['1 hour', 1], ['1 day', 24], ['7 days', 168], ['30 days', 720], ['90 days', 2160]];

export function ShareDialog({ id, leaf, close }) {
  const [f, setF] = useState({ scope: 'session', hours: 168 });
  const [made, setMade] = useState(null);
  const [err, setErr] = useState('');
  const [busy, setBusy] = useState(false);
  const box = useRef(null);
  useDialogFocus(box);
  const create = async (e) => {
    e.preventDefault();
    setBusy(true);
    setErr('');
    const branch = f.scope === 'branch';
    try {
      setMade(await api.createShare({ session: id, branch, leaf: branch ? leaf || undefined : undefined,
        hours: Number(f.hours) }));
    } catch (x) { setErr(x.message); }
    setBusy(false);
  };
  return html`<div class="overlay" onPointerDown=${(e) => { if (e.target === e.currentTarget) close(); }}>
    <form class="dialog share-dialog" role="dialog" aria-modal="true" aria-labelledby="share-title" ref=${box}
      onSubmit=${create} onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); close(); } }}>
      <h2 id="share-title">Share a read-only link</h2>
      <p class="muted share-what">Whoever has the link can read this session as it goes on, until the link expires
        or you revoke it in Settings. Nothing else of piweb opens to them.</p>
      ${made ? html`<${Made} made=${made} machine=${api.splitRef(id).machine} close=${close} />`
        : html`<${Choose} f=${f} setF=${setF} err=${err} busy=${busy} close=${close} />`}
    </form></div>`;
}

function Choose({ f, setF, err, busy, close }) {
  const radio = (value, label, hint) => html`<label class="share-radio"><input type="radio" name="scope"
    value=${value} checked=${f.scope === value} onChange=${() => setF({ ...f, scope: value })} />
    <span>${label} <span class="muted">${hint}</span></span></label>`;
  return html`<fieldset class="share-scope"><legend>What to share</legend>
      ${radio('session', 'The whole session', 'its latest branch, as it grows')}
      ${radio('branch', 'Only this branch', 'the messages shown, and what follows them')}</fieldset>
    <label class="share-field">Expires after<select name="hours" value=${f.hours}
      onChange=${(e) => setF({ ...f, hours: e.target.value })}>
      ${EXPIRIES.map(([label, h]) => html`<option key=${h} value=${h}>${label}</option>`)}</select></label>
    ${err && html`<p class="stop error share-error" role="alert">${err}</p>`}
    <div class="dialog-actions"><button class="btn" type="button" onClick=${close}>Cancel</button>
      <button class="btn primary share-create" type="submit" disabled=${busy}>
        ${busy ? 'Creating…' : 'Create link'}</button></div>`;
}

function Made({ made, machine, close }) {
  const link = shareLink(made.path, machine);
  const ref = useRef(null);
  useEffect(() => { ref.current?.select(); }, []);
  const copy = async () => toast((await copyText(link)) ? 'Copied the link' : 'Copy failed');
  return html`<label class="share-field">Link<span class="share-link-row"><input ref=${ref} class="share-link"
      readonly value=${link} onFocus=${(e) => e.target.select()} />
      <button class="btn primary share-copy" type="button" onClick=${copy}>Copy</button></span></label>
    <p class="muted share-expires">${made.leaf ? 'This branch' : 'The whole session'}, until ${fmtDate(made.expires)
      }. piweb shows the link only now: it keeps a fingerprint of it, not the link.</p>
    ${machine && html`<p class="share-remote" role="note">The link was made on ${machine}, where the session is,
      and opens at the address ${machine} gives the fleet. Settings lists it while ${machine} is online.</p>`}
    ${made.loopbackOnly && !machine && html`<p class="share-loopback" role="note">piweb listens on this machine only
      (loopback), so the link opens here alone. To share it on your network, start piweb
      with <code>--addr</code> beyond loopback.</p>`}
    <div class="dialog-actions"><button class="btn" type="button" onClick=${close}>Done</button></div>`;
}

// drivenMachines names the other machines this piweb drives: their
// links are listed and revoked here too.
function drivenMachines() {
  const f = fleet.value;
  return f ? (f.machines || []).map((m) => m.name).filter((n) => n !== f.self && drives(n)) : [];
}

// listAll lists this machine's links and those of each machine it drives
// (a session of another machine named by its ref), newest first.
async function listAll(machines) {
  const mine = api.listShares().then((d) => d.shares || []);
  const theirs = machines.map((m) => api.listShares(m).then((d) => (d.shares || [])
    .map((s) => ({ ...s, machine: m, session: api.sessionRef(s.session, m) })), () => []));
  const all = (await Promise.all([mine, ...theirs])).flat();
  return all.sort((a, b) => String(b.created).localeCompare(String(a.created)));
}

// SharesSection is Settings' list of the live links, newest first (all
// of it when the search box's query q names share links, else the links
// whose title it matches).
export function SharesSection({ q }) {
  const [list, setList] = useState(null);
  const machines = drivenMachines();
  const load = () => listAll(machines).then(setList, () => setList([]));
  useEffect(() => { load(); }, [machines.join()]);
  const revoke = async (s) => {
    if (!(await confirm('Revoke this link?', `"${s.title.slice(0, 80)}" stops opening for everyone who has the link,
      an open page included.`, { ok: 'Revoke', danger: true }))) return;
    try {
      await api.revokeShare(s.id, s.machine);
      toast('Link revoked');
    } catch (e) { toast('Not revoked: ' + e.message, { kind: 'error' }); }
    load();
  };
  const open = (e, s) => { e.preventDefault(); navigate(sessionURL(s.session)); };
  const all = matches(q, 'share links read-only revoke');
  const shown = (list || []).filter((s) => all || matches(q, s.title));
  if (!all && !shown.length) return null;
  return html`<section class="set-section set-shares"><h2>Share links <span class="muted">read-only links to a
    session, made from its Actions menu</span></h2>
    ${list && !list.length && html`<p class="muted share-none">No live links.</p>`}
    ${shown.map((s) => html`<div class="set-row share-row" key=${(s.machine || '') + s.id} data-machine=${s.machine}>
      <span class="share-row-main"><a href=${sessionURL(s.session)} onClick=${(e) => open(e, s)}>${s.title}</a>
        <span class="muted">${s.machine ? `on ${s.machine} · ` : ''}${s.leaf ? 'one branch' : 'whole session'
          } · made ${fmtDate(s.created)} · expires ${fmtDate(s.expires)}</span></span>
      <button class="btn small danger share-revoke" type="button" onClick=${() => revoke(s)}
        aria-label=${'Revoke the link to ' + s.title}>Revoke</button></div>`)}
  </section>`;
}
