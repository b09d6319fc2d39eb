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

const changesTitle = "Changes: git's working tree and this session's edits";
const terminalTitle = "Terminal: a shell in the session's folder";

export const panels = [
  { name: 'tree', label: 'Tree', title: 'Tree (T)', key: 't', Panel: TreePanel, remote: true },
  { name: 'files', label: 'Files', title: 'Files (F)', key: 'f', Panel: FilesPanel, wide: true },
  { name: 'changes', label: 'Changes', title: changesTitle, Panel: ChangesPanel, wide: true, perSession: true },
  { name: 'terminal', label: 'Terminal', title: terminalTitle, Panel: TerminalPanel, wide: true, perSession: true },
];

// panelNamed is the registry's line for a panel name, or undefined.
export const panelNamed = (name) => panels.find((p) => p.name === name);

// panelForKey is the panel a key toggles, or undefined.
export const panelForKey = (key) => panels.find((p) => p.key === key);
