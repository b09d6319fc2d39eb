// usePopover is the open state of a popover (a menu, the header's details)
// that closes on a pointer down outside it and on Escape: [{on, ref}, set],
// ref going on the element that holds the button and the popover.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';

export function usePopover() {
  const [on, setOn] = useState(false);
  const ref = useRef(null);
  useLayoutEffect(() => { // at once: a key pressed right after opening closes it
    if (!on) return undefined;
    const out = (e) => { if (ref.current && !ref.current.contains(e.target)) setOn(false); };
    const esc = (e) => { if (e.key === 'Escape') { e.stopPropagation(); setOn(false); } };
    document.addEventListener('pointerdown', out);
    document.addEventListener('keydown', esc, true);
    return () => {
      document.removeEventListener('pointerdown', out);
      document.removeEventListener('keydown', esc, true);
    };
  }, [on]);
  return [{ on, ref }, setOn];
}
