// roving.js: the arrow keys the roles of a menu, a tree and a tab list
// promise. onArrows(sel, axis) is a keydown handler for the container
// that moves the focus among its items matching sel: ↑↓ (or ←→ for a
// horizontal axis), Home and End, wrapping (a11y.js's arrowStep).
import { arrowStep } from './a11y.js';

export function onArrows(sel, axis = 'vertical') {
  return (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const items = [...e.currentTarget.querySelectorAll(sel)];
    const n = arrowStep(items.length, items.indexOf(document.activeElement), e.key, axis);
    if (n < 0) return;
    e.preventDefault();
    e.stopPropagation();
    items[n].focus();
  };
}
