// What the search dialog says of an answer beside its hits.
import { plural } from './util.js';

// countText says how many entries match in how many sessions; a count
// the server capped or that a partial search gave (or the fleet's, of the
// hits it returned) is "N+".
export function countText(res) {
  const n = res.count ?? res.hits.length;
  const plus = res.countCapped || res.partial ? '+' : '';
  const sessions = res.sessionCount ?? 0;
  return `${n}${plus} ${n === 1 && !plus ? 'hit' : 'hits'} in ${plural(sessions, 'session')}`;
}

// partialText says that the search stopped at its time limit (a word
// found almost everywhere, a filter that few matches pass), or '' when it
// did not.
export function partialText(res) {
  if (!res.partial) return '';
  const what = res.hits.length ? 'these are the best of the newest matches it read' : 'it found none in what it read';
  return `Partial results: the search stopped at its time limit, so ${what}. Add words or filters to narrow it.`;
}
