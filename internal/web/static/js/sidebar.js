// The sidebar: every project (cwd) as a collapsible group, its sessions in
// the order the user chose (order.js, sorting.js: pinned first, by last
// activity, creation or name; archived ones apart), forks nested under the
// session they came from; Select puts a checkbox on each for bulk actions.
import { useState, useEffect, useRef } from 'preact/hooks';
import { html } from './html.js';
import { sessions, sessionsLoaded, filter, collapsed, toggleProject, route, navigate, sessionURL, searchOpen,
  sidebarOpen, toggleSidebar, listed, filtered, complete, moreSessions, view } from './state.js';
import { relTime, fmtBytes, baseName, fmtDate } from './util.js';
import { getStatus, signOut, listRepos } from './api.js';
import { isUnread, waiting, markAllRead, unreadCount, globalMute, setGlobalMute, muted } from './attention.js';
import { signal } from '@preact/signals';
import { glyph, MutedIcon, PinIcon } from './icons.js';
import { fleet, remote, machineOf, machineState, isOnline, moreOf, MachineDot, sessionCount, versions }
  from './fleet.js';
import { groupSessions, shownIds } from './sorting.js';
import { pinned, archived, archivedView, archivedHere, sortBy, selecting, selected, pick, pickAll, SideTools,
  BulkBar } from './order.js';
import { ThemeSelect } from './theme.js';
import { t } from './i18n.js';

// repos maps a project folder to its git repository (GET /api/repos), so
// that the worktrees of one repository are grouped under it.
const repos = signal({});
let reposFor = '';
function loadRepos(list) {
  const key = [...new Set(list.map((s) => s.cwd))].sort().join('\n');
  if (key === reposFor) return;
  reposFor = key;
  listRepos().then((d) => { repos.value = d.repos || {}; }, () => {});
}

// byRepo puts the groups of one repository's worktrees (two or more
// folders sharing its git folder) under that repository, where its first
// group stood; other groups stay as they are.
export function byRepo(groups, map) {
  const count = new Map();
  for (const g of groups) {
    const r = map[g.cwd];
    if (r) count.set(r.common, (count.get(r.common) || 0) + 1);
  }
  const out = [];
  const at = new Map();
  for (const g of groups) {
    const r = map[g.cwd];
    if (!r || count.get(r.common) < 2) { out.push({ group: g }); continue; }
    if (!at.has(r.common)) { at.set(r.common, out.length); out.push({ repo: r, groups: [] }); }
    out[at.get(r.common)].groups.push(g);
  }
  return out;
}

const HUGE = 20 * 1024 * 1024;
const SHOWN = 40;

// orderOpts are groupSessions' options as the user set them: the sort,
// the pins, and the archive (left out, or alone in the Archived view).
const orderOpts = () => ({ by: sortBy.value, pinned: pinned.value, archived: archived.value,
  archivedView: archivedView.value });

// shown is the refs of the sessions the sidebar shows, in its order: a
// shift-click selects a range of them, "All" selects them all.
let shown = [];

export function Sidebar() {
  const f = filtered.value;
  const v = view();
  const counts = f ? f.projects : !filter.value && v.projects;
  const groups = withCounts(f ? groupSessions(f.sessions, '', orderOpts())
    : groupSessions(v.sessions, filter.value, orderOpts()), counts);
  const remotes = remoteGroups();
  const open = (key) => (g) => !!filter.value || !collapsed.value.has(key(g));
  shown = [...shownIds(groups, (g) => !open((x) => x.cwd)(g)),
    ...[...remotes].flatMap(([name, gs]) => shownIds(gs, (g) => !open((x) => name + '\n' + x.cwd)(g)))];
  useEffect(() => { if (sessionsLoaded.value) loadRepos(sessions.value); }, [sessions.value]);
  const items = byRepo(groups, repos.value);
  const current = route.value.page === 'session' ? route.value.id : '';
  useEffect(() => {
    const el = current && document.querySelector(`.sess[data-id="${CSS.escape(current)}"]`);
    if (el) el.scrollIntoView({ block: 'nearest' });
  }, [current, groups.length]);
  return html`<aside class=${'sidebar' + (sidebarOpen.value ? ' open' : '')}>
    <div class="side-top">
      <a class="brand" href="/" onClick=${(e) => { e.preventDefault(); navigate('/'); }}><span
        class="logo">π</span> piweb</a>
      <button class="btn ghost search-btn" type="button" title=${t('side.searchTitle')}
        onClick=${() => { searchOpen.value = true; }}>
        ${t('side.search')} <kbd>Ctrl K</kbd></button>
      <${HideButton} />
    </div>
    <div class="side-filter">
      <input type="search" placeholder=${t('side.filter')} aria-label=${t('side.filter')} value=${filter.value}
        onInput=${(e) => { filter.value = e.currentTarget.value; }} />
    </div>
    <${SideTools} archivedCount=${archivedCount(remotes)} />
    ${selecting.value && html`<${BulkBar} shown=${shown} />`}
    <nav class=${'side-list' + (selecting.value ? ' selecting' : '')} aria-label=${t('side.sessions')}>
      ${archivedView.value && html`<div class="archived-note muted">${t('side.archivedNote')}</div>`}
      ${!sessionsLoaded.value && html`<div class="muted pad">${t('common.loading')}</div>`}
      ${sessionsLoaded.value && !groups.length && html`<div class="muted pad">
        ${t(filter.value ? 'side.noMatch' : archivedView.value ? 'side.noneArchived' : 'side.noneYet')}</div>`}
      ${fleet.value ? html`<${FleetList} local=${items} remotes=${remotes}
        count=${f ? f.total : filter.value ? groups.reduce((n, g) => n + g.count, 0) : v.total}
        current=${current} />`
        : html`<${LocalList} items=${items} current=${current} />`}
    </nav>
    <div class="side-foot">
      <a href="/usage" class=${route.value.page === 'usage' ? 'active' : ''}
        onClick=${(e) => { e.preventDefault(); navigate('/usage'); }}>${t('nav.usage')}</a>
      <a href="/trash" class=${route.value.page === 'trash' ? 'active' : ''}
        onClick=${(e) => { e.preventDefault(); navigate('/trash'); }}>${t('nav.trash')}</a>
      <a href="/settings" class=${route.value.page === 'settings' ? 'active' : ''}
        onClick=${(e) => { e.preventDefault(); navigate('/settings'); }}>${t('nav.settings')}</a>
      <${AttentionFoot} />
      <${ThemeSelect} />
      <${SignOut} />
      <${FleetFoot} />
      <span class="muted side-count">${sessionCount(listed.value.all)}</span>
    </div>
  </aside>`;
}

// HideButton collapses the sidebar (closes the drawer on a phone); the
// focus goes on to the header's button that shows it again.
function HideButton() {
  const hide = () => {
    toggleSidebar();
    requestAnimationFrame(() => document.querySelector('.sess-head .side-show')?.focus());
  };
  return html`<button class="btn ghost icon side-hide" type="button" aria-label=${t('side.hide')}
    title=${t('side.hide')} onClick=${hide}>${glyph.sidebarHide}</button>`;
}

// remoteGroups is each other machine's sessions grouped as this one's,
// under serve --fleet.
function remoteGroups() {
  const out = new Map();
  const f = fleet.value;
  if (!f) return out;
  for (const m of f.machines || []) {
    if (m.name === f.self) continue;
    const r = remote.value.get(m.name) || { sessions: [] };
    out.set(m.name, groupSessions(r.sessions, filter.value, orderOpts()));
  }
  return out;
}

// withCounts gives each group the number of its sessions the server
// counted (counts: per folder), when the page holds only part of them.
function withCounts(groups, counts) {
  if (!counts) return groups;
  return groups.map((g) => ({ ...g, count: Math.max(g.count, counts[g.cwd] || 0) }));
}

// More loads the next page of this machine's sessions when the user
// scrolls to it (or clicks it), while the page holds only part of them.
function More() {
  const ref = useRef(null);
  const v = view();
  const left = v.total - v.sessions.length;
  const hidden = !!filtered.value || complete() || left <= 0;
  // Watched again whenever the button comes back (a total that arrives
  // after the sessions shows it without a new page of them).
  useEffect(() => {
    const el = ref.current;
    if (!el) return undefined;
    const io = new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) moreSessions(); });
    io.observe(el);
    return () => io.disconnect();
  }, [v.sessions, hidden]);
  if (hidden) return null;
  return html`<button ref=${ref} class="btn-link more side-more" type="button" onClick=${() => moreSessions()}>
    ${t('side.showMoreHere', { count: left })}</button>`;
}

// archivedCount is how many listed sessions (every machine's) are archived.
function archivedCount(remotes) {
  const a = archived.value;
  let n = archivedHere.value;
  for (const name of remotes.keys()) n += ((remote.value.get(name) || {}).sessions || []).filter((s) => a.has(s.id))
    .length;
  return n;
}

// LocalList is this machine's sessions: by project, a repository's
// worktrees together.
function LocalList({ items, current }) {
  return html`${items.map((it) => it.group ? html`<${Group} key=${it.group.cwd} g=${it.group} current=${current}
    forceOpen=${!!filter.value} />`
    : html`<section class="repo-group" key=${'repo:' + it.repo.common} data-repo=${it.repo.name}>
      <div class="repo-head" title=${it.repo.common}>${glyph.branch} ${it.repo.name}<span class="muted">
        ${t('side.worktrees', { count: it.groups.length })}</span></div>
      ${it.groups.map((g) => html`<${Group} key=${g.cwd} g=${g} current=${current} forceOpen=${!!filter.value}
        branch=${repos.value[g.cwd].branch} />`)}</section>`)}<${More} />`;
}

// FleetList is the fleet's sessions by machine (serve --fleet): this
// machine first, as LocalList lists it, then every other machine by name
// with its newest sessions as pushed, each headed by whether it is online.
function FleetList({ local, remotes, count, current }) {
  const f = fleet.value;
  const others = (f.machines || []).filter((m) => m.name !== f.self);
  return html`<${Machine} name=${f.self} m=${machineOf(f.self)} self=${true} count=${count}>
      <${LocalList} items=${local} current=${current} /></${Machine}>
    ${others.map((m) => html`<${RemoteMachine} key=${m.name} m=${m} groups=${remotes.get(m.name) || []}
      current=${current} />`)}`;
}

// RemoteMachine is another machine's section: its sessions by project,
// counted as this machine's are: its archived ones (this piweb's archive,
// of the sessions read) apart.
function RemoteMachine({ m, groups, current }) {
  const r = remote.value.get(m.name) || { sessions: [], total: 0 };
  const left = r.total - r.sessions.length;
  const a = archived.value;
  const arch = r.sessions.filter((s) => a.has(s.id)).length;
  return html`<${Machine} name=${m.name} m=${m} count=${filter.value ? groups.reduce((n, g) => n + g.count, 0)
    : archivedView.value ? arch : r.total - arch}>
    ${!groups.length && html`<div class="muted pad">${t(filter.value ? 'side.noMatch' : 'side.noSessions')}</div>`}
    ${groups.map((g) => html`<${Group} key=${g.cwd} g=${g} ckey=${m.name + '\n' + g.cwd} current=${current}
      forceOpen=${!!filter.value} />`)}
    ${left > 0 && html`<button class="btn-link more" type="button" onClick=${() => moreOf(m.name)}>
      ${t('side.showMoreOf',
      { machine: m.name, count: left })}</button>`}</${Machine}>`;
}

// Machine is a machine's collapsible section of the sidebar.
function Machine({ name, m, self, count, children }) {
  const key = 'machine:' + name;
  const closed = collapsed.value.has(key);
  return html`<section class="machine" data-machine=${name} data-online=${self || isOnline(m) ? '1' : '0'}>
    <button class="machine-head" type="button" aria-expanded=${!closed} onClick=${() => toggleProject(key)}
      title=${(self ? t('side.thisMachine') : machineState(m)) + (m ? ' · ' + versions(m) : '')}>
      <span class=${'chev' + (closed ? '' : ' open')}>${glyph.chevron}</span>
      ${self ? html`<span class="machine-dot on" aria-label=${t('side.online')}></span>`
        : html`<${MachineDot} m=${m} />`}
      <span class="machine-name">${name}</span>
      <span class="machine-state">${self ? t('side.thisMachine') : machineState(m)}</span>
      <span class="count">${count}</span>
    </button>
    ${!closed && children}</section>`;
}

// FleetFoot says, under serve --fleet, how this machine's push to the
// fleet database goes, and why it is paused or failing ("fleet paused:
// this piweb is older than the fleet database (upgrade to …)").
function FleetFoot() {
  const [f, setF] = useState(null);
  useEffect(() => {
    const load = () => getStatus().then((s) => setF(s.fleet || null), () => {});
    load();
    const t = setInterval(load, 30000);
    return () => clearInterval(t);
  }, []);
  if (!f) return null;
  const bad = f.state === 'paused' || f.state === 'failing';
  return html`<span class=${bad ? 'fleet-state warn' : 'fleet-state muted'} title=${f.error || ''}
    data-state=${f.state}>${t(f.behind ? 'side.fleetBehind' : 'side.fleet', { machine: f.machine, state: f.state,
      count: f.behind })}${bad && f.error
      ? html`<br />${f.error}` : ''}</span>`;
}

// SignOut is shown when the server requires sign-in: it revokes this
// browser's cookie and leaves the app.
function SignOut() {
  const [on, setOn] = useState(false);
  useEffect(() => { getStatus().then((s) => setOn(!!s.signIn), () => {}); }, []);
  if (!on) return null;
  const out = () => signOut().finally(() => { location.href = '/'; });
  return html`<button class="btn-link" type="button" title=${t('side.signOutTitle')}
    onClick=${out}>${t('side.signOut')}</button>`;
}

// Group is a project's sessions; ckey names it among the collapsed ones
// (default its folder: another machine's is prefixed with its name).
function Group({ g, ckey = g.cwd, current, forceOpen, branch }) {
  const [all, setAll] = useState(false);
  const closed = !forceOpen && collapsed.value.has(ckey);
  const roots = all ? g.roots : g.roots.slice(0, SHOWN);
  return html`<section class="group">
    ${selecting.value && html`<${GroupBox} g=${g} />`}
    <button class="group-head" type="button" aria-expanded=${!closed} title=${g.cwd}
      onClick=${() => toggleProject(ckey)}>
      <span class=${'chev' + (closed ? '' : ' open')}>${glyph.chevron}</span>
      <span class="group-name">${baseName(g.cwd)}</span>
      ${branch ? html`<span class="group-path wt-branch">${glyph.branch} ${branch}</span>` : html`<span
        class="group-path">${g.cwd}</span>`}
      <span class="count">${g.count}</span>
    </button>
    ${!closed && html`<ul class="sess-list">
      ${roots.map((s) => html`<${Item} key=${s.id} s=${s} kids=${g.kids} current=${current} depth=${0} />`)}
      ${!all && g.roots.length > SHOWN && html`<li><button class="btn-link more" type="button"
        onClick=${() => setAll(true)}>${t('side.showMore', { count: g.roots.length - SHOWN })}</button></li>`}
    </ul>`}
  </section>`;
}

// GroupBox selects every session of a project shown, or none.
function GroupBox({ g }) {
  const ids = shownIds([g]);
  const n = ids.filter((id) => selected.value.has(id)).length;
  return html`<input type="checkbox" class="sel-box sel-group" checked=${n > 0 && n === ids.length}
    indeterminate=${n > 0 && n < ids.length} aria-label=${t('side.selectGroup', { name: baseName(g.cwd) })}
    onClick=${() => pickAll(ids)} />`;
}

function Item({ s, kids, current, depth }) {
  const children = kids.get(s.id) || [];
  const title = (s.name || s.firstMessage || t('side.empty')).slice(0, 300);
  const sel = selecting.value;
  const go = (e) => {
    if (sel) {
      e.preventDefault();
      pick(s.id, e.shiftKey, shown);
      return;
    }
    if (e.ctrlKey || e.metaKey || e.shiftKey || e.button === 1) return;
    e.preventDefault();
    navigate(sessionURL(s.id));
  };
  const on = sel && selected.value.has(s.id);
  return html`<li class=${sel ? 'sel-row' : ''}>
    ${sel && html`<input type="checkbox" class="sel-box" checked=${on}
      aria-label=${t('side.selectOne', { title: title.slice(0, 80) })}
      onClick=${(e) => pick(s.id, e.shiftKey, shown)} />`}
    <a class=${'sess' + (s.id === current ? ' active' : '') + (depth ? ' fork' : '') + (on ? ' selected' : '')}
      href=${sessionURL(s.id)} onClick=${go} data-id=${s.id} title=${fmtDate(s.modified) + '\n' + title}>
      <span class="sess-title">${depth ? html`<span class="fork-icon" aria-label=${t('side.fork')}>
        ${glyph.fork}</span>` : ''}
        <${Marks} s=${s} />${title}</span>
      <span class="sess-meta">
        <span>${relTime(s.modified)}</span>
        <span title=${t('side.msgsTitle')}>${t('side.msgs', { count: s.messageCount || 0 })}</span>
        <span class=${'size' + (s.size >= HUGE ? ' huge' : '')}>${fmtBytes(s.size)}</span>
      </span>
    </a>
    ${children.length > 0 && html`<ul class="sess-list nested">
      ${children.map((c) => html`<${Item} key=${c.id} s=${c} kids=${kids} current=${current} depth=${depth + 1} />`)}
    </ul>`}
  </li>`;
}

// Marks shows a session's pin, and its running, waiting, unread and muted
// state (opening it, or Mark all read, marks it read).
export function Marks({ s }) {
  const w = waiting.value.get(s.id);
  const unread = isUnread(s);
  return html`${pinned.value.has(s.id) && html`<span class="pin-mark" title=${t('side.pinnedTitle')}
    aria-label=${t('side.pinned')}><${PinIcon} /></span>`}${muted.value.has(s.id) && html`<span class="mute-mark"
    title=${t('side.mutedTitle')} aria-label=${t('side.muted')}><${MutedIcon} /></span>`}${s.running && !w
      && html`<span class="run-dot" title=${t('side.running')}></span>`}${w && html`<span class="wait-mark"
      title=${t('side.waiting', { what: w })}>?</span>`}
    ${unread && html`<span class="unread-dot" title=${t('side.unreadTitle')} aria-label=${t('side.unread')}></span>`}`;
}

// AttentionFoot offers "mark all read" and the global mute.
function AttentionFoot() {
  const n = unreadCount.value;
  const mute = globalMute.value;
  return html`${n > 0 && html`<button class="btn-link mark-all-read" type="button"
    onClick=${markAllRead}>${t('side.markRead', { count: n })}</button>`}
    <button class=${'btn-link global-mute' + (mute ? ' on' : '')} type="button" aria-pressed=${mute}
      title=${t(mute ? 'side.mutedOn' : 'side.muteAll')}
      onClick=${() => setGlobalMute(!mute)}>${t(mute ? 'side.mutedBtn' : 'side.muteBtn')}</button>`;
}
