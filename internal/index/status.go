package index

import (
	"context"
	"os"
)

// Status summarizes the index for piweb index --status.
type Status struct {
	Path    string `json:"path"`
	DBBytes int64  `json:"dbBytes"`
	Files   int    `json:"files"`
	// Listed counts the files pi's listing shows; TextBehind those whose
	// text is not yet searchable.
	Listed     int `json:"listed"`
	TextBehind int `json:"textBehind"`
	Entries    int `json:"entries"`
	// Problems lists every file with a problem.
	Problems []FileProblem `json:"problems,omitempty"`
}

// FileProblem is what is wrong with one file.
type FileProblem struct {
	Path     string        `json:"path"`
	Error    string        `json:"error,omitempty"`
	Problems []problemJSON `json:"problems,omitempty"`
}

// Status reports the state of the index and the problems of the files.
func (ix *Index) Status(ctx context.Context) (Status, error) {
	st := Status{Path: ix.path}
	if fi, err := os.Stat(ix.path); err == nil {
		st.DBBytes = fi.Size()
	}
	if wal, err := os.Stat(ix.path + "-wal"); err == nil {
		st.DBBytes += wal.Size()
	}
	ms, err := ix.Sessions(ctx)
	if err != nil {
		return st, err
	}
	st.Files = len(ms)
	for _, m := range ms {
		if m.Listed && m.Error == "" {
			st.Listed++
		}
		if m.TextBehind {
			st.TextBehind++
		}
		st.Entries += m.Entries
		if m.Error != "" || len(m.Problems) > 0 {
			st.Problems = append(st.Problems, FileProblem{m.Info.Path, m.Error, m.Problems})
		}
	}
	return st, nil
}
