// panelsize.js: the side panel's size. A panel is as wide as the user
// dragged its left edge (or moved it with the arrow keys), remembered per
// panel, or takes the full width beside the sidebar (remembered too); how
// it is drawn is panelFit's (panelfit.js): over the conversation rather
// than squeezing it.
import { signal } from '@preact/signals';
import { html } from './html.js';
import { closePanel, sidebarHidden } from './state.js';
import { glyph } from './icons.js';
import { panelFit, clampWidth } from './panelfit.js';
import { t } from './i18n.js';

const WIDTHS = 'piweb.panelWidths';
const FULL = 'piweb.panelFull';
const SIDE = 284; // the sidebar's width in style.css
const STEP = 24; // px an arrow key moves the edge

function stored() {
  try { return JSON.parse(localStorage.getItem(WIDTHS)) || {}; } catch { return {}; }
}

export const widths = signal(stored());
export const full = signal(localStorage.getItem(FULL) === '1');
const viewport = signal(window.innerWidth);
window.addEventListener('resize', () => { viewport.value = window.innerWidth; });

const side = () => (sidebarHidden.value ? 0 : SIDE);

// fitOf is how the registry's panel p is drawn now.
export const fitOf = (p) => panelFit({ viewport: viewport.value, side: side(), width: widths.value[p.name] || 0,
  wide: !!p.wide, full: full.value });

function setWidth(name, w, keep) {
  widths.value = { ...widths.value, [name]: clampWidth(w, viewport.value - side()) };
  if (full.value) setFull(false);
  if (keep) localStorage.setItem(WIDTHS, JSON.stringify(widths.value));
}

function setFull(on) {
  full.value = on;
  if (on) localStorage.setItem(FULL, '1');
  else localStorage.removeItem(FULL);
}

// PanelGrip is the panel's left edge: dragged, or focused and moved with
// the arrow keys, it sets the panel's width.
export function PanelGrip({ p }) {
  const w = fitOf(p).width;
  const down = (e) => {
    if (e.button !== 0) return;
    e.preventDefault();
    const el = e.currentTarget;
    el.setPointerCapture(e.pointerId);
    el.classList.add('dragging');
    const move = (m) => setWidth(p.name, window.innerWidth - m.clientX, false);
    const up = () => {
      el.classList.remove('dragging');
      el.removeEventListener('pointermove', move);
      el.removeEventListener('pointerup', up);
      el.removeEventListener('pointercancel', up);
      setWidth(p.name, widths.value[p.name] || w, true);
    };
    el.addEventListener('pointermove', move);
    el.addEventListener('pointerup', up);
    el.addEventListener('pointercancel', up);
  };
  const key = (e) => {
    const d = { ArrowLeft: STEP, ArrowRight: -STEP }[e.key];
    if (!d) return;
    e.preventDefault();
    setWidth(p.name, w + d, true);
  };
  return html`<div class="panel-grip" role="separator" aria-orientation="vertical" tabindex="0"
    aria-label=${t('psize.grip')} aria-valuenow=${w} aria-valuemin="260"
    title=${t('psize.drag')} onPointerDown=${down} onKeyDown=${key}></div>`;
}

// PanelButtons end every panel's header: full width on and off, and close.
export function PanelButtons() {
  return html`<button class="btn ghost icon panel-full-btn" type="button" aria-pressed=${full.value}
    aria-label=${t('psize.full')} title=${t(full.value ? 'psize.back' : 'psize.full')}
    onClick=${() => setFull(!full.value)}>${full.value ? glyph.unwiden : glyph.widen}</button>
    <button class="btn ghost icon" type="button" aria-label=${t('common.close')}
      onClick=${closePanel}>${glyph.close}</button>`;
}
