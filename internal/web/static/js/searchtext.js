// What the search dialog says of an answer beside its hits.
import { t } from './i18n.js';

// countText says how many entries match in how many sessions; a count
// the server capped or that a partial search gave (or the fleet's, of the
// hits it returned) is "N+".
export function countText(res) {
  const n = res.count ?? res.hits.length;
  const plus = res.countCapped || res.partial ? '+' : '';
  const sessions = res.sessionCount ?? 0;
  return t('search.count', { count: String(n) + plus, sessions: t('search.sessions', { count: String(sessions) }) });
}

// partialText says that the search stopped at its time limit (a word
// found almost everywhere, a filter that few matches pass), or '' when it
// did not.
export function partialText(res) {
  if (!res.partial) return '';
  return t(res.hits.length ? 'search.partialSome' : 'search.partialNone');
}
