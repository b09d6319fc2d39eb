// LiveTail draws the message pi is streaming below the conversation, and
// after it the extension dialogs waiting for an answer. live.js assembles
// the message from pi's message_start and delta-only message_update
// events; drawing diffs it against what is on screen and appends only the new text as text nodes (a
// paragraph per line), so each delta costs the same at the start and at
// the end of a long answer, and nothing else re-renders. A tool call is
// drawn as the same card the stored message will have, and its run (clock
// and output) shows inside that card (toolrun.js). Once the message is in
// the file (the view appended it), its live copy is removed.
import { Component, render } from 'preact';
import { effect, signal } from '@preact/signals';
import { html } from '../js/html.js';
import { Tool } from '../js/message.js';
import { blockTimes, liveOf } from './live.js';
import { ExtensionDialogs } from './dialogs.js';
import { t } from '../js/i18n.js';

export const activity = signal(''); // what the streamed message is doing: thinking, writing, tool call

export class LiveTail extends Component {
  shouldComponentUpdate() { return false; }

  componentDidMount() {
    const { view } = this.props;
    const l = this.live = liveOf(view.id);
    l.ended.value = null; // a message of another view's branch
    this.msg = null; // {partial key, el, blocks: []}
    this.toolEls = new Map();
    this.pending = false;
    // Drawn again (once a frame at most) when the streamed message or the
    // tools change, and when a message or tool result drawn in the
    // conversation replaces its live copy.
    this.stop = effect(() => {
      l.partial.value; l.ended.value; l.tools.value;
      view.items.value; view.leafOmitted.value;
      this.schedule();
    });
  }

  componentWillUnmount() {
    this.stop();
    this.dropMessage(); // unmounts its tool cards
    for (const [id, el] of this.toolEls) this.dropTool(id, el);
  }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }

  draw() {
    const perf = window.__pwPerf; // benchmarks (chat_bench_test.go) set it
    const t0 = perf ? performance.now() : 0;
    this.drawNow();
    if (perf && this.live.partial.peek()) {
      perf.draws.push(performance.now() - t0);
      if (!perf.first && this.msg && this.msg.blocks.some((b) => b.len > 0)) perf.first = performance.now();
    }
  }

  drawNow() {
    const root = this.base;
    if (!root || !root.isConnected) return;
    const conv = root.closest('.conv');
    const atBottom = conv && conv.scrollHeight - conv.scrollTop - conv.clientHeight < 80;
    const l = this.live;
    const view = this.props.view;
    if (l.ended.peek() && inView(view, l.ended.peek())) l.ended.value = null;
    const partial = l.partial.peek();
    const m = partial || l.ended.peek();
    if (!m) this.dropMessage();
    else this.drawMessage(m, !partial);
    this.drawTools(view);
    if (atBottom) conv.scrollTop = conv.scrollHeight;
  }

  dropMessage() {
    if (this.msg) { this.msg.blocks.forEach(dropBlock); this.msg.el.remove(); this.msg = null; }
    if (activity.value) activity.value = '';
  }

  drawMessage(m, done) {
    if (!this.msg || this.msg.ts !== m.timestamp) {
      this.dropMessage();
      const el = h('article', 'row live-msg');
      el.dataset.role = 'assistant';
      el.dataset.live = '1';
      const box = h('div', 'msg assistant');
      const head = h('div', 'msg-head');
      head.append(h('span', 'who a', 'Assistant')); // as the message is named once it is in the file
      box.append(head, h('div', 'live-blocks'));
      el.append(box);
      this.base.querySelector('.live-msgs').append(el);
      this.msg = { ts: m.timestamp, el, blocks: [], body: box.lastChild };
    }
    const content = Array.isArray(m.content) ? m.content : [];
    for (let i = 0; i < content.length; i++) this.drawBlock(i, content[i], i === content.length - 1 && !done,
      blockTimes(this.live, m, i));
    const last = content[content.length - 1];
    const act = done ? '' : !last ? 'waiting' : last.type === 'toolCall' ? 'tool call ' + (last.name
      || '') : last.type === 'thinking' ? 'thinking' : 'writing';
    if (activity.value !== act) activity.value = act;
    this.msg.el.classList.toggle('done', done);
  }

  // drawBlock draws content block i; at is when it started and ended as
  // the live state saw the events (replayed ones at their real time).
  drawBlock(i, b, open, at) {
    let s = this.msg.blocks[i];
    if (!s || s.type !== b.type) {
      if (s) dropBlock(s);
      s = newBlock(b.type);
      this.msg.blocks[i] = s;
      this.msg.body.append(s.el);
    }
    if (b.type === 'text' || b.type === 'thinking') {
      const text = b.type === 'text' ? b.text || '' : b.thinking || '';
      if (text.length < s.len) { resetText(s); }
      if (text.length > s.len) { appendText(s, text.slice(s.len)); s.len = text.length; }
      if (b.type === 'thinking') {
        if (at) s.start = at.start;
        if (!open && !s.end) s.end = (at && at.end) || Date.now();
        const time = secs((s.end || Date.now()) - s.start);
        s.label.textContent = t(open ? 'stream.thinking' : 'stream.thought', { time });
      }
    } else if (b.type === 'toolCall') {
      const key = b.id + ' ' + b.name + ' ' + JSON.stringify(b.arguments || {});
      if (key !== s.key) { s.key = key; render(html`<${Tool} call=${b} result=${null} />`, s.el); }
    }
  }

  // drawTools forgets the runs whose result is in the file, and gives a
  // card of its own to a running tool whose call is nowhere in the
  // conversation (a view of another branch, a call scrolled out of the
  // window), so that no run goes unseen.
  drawTools(view) {
    const l = this.live;
    const done = resultIds(view);
    const inner = this.base.closest('.conv-inner') || this.base;
    const own = this.base.querySelector('.live-tools');
    const tools = l.tools.peek();
    const gone = [...tools.keys()].filter((id) => done.has(id));
    if (gone.length) l.forgetTools(gone); // draws again, without them
    for (const [id, t] of tools) {
      if (done.has(id)) continue;
      const shown = [...inner.querySelectorAll(`.tool[data-call="${CSS.escape(id)}"]`)].some((e) => !own.contains(e));
      let el = this.toolEls.get(id);
      if (shown) { if (el) this.dropTool(id, el); continue; }
      if (el) continue;
      el = h('div', 'live-tool');
      own.append(el);
      this.toolEls.set(id, el);
      render(html`<${Tool} call=${{ type: 'toolCall', id, name: t.name, arguments: t.args || {} }}
        result=${null} />`, el);
    }
    for (const [id, el] of this.toolEls) if (!tools.has(id) || done.has(id)) this.dropTool(id, el);
  }

  dropTool(id, el) {
    render(null, el);
    el.remove();
    this.toolEls.delete(id);
  }

  render() {
    const { view } = this.props;
    return html`<div class="live-tail"><div class="live-msgs"></div><div class="live-tools"></div>
      <${ExtensionDialogs} view=${view} l=${liveOf(view.id)} /></div>`;
  }
}

function inView(view, m) {
  const same = (x) => x && x.role === 'assistant' && x.timestamp === m.timestamp;
  // pi 1.x leaves a failed attempt out of the context when it retries
  // (context_edit): the view draws it among the omitted entries.
  const omitted = (list) => !!list && list.some((o) => same(o.m));
  if (omitted(view.leafOmitted.peek())) return true;
  const items = view.items.peek();
  for (let i = items.length - 1; i >= 0 && i >= items.length - 20; i--) {
    if (same(items[i].m) || omitted(items[i].omittedBefore)) return true;
  }
  return false;
}

function resultIds(view) {
  const s = new Set();
  const items = view.items.peek();
  for (let i = items.length - 1; i >= 0 && i >= items.length - 40; i--) {
    if (items[i].m.role === 'toolResult') s.add(items[i].m.toolCallId);
  }
  return s;
}

function h(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

function newBlock(type) {
  if (type === 'thinking') {
    const el = h('details', 'thinking live');
    el.open = true;
    const label = h('summary', '', 'Thinking…');
    const body = h('div', 'live-text');
    el.append(label, body);
    const s = { type, el, body, label, len: 0, start: Date.now(), end: 0 };
    resetText(s);
    return s;
  }
  if (type === 'toolCall') return { type, el: h('div', 'live-call'), key: '' };
  const el = h('div', 'live-text');
  const s = { type, el, body: el, len: 0 };
  resetText(s);
  return s;
}

// dropBlock removes a drawn block, unmounting the card of a tool call.
function dropBlock(s) {
  if (s.type === 'toolCall') render(null, s.el);
  s.el.remove();
}

function resetText(s) {
  s.body.textContent = '';
  s.para = h('p', 'live-p');
  s.body.append(s.para);
  s.len = 0;
}

// appendText adds a delta: a text node per line piece, a new paragraph per
// newline, so the browser lays out only the last paragraph again.
function appendText(s, delta) {
  const parts = delta.split('\n');
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) { s.para = h('p', 'live-p'); s.body.append(s.para); }
    if (parts[i]) s.para.append(parts[i]);
  }
}

function secs(ms) {
  return (Math.max(ms, 0) / 1000).toFixed(1) + ' s';
}
