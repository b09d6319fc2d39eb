package own

import (
	"path/filepath"
	"sync"

	"piweb/internal/errs"
)

// A jsonFile is one of piweb's small files (preferences, marks, pins) held
// in memory: read once when opened, written whole (WritePrivateJSON)
// before a change is adopted, so a failed write changes nothing. Its
// methods are safe for concurrent use; a path "" keeps the value in
// memory only.
type jsonFile[T any] struct {
	op, what string // the error's op, and what the client is told cannot be saved
	clone    func(T) T
	path     string
	mu       sync.Mutex
	v        T
}

// open loads dir/name when dir is not "" and the file exists, fill
// completing what the file lacks; otherwise the value stays as it is. A
// file that does not parse is an error (it is not overwritten).
func (f *jsonFile[T]) open(dir, name string, fill func(*T)) error {
	if dir == "" {
		return nil
	}
	f.path = filepath.Join(dir, name)
	var v T
	found, err := ReadJSON(f.path, &v)
	if err != nil || !found {
		return err
	}
	fill(&v)
	f.v = v
	return nil
}

// get is a copy of the value.
func (f *jsonFile[T]) get() T {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.clone(f.v)
}

// peek runs r on the value itself, under the lock (r must not keep it).
func (f *jsonFile[T]) peek(r func(*T)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	r(&f.v)
}

// change applies c to a copy, writes it and only then adopts it; it
// returns a copy of the value it ends with. A failed write says "cannot
// save <what>" to the client (its kind is the file system's: a full disk
// is no_space).
func (f *jsonFile[T]) change(c func(*T)) (T, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	next := f.clone(f.v)
	c(&next)
	if f.path != "" {
		if err := WritePrivateJSON(f.path, next); err != nil {
			return f.clone(f.v), errs.E(f.op, "cannot save "+f.what, err)
		}
	}
	f.v = next
	return f.clone(f.v), nil
}
