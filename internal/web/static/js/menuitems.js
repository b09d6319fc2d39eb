// menuitems.js: a menu's items drawn from the action list (actionlist.js),
// so that a menu and the command palette say the same thing. layout names
// the actions by id in the menu's order: '-' is a separator (drawn only
// between items that are there), {prefix, cls} every action whose id
// starts with prefix, with classes cls, {sep: cls} a separator with
// classes. An action is a menu item button (a menuitemcheckbox when it
// has checked, a download link when it has href), its label and title as
// in the palette, its shortcut beside it (data-keys), disabled when the
// list says it is unavailable.
import { html } from './html.js';

// menuOf picks the actions of layout, in its order, with the separators
// left between two picked items: [{a, cls}] or [{sep: cls}].
export function menuOf(actions, layout) {
  const byID = new Map(actions.map((a) => [a.id, a]));
  const out = [];
  for (const l of layout) {
    if (l === '-' || l.sep !== undefined) out.push({ sep: l === '-' ? '' : l.sep });
    else if (l.prefix) out.push(...actions.filter((a) => a.id.startsWith(l.prefix)).map((a) => ({ a, cls: l.cls })));
    else if (byID.has(l)) out.push({ a: byID.get(l), cls: '' });
  }
  const kept = [];
  for (const x of out) if (x.a || (kept.length && kept[kept.length - 1].a)) kept.push(x);
  while (kept.length && !kept[kept.length - 1].a) kept.pop();
  return kept;
}

// MenuItems draws layout's actions; done closes the menu before one runs.
export function MenuItems({ actions, layout, done }) {
  return menuOf(actions, layout).map((x, i) => (x.a ? html`<${Item} key=${x.a.id} a=${x.a} cls=${x.cls} done=${done} />`
    : html`<div key=${'sep' + i} class=${'menu-sep' + (x.sep ? ' ' + x.sep : '')}></div>`));
}

function Item({ a, cls, done }) {
  const klass = ['act-' + a.id, cls, a.danger && 'danger', a.checked && 'on'].filter(Boolean).join(' ');
  if (a.href) {
    return html`<a role="menuitem" class=${klass} href=${a.href} download title=${a.title}
      data-keys=${a.keys || undefined} onClick=${() => done()}>${a.label}</a>`;
  }
  const check = a.checked !== undefined;
  return html`<button role=${check ? 'menuitemcheckbox' : 'menuitem'} aria-checked=${check ? a.checked : undefined}
    type="button" class=${klass} title=${a.title} disabled=${!!a.disabled} data-keys=${a.keys || undefined}
    onClick=${() => { done(); a.run(); }}>${a.label}</button>`;
}
