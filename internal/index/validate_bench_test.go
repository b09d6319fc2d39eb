package index

import (
	"bytes"
	"strings"
	"testing"
)

var benchLine = []byte(`{"type":"message","id":"a","parentId":"b","timestamp":"2026-01-02T03:04:05.000Z","message":{"role":"toolResult","content":[{"type":"text","text":"` +
	strings.Repeat(`func main() { return x } // some code \n`, 300) + `"}],"isError":false,"timestamp":1}}`)

func BenchmarkValidObject(b *testing.B) {
	b.SetBytes(int64(len(benchLine)))
	for b.Loop() {
		validObject(benchLine)
	}
}

func BenchmarkIndexByteBaseline(b *testing.B) {
	b.SetBytes(int64(len(benchLine)))
	for b.Loop() {
		bytes.IndexByte(benchLine, 0)
	}
}
