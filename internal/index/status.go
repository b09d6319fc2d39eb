package index

import (
	"context"
	"os"

	"piweb/pisession"
)

// Status summarizes the index for piweb index --status.
type Status struct {
	Path    string `json:"path"`
	DBBytes int64  `json:"dbBytes"` // the index and text files, with their WALs
	Files   int    `json:"files"`
	// Listed counts the files pi's listing shows; TextBehind those whose
	// text is not yet searchable.
	Listed     int `json:"listed"`
	TextBehind int `json:"textBehind"`
	Entries    int `json:"entries"`
	// MergePending: the text index's segments wait for a merge (Tidy).
	MergePending bool `json:"mergePending"`
	// Problems lists every file with a problem.
	Problems []FileProblem `json:"problems,omitempty"`
}

// FileProblem is what is wrong with one file.
type FileProblem struct {
	Path     string              `json:"path"`
	Error    string              `json:"error,omitempty"`
	Problems []pisession.Problem `json:"problems,omitempty"`
}

// Status reports the state of the index and the problems of the files.
// The problems come from pisession.Check, the finder piweb check uses: the
// index's own record has only what a line shows (it reads growth alone),
// not the links between lines (orphans, cycles, duplicate ids), so Status
// reads each indexed file once; it changes nothing.
func (ix *Index) Status(ctx context.Context) (Status, error) {
	st := Status{Path: ix.path}
	for _, p := range []string{ix.path, ix.path + "-wal", textPath(ix.path), textPath(ix.path) + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			st.DBBytes += fi.Size()
		}
	}
	ms, err := ix.Sessions(ctx)
	if err == nil {
		st.MergePending, err = ix.MergePending(ctx)
	}
	if err != nil {
		return st, err
	}
	st.Files = len(ms)
	for _, m := range ms {
		if ctx.Err() != nil {
			return st, ctx.Err()
		}
		if m.Listed && m.Error == "" {
			st.Listed++
		}
		if m.TextBehind {
			st.TextBehind++
		}
		st.Entries += m.Entries
		if p := fileProblem(m); p.Error != "" || len(p.Problems) > 0 {
			st.Problems = append(st.Problems, p)
		}
	}
	return st, nil
}

// fileProblem is what is wrong with the file of m: the index's read error,
// or the problems pisession.Check finds.
func fileProblem(m Meta) FileProblem {
	p := FileProblem{Path: m.Info.Path, Error: m.Error}
	if p.Error != "" {
		return p
	}
	s, err := pisession.Check(p.Path)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	p.Problems = s.Problems
	return p
}
