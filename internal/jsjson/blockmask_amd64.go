package jsjson

import "golang.org/x/sys/cpu"

// blockMasks is blockMasksGo in SSE2, which every amd64 has.
//
//go:noescape
func blockMasks(b *[64]byte) (q, bs, ctl uint64)

//go:noescape
func skipBlocksAVX2(p *byte, n int, carry uint64) (k int, next uint64, esc, closed bool)

// hasAVX2 is whether skipBlocks may use skipBlocksAVX2; the tests turn it
// off to check the Go loop on the same inputs.
var hasAVX2 = cpu.X86.HasAVX2

// skipBlocks returns the offset k of the first 64-byte block of b that
// strBlocks must look at itself (one with an unescaped quote, a control
// character or an escape other than \" \\ \/ \n \r \t), or the offset of
// the rest when fewer than 64 bytes remain; next is that block's carry
// (escapedBits) and esc whether the blocks before it had backslashes. On
// a CPU without AVX2 it skips nothing. When the block it stops at closes
// the string (skipBlocksAVX2), closed is true and k is the offset after
// the closing quote, esc whether the string had backslashes before it.
func skipBlocks(b []byte, carry uint64) (k int, next uint64, esc, closed bool) {
	if !hasAVX2 || len(b) < 64 {
		return 0, carry, false, false
	}
	return skipBlocksAVX2(&b[0], len(b), carry)
}
