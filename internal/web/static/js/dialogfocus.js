// dialogfocus.js: the one helper every dialog uses to hold the focus.
// useDialogFocus(ref) moves the focus into the dialog when it opens (to
// its [autofocus] element, else its first focusable one), keeps Tab and
// Shift+Tab inside it, and gives the focus back to what had it before
// when the dialog closes.
import { useEffect } from 'preact/hooks';
import { trapNext } from './a11y.js';

const focusable = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), '
  + 'textarea:not([disabled]), [tabindex]:not([tabindex="-1"])';

export function useDialogFocus(ref) {
  useEffect(() => {
    const box = ref.current;
    if (!box) return undefined;
    const before = document.activeElement;
    if (!box.contains(document.activeElement)) {
      const first = box.querySelector('[autofocus]') || tabbables(box)[0] || box;
      if (first === box && !box.hasAttribute('tabindex')) box.setAttribute('tabindex', '-1');
      first.focus();
    }
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
      if (before && before.isConnected && typeof before.focus === 'function') before.focus();
    };
  }, []);
}

function tabbables(box) {
  return [...box.querySelectorAll(focusable)].filter((el) => el.offsetParent !== null || el === document.activeElement);
}
