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
import { t } from './i18n.js';

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

export const EXPIRIES = [[t('share.1h'), 1], [t('share.1d'), 24], [t('share.7d'), 168], [t('share.30d'), 720],
  [t('share.90d'), 2160]];

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
      <h2 id="share-title">${t('share.title')}</h2>
      <p class="muted share-what">${t('share.what')}</p>
      ${made ? html`<${Made} made=${made} machine=${api.splitRef(id).machine} close=${close} />`
        : html`<${Choose} f=${f} setF=${setF} err=${err} busy=${busy} close=${close} />`}
    </form></div>`;
}

function Choose({ f, setF, err, busy, close }) {
  const radio = (value, label, hint) => html`<label class="share-radio"><input type="radio" name="scope"
    value=${value} checked=${f.scope === value} onChange=${() => setF({ ...f, scope: value })} />
    <span>${label} <span class="muted">${hint}</span></span></label>`;
  return html`<fieldset class="share-scope"><legend>${t('share.whatToShare')}</legend>
      ${radio('session', t('share.whole'), t('share.wholeHint'))}
      ${radio('branch', t('share.branch'), t('share.branchHint'))}</fieldset>
    <label class="share-field">${t('share.expiresAfter')}<select name="hours" value=${f.hours}
      onChange=${(e) => setF({ ...f, hours: e.target.value })}>
      ${EXPIRIES.map(([label, h]) => html`<option key=${h} value=${h}>${label}</option>`)}</select></label>
    ${err && html`<p class="stop error share-error" role="alert">${err}</p>`}
    <div class="dialog-actions"><button class="btn" type="button" onClick=${close}>${t('common.cancel')}</button>
      <button class="btn primary share-create" type="submit" disabled=${busy}>
        ${t(busy ? 'share.creating' : 'share.create')}</button></div>`;
}

function Made({ made, machine, close }) {
  const link = shareLink(made.path, machine);
  const ref = useRef(null);
  useEffect(() => { ref.current?.select(); }, []);
  const copy = async () => toast(t((await copyText(link)) ? 'share.copied' : 'share.copyFailed'));
  return html`<label class="share-field">${t('share.link')}<span class="share-link-row"><input ref=${ref}
      class="share-link"
      readonly value=${link} onFocus=${(e) => e.target.select()} />
      <button class="btn primary share-copy" type="button" onClick=${copy}>${t('share.copy')}</button></span>
      </label>
    <p class="muted share-expires">${t(made.leaf ? 'share.madeBranch' : 'share.madeWhole',
      { until: fmtDate(made.expires) })}</p>
    ${machine && html`<p class="share-remote" role="note">${t('share.remote2', { machine })}</p>`}
    ${made.loopbackOnly && !machine && html`<p class="share-loopback" role="note">${t('share.loopback')} <code
      >--addr</code> ${t('share.loopbackAfter')}</p>`}
    <div class="dialog-actions"><button class="btn" type="button" onClick=${close}>${t('share.done')}</button></div>`;
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
    const ok = { ok: t('share.revoke'), danger: true };
    if (!(await confirm(t('share.revokeTitle'), t('share.revokeText', { title: s.title.slice(0, 80) }), ok))) return;
    try {
      await api.revokeShare(s.id, s.machine);
      toast(t('share.revoked'));
    } catch (e) { toast(t('share.notRevoked', { why: e.message }), { kind: 'error' }); }
    load();
  };
  const open = (e, s) => { e.preventDefault(); navigate(sessionURL(s.session)); };
  const all = matches(q, 'share links read-only revoke', t('share.links'));
  const shown = (list || []).filter((s) => all || matches(q, s.title));
  if (!all && !shown.length) return null;
  return html`<section class="set-section set-shares"><h2>${t('share.links')} <span class="muted">${
    t('share.linksDoc')}</span></h2>
    ${list && !list.length && html`<p class="muted share-none">${t('share.none')}</p>`}
    ${shown.map((s) => html`<div class="set-row share-row" key=${(s.machine || '') + s.id} data-machine=${s.machine}>
      <span class="share-row-main"><a href=${sessionURL(s.session)} onClick=${(e) => open(e, s)}>${s.title}</a>
        <span class="muted">${rowFacts(s)}</span></span>
      <button class="btn small danger share-revoke" type="button" onClick=${() => revoke(s)}
        aria-label=${t('share.revokeLabel', { title: s.title })}>${t('share.revoke')}</button></div>`)}
  </section>`;
}

// rowFacts says of a live link what it opens, when it was made and when
// it expires, and on which machine when not this one.
function rowFacts(s) {
  const rest = t(s.leaf ? 'share.rowBranch' : 'share.rowWhole',
    { made: fmtDate(s.created), expires: fmtDate(s.expires) });
  return s.machine ? t('share.onMachine', { machine: s.machine, rest }) : rest;
}
