// Labels on entries (pi's label entries): set, change and clear them from
// a message or from the tree panel. The server writes the label through the
// live pi when one runs, else straight to the file; the view takes the
// labels it answers with, and the appended label entry arrives as a live
// event as well.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import * as api from './api.js';
import { toast } from './state.js';
import { glyph } from './icons.js';
import { t } from './i18n.js';

// labelOf is the label of entry id in the view, '' when none.
export function labelOf(view, id) {
  const d = view.detail.value;
  return (d && d.labels && d.labels[id]) || '';
}

// saveLabel sets (or with '' clears) the label of entry id.
export async function saveLabel(view, id, label) {
  try {
    const r = await api.setLabel(view.id, id, label.trim());
    view.setLabels(r.labels || {}, id);
    return true;
  } catch (e) {
    toast(t('label.failed', { why: e.message }), { kind: 'error' });
    return false;
  }
}

// LabelEdit is the text box that edits entry id's label: Enter saves (an
// empty box clears the label), Escape or leaving it cancels.
export function LabelEdit({ view, id, onDone }) {
  const [text, setText] = useState(labelOf(view, id));
  const ref = useRef(null);
  useEffect(() => { ref.current && ref.current.focus(); ref.current && ref.current.select(); }, []);
  const onKey = async (e) => {
    if (e.key === 'Escape') { e.preventDefault(); e.stopPropagation(); onDone(); }
    if (e.key !== 'Enter') return;
    e.preventDefault();
    e.stopPropagation();
    if (await saveLabel(view, id, text)) onDone();
  };
  return html`<span class="label-edit"><input ref=${ref} value=${text} maxlength="200" aria-label=${t('label.label')}
      placeholder=${t('label.placeholder')} onInput=${(e) => setText(e.target.value)} onKeyDown=${onKey}
        onBlur=${() => onDone()} /></span>`;
}

// LabelChip shows entry id's label with buttons to change and clear it,
// or the editor while editing.
export function LabelChip({ view, id, editing, setEditing }) {
  const label = labelOf(view, id);
  if (editing) return html`<${LabelEdit} view=${view} id=${id} onDone=${() => setEditing(false)} />`;
  if (!label) return null;
  return html`<span class="msg-label"><button type="button" class="label-text" title=${t('label.change')}
    onClick=${() => setEditing(true)}>${label}</button>
    <button type="button" class="btn-link x label-clear" aria-label=${t('label.clear')}
      title=${t('label.clear')}
      onClick=${() => saveLabel(view, id, '')}>${glyph.close}</button></span>`;
}
