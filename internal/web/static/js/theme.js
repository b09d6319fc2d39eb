// theme.js: the theme switch's state. The choice (system, light or dark)
// is kept in localStorage; ../theme.js, run before the first paint, turns
// it into <html data-theme>, and applies a new choice when told.
import { signal } from '@preact/signals';
import { html } from './html.js';
import { t } from './i18n.js';

export const THEMES = [['system', t('theme.system')], ['light', t('theme.light')], ['dark', t('theme.dark')]];
const KEY = 'piweb.theme';

// themeOf is a stored value as a choice: anything unknown is system.
export const themeOf = (v) => (v === 'light' || v === 'dark' ? v : 'system');

export const theme = signal(themeOf(localStorage.getItem(KEY)));

// setTheme remembers a choice and applies it at once.
export function setTheme(v) {
  theme.value = themeOf(v);
  if (theme.value === 'system') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, theme.value);
  document.dispatchEvent(new Event('piweb-theme'));
}

// isDark is whether the page is drawn dark now.
export const isDark = () => document.documentElement.dataset.theme === 'dark';

// ThemeSelect is the switch: a select named Theme.
export function ThemeSelect() {
  return html`<select class="theme-select" aria-label=${t('theme.label')} title=${t('theme.label')} value=${theme.value}
    onChange=${(e) => setTheme(e.target.value)}>${THEMES.map(([v, label]) => html`<option value=${v}>${label}
    </option>`)}</select>`;
}
