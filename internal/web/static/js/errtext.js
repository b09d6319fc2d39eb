// ErrorText shows an error with a way out: pi's "No API key …" links to
// the provider's row in Settings (settings.js opens it from ?provider=).
import { html } from './html.js';
import { navigate } from './state.js';
import { noKeyProvider } from './util.js';
import { t } from './i18n.js';

// keyURL is the Settings page at a provider's key ('' for the list).
export const keyURL = (provider) => '/settings' + (provider ? '?provider=' + encodeURIComponent(provider) : '');

export function ErrorText({ text }) {
  const p = noKeyProvider(text);
  if (p === null) return text;
  const go = (e) => {
    if (e.button || e.metaKey || e.ctrlKey || e.shiftKey) return;
    e.preventDefault();
    navigate(keyURL(p));
  };
  return html`${text} <a class="nokey-link" href=${keyURL(p)} onClick=${go}>${p ? t('err.setKey', { provider: p })
    : t('err.setAnyKey')}</a>`;
}
