// usePopover is the open state of a popover (a menu, the header's details)
// that closes on a pointer down outside it and on Escape: [{on, ref}, set],
// ref going on the element that holds the button and the popover. With
// menu set it is a menu button's menu: opening focuses its first item (↑↓
// move from there) and Escape gives focus back to its button.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export function usePopover({ menu = false } = {}) {
  const [on, setOn] = useState(false);
  const ref = useRef(null);
  useLayoutEffect(() => { // at once: a key pressed right after opening closes it
    if (!on) return undefined;
    if (menu) ref.current?.querySelector('[role=menuitem]')?.focus();
    const out = (e) => { if (ref.current && !ref.current.contains(e.target)) setOn(false); };
    const esc = (e) => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      setOn(false);
      if (menu) ref.current?.querySelector('button')?.focus();
    };
    document.addEventListener('pointerdown', out);
    document.addEventListener('keydown', esc, true);
    return () => {
      document.removeEventListener('pointerdown', out);
      document.removeEventListener('keydown', esc, true);
    };
  }, [on]);
  return [{ on, ref }, setOn];
}
