package sessionstore

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"piweb/internal/jsjson"
	"piweb/pisession"
)

// Fork lineage across the trash. Every session file in place names in its
// header's parentSession its nearest ancestor that is in place, whatever
// the order of deletes, restores and crashes. The lineage a header loses
// when its parent is trashed is kept in the trash records: a record's
// OldParent is the trashed session's own lineage parent (in place or not),
// and its Children are every file whose lineage parent it is, in place or
// trashed. A file's lineage parent is therefore the Original of the record
// that lists it, else (in place) its header, else (trashed) its record's
// OldParent. relink rewrites the headers of in-place children to match,
// from what is on disk now, and every step of a delete or restore ends
// with it, so a crash anywhere is healed by the next relink (Recover).

// maxLineage bounds a walk up the lineage (a cycle of records).
const maxLineage = 256

// trashIndex is the trash records as lineage reads them.
type trashIndex struct {
	byOriginal map[string]TrashItem // the newest record of each original path
	items      []TrashItem          // every record, oldest first
}

// loadTrash reads every trash record.
func (st *Store) loadTrash() trashIndex {
	ix := trashIndex{byOriginal: map[string]TrashItem{}}
	for _, d := range pisession.DirEntries(st.trashDir()) {
		if it, err := st.readTrash(d.Name()); err == nil {
			ix.items = append(ix.items, it)
		}
	}
	slices.SortFunc(ix.items, func(a, b TrashItem) int { return strings.Compare(a.ID, b.ID) })
	for _, it := range ix.items {
		ix.byOriginal[it.Original] = it
	}
	return ix
}

// trashed reports whether path is a trashed session: a record names it and
// no file is at its place.
func (ix trashIndex) trashed(path string) (TrashItem, bool) {
	it, ok := ix.byOriginal[path]
	if !ok || exists(path) {
		return TrashItem{}, false
	}
	return it, true
}

// resolve is the nearest in-place session on the lineage from path up: path
// itself when its file is in place or no record knows it (a parent outside
// piweb's trash stays as named), else its record's parent's.
func (ix trashIndex) resolve(path string) string {
	for range maxLineage {
		it, ok := ix.trashed(path)
		if !ok || path == "" {
			return path
		}
		path = it.OldParent
	}
	return path
}

// onLineage reports whether p is path or one of its lineage ancestors: a
// value some relink may have written into a child of path.
func (ix trashIndex) onLineage(p, path string) bool {
	for range maxLineage {
		if p == path {
			return true
		}
		it, ok := ix.byOriginal[path]
		if !ok || path == "" {
			return false
		}
		path = it.OldParent
	}
	return false
}

// listedIn is the trashed record that lists path among its children.
func (ix trashIndex) listedIn(path string) (TrashItem, bool) {
	for _, it := range ix.items {
		if _, ok := ix.trashed(it.Original); !ok {
			continue
		}
		for _, c := range it.Children {
			if c.Path == path {
				return it, true
			}
		}
	}
	return TrashItem{}, false
}

// lineageParent is the lineage parent of the in-place session at path
// whose header names header.
func (ix trashIndex) lineageParent(path, header string) string {
	if it, ok := ix.listedIn(path); ok {
		return it.Original
	}
	return header
}

// childrenOf derives the lineage children of the in-place session at path
// from the files: the session files in dirs whose header names it (or a
// stale path holding its id in the file name) and that no trash record
// claims, and the trashed sessions whose lineage parent it is.
func (ix trashIndex) childrenOf(path, id string, dirs []string) []ChildFile {
	var out []ChildFile
	seen := map[string]bool{path: true}
	for _, dir := range dirs {
		for _, name := range pisession.DirNames(dir) {
			p := filepath.Join(dir, name)
			if !strings.HasSuffix(name, ".jsonl") || seen[p] {
				continue
			}
			seen[p] = true
			parent, ok := headerParent(p)
			if !ok || !namesSession(parent, path, id) {
				continue
			}
			if _, claimed := ix.listedIn(p); !claimed {
				out = append(out, ChildFile{Path: p, Parent: parent})
			}
		}
	}
	for _, it := range ix.items {
		if _, ok := ix.trashed(it.Original); ok && it.OldParent == path && !seen[it.Original] {
			seen[it.Original] = true
			out = append(out, ChildFile{Path: it.Original, Parent: path})
		}
	}
	return out
}

// namesSession reports whether a header's parentSession names the session
// at path with header id: its path, or a stale path (no file there) whose
// file name holds the id.
func namesSession(parent, path, id string) bool {
	if parent == path {
		return true
	}
	return parent != "" && id != "" && pisession.IDFromFileName(parent) == id && !exists(parent)
}

// relink re-points every in-place child a record lists to the nearest
// in-place session on its lineage, if its header still names something on
// that lineage (or what it named when the record was written). It calls
// the Fault hook with step (unless "": recovery) before each rewrite and
// returns the paths it rewrote.
func (st *Store) relink(step string) ([]string, error) {
	ix := st.loadTrash()
	var changed []string
	for _, it := range ix.items {
		want := ix.resolve(it.Original)
		for _, c := range it.Children {
			cur, ok := headerParent(c.Path)
			if !ok || cur == want || !ix.onLineage(cur, it.Original) && cur != c.Parent {
				continue
			}
			if err := st.faultIf(step); err != nil {
				return changed, err
			}
			if st.repoint(c.Path, cur, want) == nil { // else changed meanwhile: left as it is
				changed = append(changed, c.Path)
			}
		}
	}
	return changed, nil
}

// headerParent reads the parentSession of the session file at path from
// its first line alone; ok is false when the file or its header cannot be
// read.
func headerParent(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 4096).ReadSlice('\n')
	if err != nil && len(line) == 0 || err == bufio.ErrBufferFull {
		line, err = readFirstLine(path)
		if err != nil {
			return "", false
		}
	}
	line = bytes.TrimRight(line, "\r\n")
	if !jsjson.Valid(line) {
		return "", false
	}
	p, _ := jsjson.DecodeString(jsjson.Field(line, "parentSession"))
	return p, true
}

// readFirstLine reads a long first line (a header over 4 KiB), up to 1 MiB.
func readFirstLine(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	line, err := bufio.NewReaderSize(f, 1<<20).ReadSlice('\n')
	if err != nil && len(line) == 0 {
		return nil, err
	}
	return line, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// faultIf is fault, except for the empty step of a recovery.
func (st *Store) faultIf(step string) error {
	if step == "" {
		return nil
	}
	return st.fault(step)
}
