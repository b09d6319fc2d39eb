// A tool call's run, drawn inside the call's own card (message.js's Tool)
// rather than in a card of its own, so that one card tells the whole story
// of a call, as pi's TUI does: the clock while pi runs it, then how long it
// took; the output pi streams (tool_execution_update's partialResult,
// accumulated) until the result is in the file and the card draws that in
// its place. The card lives in the stored message once pi wrote it, or in
// the streamed copy (stream.js) just before; both read the run from the
// open session's live state.
import { Component } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { effect } from '@preact/signals';
import { html } from '../js/html.js';
import { current } from '../js/view.js';
import { liveOf } from './live.js';

const MAX_OUT = 20000; // characters of live output kept on screen: its tail

// liveNow is the live state of the open session, null when none is open.
function liveNow() {
  const v = current.peek();
  return v ? liveOf(v.id) : null;
}

// timeText says how long the tool has run or took, '' when unknown (a
// result read from the file, with no run seen here). It peeks: the clock
// renders only when its text changes, not at every change of the tools.
function timeText(l, id) {
  const t = l && l.tools.peek().get(id);
  if (t) return (t.end ? (t.isError ? 'failed after ' : 'done in ') : 'running ') + secs((t.end
    || Date.now()) - t.start);
  const d = l && l.took.peek().get(id);
  return d ? (d.isError ? 'failed after ' : 'done in ') + secs(d.ms) : '';
}

// ToolTime is the clock of a tool call's run, in its card's summary. It
// ticks while the tool runs and follows the live state on its own, so the
// conversation does not render again for it.
export function ToolTime({ id }) {
  const [, tick] = useState(0);
  const l = liveNow();
  useEffect(() => {
    if (!l) return undefined;
    let shown = timeText(l, id);
    const check = () => { const s = timeText(l, id); if (s !== shown) { shown = s; tick((x) => x + 1); } };
    const clock = setInterval(() => { const t = l.tools.peek().get(id); if (t && !t.end) check(); }, 250);
    const stop = effect(() => { l.tools.value; l.took.value; check(); });
    return () => { clearInterval(clock); stop(); };
  }, [l, id]);
  const s = timeText(l, id);
  return s ? html`<span class="muted tool-dur">${s}</span>` : null;
}

// ToolOutput is a running tool's output, in its card's body. pi sends the
// whole output so far with each update; only what is new is appended, so
// a long-running command costs the same per update at its start and end,
// and the box follows the end as a terminal does unless the reader
// scrolled it up.
export class ToolOutput extends Component {
  shouldComponentUpdate() { return false; }

  componentDidMount() {
    this.l = liveNow();
    this.shown = '';
    this.pending = false;
    if (!this.l) return;
    this.draw();
    const tools = this.l.tools;
    this.stop = effect(() => { tools.value; this.schedule(); });
  }

  componentWillUnmount() {
    if (this.stop) this.stop();
  }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }

  draw() {
    const pre = this.base;
    const t = this.l.tools.peek().get(this.props.id);
    if (!pre || !t || t.output === this.shown) return;
    const end = pre.scrollHeight - pre.scrollTop - pre.clientHeight < 20;
    const out = t.output;
    if (out.length <= MAX_OUT && out.startsWith(this.shown)) pre.append(out.slice(this.shown.length));
    else pre.textContent = out.length > MAX_OUT ? '…' + out.slice(-MAX_OUT) : out;
    this.shown = out;
    if (end) pre.scrollTop = pre.scrollHeight;
  }

  render() {
    return html`<pre class="out live-out"></pre>`;
  }
}

function secs(ms) {
  return (Math.max(ms, 0) / 1000).toFixed(1) + ' s';
}
