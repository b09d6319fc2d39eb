// Package corpus writes deterministic, realistic pi session trees for tests
// and benchmarks of the session index.
//
// The shapes follow files written by real pi 0.73.1 (see internal/pitest/testdata/fixtures):
// a version 3 header, model_change and thinking_level_change entries, user
// messages, assistant messages with thinking, text and toolCall blocks and
// usage with cost, toolResult messages carrying most of the bytes, and now and
// then a compaction, a branch (a new child of an older entry, sometimes with a
// branch_summary), a label, a session_info name and a fork (a header whose
// parentSession names another file of the corpus).
//
// Everything derives from one seed: the same Options give the same bytes, and
// every file gets its own generator seeded from (seed, file number), so files
// can be written in parallel and still come out identical.
package corpus
