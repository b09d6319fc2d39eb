// The live side of an open session: pi's events for it, folded into
// signals (phase, queue, retry, compaction, errors, the message being
// streamed and the tools running), which the page reads; stream.js and
// toolrun.js follow the streamed message and the tools' output with
// effects and draw by appending only what is new. view.js hands every
// event of the session's stream to onLiveEvent.
import { batch, signal } from '@preact/signals';
import { toast } from '../js/state.js';
import { spokenAnswer } from '../js/a11y.js';
import { t } from '../js/i18n.js';

// spoken is what the page's polite live region says: an answer once it
// has ended (not each delta), so a screen reader reads it whole.
export const spoken = signal('');

const lives = new Map(); // session id -> Live

// Live is the live state of one session as this tab sees it.
export class Live {
  constructor(id) {
    this.id = id;
    this.phase = signal(''); // '' (no worker), idle, streaming, compacting, retrying, settling
    this.connected = signal(false); // the event stream said hello: phase is known
    this.queue = signal({ steering: [], followUp: [] });
    this.retry = signal(null); // {attempt, maxAttempts, until, error}
    this.compaction = signal(null); // {reason}
    this.errors = signal([]); // inline errors: [{id, text}]
    this.outside = signal(false); // another process wrote the file meanwhile
    this.bash = signal(null); // a "!cmd" running through pi's bash: {command, exclude}
    this.dialogs = signal([]); // open extension dialogs: pi's extension_ui_request
    this.status = signal({}); // extension status lines by key
    this.running = signal([]); // the names of the tools running, in start order
    // The assistant message being streamed: a new object at each change,
    // sharing its content array, which the deltas fill in place (so a
    // delta costs the same at the start and end of a long answer).
    this.partial = signal(null);
    this.ended = signal(null); // the message that just ended, shown until the entry is in the view
    this.blocks = signal({ ts: null, times: [] }); // per content block of the streamed message: {start, end}
    this.tools = signal(new Map()); // toolCallId -> {name, args, output, start, end, isError}; a new Map at each change
    this.took = signal(new Map()); // toolCallId -> {ms, isError} of the tools that ended here, for their stored cards
    this.workerLeaf = signal(null); // where pi's leaf was moved while the file still has the old one (actions.js)
    // What follows is the fold's own bookkeeping, read by no render code.
    this.partialStarted = 0;
    this.lastId = null;
    this.at = 0; // when the event being folded happened, on this page's clock
    this.skew = 0; // the server's clock minus this page's, from hello
    this.replayed = new Map(); // SSE id -> when the server received it (its clock), from replay
    this.own = null; // a model or thinking change being written (controls.js), awaited before a send
    this.modelSet = null; // the last model change's command to pi, which a thinking change follows (controls.js)
  }

  busy() {
    const p = this.phase.value;
    return p === 'streaming' || p === 'compacting' || p === 'retrying' || p === 'settling';
  }

  // setTools publishes the tools' new state, and running when the names
  // of the tools running changed (so the status line renders only then).
  setTools(tools) {
    this.tools.value = tools;
    const names = [];
    for (const t of tools.values()) if (!t.end) names.push(t.name);
    const was = this.running.peek();
    if (names.length !== was.length || names.some((n, i) => n !== was[i])) this.running.value = names;
  }

  // setTool replaces tool id's state with what fn makes of it (fn gets the
  // old state, undefined for a new tool).
  setTool(id, fn) {
    this.setTools(new Map(this.tools.peek()).set(id, fn(this.tools.peek().get(id))));
  }

  // forgetTools drops the runs of tools whose results are in the file.
  forgetTools(ids) {
    const tools = new Map(this.tools.peek());
    for (const id of ids) tools.delete(id);
    this.setTools(tools);
  }
}

export function liveOf(id) {
  let l = lives.get(id);
  if (!l) { l = new Live(id); lives.set(id, l); }
  return l;
}

// A page restored from the back/forward cache has closed streams (api.js).
window.addEventListener('pageshow', (e) => { if (e.persisted) location.reload(); });

// onLiveEvent folds one event of the session's stream (with its SSE id).
export function onLiveEvent(id, ev, eventId) {
  const l = liveOf(id);
  if (eventId) l.lastId = eventId;
  l.at = eventTime(l, eventId);
  const h = handlers[ev.type];
  if (h) batch(() => h(l, ev)); // one change for the signals an event sets
}

// eventTime is when an event happened: now for a live one, and for one
// replayed after a reload or a lost connection, when the server received
// it (the replay event), read on this page's clock, so that a tool that
// has run for a minute does not show as just started.
function eventTime(l, eventId) {
  const now = Date.now();
  const t = eventId ? l.replayed.get(eventId) : undefined;
  if (t === undefined) return now;
  l.replayed.delete(eventId);
  return Math.min(t - l.skew, now);
}

const handlers = {
  hello(l, ev) {
    l.phase.value = ev.worker || '';
    l.connected.value = true;
    if (typeof ev.now === 'number') l.skew = ev.now - Date.now();
    endStale(l);
  },
  replay(l, ev) {
    l.replayed = new Map((ev.times || []).map(([id, ms]) => [String(id), ms]));
  },
  reset(l) { l.partial.value = null; l.setTools(new Map()); },
  piweb_state(l, ev) {
    l.phase.value = ev.phase || 'idle';
    // The queue comes from pi's queue_update only: a state notice can be
    // published before the queue_update it reflects.
    if (ev.phase === 'idle') { l.retry.value = null; l.compaction.value = null; l.queue.value = { steering: [],
      followUp: [] }; }
    endStale(l);
  },
  piweb_exit(l, ev) {
    l.phase.value = '';
    l.partial.value = null;
    if (ev.reason === 'crashed' || ev.reason === 'start failed') addError(l,
      'pi stopped: ' + (ev.error || ev.stderr || ev.reason));
  },
  piweb_outside_change(l) { l.outside.value = true; },
  queue_update(l, ev) { l.queue.value = { steering: ev.steering || [], followUp: ev.followUp || [] }; },
  agent_start(l) {
    if (!l.busy()) l.phase.value = 'streaming';
    l.errors.value = []; // the last turn's errors stay in the conversation, not above the composer
  },
  message_start(l, ev) {
    if (ev.message && ev.message.role === 'assistant') {
      const m = startMessage(ev.message);
      l.partialStarted = l.at;
      stampBlocks(l, m, false);
      l.partial.value = m;
    }
  },
  message_update(l, ev) {
    const d = ev.assistantMessageEvent;
    let m = l.partial.peek();
    if (ev.message) { // pi 0.73's cumulative form, should the server pass it on
      if (ev.message.role !== 'assistant') return;
      if (!m) l.partialStarted = l.at;
      m = startMessage(ev.message);
    } else if (!m || !d) {
      return; // a delta without its message_start (not replayed): nothing to add it to
    } else {
      m = { ...m }; // the same content array, filled in place
      applyDelta(m, d, ev.usage);
    }
    stampBlocks(l, m, false);
    l.partial.value = m;
  },
  message_end(l, ev) {
    const m = ev.message;
    if (m && m.role === 'assistant') {
      stampBlocks(l, m, true);
      const say = l.partial.peek() ? spokenAnswer(m) : ''; // streamed in this tab, not replayed history
      if (say) spoken.value = say;
      l.partial.value = null;
      l.ended.value = m; // shown until the entry is in the view
      if (m.stopReason === 'error' && m.errorMessage) addError(l, m.errorMessage);
    }
  },
  tool_execution_start(l, ev) {
    l.setTool(ev.toolCallId, () => ({ name: ev.toolName, args: ev.args, output: '', start: l.at, end: 0 }));
  },
  tool_execution_update(l, ev) {
    if (l.tools.peek().has(ev.toolCallId)) l.setTool(ev.toolCallId, (t) => ({ ...t,
      output: resultText(ev.partialResult) }));
  },
  tool_execution_end(l, ev) {
    const t = l.tools.peek().get(ev.toolCallId);
    if (!t) return;
    const done = { ...t, output: resultText(ev.result), end: l.at, isError: !!ev.isError };
    l.took.value = new Map(l.took.peek()).set(ev.toolCallId, { ms: done.end - done.start, isError: done.isError });
    l.setTool(ev.toolCallId, () => done);
  },
  auto_retry_start(l, ev) {
    l.retry.value = { attempt: ev.attempt, maxAttempts: ev.maxAttempts, until: l.at + (ev.delayMs || 0),
      error: ev.errorMessage || '' };
  },
  auto_retry_end(l) { l.retry.value = null; },
  compaction_start(l, ev) { l.compaction.value = { reason: ev.reason || '' }; },
  compaction_end(l, ev) {
    l.compaction.value = null;
    if (ev.errorMessage) addError(l, t('ctl.compactFailed', { why: ev.errorMessage }));
  },
  extension_error(l, ev) { addError(l, 'Extension error: ' + (ev.error || ev.message || '')); },
  agent_end(l) { l.partial.value = null; }, // alerts are notify.js's
  extension_ui_request(l, ev) {
    if (ev.method === 'notify') toast(ev.message || '', { kind: ev.notifyType === 'error' ? 'error' : '' });
    else if (ev.method === 'setStatus') l.status.value = { ...l.status.value, [ev.statusKey]: ev.statusText };
    else if (['select', 'confirm', 'input', 'editor'].includes(ev.method)) l.dialogs.value = [...l.dialogs.value,
      { ...ev, received: l.at }];
  },
  piweb_ui_timeout(l, ev) { l.dialogs.value = l.dialogs.value.filter((d) => d.id !== ev.id); },
  piweb_ui_answered(l, ev) { l.dialogs.value = l.dialogs.value.filter((d) => d.id !== ev.id); },
};

// endStale drops a message left half-streamed once pi is idle or gone:
// its end went to a stream the page closed (a send that moves the page to
// another view of the session closes the old view's stream as pi starts
// answering, and the new stream, subscribed after the run, replays
// nothing), and it would stay on screen as if pi were still writing.
function endStale(l) {
  if (l.partial.peek() && !l.busy()) l.partial.value = null;
}

// startMessage copies a message_start's message as the start of the one
// being assembled (its content array is filled in place by the deltas).
function startMessage(m) {
  return { ...m, content: Array.isArray(m.content) ? m.content.map((b) => ({ ...b })) : [] };
}

// applyDelta folds one of pi 1.x's assistantMessageEvents into the message
// being streamed, as pi's docs/json.md says to rebuild it: *_start opens
// block contentIndex, *_delta appends to it, *_end replaces it with the
// finished block (message_end later replaces the whole message). usage is
// the running usage pi sends with each update.
export function applyDelta(m, d, usage) {
  const c = m.content;
  const i = d.contentIndex ?? c.length - 1;
  if (usage) m.usage = usage;
  switch (d.type) {
    case 'text_start': c[i] = { type: 'text', text: '' }; break;
    case 'text_delta': block(c, i, 'text', 'text').text += d.delta || ''; break;
    case 'text_end': c[i] = { ...block(c, i, 'text', 'text'),
      text: typeof d.content === 'string' ? d.content : c[i].text }; break;
    case 'thinking_start': c[i] = { type: 'thinking', thinking: '' }; break;
    case 'thinking_delta': block(c, i, 'thinking', 'thinking').thinking += d.delta || ''; break;
    case 'thinking_end': c[i] = { ...block(c, i, 'thinking', 'thinking'),
      thinking: typeof d.content === 'string' ? d.content : c[i].thinking }; break;
    case 'toolcall_start': c[i] = { type: 'toolCall', id: d.id || '', name: d.toolName || '', arguments: {},
      partialJson: '' }; break;
    case 'toolcall_delta': {
      const b = block(c, i, 'toolCall', 'partialJson');
      b.partialJson += d.delta || '';
      b.arguments = partialArgs(b.partialJson, b.arguments);
      break;
    }
    case 'toolcall_end': if (d.toolCall) c[i] = d.toolCall; break;
    case 'error': if (d.error) Object.assign(m, d.error); break;
    case 'done': if (d.message) Object.assign(m, d.message); break;
  }
}

// block is content block i of type, made empty when it is missing or of
// another type (a delta whose *_start was not seen).
function block(c, i, type, field) {
  if (!c[i] || c[i].type !== type) c[i] = type === 'toolCall' ? { type, id: '', name: '', arguments: {},
    [field]: '' } : { type, [field]: '' };
  if (typeof c[i][field] !== 'string') c[i][field] = '';
  return c[i];
}

// partialArgs parses a tool call's arguments as far as they streamed: the
// JSON so far once it closes, else the last arguments that did.
function partialArgs(json, last) {
  try {
    const v = JSON.parse(json);
    return v && typeof v === 'object' ? v : last;
  } catch {
    return last;
  }
}

// stampBlocks notes when each content block of the streamed message
// started and ended (a later block began, or the message ended), for
// stream.js's thinking clock.
function stampBlocks(l, m, done) {
  const was = l.blocks.peek();
  const times = was.ts === m.timestamp ? was.times.slice() : [];
  const c = Array.isArray(m.content) ? m.content : [];
  let changed = times.length === 0 && was.ts !== m.timestamp;
  for (let i = 0; i < c.length; i++) {
    if (!times[i]) { times[i] = { start: l.at, end: 0 }; changed = true; }
    if ((done || i < c.length - 1) && !times[i].end) { times[i] = { ...times[i], end: l.at }; changed = true; }
  }
  if (changed) l.blocks.value = { ts: m.timestamp, times };
}

// blockTimes is when block i of message m started and ended, null when
// this page did not see it stream.
export function blockTimes(l, m, i) {
  const b = l.blocks.peek();
  return b.ts === m.timestamp ? b.times[i] || null : null;
}

let errSeq = 0;
export function addError(l, text) {
  // pi's message may already start with the prefix piweb adds
  // ("Compaction failed: Compaction failed: ..."): say it once.
  text = String(text).replace(/^([^:]{3,40}: )\1+/, '$1');
  if (l.errors.value.some((e) => e.text === text)) return; // the command's answer and its event
  l.errors.value = [...l.errors.value, { id: ++errSeq, text }];
}

export function resultText(r) {
  if (!r) return '';
  const c = r.content;
  if (typeof c === 'string') return c;
  if (!Array.isArray(c)) return '';
  return c.filter((b) => b.type === 'text').map((b) => b.text).join('\n');
}
