// i18n.js: the page's words in the reader's language. Every text the page
// shows is a key of the message catalogs (static/i18n/<lang>.js, one file
// per language, English the reference); t(key, params) is its text in the
// chosen language with named placeholders ({count}) filled in and, for a
// message with plural forms ({ one, other }), the form Intl.PluralRules
// picks for params.count. A translation whose placeholders differ from
// English's is broken: English is shown instead (and the catalog test
// fails). The language follows the browser unless chosen in Settings
// (kept in localStorage like the theme); a change reloads the page.
// Dates and numbers use Intl's formats of the same language.
import en from '../i18n/en.js';

// LANGS are the languages with a catalog, by BCP 47 tag, named in their own words.
export const LANGS = [['en', 'English'], ['zh-Hans', '简体中文'], ['zh-Hant', '繁體中文'], ['ja', '日本語'],
  ['es', 'Español']];
const KEY = 'piweb.lang';
const known = (v) => LANGS.some(([code]) => code === v);

// localeOf is the catalog for a browser's languages (navigator.languages):
// the first one piweb has, Chinese by script (zh-TW, zh-HK, zh-MO and
// zh-Hant are Traditional, other zh Simplified), else English.
export function localeOf(langs) {
  for (const raw of langs || []) {
    const tag = String(raw).toLowerCase();
    const base = tag.split('-')[0];
    if (base === 'zh') return /hant|-tw|-hk|-mo/.test(tag) ? 'zh-Hant' : 'zh-Hans';
    const hit = LANGS.find(([code]) => code === base);
    if (hit) return hit[0];
  }
  return 'en';
}

const stored = () => { try { return localStorage.getItem(KEY) || ''; } catch { return ''; } };

// choice is what the Settings switch shows: '' (the browser's) or a language.
export const choice = known(stored()) ? stored() : '';
const browserLangs = () => (typeof navigator !== 'undefined' && navigator.languages) || [];

// locale is the language the page is drawn in.
export const locale = choice || localeOf(browserLangs());
const catalog = await load(locale);
if (typeof document !== 'undefined' && document.documentElement) document.documentElement.lang = locale;

async function load(lang) {
  if (lang === 'en') return en;
  try { return (await import('../i18n/' + lang + '.js')).default; } catch { return en; }
}

// setLocale remembers a choice ('' for the browser's) and redraws the page in it.
export function setLocale(v) {
  if (known(v)) localStorage.setItem(KEY, v);
  else localStorage.removeItem(KEY);
  location.reload();
}

const rules = new Intl.PluralRules(locale);
const numbers = new Intl.NumberFormat(locale);

// placeholders are the names a message (or each of its plural forms) uses, sorted.
export function placeholders(msg) {
  const forms = typeof msg === 'object' && msg ? Object.values(msg) : [msg];
  const names = new Set();
  for (const f of forms) for (const m of String(f).matchAll(/\{(\w+)\}/g)) names.add(m[1]);
  return [...names].sort();
}

// wellFormed is whether every brace of a message is a {name} placeholder.
const wellFormed = (msg) => (typeof msg === 'object' && msg ? Object.values(msg) : [msg])
  .every((f) => typeof f === 'string' && !/[{}]/.test(f.replace(/\{\w+\}/g, '')));

const checked = new Map();
// usable is whether a catalog's message may be shown: well formed, with English's placeholders.
export function usable(msg, ref) {
  if (msg === undefined || !wellFormed(msg)) return false;
  return placeholders(msg).join() === placeholders(ref).join();
}

function message(key) {
  if (catalog === en) return en[key];
  if (!checked.has(key)) checked.set(key, usable(catalog[key], en[key]));
  return checked.get(key) ? catalog[key] : en[key];
}

// format fills msg (a string, or plural forms picked by params.count) with params.
export function format(msg, params = {}, plurals = rules, nums = numbers) {
  if (msg && typeof msg === 'object') {
    const n = Number(params.count);
    msg = msg[plurals.select(n)] ?? msg.other;
  }
  return String(msg).replace(/\{(\w+)\}/g, (all, name) => {
    const v = params[name];
    if (v === undefined || v === null) return all;
    return typeof v === 'number' ? nums.format(v) : String(v);
  });
}

// t is the text of key in the page's language; a key no catalog has is
// shown as itself.
export function t(key, params) {
  const msg = message(key);
  return msg === undefined ? key : format(msg, params);
}

// num is a number in the page's language (1,234.5 or 1 234,5).
export const num = (n, opts) => (opts ? new Intl.NumberFormat(locale, opts) : numbers).format(n);

const dateFormats = new Map();
// dateFmt is an Intl.DateTimeFormat of the page's language, kept per options.
export function dateFmt(opts) {
  const k = JSON.stringify(opts);
  if (!dateFormats.has(k)) dateFormats.set(k, new Intl.DateTimeFormat(locale, opts));
  return dateFormats.get(k);
}
