// pi's own commands typed in the composer, done as pi's terminal does them
// and never sent to the model: the built-in slash commands that mean
// something in a browser (pi's BUILTIN_SLASH_COMMANDS, less settings,
// login, share and the like), and "!cmd" / "!!cmd", which run a shell
// command through pi's RPC bash ("!!" keeps its output out of the
// context). Extension commands, prompt templates and skills (/name,
// /skill:name) are pi's to expand: they are sent as a prompt, as pi's
// editor does. Anything else starting with "/" goes to pi as typed too.
import * as api from '../js/api.js';
import { setPanel, panel, searchOpen, toast, upsertSession } from '../js/state.js';
import { copyText } from '../js/util.js';
import { addError } from './live.js';
import { cloneBranch, forkAt } from './actions.js';
import { LEVELS, compactNow, setSessionModel, setThinking } from './controls.js';
import { forgetCommands, newSessionIn, picker, loadSessionInfo, trustFolder } from './store.js';
import { t } from '../js/i18n.js';

// BUILTINS are the built-in commands the composer lists and runs, with
// pi's descriptions. args: '' none, '[x]' optional, '<x>' required.
export const BUILTINS = [
  { name: 'compact', description: 'Manually compact the session context', args: '[instructions]' },
  { name: 'model', description: 'Select model', args: '[provider/model]' },
  { name: 'thinking', description: 'Set thinking level', args: '[level]' },
  { name: 'name', description: 'Set session display name', args: '<name>' },
  { name: 'tree', description: 'Navigate session tree (switch branches)', args: '' },
  { name: 'fork', description: 'Create a new fork from a previous user message', args: '' },
  { name: 'clone', description: 'Duplicate the current session at the current position', args: '' },
  { name: 'new', description: 'Start a new session', args: '' },
  { name: 'resume', description: 'Resume another session', args: '' },
  { name: 'export', description: 'Export session (HTML default, or md, jsonl)', args: '[html|md|jsonl]' },
  { name: 'copy', description: 'Copy last agent message to clipboard', args: '' },
  { name: 'session', description: 'Show session info and stats', args: '' },
  { name: 'reload', description: 'Reload extensions, skills, prompts and context files', args: '' },
  { name: 'trust', description: 'Trust this project folder: pi loads its .pi resources', args: '' },
];

const byName = new Map(BUILTINS.map((c) => [c.name, c]));

// parseInput tells what the composer's text is: {kind: 'builtin', name,
// arg}, {kind: 'bash', command, exclude}, or null for a prompt.
export function parseInput(text) {
  const t = text.trim();
  if (t.startsWith('!')) {
    const exclude = t.startsWith('!!');
    const command = t.slice(exclude ? 2 : 1).trim();
    return command ? { kind: 'bash', command, exclude } : null;
  }
  const m = t.match(/^\/([\w-]+)(?:\s+([\s\S]*))?$/);
  if (!m || !byName.has(m[1])) return null;
  return { kind: 'builtin', name: m[1], arg: (m[2] || '').trim() };
}

// run does what the parsed input says; it resolves to true when the text
// was used up (the composer clears it), false to keep it for the user to
// complete (a required argument is missing).
export async function run(view, l, cmd) {
  try {
    if (cmd.kind === 'bash') return await bash(view, l, cmd);
    return await (actions[cmd.name] || (() => false))(view, l, cmd.arg);
  } catch (e) {
    addError(l, t('cmd.failed', { name: cmd.name || 'bash', why: e.message }));
    return true;
  }
}

// bash runs a shell command in the session's cwd through pi, which records
// it as a bashExecution message (left out of the model's context with
// "!!"); the page shows it when pi writes it.
async function bash(view, l, { command, exclude }) {
  l.bash.value = { command, exclude };
  try {
    const body = { type: 'bash', command };
    if (exclude) body.excludeFromContext = true;
    const r = await api.command(view.id, body);
    const d = r.data || {};
    if (d.cancelled) toast(t('cmd.cancelled'));
  } finally {
    l.bash.value = null;
  }
  return true;
}

const actions = {
  async compact(view, l, arg) {
    await compactNow(view, l, arg);
    return true;
  },
  async model(view, l, arg) {
    if (!arg) return focus('.model-select');
    if (!arg.includes('/')) throw new Error(t('cmd.modelAs'));
    await setSessionModel(view, l, arg);
    return true;
  },
  async thinking(view, l, arg) {
    if (!arg) return focus('.thinking-select');
    if (!LEVELS.includes(arg)) throw new Error(t('cmd.levelOneOf', { levels: LEVELS.join(', ') }));
    await setThinking(view, l, arg);
    return true;
  },
  async name(view, l, arg) {
    if (!arg) { toast(t('cmd.nameUsage')); return false; }
    const r = await api.rename(view.id, arg);
    view.setSession({ ...(r.session || {}), name: arg.replace(/[\r\n]+/g, ' ').trim() });
    if (r.session) upsertSession(r.session);
    toast(t('head.renamed'));
    return true;
  },
  tree() {
    if (panel.value !== 'tree') setPanel('tree');
    return true;
  },
  async fork(view) {
    const r = await api.command(view.id, { type: 'get_fork_messages' });
    const msgs = ((r.data && r.data.messages) || []).slice().reverse();
    if (!msgs.length) { toast(t('cmd.noUserMsg')); return true; }
    picker.value = {
      title: t('cmd.forkFrom'),
      items: msgs.map((m) => ({ key: m.entryId, label: m.text })),
      pick: (it) => forkAt(view, it.key),
    };
    return true;
  },
  async clone(view) {
    await cloneBranch(view);
    return true;
  },
  new(view) {
    const s = view.detail.value && view.detail.value.session;
    newSessionIn.value = { cwd: (s && s.cwd) || '', machine: view.machine || '' };
    return true;
  },
  resume() {
    searchOpen.value = true;
    return true;
  },
  export(view, l, arg) {
    const format = arg.replace(/^\./, '').toLowerCase() || 'html';
    if (!['html', 'md', 'jsonl'].includes(format)) throw new Error(t('cmd.exportAs'));
    const a = document.createElement('a');
    a.href = api.exportURL(view.id, format, view.leaf || undefined);
    a.download = '';
    document.body.append(a);
    a.click();
    a.remove();
    return true;
  },
  async copy(view) {
    const text = lastAnswer(view);
    if (text === null) { toast(t('cmd.noAgentMsg')); return true; }
    toast(t((await copyText(text)) ? 'cmd.copied' : 'cmd.copyDenied'), { kind: '' });
    return true;
  },
  async session(view) {
    await loadSessionInfo(view);
    return true;
  },
  async trust(view) {
    const d = view.detail.value;
    const cwd = d && d.session && d.session.cwd;
    if (!cwd) throw new Error(t('cmd.noFolder'));
    const tr = await trustFolder(view.id, cwd);
    toast(t(tr.trusted ? 'cmd.trusts' : 'cmd.distrusts', { cwd }));
    return true;
  },
  async reload(view) {
    await api.command(view.id, { type: 'reload' });
    forgetCommands(view.id);
    toast(t('cmd.reloads'));
    return true;
  },
};

// focus opens a control under the composer for the user to choose from.
function focus(sel) {
  const el = document.querySelector(sel);
  if (el) { el.focus(); if (el.showPicker) try { el.showPicker(); } catch { /* not from a gesture */ } }
  return true;
}

// lastAnswer is the text of the last assistant message of the branch
// shown, skipping aborted, failed and tool-call-only ones as pi's
// get_last_assistant_text does; null when there is none.
export function lastAnswer(view) {
  const items = view.items.value;
  for (let i = items.length - 1; i >= 0; i--) {
    const m = items[i].m;
    if (m.role !== 'assistant' || m.stopReason === 'aborted' || m.stopReason === 'error') continue;
    const c = Array.isArray(m.content) ? m.content : [];
    const text = c.filter((b) => b.type === 'text').map((b) => b.text).join('\n').trim();
    if (text) return text;
  }
  return null;
}
