// termkeys.js: the bytes of the phone terminal's key bar (Esc, Tab, the
// arrows, and a sticky Ctrl for the next typed key), as a terminal sends
// them. Pure, tested by jstest.

export const BAR = ['Esc', 'Tab', 'Ctrl', '←', '↑', '↓', '→'];

const ARROWS = { '↑': 'A', '↓': 'B', '→': 'C', '←': 'D' };

// keyBytes is what key sends; app is the terminal's application cursor
// mode (arrows as ESC O x, as full-screen programs ask).
export function keyBytes(key, app = false) {
  if (key === 'Esc') return '\x1b';
  if (key === 'Tab') return '\t';
  if (ARROWS[key]) return (app ? '\x1bO' : '\x1b[') + ARROWS[key];
  return '';
}

// withCtrl is typed data with Ctrl held: a letter or one of @[\]^_ becomes
// its control code, ? becomes DEL, anything else is sent as typed.
export function withCtrl(d) {
  if (d.length !== 1) return d;
  const c = d.toUpperCase().charCodeAt(0);
  if (c >= 64 && c <= 95) return String.fromCharCode(c & 0x1f);
  if (d === '?') return '\x7f';
  if (d === ' ') return '\x00';
  return d;
}
