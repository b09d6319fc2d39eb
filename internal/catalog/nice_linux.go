package catalog

import "syscall"

// lowerThreadPriority sets the calling thread's nice value to 10 (on Linux
// setpriority with a thread id applies to that thread only). A failure
// leaves the priority as it was.
func lowerThreadPriority() {
	_ = syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), 10)
}
