// The in-file tree panel: every branch of the session, linear runs
// compressed to the entries worth choosing (user messages, branch points,
// labels, summaries, leaves), the current path highlighted. Choosing a node
// shows its branch. Fork lineage across files sits above it.
import { useState, useMemo } from 'preact/hooks';
import { html } from './html.js';
import { onArrows } from './roving.js';
import { PanelButtons } from './panelsize.js';
import { navigate, sessionURL } from './state.js';
import { relTime, shortId } from './util.js';
import { LabelEdit } from './labels.js';
import { glyph, treeGlyph } from './icons.js';
import { t as tr } from './i18n.js';

// buildTree indexes the compact nodes: children in file order.
export function buildTree(nodes) {
  const byId = new Map();
  const kids = new Map();
  const roots = [];
  for (const n of nodes) byId.set(n.id, n);
  for (const n of nodes) {
    if (n.parentId && byId.has(n.parentId)) {
      if (!kids.has(n.parentId)) kids.set(n.parentId, []);
      kids.get(n.parentId).push(n);
    } else roots.push(n);
  }
  return { byId, kids, roots };
}

export function pathSet(t, leaf) {
  const s = new Set();
  for (let n = t.byId.get(leaf); n && !s.has(n.id); n = t.byId.get(n.parentId)) s.add(n.id);
  return s;
}

// tipOf returns the leaf a node's branch ends at: the current leaf when
// the node is on the current path, else the newest child all the way down.
export function tipOf(t, id, onPath, leaf) {
  if (onPath.has(id)) return leaf;
  let n = t.byId.get(id);
  for (let k; n && (k = t.kids.get(n.id)) && k.length;) n = k[k.length - 1];
  return n ? n.id : id;
}

function interesting(n, t, labels) {
  const k = t.kids.get(n.id);
  return (n.type === 'message' && n.role === 'user') || !k || k.length !== 1 || labels[n.id] ||
    n.type === 'compaction' || n.type === 'branch_summary' || (n.type === 'message' && n.role === 'bashExecution');
}

// rows flattens the tree iteratively (a 10,000-entry line must not
// recurse): depth grows only at branch points, and the first row shown of
// each branch after the first is marked (start), since sibling branches
// share a depth.
export function rows(t, labels, all) {
  const out = [];
  const stack = t.roots.slice().reverse().map((n) => [n, 0, false]);
  let lastShown = null;
  while (stack.length) {
    const [n, depth, start] = stack.pop();
    const kids = t.kids.get(n.id) || [];
    const shown = all || interesting(n, t, labels);
    if (shown) {
      lastShown = { n, depth, skipped: 0, branch: kids.length > 1, start };
      out.push(lastShown);
    } else if (lastShown) lastShown.skipped++;
    const fork = kids.length > 1;
    const d = fork ? depth + 1 : depth;
    for (let i = kids.length - 1; i >= 0; i--) stack.push([kids[i], d, (fork && i > 0) || (start && !shown)]);
  }
  return out;
}

// nodeText is a node's line: its text without Markdown heading marks (a
// summary starts with "## Goal"), else what it is.
function nodeText(n) {
  const t = (n.text || '').replace(/^\s*#{1,6}\s+/, '');
  return t || (n.type === 'label' ? 'label' : n.role || n.type.replace(/_/g, ' '));
}

export function TreePanel({ view }) {
  const d = view.detail.value;
  const [all, setAll] = useState(false);
  const [editing, setEditing] = useState(null); // the entry whose label is being edited
  const nodes = d ? d.tree : [];
  const t = useMemo(() => buildTree(nodes), [nodes, nodes.length]);
  const labels = (d && d.labels) || {};
  const fileLeaf = d && d.leaf;
  const leaf = view.leaf || fileLeaf;
  const onPath = useMemo(() => pathSet(t, leaf), [t, leaf, nodes.length]);
  const curPath = useMemo(() => pathSet(t, fileLeaf), [t, fileLeaf, nodes.length]);
  const list = useMemo(() => rows(t, labels, all), [t, all, nodes.length, labels]);
  if (!d) return null;
  const open = (n) => {
    const tip = tipOf(t, n.id, onPath, leaf);
    navigate(sessionURL(view.id, tip === fileLeaf ? '' : tip, n.id)); // on a phone this closes the panel
  };
  return html`<div class="tree-panel">
    <div class="panel-head"><strong>${tr('tree.title')}</strong><span class="muted">${
      tr('tree.entries', { count: nodes.length })}</span>
      <label class="check"><input type="checkbox" checked=${all}
        onChange=${(e) => setAll(e.currentTarget.checked)} /> ${tr('tree.all')}</label>
      <${PanelButtons} />
        </div>
    <${Lineage} lineage=${d.lineage} />
    <ol class="tree" role="tree" onKeyDown=${onArrows('.tnode-btn')}>
      ${list.map(({ n, depth, skipped, branch, start }) => html`<li key=${n.id} role="treeitem"
          class=${'tnode' + (start ? ' branch-start' : '') + (onPath.has(n.id) ? ' on-path' : '') + (n.id === leaf
            ? ' leaf' : '') + (curPath.has(n.id) ? ' cur' : '') + (view.shownTarget.value === n.id ? ' sel' : '')}
          style=${{ paddingLeft: 8 + Math.min(depth, 12) * 12 + 'px' }} data-id=${n.id}>
        <button type="button" class="tnode-btn" title=${n.type + (n.role ? ' ' + n.role : '') + ' ' + n.id + '\n'
          + (n.text || '')} onClick=${() => open(n)}>
          <span class=${'ticon ' + (n.role || n.type)}>${treeGlyph(n)}</span>
          <span class="ttext">${nodeText(n)}</span>
          ${labels[n.id] && html`<span class="tlabel">${labels[n.id]}</span>`}
          ${branch && html`<span class="tbranch" title=${tr('tree.branchPoint')}>${glyph.branch}</span>`}
          ${skipped > 0 && html`<span class="tskip" title=${tr('tree.between', { count: skipped })}>+${skipped}</span>`}
          ${n.id === fileLeaf && html`<span class="tcur" title=${tr('tree.fileLeaf')}>${glyph.current}</span>`}
        </button>
        <button type="button" class="btn-link tnode-label-btn"
          title=${tr(labels[n.id] ? 'tree.relabelTitle' : 'tree.labelTitle')} onClick=${() => setEditing(n.id)}>
          ${tr(labels[n.id] ? 'tree.relabel' : 'tree.label')}</button>
        ${editing === n.id && html`<${LabelEdit} view=${view} id=${n.id} onDone=${() => setEditing(null)} />`}</li>`)}
    </ol>
  </div>`;
}

function Lineage({ lineage }) {
  if (!lineage) return null;
  const anc = lineage.ancestors || (lineage.parent ? [lineage.parent] : []);
  const kids = lineage.children || [];
  if (!anc.length && !kids.length) return null;
  const link = (s) => html`<a href=${sessionURL(s.id)}
    onClick=${(e) => { e.preventDefault(); navigate(sessionURL(s.id)); }}
    title=${s.cwd}>${s.name || s.firstMessage || shortId(s.id)}</a> <span class="muted">${relTime(s.modified)}</span>`;
  return html`<div class="lineage">
    ${anc.length > 0 && html`<div><span class="muted">${tr('tree.forkedFrom')}</span><ul>
      ${anc.slice().reverse().map((s) => html`<li key=${s.id}>${link(s)}</li>`)}</ul></div>`}
    ${kids.length > 0 && html`<div><span class="muted">${tr('tree.forks')}</span><ul>
      ${kids.map((s) => html`<li key=${s.id}>${glyph.fork} ${link(s)}</li>`)}</ul></div>`}
  </div>`;
}
