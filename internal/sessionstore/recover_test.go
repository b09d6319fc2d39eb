package sessionstore

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// TestRecoverLogsWhatItCannotWrite: a recovery whose record (journal)
// write fails says so in the log, naming the item, and the next start
// settles it.
func TestRecoverLogsWhatItCannotWrite(t *testing.T) {
	f := newTrashFixture(t)
	f.st.Fault = crashAt(StepDeleteCommit, 1)
	if _, err := f.st.Trash(f.mid, nil); !errors.Is(err, ErrCrash) {
		t.Fatalf("Trash: %v", err)
	}
	var log bytes.Buffer
	f.st.Log = slog.New(slog.NewTextHandler(&log, nil))
	f.st.Fault = func(step string) error {
		if step == StepRecoverRecord {
			return errors.New("disk gone")
		}
		return nil
	}
	f.st.Recover()
	if got := log.String(); !strings.Contains(got, "trash recovery") || !strings.Contains(got, "disk gone") || !strings.Contains(got, f.mid) {
		t.Errorf("log = %q, want the failed record write of %s", got, f.mid)
	}
	f.st.Fault = nil
	f.st.Recover()
	if deleted, _ := f.settled(t); !deleted {
		t.Error("not settled as deleted on the next start")
	}
}
