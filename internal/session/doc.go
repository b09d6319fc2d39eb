// Package session is pi's session file format and the one place piweb
// changes a session file.
//
// The format half is pure: Parser reads a file as pi 1.6.0 does for files
// of every version (lines split on \n only, each validated as JSON.parse
// would, falsy lines skipped and reported, a BOM or a missing header making
// the file invalid), records only the spans of each line's members and
// keeps its raw bytes, so an untouched line is written back byte for byte.
// Message is the one message model; Context is pi's context projection at
// a leaf; SearchableEntry is the one definition of searchable text and
// ChargeOf of what a session is charged. Older versions are migrated in
// memory only; reading never writes.
//
// The store half (Store) promises that no byte of a session file is lost:
// new lines are appended with one O_APPEND write, after checking that the
// file is still the size the caller parsed (else ErrChanged); whole-file
// rewrites go through a synced temp file, a hard-linked backup and a
// rename, and copy onto the new file whatever another process appends to
// the old one; deleting and restoring are journaled in the trash, and
// Store.Recover completes or undoes a step a crash interrupted. Cache
// keeps parses keyed on device, inode, size and mtime.
//
// The package has no net/http and no SQL.
package session
