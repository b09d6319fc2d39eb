// shortcuts.js: the dialog ? (or the palette) opens, listing the app's
// keys (a11y.js); on a phone, its buttons first and the keys, for a
// keyboard, folded.
import { useEffect, useRef, useState } from 'preact/hooks';
import { signal } from '@preact/signals';
import { html } from './html.js';
import { shortcuts, phoneControls } from './a11y.js';
import { useDialogFocus } from './dialogfocus.js';
import { t } from './i18n.js';

export const shortcutsOpen = signal(false);

export function ShortcutsDialog() {
  const box = useRef(null);
  useDialogFocus(box);
  const close = () => { shortcutsOpen.value = false; };
  const phone = usePhone();
  const groups = shortcuts.map((g) => html`<section key=${g.group}><h3>${g.group}</h3>
    <${Keys} keys=${g.keys} group=${g.group} /></section>`);
  return html`<div class="overlay" onPointerDown=${(e) => { if (e.target === e.currentTarget) close(); }}>
    <div class="dialog shortcuts-dialog" role="dialog" aria-modal="true" aria-labelledby="shortcuts-title" ref=${box}
      onKeyDown=${(e) => { if (e.key === 'Escape') { e.stopPropagation(); close(); } }}>
      <h2 id="shortcuts-title">${t(phone ? 'keys.buttonsTitle' : 'keys.title')}</h2>
      ${phone ? html`<section><h3>${t('keys.onScreen')}</h3><${Keys} keys=${phoneControls} group="phone" /></section>
        <details class="keys-more"><summary>${t('keys.withKeyboard')}</summary>${groups}</details>` : groups}
      <div class="dialog-actions"><button class="btn primary" type="button" onClick=${close}>${t('common.close')}
        </button></div>
    </div></div>`;
}

function Keys({ keys, group }) {
  return html`<dl class="keys-list">${keys.map(([k, what]) => html`<div key=${group + k}><dt><kbd>${k}</kbd></dt>
    <dd>${what}</dd></div>`)}</dl>`;
}

// usePhone is whether the page has its phone layout (as style.css: up
// to 760 px), whose buttons stand for most keys, following a resize.
function usePhone() {
  const mq = matchMedia('(max-width: 760px)');
  const [on, setOn] = useState(mq.matches);
  useEffect(() => {
    const f = () => setOn(mq.matches);
    mq.addEventListener('change', f);
    return () => mq.removeEventListener('change', f);
  }, []);
  return on;
}
