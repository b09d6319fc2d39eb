// The message catalogs (static/i18n/*.js) against English, and the page
// modules against the catalogs: every catalog has exactly English's keys
// with English's placeholders; t() fills placeholders, picks plural forms
// and falls back to English for a broken translation; no module writes
// user-visible English itself (literals.mjs finds it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { LANGS, localeOf, format, usable, placeholders, t } from '../static/js/i18n.js';
import en from '../static/i18n/en.js';
import { scan } from './literals.mjs';

const static_ = new URL('../static/', import.meta.url);
const catalogs = await Promise.all(LANGS.map(async ([code]) => [code,
  (await import(new URL('i18n/' + code + '.js', static_))).default]));

// catalogErrors says what is wrong with a catalog against English's.
function catalogErrors(cat) {
  const errs = [];
  for (const k of Object.keys(en)) if (!(k in cat)) errs.push('missing ' + k);
  for (const k of Object.keys(cat)) if (!(k in en)) errs.push('extra ' + k);
  for (const k of Object.keys(cat)) {
    if (k in en && !usable(cat[k], en[k])) {
      errs.push(`${k}: placeholders ${placeholders(cat[k])} or braces differ from English's ${placeholders(en[k])}`);
    }
  }
  return errs;
}

test('every catalog has exactly English\'s keys and placeholders', () => {
  assert.ok(Object.keys(en).length > 100);
  for (const [code, cat] of catalogs) assert.deepEqual(catalogErrors(cat), [], code);
});

test('a catalog with a missing, extra or broken message is caught', () => {
  const [k1, k2] = Object.keys(en).filter((k) => placeholders(en[k]).length);
  const bad = { ...en, [k1]: String(en[k1]).replace(/\{\w+\}/, '{cuont}'), [k2]: undefined, zzz: 'x' };
  delete bad[k2];
  assert.deepEqual(catalogErrors(bad).map((e) => e.split(':')[0]), ['missing ' + k2, 'extra zzz', k1]);
  assert.equal(usable('{count} {count', '{count}'), false, 'an unclosed brace');
});

test('format fills placeholders and picks plural forms', () => {
  const rules = new Intl.PluralRules('en');
  const nums = new Intl.NumberFormat('en');
  const msg = { one: '{count} session in {name}', other: '{count} sessions in {name}' };
  assert.equal(format(msg, { count: 1, name: 'api' }, rules, nums), '1 session in api');
  assert.equal(format(msg, { count: 1234, name: 'api' }, rules, nums), '1,234 sessions in api');
  assert.equal(format('{n} 个', { n: 3 }, new Intl.PluralRules('zh'), new Intl.NumberFormat('zh')), '3 个');
  assert.equal(format('{missing} left as is', {}), '{missing} left as is');
  assert.equal(t('side.msgs', { count: 2 }), '2 msgs');
  assert.equal(t('no.such.key'), 'no.such.key');
});

test('the language follows the browser', () => {
  const cases = [[['zh-TW'], 'zh-Hant'], [['zh-HK', 'en'], 'zh-Hant'], [['zh-Hant-SG'], 'zh-Hant'], [['zh'], 'zh-Hans'],
    [['zh-CN'], 'zh-Hans'], [['ja-JP'], 'ja'], [['es-419'], 'es'], [['fr-FR', 'es'], 'es'], [['de'], 'en'], [[], 'en']];
  for (const [langs, want] of cases) assert.equal(localeOf(langs), want, langs.join());
});

// ALLOWED are the texts a module may write itself: names, symbols and keys.
const ALLOWED = new Set(['piweb', 'Ctrl K', 'cwd', 'npm install -g @earendil-works/pi-coding-agent', 'pi', 'models.json',
  'https://…/v1']);

const modules = () => ['js', 'chat'].flatMap((d) => readdirSync(new URL(d, static_)).filter((f) => f.endsWith('.js'))
  .map((f) => d + '/' + f));

test('no module writes user-visible English itself', () => {
  const found = [];
  for (const m of modules()) {
    for (const x of scan(readFileSync(new URL(m, static_), 'utf8'))) {
      if (!ALLOWED.has(x.text)) found.push(`${m}:${x.line} ${x.kind} ${JSON.stringify(x.text)}`);
    }
  }
  assert.deepEqual(found, []);
});

test('the scanner finds template text, attributes and toasts', () => {
  const src = "const a = html`<p title=\"Hi there\">Hello ${x ? html`<b>nested words</b>` : ''}</p>`;\n"
    + "toast('Saved it'); const r = /`/; html`<i>${t('k')}</i>`;";
  assert.deepEqual(scan(src).map((x) => x.text), ['nested words', 'Hi there', 'Hello', 'Saved it']);
});

test('every key a module asks for is in English\'s catalog, and t is imported', () => {
  const missing = [];
  for (const m of modules()) {
    const src = readFileSync(new URL(m, static_), 'utf8');
    for (const [, k] of src.matchAll(/\bt(?:r)?\('([\w.-]+)'[,)]/g)) if (!(k in en)) missing.push(m + ': ' + k);
    if (/\bt\('/.test(src) && m !== 'js/i18n.js' && !/import \{[^}]*\bt\b[^}]*\} from '[./\w]*i18n\.js'/.test(src)) {
      missing.push(m + ': calls t() without importing it');
    }
  }
  assert.deepEqual(missing, []);
});
