//go:build !linux

package catalog

// lowerThreadPriority does nothing where threads have no priority of their
// own that Go can set.
func lowerThreadPriority() {}
