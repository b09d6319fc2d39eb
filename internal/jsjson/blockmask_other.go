//go:build !amd64

package jsjson

func blockMasks(b *[64]byte) (q, bs, ctl uint64) { return blockMasksGo(b) }

// hasAVX2 is false off amd64 (see blockmask_amd64.go).
var hasAVX2 = false

// skipBlocks skips nothing without AVX2 (see blockmask_amd64.go).
func skipBlocks(b []byte, carry uint64) (k int, next uint64, esc, closed bool) {
	return 0, carry, false, false
}
