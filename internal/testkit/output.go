package testkit

import (
	"errors"
	"strings"
	"sync"
)

// Output is text a test collects while another goroutine writes it (a
// terminal's output, a process's stderr). It is safe for concurrent use;
// the zero value is empty and ready.
type Output struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write appends p.
func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

// String is the text so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// Has is a condition for Eventually: the text holds s (else the error
// shows the text so far).
func (o *Output) Has(s string) func() error {
	return func() error {
		if out := o.String(); !strings.Contains(out, s) {
			return errors.New("output so far: " + out)
		}
		return nil
	}
}
