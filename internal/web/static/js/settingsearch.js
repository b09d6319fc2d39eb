// settingsearch.js: the settings page's sections, the human names of
// pi's settings, and the search box's matching, without the DOM (node
// --test checks them).

import { t } from './i18n.js';

// SECTIONS are the settings page's sections, in the navigation's order.
export const SECTIONS = [
  ['providers', t('set.sec.providers')], ['models', t('set.sec.models')], ['agent', t('set.sec.agent')],
  ['resources', t('set.sec.resources')], ['alerts', t('set.sec.alerts')], ['piweb', 'piweb'],
];

// LABELS are the human names of pi's settings (key or key.sub).
const LABELS = Object.fromEntries(['defaultProvider', 'defaultModel', 'defaultThinkingLevel', 'enabledModels',
  'steeringMode', 'followUpMode', 'compaction.enabled', 'compaction.reserveTokens', 'compaction.keepRecentTokens',
  'retry.enabled', 'retry.maxRetries', 'retry.baseDelayMs', 'retry.maxAgentDelayMs', 'hideThinkingBlock',
  'enableSkillCommands', 'defaultProjectTrust'].map((k) => [k, t('set.label.' + k)]));

// keyName is a setting's key as pi's settings.json writes it.
export const keyName = (st) => (st.sub ? st.key + '.' + st.sub : st.key);

// labelOf is a setting's human name: ours, else its key in words
// ("maxTokens" is "Max tokens").
export function labelOf(st) {
  const k = keyName(st);
  if (LABELS[k]) return LABELS[k];
  const words = k.replace(/\./g, ' ').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

// matches reports whether every word of the query is in one of texts,
// ignoring case (an empty query matches everything).
export function matches(query, ...texts) {
  const words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return true;
  const hay = texts.filter((t) => t != null).join(' \u0000 ').toLowerCase();
  return words.every((w) => hay.includes(w));
}

// settingMatches is whether a setting of the schema matches the query:
// by its name, key, description or choices, or by a value it has
// (values: the global one, a project's), as typed (a text, a number, a
// list's items; an on/off switch is found by its name only).
export const settingMatches = (query, st, ...values) => matches(query, labelOf(st), keyName(st), st.doc,
  (st.options || []).join(' '), ...values.map(typed));

// typed is a setting's value as the search reads it.
function typed(v) {
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  if (Array.isArray(v)) return v.map(typed).join(' ');
  if (v && typeof v === 'object') return JSON.stringify(v);
  return null;
}
