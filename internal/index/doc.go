// Package index is piweb's session index: pi's listing of every session
// answered without reading the session files again, branch-aware full-text
// search over them, kept current while pi writes.
//
// # Store
//
// One SQLite file (modernc.org/sqlite, pure Go, FTS5) per agent dir under
// os.UserCacheDir()/piweb/, named by a hash of the absolute agent dir (and
// apart when tool text is indexed, Options.Tools), and beside it its text
// file (the same name plus ".text": FTS5 and its word list, textdb.go). It
// is derived data: PRAGMA user_version holds the schema version, and a
// file of another version, of another agent dir, a text file of another
// index, or one that fails a cheap probe of its tables is deleted and
// rebuilt, never migrated or trusted. (A full integrity check would read
// the whole file on every start, which a warm ls cannot afford.) WAL
// mode; all writes go through one connection a file, one transaction at a
// time (Sync and Update hold the writer lock, and in Watch a single
// goroutine does all updates; the text file's connection is driven by it,
// on a goroutine of its own, textwriter.go); readers use a separate
// read-only pool, with the text file attached.
//
// Tables: files (one row per session file: dev, inode, size, mtime, the
// offset and line number after the last complete line parsed, offset,
// length and SHA-256 of the header line, SHA-256 of the 64 bytes before the
// parsed offset, the listing fields, the listing's JSON element, and the
// metadata as JSON; of the first message only its head: a longer one is
// kept once, in firsts, read only by List and ListJSON: first.go), entries (every entry: id, parent, type, role, time,
// model, its line's offset and length, and whether it lies on the current
// branch with its position on it: Tail reads a huge session's newest page
// of context from these, branch.go)
// fts (FTS5, unicode61 with diacritics removed, 16 KB pages, rowid =
// entries rowid; in the text file) with its word list (vocab), runs and file_models, which
// turn search filters into rowid ranges, and usage (assistant tokens and
// cost per file, half-hour slot of the entry time and model, added to as
// files grow; usage.go).
//
// # Discovery
//
// <agentDir>/sessions/*/*.jsonl, which is what pi's listAll reads and what
// ls lists (folders and files in name order, as session.SessionFiles),
// plus flat dirs: the ones named by PI_CODING_AGENT_SESSION_DIR and the
// global settings.json "sessionDir" (tilde-expanded as pi does; a relative
// sessionDir is taken relative to piweb's working directory), and, for
// every cwd of an indexed session, the "sessionDir" of
// <cwd>/.pi/settings.json: pi 0.73.1 merges those project settings over
// the global ones, so a session started in that cwd goes there (relative
// to the cwd; TestProjectSessionDir runs real pi). A cwd is only known from
// indexed headers, so a project whose sessions all went to its own dir
// from the first stays unknown; Sync and ListJSON take a second round when
// the sessions they just indexed add dirs. Flat-dir sessions are indexed
// and searchable but not in ls, as in pi.
//
// # Incremental parsing and pi's listing semantics
//
// pi's listing rules live in session.InfoBuilder, whose state cannot be
// saved. The index keeps the part of SessionInfo that is a fold over the
// entries (message count, first message, name, last activity, "pi would
// drop this file") in a mergeable form (body) and computes each new chunk's
// part by running the session parser over the chunk behind a synthetic
// header without timestamp: the chunk's Modified with mtime 0 is then its
// pure last activity. The header's part (id, cwd, parentSession, created)
// comes once from the header line. Merging is exact, so an appended file's
// listing equals a full parse; TestGrowByteByByte checks that after every
// few bytes of growth for files with BOM, CRLF, garbage, null lines, names,
// truncated lines...
//
// When a file grows, only [offset, size) is read, plus the header line and
// the 64 bytes before the old offset, to detect a rewrite; a changed inode,
// a shrink, a changed header or changed bytes before the offset make it a
// full reparse. A final line without newline is not committed: it counts
// for the listing (pi's listAll reads it) but is parsed again once its
// newline arrives. TestAppendReadsOnlyNewBytes proves the byte count on a
// 100 MB file.
//
// The listing pass reads each file through a reused 256 KB buffer per
// worker (a longer line grows it for that file), so memory does not grow
// with file sizes and each piece is still in the CPU cache for its passes;
// pieces end at line ends and fold into the same state (TestStreamPieces
// cuts files into pieces of a few bytes). It has its own parser
// (fastpath.go, validate.go): a JSON validator that finds the end of the
// line itself, reads strings with jsjson.ScanString (long ones 64 bytes
// at a time from one mask of their quotes, backslashes and control
// characters, in SSE2 on amd64), and records the top-level
// members and those of the message object, and a few field lookups for
// the line shapes pi writes. Any line it is not sure of (invalid JSON,
// escaped or duplicate keys, odd types, non-numeric message timestamps)
// goes through the session parser alone, which stays the one definition of
// pi's rules; FuzzListChunk compares both on arbitrary input,
// FuzzValidObject checks that the validator never accepts invalid JSON.
// The files are parsed on GOMAXPROCS workers while one goroutine writes
// the rows.
//
// # Listing snapshot
//
// ls --json is answered from a snapshot file beside the index (its path
// plus ".ls", snapshot.go): for every discovered file, in discovery order,
// its identity on disk as indexed and its element of the output, then the
// whole output. A warm ls (WriteQuickListJSON) does not open the database:
// it reads the folders, stats each file relative to its folder (fstatat,
// folders spread over goroutines), compares, and writes the stored output
// from a read-only mapping. When a few files changed, ListJSON syncs and
// reads only their rows and writes a new snapshot; many changes, or none
// before, take a whole sync. The snapshot is checked against the disk, not
// the database, so it is right whoever updated the index since: a file's
// element depends only on the file, which its identity stands for, as the
// index's own change detection assumes. It is replaced by rename and ends
// with a CRC-32, so a torn one is ignored; a file that could not be read
// keeps it from answering, so that the file is retried.
//
// Under Watch (serve) a cold start is two passes: the listing of every
// file first (so ls is right as soon as possible), then the text pass
// (entries and FTS), oldest sessions first so that FTS rowids follow time.
// Sync with text (piweb index, search) reads each new file once for
// both, in the order of the time in its name, a file over 8 MB in parts
// of 8 MB, each indexed as an append is (oneread.go). Later changes to a
// file do both in one read. ls only needs the listing. The text pass
// reads big files in parts of 8 MB, each taking over the bytes the one
// before read past its last line (textpass.go), and writes entries rows
// in multi-row INSERTs and a transaction's text rows at its end, one by
// one, so that FTS5 makes one segment of them (batch.go). A text backlog
// of 32 MB or more is a bulk pass: FTS5 merges nothing during it (its
// segments are merged later, in steps: Tidy, tidy.go), and the word list
// of prefix search is rebuilt from FTS5's own after it (vocab.go).
//
// # Metadata
//
// Meta gives pi's SessionInfo plus size, entry count, branch count (leaves
// of the entry tree, kept as a set of leaf ids), leaf id (pi's leaf: the
// last entry), compaction count, labels (last label entry per target wins,
// an empty label clears), models used (assistant provider/model and
// model_change), token and cost totals from assistant usage, last activity
// (pi's modified), and fork lineage: the header's parentSession path
// resolved, at query time, to the id of that session if it is indexed.
//
// # Search
//
// Query text is translated, never passed through (query.go): words are
// ANDed, "quotes" make phrases, a trailing * a prefix; every unit goes to
// FTS5 as a quoted string, so operators and punctuation are plain text and
// no input is an FTS5 syntax error (FuzzQuery). FTS5 answers a prefix by
// merging the postings of every word with that prefix before it returns a
// row (0.3 s for "a*" on 2 GB); so a prefix whose words are ASCII is
// rewritten as an OR of the at most 256 indexed words that complete it,
// taken from a list of every indexed word (vocab.go), which FTS5 walks
// lazily. Each hit has session id, entry id, role, time, a snippet as spans
// with the matches marked, and whether the entry is on the current branch.
// Every entry is indexed, so hits on abandoned branches and in compacted
// history are found too. When a file grows, the branch flags change only
// below the point where the new leaf's path joins the old branch (text.go).
// Filters: cwd, entry time range, model (sessions that used it); when the
// newest matches hold few that pass, they are pushed down into FTS5 as
// rowid ranges (filter.go). User and assistant text blocks are indexed;
// tool call arguments, tool results and shell commands/output only with
// Options.Tools.
//
// # Ranking
//
// "Relevance and recency" means, precisely: the candidates are the newest
// 200 matching entries that pass the filters (rowid order is time order:
// the cold pass indexes sessions oldest first and appended entries get
// higher rowids). Each candidate scores relevance / (1 + age / 30 days),
// age being now minus the entry's time (at least 0), and relevance BM25's
// term-frequency part, tf·(k1+1) / (tf + k1·(1 − b + b·len/avg)) with
// k1 = 1.2 and b = 0.75, where tf counts the occurrences of the query's
// words and phrases in the entry (as FTS5's highlight() marks them), len is
// the entry's text length and avg its mean over the candidates. Hits are
// the candidates on the current branch, then the others (abandoned
// branches, compacted history), each best score first, the newer first
// among equal scores: what the session went on with comes before what it
// left. Count counts the matches apart (the newest 2,000 at most, found
// as the candidates are, without their text), so that a page can say how
// many there are beyond the ranked window.
//
// So for a word found in every session only the newest 200 entries that
// contain it compete: among them the one where it is frequent for its
// length wins, and a day of age costs 3% (1/(1 + 1/30)). An older entry is
// not shown however relevant: the window keeps a word found everywhere as
// cheap as a rare one, and finding what was said recently is what search
// is for. There is no IDF (inverse document frequency): every candidate
// holds every query word, so it would only weigh the words against each
// other, and FTS5's bm25() computes it by reading every posting of each
// word (0.1 s for a common word, 1 s for a common phrase). All query words
// weigh the same. Snippets are cut in Go from the highlighted text
// (snippet.go), so the final hits cost no second full-text query.
//
// # Live
//
// Watch uses fsnotify on the sessions root, every project folder (new ones
// are added when they appear, and their files indexed) and the flat dirs;
// events are debounced per file (10 ms), and a stat rescan every 2 s
// catches what events miss. Subscribers get an Event per changed session
// with the ids of the appended entries (or Reset for a reread file,
// Removed for a deleted one); sends never block the indexer.
//
// # Bad input
//
// A file that cannot be opened or read (permissions, vanished, a FIFO or
// directory named *.jsonl: files are opened non-blocking and must be
// regular) is recorded with its error, left out of the listing (pi's
// listAll skips it too), retried on every scan, and never stops the rest.
// A file replaced or deleted while being read is read consistently through
// its open descriptor and reread or dropped on the next scan. Line problems
// come from the session parser. piweb index --status lists them all.
package index
