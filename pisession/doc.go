// Package pisession is pi's session file format.
//
// Parser reads a file as pi 1.6.0 does for files of every version (lines
// split on \n only, each validated as JSON.parse would, falsy lines
// skipped and reported, a BOM or a missing header making the file
// invalid), records only the spans of each line's members and keeps its
// raw bytes, so an untouched line is written back byte for byte. Message
// is the one message model; Context is pi's context projection at a leaf;
// SearchableEntry is the one definition of searchable text and ChargeOf of
// what a session is charged. Older versions are migrated in memory only;
// reading never writes.
//
// It also makes what pi would write (a label's or a name's line, a fork's,
// a clone's or a repair's content, with pi's key order, escaping, ids and
// file names); internal/sessionstore, the one place piweb changes a
// session file, writes it. The package writes no file and has no net/http
// and no SQL.
package pisession
