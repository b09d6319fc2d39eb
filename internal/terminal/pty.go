package terminal

import (
	"os"

	"golang.org/x/sys/unix"
)

// pollable returns f's descriptor as a File in non-blocking mode, which
// Go's poller waits on: closing it ends a Read in progress. pty.Start
// leaves the master blocking (its Setsize calls Fd), and a blocking Read
// only returns once every process holding the terminal's other side has
// closed it, which a job that left the shell's session may never do.
func pollable(f *os.File) (*os.File, error) {
	defer f.Close()
	fd, err := unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// setSize sets the PTY's window size through the poller's descriptor
// (pty.Setsize would call Fd, which makes the file blocking again).
func setSize(f *os.File, cols, rows int) error {
	ws := size(cols, rows)
	c, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ierr error
	err = c.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Row: ws.Rows, Col: ws.Cols})
	})
	if err != nil {
		return err
	}
	return ierr
}
