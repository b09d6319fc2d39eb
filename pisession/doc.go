// Package pisession reads and writes the session files of pi, the terminal
// coding agent, with pi's own semantics: the files pi 1.6.0
// (@earendil-works/pi-coding-agent) writes and reads, and those of pi
// 0.73.1 (@mariozechner/pi-coding-agent) and older versions. It is the
// session format piweb itself is built on.
//
// # Files
//
// pi keeps one JSON Lines file per session under its agent folder
// (AgentDir: ~/.pi/agent, or $PI_CODING_AGENT_DIR), at
// sessions/--<cwd>--/<timestamp>_<id>.jsonl (EncodeCwd, FileName,
// SessionFiles). The first line is the header: type "session", version,
// id, timestamp, cwd, and parentSession for a session made from another.
// Every other line is an entry with an id and its parent's id (parentId),
// so a file is a tree: going back and asking again starts a branch. pi's
// leaf, where the conversation goes on, is the file's last entry.
//
// # Reading
//
// ReadFile and Parse read a file as pi 1.6.0 does, whatever version wrote
// it: lines are split on \n only, each is validated as JavaScript's
// JSON.parse would, falsy lines are skipped, and a BOM or a missing header
// makes the whole file invalid (Session.Header is nil). Reading is
// lossless: every Entry keeps its line's bytes (Entry.Raw) and only the
// spans of its members, decoded on demand (Entry.Field, Entry.Message),
// so a line nobody changed is written back byte for byte. What is wrong
// with a file is listed in Session.Problems, never repaired by reading.
// Files of versions before CurrentVersion are migrated in memory only
// (Session.Migrated); reading never writes.
//
// # What pi makes of a file
//
// Session.Context is pi's buildSessionContext: the messages the model sees
// at a leaf, with the model and thinking level in effect, compactions,
// branch summaries and context edits applied as pi 1.6 applies them.
// Session.Tree is pi's getTree, Session.Name the session's name,
// Session.Labels and Session.LabelOf its bookmarks, Session.PathTo the
// branch to an entry. ListAll and ListFiles are pi's
// SessionManager.listAll: an Info for each session, newest first, with
// pi's counts and dates. Message, Content and Block are the one model of
// a message's fields.
//
// # Writing
//
// Append adds one entry after the leaf (LabelLine and NameLine make the
// lines pi would write; NewEntryID makes ids as pi does). It writes the
// line with its newline in one O_APPEND write, only when the file is
// still the size it was parsed at (else ErrChanged: pi may have written
// meanwhile), and never truncates what others wrote. Create writes a new
// session file whole or not at all, never over another file; Extract
// (pi's branch to a new session), ForkBefore (pi's /fork), Clone (pi's
// /clone) and ForkTo make its content, whose header names the source as
// parentSession; Fork is Extract and Create in one call. Nothing else in
// the package writes a file.
//
// # Errors
//
// Errors are plain error values: compare them with errors.Is against
// ErrNoHeader, ErrNotFound, ErrChanged, ErrOldVersion and
// ErrParentChanged, or the fs errors of the file operations.
//
// # Concurrency
//
// A Session builds some indexes on first use and Append changes it: use a
// Session from one goroutine at a time, or guard it; so too a Parser,
// Growing, InfoBuilder or Tail. The package's functions are safe for
// concurrent use.
//
// # Compatibility
//
// The package follows semantic versioning with no breaking change without
// a new major version; CHANGELOG.md says what the promise covers. Its
// behaviour is pi's: piweb's tests ask real pi 1.6.0 and 0.73.1 (pinned
// in piweb's tools/) about shared fixture files, files pi's own
// SessionManager generates and damaged copies of them, and compare every
// context, tree, name and listing with this package's.
//
// Some exported names serve indexes and pages built on the format, as
// piweb's are (PlanTail and Tail, Growing, InfoBuilder, SearchableEntry,
// ChargeOf, CompactTree, TreeJSON); they are covered by the same promise.
package pisession
