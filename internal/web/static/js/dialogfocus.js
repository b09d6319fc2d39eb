// dialogfocus.js: the one helper every dialog uses to hold the focus.
// useDialogFocus(ref, open) moves the focus into the dialog when it opens
// (unless one of its own effects put it there: to its [autofocus]
// element, else its first focusable one), keeps Tab and Shift+Tab inside
// it, and gives the focus back to what had it before when the dialog
// closes. open (true when left out) is for a component that stays mounted
// and draws its dialog only at times.
import { useEffect, useRef } from 'preact/hooks';
import { trapNext } from './a11y.js';

const focusable = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), '
  + 'textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function useDialogFocus(ref, open = true) {
  // What had the focus is read while the dialog is first drawn, before
  // any effect (the dialog's own ones too) moves the focus.
  const before = useRef(null);
  if (!open) before.current = null;
  else if (!before.current) before.current = document.activeElement;
  useEffect(() => {
    const box = ref.current;
    if (!open || !box) return undefined;
    const back = before.current;
    if (!box.contains(document.activeElement)) enter(box);
    const onKey = (e) => {
      if (e.key !== 'Tab') return;
      const list = tabbables(box);
      const n = trapNext(list.length, list.indexOf(document.activeElement), e.shiftKey);
      e.preventDefault();
      if (n >= 0) list[n].focus();
    };
    box.addEventListener('keydown', onKey);
    return () => {
      box.removeEventListener('keydown', onKey);
      if (back && back.isConnected && typeof back.focus === 'function') back.focus();
    };
  }, [open]);
}

function enter(box) {
  const first = box.querySelector('[autofocus]') || tabbables(box)[0] || box;
  if (first === box && !box.hasAttribute('tabindex')) box.setAttribute('tabindex', '-1');
  first.focus();
}

function tabbables(box) {
  return [...box.querySelectorAll(focusable)].filter((el) => el.offsetParent !== null || el === document.activeElement);
}
