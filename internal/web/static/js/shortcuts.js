// shortcuts.js: the dialog ? opens, listing the app's keys (a11y.js).
import { useRef } from 'preact/hooks';
import { signal } from '@preact/signals';
import { html } from './html.js';
import { shortcuts } from './a11y.js';
import { useDialogFocus } from './dialogfocus.js';

export const shortcutsOpen = signal(false);

export function ShortcutsDialog() {
  const box = useRef(null);
  useDialogFocus(box);
  const close = () => { shortcutsOpen.value = false; };
  return html`<div class="overlay" onPointerDown=${(e) => { if (e.target === e.currentTarget) close(); }}>
    <div class="dialog shortcuts-dialog" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title" ref=${box}
      onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); close(); } }}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      ${shortcuts.map((g) => html`<section key=${g.group}><h3>${g.group}</h3><dl class="keys-list">
        ${g.keys.map(([k, what]) => html`<div key=${g.group + k}><dt><kbd>${k}</kbd></dt><dd>${what}</dd></div>`)}
      </dl></section>`)}
      <div class="dialog-actions"><button class="btn primary" type="button" onClick=${close}>Close</button></div>
    </div></div>`;
}
