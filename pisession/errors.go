package pisession

import "piweb/internal/errs"

// The errors the package returns for the conditions a caller may act on.
// Compare with errors.Is; they may come wrapped with the entry id or the
// operation.
var (
	// ErrNoHeader is returned when asked to write to a file without a
	// valid header, or to create one from content without it: pi would
	// throw such a file away.
	ErrNoHeader error = errs.New(errs.Invalid, "the session file has no valid header", "session file has no valid header")

	// ErrNotFound is returned for an entry id that is not in the session.
	ErrNotFound error = errs.New(errs.NotFound, "entry not found", "entry not found")

	// ErrChanged is returned by Append when the file's size is no longer
	// the Size of the parse it was given: another writer (pi) added to
	// it, so the leaf the new entry would follow may not be pi's leaf any
	// more. Read the file again and retry.
	ErrChanged error = errs.New(errs.Stale, "the session file changed meanwhile; reload and retry", "session file changed since it was read")

	// ErrOldVersion is returned by Append for a file of a version older
	// than CurrentVersion (Session.Migrated): pi migrates such a file by
	// rewriting it before it adds to it, which Append does not do.
	ErrOldVersion error = errs.New(errs.Invalid, "the session file is of an older version; open it in pi (or piweb) once to migrate it", "session file needs migrating")

	// ErrParentChanged is returned by WithParent when the header no longer
	// names the parent the caller expected.
	ErrParentChanged error = errs.New(errs.Stale, "the session file changed meanwhile; reload and retry", "the session's parentSession changed")
)
