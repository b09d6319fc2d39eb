// Session controls under the composer: model, thinking level, manual
// compaction with optional instructions, clone; and live tokens, cost and
// context use from pi's get_session_stats after every turn.
import { useEffect, useState } from 'preact/hooks';
import { html } from '../js/html.js';
import { get } from '../js/api.js';
import { toast } from '../js/state.js';
import { fmtTokens, fmtCost } from '../js/util.js';
import { command } from './composer.js';
import { cloneBranch } from './actions.js';
import { addError } from './live.js';

const LEVELS = ['off', 'minimal', 'low', 'medium', 'high', 'xhigh'];
let modelsP = null;
export const models = () => (modelsP ||= get('/api/models').catch((e) => { modelsP = null; throw e; }));

export function Controls({ view, l }) {
  const [list, setList] = useState([]);
  const [compacting, setCompacting] = useState(false);
  const [instr, setInstr] = useState('');
  const phase = l.phase.value;
  useEffect(() => { models().then((d) => setList(d.models || [])).catch(() => {}); }, []);
  const cur = view.model ? view.model.provider + '/' + view.model.modelId : '';
  const setModel = async (v) => {
    const [provider, ...rest] = v.split('/');
    try {
      await command(view.id, { type: 'set_model', provider, modelId: rest.join('/') });
      view.model = { provider, modelId: rest.join('/') };
      view.touch();
    } catch (e) { addError(l, e.message); }
  };
  const setLevel = (level) => command(view.id, { type: 'set_thinking_level', level }).catch((e) => addError(l, e.message));
  const compact = async () => {
    setCompacting(false);
    const body = { type: 'compact' };
    if (instr.trim()) body.customInstructions = instr.trim();
    try { await command(view.id, body); } catch (e) { addError(l, 'Compaction failed: ' + e.message); }
  };
  const t = view.totals;
  return html`<div class="chat-controls">
    <select class="model-select" aria-label="Model" value=${cur} onChange=${(e) => setModel(e.target.value)}>
      ${!cur && html`<option value="">model…</option>`}
      ${list.map((m) => html`<option key=${m.provider + '/' + m.id} value=${m.provider + '/' + m.id}>${m.name || m.id}</option>`)}</select>
    <select class="thinking-select" aria-label="Thinking level" value=${view.thinkingLevel || ''} onChange=${(e) => setLevel(e.target.value)}>
      ${LEVELS.map((x) => html`<option key=${x} value=${x}>thinking: ${x}</option>`)}</select>
    ${compacting ? html`<span class="compact-form"><input class="compact-instructions" placeholder="Compaction instructions (optional)" value=${instr} onInput=${(e) => setInstr(e.target.value)} />
      <button class="btn small compact-go" type="button" onClick=${compact}>Compact</button>
      <button class="btn-link small" type="button" onClick=${() => setCompacting(false)}>Cancel</button></span>`
      : html`<button class="btn ghost small compact" type="button" disabled=${phase === 'streaming' || phase === 'compacting'} onClick=${() => setCompacting(true)}>Compact…</button>`}
    <button class="btn ghost small clone" type="button" onClick=${() => cloneBranch(view)}>Clone</button>
    ${t && html`<span class="muted live-usage">${fmtTokens(t.input)} in · ${fmtTokens(t.output)} out${t.cost ? ' · ' + fmtCost(t.cost) : ''}</span>`}
  </div>`;
}

export { toast };
