package faults

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tally is one scenario's figures.
type tally struct {
	name      string
	runs      int // operations started
	killed    int // of which SIGKILL ended mid-run
	failed    int // of which exited with an error (full disk, read-only: expected)
	files     int // session files checked
	intact    int // whose original bytes are still whole: live (as a prefix) or in a backup
	torn      int // lines that are not JSON (torn or interleaved), beyond the file's own
	lost      int // sessions or appended lines found nowhere
	dup       int // sessions found twice (live and trash, or twice in the trash)
	orphans   int // forks whose live parent no longer is their parentSession
	ghosts    int // trash items without their file
	leftovers int // .piweb-tmp-* files
	backups   int // *.piweb-backup-* files (kept on purpose)
	notes     []string
}

func (t *tally) note(format string, args ...any) {
	if len(t.notes) < 8 {
		t.notes = append(t.notes, fmt.Sprintf(format, args...))
	}
}

// damage is what strict mode refuses.
func (t *tally) damage() int {
	return (t.files - t.intact) + t.torn + t.lost + t.dup + t.orphans + t.ghosts + t.leftovers
}

func report(tb testing.TB, ts []*tally) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %5s %6s %6s %5s %6s %5s %5s %4s %7s %6s %9s %7s\n", "scenario", "runs", "killed", "failed",
		"files", "intact", "torn", "lost", "dup", "orphans", "ghosts", "leftovers", "backups")
	for _, t := range ts {
		fmt.Fprintf(&b, "%-22s %5d %6d %6d %5d %6d %5d %5d %4d %7d %6d %9d %7d\n", t.name, t.runs, t.killed, t.failed,
			t.files, t.intact, t.torn, t.lost, t.dup, t.orphans, t.ghosts, t.leftovers, t.backups)
		for _, n := range t.notes {
			fmt.Fprintf(&b, "    %s\n", n)
		}
	}
	return b.String()
}

// badLines counts the lines of b that are not valid JSON, a last line
// without its newline included.
func badLines(b []byte) int {
	n := 0
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		line := b
		if i < 0 {
			n++ // torn: no newline
			break
		}
		line, b = b[:i], b[i+1:]
		if len(bytes.TrimSpace(line)) > 0 && !json.Valid(line) {
			n++
		}
	}
	return n
}

// intactSomewhere reports whether orig is a prefix of the file at path or
// of one of its backups.
func intactSomewhere(path string, orig []byte) bool {
	if b, err := os.ReadFile(path); err == nil && bytes.HasPrefix(b, orig) {
		return true
	}
	bs, _ := filepath.Glob(path + ".piweb-backup-*")
	for _, p := range bs {
		if b, err := os.ReadFile(p); err == nil && bytes.HasPrefix(b, orig) {
			return true
		}
	}
	return false
}

// debris counts temp files and backups under root, noting the first
// temp files' paths.
func debris(root string, tl *tally) (tmp, backups int) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		switch {
		case strings.HasPrefix(d.Name(), ".piweb-tmp-"):
			tmp++
			if tl != nil && tmp <= 2 {
				r, _ := filepath.Rel(root, p)
				tl.note("left: %s", r)
			}
		case strings.Contains(d.Name(), ".piweb-backup-"):
			backups++
		}
		return nil
	})
	return tmp, backups
}

// ageTemps makes the temp files under root 11 minutes old, as they are
// when piweb starts again some time after a crash (it removes temp files
// older than session.TempMaxAge, sparing a concurrent writer's), and
// returns how many there are.
func ageTemps(root string) int {
	n := 0
	old := time.Now().Add(-11 * time.Minute)
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".piweb-tmp-") {
			os.Chtimes(p, old, old)
			n++
		}
		return nil
	})
	return n
}

// sessionFiles lists the *.jsonl files under root.
func sessionFiles(root string) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// header reads a session file's header id and parentSession.
func header(path string) (id, parent string) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", ""
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	var h struct {
		ID            string `json:"id"`
		ParentSession string `json:"parentSession"`
	}
	json.Unmarshal(line, &h)
	return h.ID, h.ParentSession
}
