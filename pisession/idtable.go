package pisession

import (
	"hash/maphash"
	"math/bits"
)

// idTable indexes a session's entries by id key, as pi's byId map does
// (the last entry of a key wins). Each slot is one word, the key's hash's
// high 32 bits and the entry's index + 1, in open addressing with linear
// probes, so the table holds no pointer: the collector neither scans it
// nor runs write barriers while it is filled, which on files of 2 KB
// entries, parsed between collections, was the larger part of what the Go
// map of id strings to entries cost. A hash match is confirmed by the
// entry's key, so lookups are exact.
type idTable struct {
	slots []uint64
	n     int // keys held
}

var idSeed = maphash.MakeSeed()

// find returns the slot of key: the one holding it, or the empty one
// where it goes. entries are the entries the slots index.
func (t *idTable) find(entries []*Entry, key string, h uint64) int {
	mask := len(t.slots) - 1
	tag := h >> 32
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == 0 {
			return i
		}
		if s>>32 == tag {
			if j := int(uint32(s)) - 1; j < len(entries) && entries[j].idK() == key {
				return i
			}
		}
	}
}

// get returns the entry of key, nil when no entry has it.
func (t *idTable) get(entries []*Entry, key string) *Entry {
	if t.n == 0 {
		return nil
	}
	s := t.slots[t.find(entries, key, maphash.String(idSeed, key))]
	if j := int(uint32(s)) - 1; s != 0 && j < len(entries) {
		return entries[j]
	}
	return nil
}

// add files entries[i] under its key, in place of an earlier entry of
// the same key.
func (t *idTable) add(entries []*Entry, i int) {
	if 4*(t.n+1) > 3*len(t.slots) {
		t.grow(entries, 2*(t.n+1))
	}
	key := entries[i].idK()
	h := maphash.String(idSeed, key)
	k := t.find(entries, key, h)
	if t.slots[k] == 0 {
		t.n++
	}
	t.slots[k] = h>>32<<32 | uint64(i+1)
}

// grow makes room for n keys at most three quarters full (a table of a
// file of 72,000 short entries is then 1 MB, a core's L2 here, rather
// than 2), filing the keys held again.
func (t *idTable) grow(entries []*Entry, n int) {
	old := t.slots
	t.slots = make([]uint64, max(16, 1<<bits.Len(uint(4*n/3))))
	for _, s := range old {
		if s == 0 {
			continue
		}
		j := int(uint32(s)) - 1
		key := entries[j].idK()
		t.slots[t.find(entries, key, maphash.String(idSeed, key))] = s
	}
}

// keys returns the number of distinct keys filed.
func (t *idTable) keys() int { return t.n }

// clone returns a copy that can be changed without changing t.
func (t *idTable) clone() idTable {
	return idTable{slots: append([]uint64(nil), t.slots...), n: t.n}
}
