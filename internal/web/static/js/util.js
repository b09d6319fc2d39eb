// Formatting helpers shared by the views.
import { t, locale, dateFmt } from './i18n.js';

const units = [
  ['y', 365 * 86400e3], ['mo', 30 * 86400e3], ['w', 7 * 86400e3],
  ['d', 86400e3], ['h', 3600e3], ['m', 60e3],
];

// relTime says how long ago a time (ms or ISO string) was, compactly: "5m", "3d".
export function relTime(at, now = Date.now()) {
  const [u, n] = since(at, now);
  return u === 'now' ? t('time.now') : u ? t('time.' + u, { n }) : '';
}

// since is how long ago a time was, as a unit of units and a count ('now'
// under 45 seconds, '' when there is no time).
function since(at, now) {
  const ms = toMs(at);
  if (!isFinite(ms)) return [''];
  const d = now - ms;
  if (d < 45e3) return ['now'];
  for (const [u, n] of units) if (d >= n) return [u, Math.floor(d / n)];
  return ['now'];
}

// ago says how long ago a time was in words: "5m ago", "just now".
export function ago(at, now = Date.now()) {
  const [u] = since(at, now);
  return u === 'now' ? t('time.justNow') : u ? t('time.ago', { time: relTime(at, now) }) : '';
}

// toMs reads a time as milliseconds; no time (or 0, which pi never writes
// and would read as 1 January 1970) is NaN.
export function toMs(t) {
  if (t == null) return NaN;
  const ms = typeof t === 'number' ? t : Date.parse(t);
  return ms > 0 ? ms : NaN;
}

// fmtDate is a date and time to the minute: 2026-12-05 09:21 in English
// (unambiguous everywhere), the language's own medium form in the others.
export function fmtDate(at) {
  const ms = toMs(at);
  if (!isFinite(ms)) return '';
  const d = new Date(ms);
  if (locale !== 'en') return dateFmt({ dateStyle: 'medium', timeStyle: 'short' }).format(d);
  const p = (n) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

export function fmtTime(t) {
  const ms = toMs(t);
  if (!isFinite(ms)) return '';
  const d = new Date(ms);
  const p = (n) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function fmtBytes(n) {
  if (!(n >= 0)) return '';
  if (n < 1024) return n + ' B';
  if (n < 1024 * 1024) return (n / 1024).toFixed(n < 10240 ? 1 : 0) + ' KB';
  return (n / 1048576).toFixed(n < 10485760 ? 1 : 0) + ' MB';
}

export function fmtTokens(n) {
  if (!(n > 0)) return '0';
  if (n < 1000) return String(n);
  if (n < 1e6) return (n / 1000).toFixed(n < 1e4 ? 1 : 0) + 'k';
  return (n / 1e6).toFixed(1) + 'M';
}

// fmtCost formats dollars with the same precision everywhere: two
// significant digits under a cent ($0.0067), three decimals under a dollar
// ($0.012, $0.250), cents above; a cost too small to show is "<$0.0001",
// never "$0.0000".
export function fmtCost(c) {
  if (!(c > 0)) return '$0';
  if (c >= 1) return '$' + c.toFixed(2);
  if (c >= 0.01) return '$' + c.toFixed(3);
  if (c < 0.0001) return '<$0.0001';
  return '$' + c.toPrecision(2);
}

// plural counts a noun: "1 session", "2 sessions".
export function plural(n, noun) {
  return n + ' ' + noun + (n === 1 ? '' : 's');
}

// Messages are counted one way everywhere (docs/decisions/0032): every
// message pi keeps, of every role (user, assistant, tool result, shell,
// extension, summary, pi 1.x's system prompt), as pi's own session list
// and /session count them. A file's count covers all its branches (the
// sidebar, /session); a branch's, the messages of its context (exports).
// countLine is the header's: the branch shown, and the file when it holds
// more.
export function countLine(branch, file) {
  return file > branch ? t('count.branchFile', { count: branch, file }) : t('count.messages', { count: branch });
}

// statsParts splits pi's /session message count (get_session_stats) into
// parts that add up to it: what is not a user, assistant or tool result
// message (shell, extension, summary, system) is "other".
export function statsParts(st) {
  const n = (k) => Number(st[k]) || 0;
  const other = n('totalMessages') - n('userMessages') - n('assistantMessages') - n('toolResults');
  return [t('stats.user', { count: n('userMessages') }), t('stats.assistant', { count: n('assistantMessages') }),
    t('stats.toolResults', { count: n('toolResults') }), ...(other > 0 ? [t('stats.other', { count: other })] : [])]
    .join(' + ') + ' = ' + n('totalMessages');
}

// withoutToken is q without the whole token raw (a search chip's filter,
// as the server read it from q), spaces around it closed up.
export function withoutToken(q, raw) {
  const esc = raw.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return q.replace(new RegExp('(^|\\s)' + esc + '(?=\\s|$)'), '$1').replace(/\s{2,}/g, ' ').trim();
}

// baseName returns the last path element, for project names.
export function baseName(p) {
  if (!p) return '(no cwd)';
  const parts = String(p).split(/[\\/]/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : p;
}

export function shortId(id) {
  return String(id || '').slice(0, 8);
}

// textOf returns the plain text of a message content (string or blocks).
export function textOf(content) {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.filter((b) => b && b.type === 'text').map((b) => b.text).join('\n');
}

export async function copyText(s) {
  try {
    await navigator.clipboard.writeText(s);
    return true;
  } catch {
    return false;
  }
}

// debounce calls fn at most once per ms, after the last call.
export function debounce(fn, ms) {
  let t;
  return (...a) => {
    clearTimeout(t);
    t = setTimeout(() => fn(...a), ms);
  };
}

// noKeyProvider finds pi's "No API key …" in an error: null when there is
// none, else the provider it names, lower case ('' when it names none).
// pi says it several ways: "No API key for provider: openai", "No API key
// for openai/gpt-5.2", "No API key found for Anthropic".
export function noKeyProvider(text) {
  const m = /No API key(?: (?:found|provided))?(?: for (?:provider:? )?["'`]?([A-Za-z0-9._-]+))?/.exec(text || '');
  if (!m) return null;
  const p = (m[1] || '').toLowerCase().replace(/\.$/, '');
  return p === 'this' ? '' : p;
}

// whyNoCompact says in words why pi would refuse to compact the branch
// whose messages (its context, oldest first: [{m}]) are shown, or '' when
// it may: pi keeps the last keep tokens as they are (its
// compaction.keepRecentTokens), so a context no larger has nothing to
// summarize ("Nothing to compact (session too small)"), and a branch that
// ends with a compaction has nothing new ("Already compacted").
export function whyNoCompact(items, keep) {
  const last = items.length ? items[items.length - 1].m : null;
  if (last && last.role === 'compactionSummary') return t('util.compacted');
  const answers = items.filter((it) => it.m.role === 'assistant' && it.m.usage);
  if (!answers.length) return t('util.noAnswer');
  const u = answers[answers.length - 1].m.usage;
  const tokens = u.totalTokens || (u.input || 0) + (u.output || 0) + (u.cacheRead || 0) + (u.cacheWrite || 0);
  if (tokens >= keep) return '';
  return t('util.tooSmall', { keep: fmtTokens(keep), tokens: fmtTokens(tokens) });
}

// pushWhy says in words why Web Push could not be turned on, from the
// browser's error: a browser that cannot reach its push service (a
// Chromium without Google's, a network that blocks it) says only
// "push service error".
export function pushWhy(e) {
  const msg = (e && e.message) || String(e || '');
  if ((e && e.name === 'NotAllowedError') || /permission|not allow|denied/i.test(msg)) {
    return t('util.pushDenied');
  }
  if ((e && e.name === 'AbortError') || /push service|registration failed/i.test(msg)) {
    return t('util.pushService');
  }
  return msg;
}
