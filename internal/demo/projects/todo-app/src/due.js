// isOverdue reports whether a task due on `due` (a YYYY-MM-DD string) is
// overdue at time `now`. Dates are compared in UTC so that the answer does
// not depend on the machine's time zone.
export function isOverdue(due, now = new Date()) {
  const [y, m, d] = due.split("-").map(Number);
  const endOfDay = Date.UTC(y, m - 1, d, 23, 59, 59, 999);
  return now.getTime() > endOfDay;
}
