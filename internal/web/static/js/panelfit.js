// panelfit.js: how wide the side panel is drawn, as pure arithmetic. The
// conversation keeps a readable width: a panel that would leave it less
// than MIN_CONV lies over it (an overlay) instead of squeezing it.

export const MIN_CONV = 480; // px: about 65 characters of a message
export const MIN_PANEL = 260;
const NARROW = 340; // the Tree's default
const WIDE_MIN = 360;

// clampWidth is a panel width the screen can hold: from MIN_PANEL to the
// whole room beside the sidebar.
export const clampWidth = (w, room) => Math.round(Math.max(MIN_PANEL, Math.min(w, room)));

// panelFit is the drawn width and how (column, over or full) of a panel
// given the viewport and sidebar widths, the width the user chose (0 for
// none), whether the panel is a wide one, and whether it takes the full
// width. By default a wide panel takes 42% of the screen, as much as
// leaves the conversation readable and at least WIDE_MIN.
export function panelFit({ viewport, side, width, wide, full }) {
  const room = Math.max(0, viewport - side);
  if (full) return { width: room, mode: 'full' };
  const fit = room - MIN_CONV;
  const auto = wide ? Math.max(WIDE_MIN, Math.min(Math.round(viewport * 0.42), fit)) : NARROW;
  const w = clampWidth(width || auto, room);
  return { width: w, mode: room - w < MIN_CONV ? 'over' : 'column' };
}
