package pitest

import (
	"slices"
	"strconv"
	"testing"
)

// Gen is V16.Gen.
func Gen(t testing.TB, seed, n int) []string {
	t.Helper()
	return V16.Gen(t, seed, n)
}

// Gen writes n random sessions for seed into a new temp dir, through v's
// own SessionManager API (oracle.mjs gen), and returns their paths. The
// seed fixes everything but pi's random entry and session ids. With V16
// the sessions hold every entry type and field pi 1.6 writes (system
// messages, context_edit, usage, compactions with usage and systemMessage,
// retain-none compactions, ...); with V073 only what 0.73.1 can write.
func (v Version) Gen(t testing.TB, seed, n int) []string {
	t.Helper()
	var files []string
	v.OracleJSON(t, &files, "gen", strconv.Itoa(seed), t.TempDir(), strconv.Itoa(n))
	return files
}

// DamagedFile describes one file written by GenDamaged, as probed with pi.
type DamagedFile struct {
	File   string `json:"file"`
	Damage string `json:"damage"` // "none" for the undamaged bases
	Base   string `json:"base"`
	Note   string `json:"note"`
	// OpenError is set when pi's SessionManager.open throws on the file.
	OpenError *string `json:"openError"`
	// Rewritten reports that open rewrote the file (migration, or a fresh
	// header replacing content pi could not read).
	Rewritten *bool `json:"rewritten"`
	Entries   *int  `json:"entries"`
	// TreeLoop: pi's getTree never returns. LeafLoops: the parent walk from
	// the loaded leaf never ends. AnyLoops: from some entry it never ends.
	TreeLoop  bool `json:"treeLoop"`
	LeafLoops bool `json:"leafLoops"`
	AnyLoops  bool `json:"anyLoops"`
	// Safe lists the oracle commands pi itself answers on this file; the
	// oracle refuses the others with Error.Code "cycle".
	Safe []string `json:"safe"`
}

// IsSafe reports whether pi answers cmd on this file.
func (f DamagedFile) IsSafe(cmd string) bool { return slices.Contains(f.Safe, cmd) }

// GenDamaged is V16.GenDamaged.
func GenDamaged(t testing.TB, seed int) []DamagedFile {
	t.Helper()
	return V16.GenDamaged(t, seed)
}

// GenDamaged writes damaged variants of sessions v generated (torn lines,
// BOM, CRLF, missing headers, cycles, ...) into a new temp dir; each file
// is probed with v's own open.
func (v Version) GenDamaged(t testing.TB, seed int) []DamagedFile {
	t.Helper()
	var manifest struct{ Files []DamagedFile }
	v.OracleJSON(t, &manifest, "gen-damaged", strconv.Itoa(seed), t.TempDir())
	return manifest.Files
}
