// Loaded with `node --import ./register.mjs`: installs imports.mjs.
import { register } from 'node:module';

register('./imports.mjs', import.meta.url);

// The page's language in the unit tests is English, whatever the
// machine's locale (i18n.js reads navigator.languages).
Object.defineProperty(globalThis, 'navigator', {
  value: { ...globalThis.navigator, language: 'en-US', languages: ['en-US'] }, configurable: true,
});
