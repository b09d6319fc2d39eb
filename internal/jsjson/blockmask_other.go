//go:build !amd64

package jsjson

func blockMask(b *[64]byte) uint64 { return blockMaskGo(b) }
