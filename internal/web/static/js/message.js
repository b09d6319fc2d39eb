// Rendering of pi's message objects: every role and content block, with
// tool calls paired with their results.
import { html } from './html.js';
import { markdown, CodeBlock, capped } from './markdown.js';
import { lazy } from './lazylines.js';
import { diffLines, langOf } from './highlight.js';
import { fmtTime, fmtDate, fmtTokens, fmtCost, textOf } from './util.js';
import { t } from './i18n.js';
import { ToolTime, ToolOutput } from '../chat/toolrun.js';
import { SystemPrompt } from './system.js';
import { openFile } from './state.js';
import { glyph } from './icons.js';
import { ErrorText } from './errtext.js';

// PathLink is a file path of a tool call that opens the file in the
// files panel (its card's summary still opens and closes the card).
function PathLink({ path }) {
  return html`<a class="path" href="#" title=${t('msg.openInFiles')}
    onClick=${(e) => { e.preventDefault(); e.stopPropagation(); openFile(path); }}>${path}</a>`;
}

// Message renders one context item {m, id}; ctx.results maps tool call ids
// to their toolResult items, ctx.paired holds the ids of paired results.
export function Message({ item, ctx }) {
  const m = item.m || {};
  switch (m.role) {
    case 'user': return html`<${User} m=${m} />`;
    case 'assistant': return html`<${Assistant} m=${m} ctx=${ctx} />`;
    case 'toolResult': return ctx.paired.has(m.toolCallId) ? null : html`<${Tool} call=${null} result=${m} />`;
    case 'bashExecution': return html`<${Bash} m=${m} />`;
    case 'custom': return m.display === false ? null : html`<${Custom} m=${m} />`;
    case 'branchSummary': return html`<${Summary} m=${m} kind="branch" />`;
    case 'compactionSummary': return null; // rendered by the conversation (needs expansion state)
    case 'system': return html`<${SystemPrompt} m=${m} full=${!ctx.firstSystem || ctx.firstSystem === item.id} />`;
    default: return html`<div class="msg unknown"><${Head} who=${m.role || t('msg.unknown')} at=${m.timestamp} />
      <pre class="raw">${JSON.stringify(m, null, 2)}</pre></div>`;
  }
}

// hidden reports whether a message renders nothing, so the conversation can
// skip it without an empty wrapper.
export function hidden(m, ctx) {
  return (m.role === 'custom' && m.display === false) || (m.role === 'toolResult' && ctx.paired.has(m.toolCallId));
}

function Head({ who, cls = '', at, extra }) {
  return html`<div class="msg-head"><span class=${'who ' + cls}>${who}</span>${extra}
    <time class="ts" datetime=${isFinite(at) ? new Date(at).toISOString() : ''}
      title=${fmtDate(at)}>${fmtTime(at)}</time>
      </div>`;
}

// emptyUser reports whether a user message has nothing to show (no text
// but white space, no image): it is named, not drawn as an empty bubble.
export function emptyUser(blocks) {
  return !blocks.some((b) => b && (b.type === 'image' || (b.type === 'text' && String(b.text || '').trim())));
}

function User({ m }) {
  const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content || [];
  if (!Array.isArray(blocks) || emptyUser(blocks)) return html`<div class="msg user empty"><${Head} who=${t('msg.you')}
    cls="u" at=${m.timestamp} /><div class="muted empty-msg">${t('msg.emptyMessage')}</div></div>`;
  return html`<div class="msg user"><${Head} who=${t('msg.you')} cls="u" at=${m.timestamp} />
    <div class="bubble">${blocks.map((b, i) => b.type === 'image'
      ? html`<${Image} key=${i} b=${b} />`
      : html`<div key=${i} class="md">${markdown(b.text)}</div>`)}</div></div>`;
}

// Image shows an image block; data that is not base64 would be a broken
// image and an error in the console, so it is named instead.
function Image({ b }) {
  if (!/^image\/(png|jpeg|gif|webp)$/.test(b.mimeType || '')) return html`<span
    class="muted">${t('msg.imageOf', { type: b.mimeType })}</span>`;
  if (typeof b.data !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(b.data)) return html`<span
    class="muted">${t('msg.unreadableImage', { type: b.mimeType })}</span>`;
  return html`<img class="msg-img" alt=${t('msg.image')}
    loading="lazy" src=${'data:' + b.mimeType + ';base64,' + b.data} />`;
}

function usageLine(m) {
  const u = m.usage;
  if (!u) return '';
  const cost = u.cost && u.cost.total;
  return t('msg.usage', { input: fmtTokens(u.input), output: fmtTokens(u.output) })
    + (u.cacheRead ? t('msg.cached', { tokens: fmtTokens(u.cacheRead) }) : '') + (cost ? ' · ' + fmtCost(cost) : '');
}

function Assistant({ m, ctx }) {
  const blocks = Array.isArray(m.content) ? m.content : [];
  const bad = m.stopReason === 'error' || m.stopReason === 'aborted';
  const u = m.usage || {};
  const title = [t('msg.usageTitle', { input: u.input || 0, output: u.output || 0, cacheRead: u.cacheRead || 0,
    cacheWrite: u.cacheWrite || 0 }), u.cost && t('msg.costTitle', { cost: '$' + (u.cost.total || 0).toFixed(6) }),
  t('msg.stopTitle', { stop: m.stopReason || '' }), 'api: ' + (m.api || '')].filter(Boolean).join('\n');
  const extra = html`<span class="model" title=${m.provider + '/' + m.model}>${m.responseModel || m.model}</span>
    ${m.thinkingLevel && m.thinkingLevel !== 'off' && html`<span class="muted think-level"
      title=${t('msg.thinkingLevel')}>${t('msg.thinkingIs', { level: m.thinkingLevel })}</span>`}
    ${m.durationMs > 0 && html`<span class="muted duration"
      title=${t('msg.timeToAnswer')}>${secs(m.durationMs)}</span>`}
    <span class="usage" title=${title}>${usageLine(m)}</span>`;
  return html`<div class=${'msg assistant' + (bad ? ' bad' : '')}><${Head} who=${t('msg.assistant')}
    cls="a" at=${m.timestamp}
    extra=${extra} />
    ${blocks.map((b, i) => {
      if (b.type === 'text') return html`<div key=${i} class="md">${markdown(b.text)}</div>`;
      if (b.type === 'thinking') return html`<${Thinking} key=${i} b=${b} />`;
      if (b.type === 'toolCall') return html`<${Tool} key=${i} call=${b} result=${ctx.results.get(b.id)} />`;
      if (b.type === 'image') return html`<${Image} key=${i} b=${b} />`;
      return null;
    })}
    ${bad && html`<div class=${'stop ' + m.stopReason}>
      <strong>${t(m.stopReason === 'aborted' ? 'msg.aborted' : 'msg.error')}
      </strong>${m.errorMessage && html`: <${ErrorText} text=${m.errorMessage} />`}</div>`}
    ${!blocks.length && !bad && html`<div class="muted">${t('msg.emptyResponse')}</div>`}
  </div>`;
}

// secs shows a duration in seconds, minutes past a minute.
function secs(ms) {
  if (ms < 1000) return t('msg.ms', { n: Math.round(ms) });
  const s = ms / 1000;
  return s < 60 ? t('msg.s', { n: s.toFixed(1) }) : t('msg.minS', { min: Math.floor(s / 60), s: Math.round(s % 60) });
}

function Thinking({ b }) {
  const text = b.thinking || '';
  return html`<details class="thinking">
    <summary>${t(b.redacted ? 'msg.thinkingRedacted' : 'msg.thinking')} <span class="muted">${
      t('msg.chars', { count: text.length })}</span>
      </summary>
    <div class="thinking-body">${lazy(text)}</div></details>`;
}

const exitRE = /Command exited with code (-?\d+)\s*$/;

// Tool renders a tool call with its result: bash, read, edit and write get
// their own shapes, other tools show arguments and output. Until the result
// is in, the card shows the live run (chat/toolrun.js): the clock and the
// output so far, replaced in place by the result.
export function Tool({ call, result }) {
  const name = (call && call.name) || (result && result.toolName) || 'tool';
  const args = (call && call.arguments) || {};
  const out = result ? textOf(result.content) : '';
  const images = result && Array.isArray(result.content) ? result.content.filter((b) => b.type === 'image') : [];
  const err = result && result.isError;
  const state = !result ? 'pending' : err ? 'error' : 'ok';
  let summary = '';
  let body = null;
  switch (name) {
    case 'bash': {
      const m = out.match(exitRE);
      const code = m ? +m[1] : result ? (err ? '?' : 0) : '';
      summary = html`<code class="cmd">$ ${args.command}</code>
        ${result && html`<span class=${'exit' + (code === 0 ? '' : ' bad')}>${t('msg.exit', { code })}</span>`}`;
      body = result && html`<pre class="out">${lazy(m ? out.replace(exitRE, '').trimEnd() : out)}</pre>`;
      break;
    }
    case 'read':
      summary = html`<${PathLink} path=${args.path} />${args.offset ? html`<span class="muted">:${args.offset}
        ${args.limit ? '+' + args.limit : ''}</span>` : ''}${result && !err && html`<span class="muted lines-n">
        ${t('msg.lines', { count: lineCount(out) })}</span>`}`;
      body = result && (err ? html`<pre class="out">${lazy(out)}</pre>` : html`<${CodeView} code=${out}
        lang=${args.path} />`);
      break;
    case 'write':
      summary = html`<${PathLink} path=${args.path} /><span class="muted">
        ${t('msg.lines', { count: lineCount(String(args.content || '')) })}</span>`;
      body = html`<${CodeView} code=${args.content || ''} lang=${args.path} />
        ${err && html`<pre class="out">${lazy(out)}</pre>`}`;
      break;
    case 'edit':
      summary = html`<${PathLink} path=${args.path} />`;
      body = html`<pre class="diff">${lazy(editDiff(args, result), (s) => diffLines(s, args.path))}</pre>
        ${err && html`<pre class="out">${lazy(out)}</pre>`}`;
      break;
    default:
      summary = html`<span class="muted args">${JSON.stringify(args).slice(0, 160)}</span>`;
      body = html`<details class="args-full"><summary>${t('msg.arguments')}</summary><pre class="out">
        ${capped(JSON.stringify(args, null, 2))}</pre></details>
        ${result && html`<pre class="out">${lazy(out)}</pre>`}`;
  }
  // A running tool of an extension may stream output: its card is open.
  const open = state === 'error' || name === 'edit' || name === 'bash' || (!result && !['read',
    'write'].includes(name));
  return html`<details class=${'tool ' + state} open=${open} data-call=${call ? call.id : null}>
    <summary><span class="tool-name">${name}</span>${summary}${call && html`<${ToolTime} id=${call.id} />`}</summary>
    <div class="tool-body">${body}${call && !result && html`<${ToolOutput} id=${call.id} />`}
      ${images.map((b, i) => html`<${Image} key=${i} b=${b} />`)}
    ${result && !call && html`<div class="muted">${t('msg.resultNoCall')}</div>`}</div>
  </details>`;
}

// lineCount counts lines as an editor does: a final newline ends the last
// line rather than starting another.
export function lineCount(s) {
  return s ? s.replace(/\n$/, '').split('\n').length : 0;
}

function CodeView({ code, lang }) {
  const n = lineCount(code);
  if (n <= 40) return html`<${CodeBlock} code=${code} lang=${langOf(lang) || 'text'} />`;
  return html`<details class="long"><summary>${t('msg.lines', { count: n })}</summary><${CodeBlock} code=${code}
    lang=${langOf(lang) || 'text'} /></details>`;
}

// editDiff prefers the diff pi computed (details.diff), else builds one
// from the edit arguments.
export function editDiff(args, result) {
  const d = result && result.details && result.details.diff;
  if (typeof d === 'string' && d) return d;
  const edits = Array.isArray(args.edits) ? args.edits : [{ oldText: args.oldText, newText: args.newText }];
  return edits.map((e) => [
    ...String(e.oldText || '').split('\n').map((l) => '-' + l),
    ...String(e.newText || '').split('\n').map((l) => '+' + l),
  ].join('\n')).join('\n@@\n');
}

function Bash({ m }) {
  const code = m.cancelled ? 'cancelled' : m.exitCode === undefined ? '?' : m.exitCode;
  return html`<div class="msg bashexec"><${Head} who=${t('msg.shell')} cls="b" at=${m.timestamp}
      extra=${m.excludeFromContext ? html`<span class="tag">${t('msg.notInContext')}</span>` : ''} />
    <div class=${'tool ' + (code === 0 ? 'ok' : 'error') + ' static'}>
      <div class="tool-sum"><span class="tool-name">!</span><code class="cmd">$ ${m.command}</code><span
        class=${'exit' + (code === 0 ? '' : ' bad')}>${t('msg.exit', { code })}</span>
        ${m.truncated && html`<span class="tag">${t('msg.truncated')}</span>`}</div>
      <div class="tool-body"><pre class="out">${lazy(m.output)}</pre></div></div></div>`;
}

function Custom({ m }) {
  const c = m.content;
  return html`<div class="msg custom"><${Head} who=${m.customType || t('msg.extension')} cls="c" at=${m.timestamp} />
    <div class="md">${typeof c === 'string' ? markdown(c) : (c || []).map((b, i) => b.type === 'image' ? html`<${Image}
      key=${i} b=${b} />` : html`<div key=${i}>${markdown(b.text)}</div>`)}</div></div>`;
}

export function Summary({ m, kind }) {
  return html`<details class=${'card summary ' + kind}>
    <summary><span class="card-icon">${glyph.branch}
      </span> ${t('msg.branchSummary')} <span class="muted">${t('msg.fromAbandoned')}</span>
      <time class="ts" title=${fmtDate(m.timestamp)}>${fmtTime(m.timestamp)}</time></summary>
    <div class="md">${markdown(m.summary)}</div></details>`;
}
