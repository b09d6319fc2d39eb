// panels.js: the registry of a session page's side panels. A panel is one
// module (its component takes the open view and the session's id) and one
// line here: its name (the state's panel value, kept in localStorage), the
// label of its header button and that button's title, the key that toggles
// it, whether it is wide, whether it starts afresh for each session, and
// whether it reads another machine's session from the fleet database
// (remote; the others need the session's machine).
import { TreePanel } from './tree.js';
import { FilesPanel } from './files.js';
import { ChangesPanel } from './changes.js';
import { TerminalPanel } from './terminal.js';
import { t } from './i18n.js';

export const panels = [
  { name: 'tree', label: t('panel.tree'), title: t('panel.treeTitle'), key: 't', Panel: TreePanel, remote: true },
  { name: 'files', label: t('panel.files'), title: t('panel.filesTitle'), key: 'f', Panel: FilesPanel, wide: true },
  { name: 'changes', label: t('panel.changes'), title: t('panel.changesTitle'),
    Panel: ChangesPanel, wide: true, perSession: true },
  { name: 'terminal', label: t('panel.terminal'), title: t('panel.terminalTitle'),
    Panel: TerminalPanel, wide: true, perSession: true },
];

// panelNamed is the registry's line for a panel name, or undefined.
export const panelNamed = (name) => panels.find((p) => p.name === name);

// panelForKey is the panel a key toggles, or undefined.
export const panelForKey = (key) => panels.find((p) => p.key === key);
