// fuzzy.js: the command palette's filter. A query matches a label when
// its letters appear in order (case-insensitive); matches at the start of
// a word and runs of consecutive letters rank higher, shorter labels break
// ties, then the registry's own order. Pure, tested by jstest.

// fuzzyScore is how well query matches text, or -1 when it does not.
export function fuzzyScore(query, text) {
  const q = query.toLowerCase().replace(/\s+/g, '');
  const t = text.toLowerCase();
  if (!q) return 0;
  let score = 0;
  let at = -1;
  let run = 0;
  for (const ch of q) {
    const i = t.indexOf(ch, at + 1);
    if (i < 0) return -1;
    run = i === at + 1 ? run + 1 : 0;
    score += 1 + run * 2 + (i === 0 || /[\s/:(-]/.test(t[i - 1]) ? 4 : 0);
    at = i;
  }
  return score;
}

// rankActions is the actions matching query, best first; an action is
// matched on its label and its group ("Panel: Terminal"); with no query
// the list stays in the registry's order.
export function rankActions(actions, query) {
  if (!query.trim()) return actions;
  return actions
    .map((a, i) => ({ a, i, s: Math.max(fuzzyScore(query, a.label),
      fuzzyScore(query, (a.group || '') + ' ' + a.label) - 1) }))
    .filter((x) => x.s >= 0)
    .sort((x, y) => y.s - x.s || x.a.label.length - y.a.label.length || x.i - y.i)
    .map((x) => x.a);
}
