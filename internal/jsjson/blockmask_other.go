//go:build !amd64

package jsjson

func blockMasks(b *[64]byte) (q, bs, ctl uint64) { return blockMasksGo(b) }
