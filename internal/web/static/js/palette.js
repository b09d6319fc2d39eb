// The command palette (Ctrl/Cmd+Shift+P, or the ⌘ button on a phone):
// every action of the page and the open session (js/actionlist.js),
// filtered as the user types (js/fuzzy.js), ↑↓ and Enter, with the
// shortcut that does the same shown beside each.
import { signal } from '@preact/signals';
import { useEffect, useRef, useState } from 'preact/hooks';
import { html } from './html.js';
import { current } from './view.js';
import { route } from './state.js';
import { allActions } from './actionlist.js';
import { rankActions } from './fuzzy.js';
import { useDialogFocus } from './dialogfocus.js';
import { t } from './i18n.js';

export const paletteOpen = signal(false);

export function Palette() {
  const [q, setQ] = useState('');
  const [sel, setSel] = useState(0);
  const box = useRef(null);
  useDialogFocus(box);
  const view = route.value.page === 'session' ? current.value : null;
  const list = rankActions(allActions(view), q);
  const at = Math.min(sel, Math.max(0, list.length - 1));
  useEffect(() => { document.querySelector('.palette .hit.sel')?.scrollIntoView({ block: 'nearest' }); }, [at]);
  const pick = (a) => { paletteOpen.value = false; if (a) a.run(); };
  const onKey = (e) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setSel((at + (e.key === 'ArrowDown' ? 1 : list.length - 1)) % Math.max(1, list.length));
    } else if (e.key === 'Enter') { e.preventDefault(); pick(list[at]); }
    else if (e.key === 'Escape') { e.stopPropagation(); paletteOpen.value = false; }
  };
  const outside = (e) => { if (e.target === e.currentTarget) paletteOpen.value = false; };
  return html`<div class="overlay" onPointerDown=${outside}>
    <div class="dialog search palette" role="dialog" aria-modal="true"
      aria-label=${t('pal.dialog')} ref=${box}>
      <div class="search-box"><input autofocus value=${q} aria-label=${t('pal.command')}
        placeholder=${t('pal.placeholder')}
        role="combobox" aria-expanded="true" aria-controls="palette-list"
        onInput=${(e) => { setQ(e.target.value); setSel(0); }} onKeyDown=${onKey} /></div>
      <ul class="hits" role="listbox" id="palette-list">
        ${!list.length && html`<li class="muted pad">${t('pal.noMatch', { q })}</li>`}
        ${list.map((a, i) => html`<li key=${a.group + a.label} role="option" aria-selected=${i === at}
          class=${'hit cmd' + (i === at ? ' sel' : '')} onPointerEnter=${() => setSel(i)} onClick=${() => pick(a)}>
          <span class="cmd-group muted">${a.group}</span><span class="cmd-label">${a.label}</span>
          ${a.keys && html`<kbd class="cmd-keys">${a.keys}</kbd>`}</li>`)}
      </ul>
      <div class="dialog-foot muted"><span class="keys">${t('pal.keys')}</span></div>
    </div></div>`;
}
