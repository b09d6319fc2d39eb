// What goes with each message of the conversation: under it, the switch
// between sibling branches in place (< 1/2 >, as chat apps have it) and the
// entry's label, when it has them; over its head, the actions as a row of
// icons shown on hover and focus (behind one "more" button on touch):
// copy as text or Markdown, label, and for a user message the chat's Edit
// from here, Retry and Fork. Nothing takes height until it is asked for.
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { navigate, sessionURL, toast } from './state.js';
import { copyText } from './util.js';
import { buildTree, pathSet, tipOf } from './tree.js';
import { LabelChip, labelOf } from './labels.js';
import { editFrom, retryFrom, forkAt } from '../chat/actions.js';
import { glyph, msgIcon } from './icons.js';
import { readOnly } from './fleet.js';
import { t } from './i18n.js';

const NONE = [];
const trees = new WeakMap(); // the view's tree nodes -> their index

// treeOf indexes the view's tree once per version of it (a change to the
// metadata is a new tree array).
function treeOf(view) {
  const d = view.detail.value;
  const nodes = (d && d.tree) || NONE;
  let t = trees.get(nodes);
  if (!t) { t = buildTree(nodes); trees.set(nodes, t); }
  return t;
}

// siblings returns the messages that share entry id's parent (the other
// answers to one point of the conversation), with id's place among them;
// null when it has none.
export function siblings(view, id) {
  const t = treeOf(view);
  const n = t.byId.get(id);
  if (!n) return null;
  const list = (n.parentId ? t.kids.get(n.parentId) || [] : t.roots).filter((s) => s.type === 'message');
  if (list.length < 2) return null;
  return { t, list, i: list.findIndex((s) => s.id === id) };
}

// showSibling opens the branch of the sibling: at the file's leaf when the
// file continues there, else at the newest entry down that branch.
function showSibling(view, s, j) {
  const d = view.detail.peek();
  const fileLeaf = d && d.leaf;
  const target = s.list[j];
  const tip = tipOf(s.t, target.id, pathSet(s.t, fileLeaf), fileLeaf);
  navigate(sessionURL(view.id, tip === fileLeaf ? '' : tip, target.id), { replace: true });
}

function Siblings({ view, id }) {
  const s = siblings(view, id);
  if (!s) return null;
  return html`<span class="siblings" role="group" aria-label=${t('row.branches')}>
    <button type="button" class="btn-link sib-prev" aria-label=${t('row.prev')} disabled=${s.i <= 0}
      onClick=${() => showSibling(view, s, s.i - 1)}>${glyph.prev}</button>
    <span class="sib-pos">${s.i + 1}/${s.list.length}</span>
    <button type="button" class="btn-link sib-next" aria-label=${t('row.next')} disabled=${s.i >= s.list.length - 1}
      onClick=${() => showSibling(view, s, s.i + 1)}>${glyph.next}</button></span>`;
}

// markdownOf is the message as written: its text blocks (Markdown), or a
// tool's or shell's output.
export function markdownOf(m) {
  if (typeof m.content === 'string') return m.content;
  if (Array.isArray(m.content)) return m.content.filter((b) => b.type === 'text').map((b) => b.text).join('\n\n');
  if (m.role === 'bashExecution') return '$ ' + m.command + '\n' + (m.output || '');
  return m.summary || '';
}

// copyAs copies the row's message as Markdown, or as the text the page
// shows (what the Markdown renders to).
async function copyAs(row, m, kind) {
  let s = markdownOf(m);
  if (kind === 'text' && row) s = [...row.querySelectorAll(':scope .md')].map((e) => e.innerText.trim()).join('\n\n')
    || s;
  toast(t((await copyText(s)) ? (kind === 'text' ? 'row.copiedText' : 'row.copiedMd') : 'share.copyFailed'),
    { ms: 2000 });
}

// Tool is one icon button of a message's actions, named for screen
// readers and on hover; on touch, where it is in a menu, it shows its
// name (text) too.
function Tool({ cls, label, text = label, icon, onClick, expanded }) {
  return html`<button type="button" class=${'msg-tool ' + cls} aria-label=${label} title=${label}
    aria-expanded=${expanded} onClick=${onClick}><span aria-hidden="true">${icon}</span><span class="tool-text"
      aria-hidden="true">${text}</span></button>`;
}

function Copy({ m }) {
  const [open, setOpen] = useState(false);
  const pick = (e, kind) => { setOpen(false); copyAs(e.currentTarget.closest('.row'), m, kind); };
  return html`<span class="copy-menu">
    <${Tool} cls="copy-msg" label=${t('row.copy')} icon=${msgIcon.copy()}
      expanded=${open} onClick=${() => setOpen(!open)} />
    ${open && html`<span class="copy-pop"><button type="button" class="btn-link small copy-text"
      onClick=${(e) => pick(e, 'text')}>${t('row.copyText')}</button>
      <button type="button" class="btn-link small copy-md"
        onClick=${(e) => pick(e, 'md')}>${t('row.copyMd')}</button>
        </span>`}</span>`;
}

// Actions is the row of icons over a message's head: shown on hover and
// focus, or on touch after its "more" button. Escape closes it.
function Actions({ view, it, setEditing }) {
  const [open, setOpen] = useState(false);
  const ref = useRef(null);
  useEffect(() => {
    if (!open) return undefined;
    const close = (e) => { if (ref.current && !ref.current.contains(e.target)) setOpen(false); };
    document.addEventListener('pointerdown', close);
    return () => document.removeEventListener('pointerdown', close);
  }, [open]);
  const m = it.m;
  const ro = readOnly(view); // another machine's session, read from the fleet database: copy only
  const user = m.role === 'user' && !ro;
  const onKey = (e) => { if (e.key === 'Escape' && open) { e.stopPropagation(); setOpen(false); } };
  return html`<div class=${'msg-tools' + (open ? ' open' : '')} ref=${ref} onKeyDown=${onKey}>
    <button type="button" class="msg-tool msg-more" aria-label=${t('row.actions')} title=${t('row.actions')}
      aria-expanded=${open} onClick=${() => setOpen(!open)}><span aria-hidden="true">${glyph.more}</span></button>
    <span class="msg-actions" role="group" aria-label=${t('row.actions')}>
      <${Copy} m=${m} />
      ${!ro && html`<${Tool} cls="label-btn" label=${t('row.label')} icon=${msgIcon.label()}
        onClick=${() => { setOpen(false); setEditing(true); }} />`}
      ${user && html`<${Tool} cls="edit-here" label=${t('row.edit')} icon=${msgIcon.edit()}
        onClick=${() => editFrom(view, it.id)} />
      <${Tool} cls="retry-here" label=${t('row.retry')} icon=${msgIcon.retry()}
        onClick=${() => retryFrom(view, it.id, m)} />
      <${Tool} cls="fork-here" label=${t('row.forkLabel')}
        text=${t('row.fork')}
        icon=${msgIcon.fork()}
        onClick=${() => forkAt(view, it.id)} />`}
    </span></div>`;
}

// RowActions is what goes with a message besides its body. Its branch
// switch and label follow the view's metadata themselves (labels and
// branches change without the message changing, and the row above it
// redraws only when its message does).
export function RowActions({ view, it }) {
  const [editing, setEditing] = useState(false);
  const foot = editing || labelOf(view, it.id) || siblings(view, it.id);
  // pi's system prompt is a card of its own, not a message to act on.
  return html`${it.m.role !== 'system' && html`<${Actions} view=${view} it=${it} setEditing=${setEditing} />`}
    ${foot && html`<div class="row-foot">
      <${Siblings} view=${view} id=${it.id} />
      <${LabelChip} view=${view} id=${it.id} editing=${editing} setEditing=${setEditing} /></div>`}`;
}
