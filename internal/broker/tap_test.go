package broker

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTap: a tap gets every event of its topic as published, numbered,
// beyond what the topic keeps and with no subscriber (a subscriber cut off
// would have lost the evicted ones), none of another topic or after untap.
func TestTap(t *testing.T) {
	b := New[Event](Options{KeepEvents: 2})
	var got []uint64
	untap := b.Tap("a", func(e Event) { got = append(got, e.Seq) })
	publishN(b, "a", 5)
	publishN(b, "b", 1)
	untap()
	publishN(b, "a", 1)
	if diff := cmp.Diff([]uint64{1, 2, 3, 4, 5}, got); diff != "" {
		t.Errorf("tapped (-want +got):\n%s", diff)
	}
}
