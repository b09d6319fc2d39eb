// Session controls under the composer, one slim row: chips for the model
// and the thinking level, and one "More" menu for manual compaction (with
// optional instructions), clone, the models.json editor, turn-end alerts
// and muting; tokens and cost of the branch, and the context window use
// from pi's get_session_stats whenever a live pi turns idle.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../js/html.js';
import { command, getConfig } from '../js/api.js';
import { toast } from '../js/state.js';
import { fmtTokens, fmtCost, whyNoCompact } from '../js/util.js';
import { addError } from './live.js';
import { ALERTS, alertMode, setAlertMode } from './notify.js';
import { ModelsEditor } from './models.js';
import { models, modelsRev, scoped, compactAsked, modelsAsked } from './store.js';
import { muted } from '../js/attention.js';
import { MenuItems } from '../js/menuitems.js';
import { usePopover } from '../js/popover.js';
import { onArrows } from '../js/roving.js';
import { glyph, MutedIcon } from '../js/icons.js';
import { t } from '../js/i18n.js';

export const LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'];
// A select is as wide as its longest option: these keep the alert choice short.
const ALERT_LABELS = { off: t('ctl.alertOff'), sound: t('ctl.alertSound'), notify: t('ctl.alertNotify'),
  both: t('ctl.alertBoth') };

// MORE is the "More" menu's part of the session's action list
// (js/actionlist.js), in its order; the alert choice follows it.
const MORE = ['compact', 'clone', 'models', '-', 'mute'];

// Controls draws the row; actions is the session's action list.
export function Controls({ view, l, next, actions }) {
  const compacting = compactAsked.value === view.id;
  const setCompacting = (on) => { compactAsked.value = on ? view.id : ''; };
  const [instr, setInstr] = useState('');
  const [menu, setMenu] = usePopover();
  const phase = l.phase.value;
  const [ctxUse, setCtxUse] = useState(null);
  const idle = phase === 'idle';
  useEffect(() => {
    if (idle) command(view.id, { type: 'get_session_stats' }).then((r) => setCtxUse((r.data && r.data.contextUsage)
      || null), () => {});
  }, [idle]);
  const { list, key: cur } = next;
  const setModel = (v) => setSessionModel(view, l, v).then(next.refresh);
  const setLevel = (level) => setThinking(view, l, level).then(next.refresh);
  const compact = () => {
    setCompacting(false);
    return compactNow(view, l, instr);
  };
  const isMuted = muted.value.has(view.id);
  const tot = view.totals.value;
  return html`<div class="chat-controls">
    <select class="chip model-select" aria-label=${t('ctl.model')} title=${t('ctl.model')} value=${cur}
      onChange=${(e) => setModel(e.target.value)}>
      ${!cur && html`<option value="">${t('ctl.modelDots')}</option>`}
      ${cur && !list.some((m) => m.provider + '/' + m.id === cur) && html`<option value=${cur} title=${cur}>
        ${next.model.modelId}</option>`}
      ${list.map((m) => html`<option key=${m.provider + '/' + m.id} value=${m.provider + '/' + m.id}>${m.name || m.id}
        </option>`)}</select>
    <select class="chip thinking-select" aria-label=${t('ctl.thinkingLevel')} title=${t('ctl.thinkingLevel')}
      value=${next.thinkingLevel || ''} onChange=${(e) => setLevel(e.target.value)}>
      ${LEVELS.map((x) => html`<option key=${x} value=${x}>${t('ctl.thinkingIs', { level: x })}</option>`)}</select>
    ${compacting && html`<span class="compact-form"><input class="compact-instructions"
      placeholder=${t('ctl.compactInstr')} value=${instr} onInput=${(e) => setInstr(e.target.value)} />
      <button class="btn small compact-go" type="button" onClick=${compact}>${t('ctl.compact')}</button>
      <button class="btn-link small" type="button" onClick=${() => setCompacting(false)}>${
        t('common.cancel')}</button></span>`}
    <span class="chat-more" ref=${menu.ref}>
      <button class=${'chip chat-more-btn' + (isMuted ? ' on' : '')} type="button" aria-haspopup="menu"
        aria-expanded=${menu.on} title=${t('ctl.moreTitle')} onClick=${() => setMenu(!menu.on)}>
        ${isMuted ? html`<${MutedIcon} /> ` : ''}${t('ctl.more')} ${glyph.menuOpen}</button>
      <div class="chat-menu" role="menu" hidden=${!menu.on} onKeyDown=${onArrows('[role^=menuitem]')}>
        <${MenuItems} actions=${actions} layout=${MORE} done=${() => setMenu(false)} />
        <label class="menu-field">${t('ctl.whenElsewhere')}<select class="alert-select"
          aria-label=${t('ctl.whenElsewhere')} value=${alertMode.value}
          onChange=${(e) => setAlertMode(e.target.value)}>
          ${Object.keys(ALERTS).map((k) => html`<option key=${k} value=${k}>${
            t('ctl.alertIs', { how: ALERT_LABELS[k] })}</option>`)}
          </select></label>
      </div></span>
    ${tot && html`<span class="muted live-usage">${t('ctl.usage', { input: fmtTokens(tot.input),
      output: fmtTokens(tot.output) })}${tot.cost ? ' · ' + fmtCost(tot.cost) : ''}</span>`}
    ${ctxUse && ctxUse.percent != null && html`<span class="muted ctx-usage"
      title=${t('ctl.ctxTitle', { tokens: ctxUse.tokens, window: ctxUse.contextWindow })}>${t('ctl.ctx',
        { percent: ctxUse.percent.toFixed(ctxUse.percent < 10 ? 1 : 0),
          window: fmtTokens(ctxUse.contextWindow) })}</span>`}
  </div>
  ${modelsAsked.value && html`<${ModelsEditor} close=${() => { modelsAsked.value = false; }} />`}`;
}

// useNextModel is what the next message is sent with, for the pickers
// and the composer: the model and thinking level of the shown branch, but
// pi's own while "Edit from here" is pending (pi keeps its model and
// level when it moves to the branch point, so the branch point's are not
// what the send uses); info is the model's description (its input kinds).
// The list of models comes from the session's own pi when it runs (quick,
// and what that pi can switch to), else from the model list of the
// session's machine's piweb.
export function useNextModel(view, l) {
  const [list, setList] = useState([]);
  const [pi, setPi] = useState(null);
  const [asked, setAsked] = useState(0);
  const rev = modelsRev.value;
  const live = l.phase.value !== '';
  const known = l.connected.value;
  useEffect(() => {
    if (!known) return;
    const p = live ? command(view.id, { type: 'get_available_models' }).then((r) => r.data || {})
      : models(view.machine);
    const scope = models(view.machine).then((d) => d.enabledModels, () => null);
    Promise.all([p, scope]).then(([d, pats]) => setList(scoped(d.models || [], pats)), () => {});
  }, [rev, live, known]);
  const atWorker = !!view.leaf && view.leaf === l.workerLeaf.value; // after Edit from here (actions.js)
  useEffect(() => {
    setPi(null);
    if (atWorker) command(view.id, { type: 'get_state' }).then((r) => setPi(r.data || null), () => {});
  }, [atWorker, view.leaf, asked]);
  const own = atWorker && pi && pi.model;
  const model = own ? { provider: pi.model.provider, modelId: pi.model.id } : view.model.value;
  const key = model ? model.provider + '/' + model.modelId : '';
  const info = list.find((m) => m.provider + '/' + m.id === key) || (own ? pi.model : null);
  return { list, model, key, info, thinkingLevel: atWorker && pi ? pi.thinkingLevel : view.thinkingLevel.value,
    refresh: () => setAsked((n) => n + 1) };
}

// setSessionModel switches the session's pi to model "provider/modelId".
export function setSessionModel(view, l, v) {
  const [provider, ...rest] = v.split('/');
  const set = command(view.id, { type: 'set_model', provider, modelId: rest.join('/') });
  l.modelSet = set.catch(() => {});
  return own(l, async () => {
    await set;
    view.model.value = { provider, modelId: rest.join('/') };
    await ownWrite(view);
  });
}

// setThinking sets the session's thinking level. pi sets a level on the
// model it has (a model without reasoning clamps it to off), so a level
// chosen while a model change is on its way follows that change.
export function setThinking(view, l, level) {
  const after = l.modelSet;
  return own(l, async () => {
    await after;
    await command(view.id, { type: 'set_thinking_level', level });
    view.thinkingLevel.value = level;
    await ownWrite(view);
  });
}

// keepRecent is pi's compaction.keepRecentTokens for the session's
// folder (the project's settings over the global ones), 20,000 unset.
async function keepRecent(view) {
  const d = view.detail.peek();
  try {
    const c = await getConfig((d && d.session && d.session.cwd) || '');
    const of = (f) => f && f.settings && f.settings.compaction && f.settings.compaction.keepRecentTokens;
    return of(c.project) ?? of(c.global) ?? 20000;
  } catch {
    return 20000;
  }
}

// compactNow compacts the session's context, with optional instructions
// for the summary, as pi's /compact does; a failure shows above the
// composer, a cancellation by the user as a toast.
export async function compactNow(view, l, instructions = '') {
  const why = whyNoCompact(view.items.peek(), await keepRecent(view));
  if (why) return toast(why); // said before asking: pi would refuse
  const body = { type: 'compact' };
  if (instructions.trim()) body.customInstructions = instructions.trim();
  try {
    await command(view.id, body);
  } catch (e) {
    if (l.compactionStopped) toast(t('ctl.compactCancelled')); // the user's own doing, not a failure
    // The same failure comes as compaction_end's errorMessage (live.js):
    // without the server's "pi refused compact: " the two read alike and
    // show once.
    else addError(l, t('ctl.compactFailed', { why: e.message.replace(/^pi refused compact: /, '') }));
  }
  l.compactionStopped = false;
}

// own runs a command that makes pi append an entry; the composer waits
// for it (l.own) before it sends, so a prompt sent right after a model
// change carries the leaf that change made.
function own(l, f) {
  l.own = f().catch((e) => addError(l, e.message));
  return l.own;
}

// ownWrite reads the tail after pi appended an entry for this page's own
// command (a model or thinking level change), so that the next prompt's
// expected leaf is not mistaken for an outside change.
async function ownWrite(view) {
  if (view.leaf) return;
  await view.refreshTail(1);
  const d = view.detail.peek();
  if (d) view.detail.value = { ...d, leaf: view.fileLeaf.peek() };
}

