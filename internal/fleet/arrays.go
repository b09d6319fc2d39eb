package fleet

import (
	"encoding/binary"
	"math"
)

// A piece's column arrays are sent as parameters in PostgreSQL's binary
// array format (array_recv), each encoded into one buffer of its exact
// size: pgx's generic encoding grew a buffer from 256 bytes for every
// statement, element by element through an encode plan (13% of the
// pusher's CPU at 25,000 sessions by the push's profile). An array here
// is one-dimensional, from 1, without NULLs (they are sent as "" or 0 and
// made NULL in SQL).

// The element types' OIDs, and their arrays' for the parameters' types.
const (
	oidBool, oidBytea, oidInt8, oidInt4, oidText, oidFloat8, oidTsvector = 16, 17, 20, 23, 25, 701, 3614

	oidBoolArray, oidByteaArray, oidTextArray, oidInt4Array, oidInt8Array, oidFloat8Array = 1000, 1001, 1009, 1007, 1016, 1022
	oidTsvectorArray                                                                      = 3643
)

// arrayHead starts an array of n elements of type oid whose elements
// (each its 4-byte length and its bytes) take size bytes.
func arrayHead(oid uint32, n, size int) []byte {
	if n == 0 {
		return binary.BigEndian.AppendUint32(make([]byte, 8, 12), oid) // no dimensions
	}
	b := make([]byte, 0, 20+size)
	for _, v := range []uint32{1, 0, oid, uint32(n), 1} { // dimensions, no NULLs, type, length, lower bound
		b = binary.BigEndian.AppendUint32(b, v)
	}
	return b
}

func textArray(s []string) []byte { return bytesArray(oidText, s) }

func byteaArray(s [][]byte) []byte { return bytesArray(oidBytea, s) }

// bytesArray is an array of oid's elements, each its length then its bytes.
func bytesArray[T string | []byte](oid uint32, s []T) []byte {
	size := 4 * len(s)
	for _, x := range s {
		size += len(x)
	}
	b := arrayHead(oid, len(s), size)
	for _, x := range s {
		b = append(binary.BigEndian.AppendUint32(b, uint32(len(x))), x...)
	}
	return b
}

func int4Array(s []int32) []byte {
	b := arrayHead(oidInt4, len(s), 8*len(s))
	for _, x := range s {
		b = binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint32(b, 4), uint32(x))
	}
	return b
}

func int8Array(s []int64) []byte {
	b := arrayHead(oidInt8, len(s), 12*len(s))
	for _, x := range s {
		b = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(b, 8), uint64(x))
	}
	return b
}

func float8Array(s []float64) []byte {
	b := arrayHead(oidFloat8, len(s), 12*len(s))
	for _, x := range s {
		b = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(b, 8), math.Float64bits(x))
	}
	return b
}

func boolArray(s []bool) []byte {
	b := arrayHead(oidBool, len(s), 5*len(s))
	for _, x := range s {
		v := byte(0)
		if x {
			v = 1
		}
		b = append(binary.BigEndian.AppendUint32(b, 1), v)
	}
	return b
}

// param is one binary parameter and its type.
type param struct {
	oid uint32
	val []byte
}

// params are a statement's parameters in the form pgconn takes them.
func params(ps ...param) (vals [][]byte, oids []uint32, formats []int16) {
	for _, p := range ps {
		vals, oids, formats = append(vals, p.val), append(oids, p.oid), append(formats, 1)
	}
	return vals, oids, formats
}
