package jsjson

// blockMasks is blockMasksGo in SSE2, which every amd64 has.
//
//go:noescape
func blockMasks(b *[64]byte) (q, bs, ctl uint64)
