// sidebarbutton.js: the button at the start of every page's header that
// opens the sidebar: the drawer on a phone, and on a wide screen, shown
// only while the sidebar is collapsed, the sidebar again (state.js,
// toggleSidebar; the sidebar's own button collapses it).
import { html } from './html.js';
import { sidebarHidden, toggleSidebar } from './state.js';
import { glyph } from './icons.js';
import { t } from './i18n.js';

export function SidebarButton() {
  const show = () => {
    toggleSidebar();
    // The focus goes on to the sidebar's own button, which the click showed.
    if (!sidebarHidden.value) requestAnimationFrame(() => document.querySelector('.side-hide')?.focus());
  };
  return html`<button class="btn ghost icon only-mobile side-show" type="button" aria-label=${t('side.sessions')}
    title=${t('sb.show')} onClick=${show}>${glyph.menu}</button>`;
}
