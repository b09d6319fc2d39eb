package catalog

import "sync"

// subscribers is a registry of callbacks, for the catalog's change
// notifications. Callbacks run outside its lock, so one may cancel itself
// or subscribe another.
type subscribers[T any] struct {
	mu   sync.Mutex
	next int
	fns  map[int]func(T)
}

// add registers fn until the returned cancel is called.
func (s *subscribers[T]) add(fn func(T)) (cancel func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fns == nil {
		s.fns = map[int]func(T){}
	}
	id := s.next
	s.next++
	s.fns[id] = fn
	return func() {
		s.mu.Lock()
		delete(s.fns, id)
		s.mu.Unlock()
	}
}

// call calls every callback registered now with v.
func (s *subscribers[T]) call(v T) {
	s.mu.Lock()
	fns := make([]func(T), 0, len(s.fns))
	for _, fn := range s.fns {
		fns = append(fns, fn)
	}
	s.mu.Unlock()
	for _, fn := range fns {
		fn(v)
	}
}
