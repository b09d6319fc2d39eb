package jsjson

// blockMask is blockMaskGo in SSE2, which every amd64 has.
//
//go:noescape
func blockMask(b *[64]byte) uint64
