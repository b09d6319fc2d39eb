package server

import (
	"slices"
	"testing"
)

func TestSubscribers(t *testing.T) {
	var s subscribers[int]
	var got []int
	cancelA := s.add(func(v int) { got = append(got, v) })
	var cancelB func()
	cancelB = s.add(func(v int) { got = append(got, -v); cancelB() }) // cancels itself while called
	s.call(1)
	cancelA()
	s.call(2)
	slices.Sort(got)
	if !slices.Equal(got, []int{-1, 1}) {
		t.Errorf("calls %v, want [-1 1]", got)
	}
}
