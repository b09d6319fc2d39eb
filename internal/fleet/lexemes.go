package fleet

import (
	"cmp"
	"context"
	"encoding/binary"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
)

// An entry's tsvector is PostgreSQL's to_tsvector('simple', text): made by
// the server it was half of a first push's server CPU (decision 0046).
// For a text of plain words it is made here instead, with the default
// parser's result for such text, and sent in tsvector's binary format;
// any other text is left to the server (its tsv sent as NULL, which the
// schema's trigger computes). Plain is: ASCII letters and digits, blanks
// (space, tab, CR, LF) and the punctuation that parser reads as a blank
// wherever it stands; "+-./~&<" only before a blank or at the end
// (elsewhere they make hosts, paths, numbers, entities and tags), but
// for a hyphen between words that start with a letter (a hyphenated
// word: the whole, then its parts); and no run of letters and digits
// that starts with a digit and holds a letter (1e5 is a float). Hosts and
// paths (file.go, e.g.) are not plain: the parser's rules for them are
// many. TestLexemesMatchServer checks random texts and the limits
// against the server.

// Limits of PostgreSQL's tsvector (ts_type.h): positions are clamped to
// maxPos, a lexeme keeps at most maxPositions of them, and a word of
// maxLexeme bytes or more is dropped with a notice (left to the server).
const (
	maxPos       = 16383
	maxPositions = 255
	maxLexeme    = 2047
	maxLexedText = 512 << 10 // beyond it, the server's 1 MB tsvector limit is near
)

// plainPunct are the ASCII punctuation marks the parser reads as a blank
// wherever they stand; beforeBlank those it does only before a blank.
const (
	plainPunct  = "!\"#$%'()*,:;=>?@[\\]^_`{|}"
	beforeBlank = "+-./~&<"
)

// tsvectorOf is to_tsvector('simple', text) in tsvector's binary format,
// or false when text is not plain.
func tsvectorOf(text string) ([]byte, bool) {
	toks, ok := plainTokens(text)
	if !ok {
		return nil, false
	}
	// Lower case keeps an ASCII text's offsets: the lexemes are read from
	// the lower-cased copy.
	return encodeTsvector(strings.ToLower(text), toks), true
}

// token is one of the parser's tokens: where it is in the text and its
// position (from 1, clamped at maxPos); key is its first 8 bytes lower-
// cased, big-endian, zero-padded, which orders most tokens without
// reading the text (a word holds no NUL). No pointers: sorting them
// moves no pointer the collector must see.
type token struct {
	key     uint64
	at, end int32
	pos     uint16
}

// keyOf is the key of low[at:end].
func keyOf(low string, at, end int32) uint64 {
	var k uint64
	for i := range 8 {
		k <<= 8
		if at+int32(i) < end {
			k |= uint64(low[at+int32(i)])
		}
	}
	return k
}

// compareTokens orders tokens as PostgreSQL orders lexemes (their bytes,
// then their length), then by position.
func compareTokens(low string) func(a, b token) int {
	return func(a, b token) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		if a.end-a.at > 8 || b.end-b.at > 8 {
			if c := strings.Compare(low[min(a.at+8, a.end):a.end], low[min(b.at+8, b.end):b.end]); c != 0 {
				return c
			}
		}
		return cmp.Compare(a.pos, b.pos)
	}
}

// plainTokens splits a plain text into the parser's tokens in order, or
// says that it is not plain.
func plainTokens(text string) ([]token, bool) {
	if len(text) > maxLexedText {
		return nil, false
	}
	toks := make([]token, 0, len(text)/6)
	for i := 0; i <= len(text); {
		if i < len(text) && isAlnum(text[i]) {
			end, ok := compound(text, i, &toks)
			if !ok {
				return nil, false
			}
			i = end
			continue
		}
		if !plainSeparator(text, i) {
			return nil, false
		}
		i++
	}
	return toks, true
}

// compound reads the run of letters and digits at start and the runs
// joined to it by single hyphens, adding the parser's tokens of it to
// toks (a word; or a hyphenated word, then each of its parts, when each
// starts with a letter); end is where it ends.
func compound(text string, start int, toks *[]token) (end int, ok bool) {
	add := func(from, to int) {
		*toks = append(*toks, token{at: int32(from), end: int32(to), pos: uint16(min(len(*toks)+1, maxPos))})
	}
	j := start
	for j < len(text) && isAlnum(text[j]) {
		j++
	}
	if j+1 >= len(text) || text[j] != '-' || !isAlnum(text[j+1]) {
		add(start, j)
		return j, plainRun(text[start:j])
	}
	end = j
	for end+1 < len(text) && text[end] == '-' && isAlnum(text[end+1]) {
		for end++; end < len(text) && isAlnum(text[end]); end++ {
		}
	}
	if end-start >= maxLexeme {
		return 0, false
	}
	add(start, end)
	for i := start; i < end; {
		if !isLetter(text[i]) {
			return 0, false // a number: signed, or a version
		}
		j := i
		for j < end && text[j] != '-' {
			j++
		}
		add(i, j)
		i = j + 1
	}
	return end, true
}

// plainRun says whether the parser reads a run of letters and digits as
// one word: not too long, and not a number followed by letters.
func plainRun(w string) bool {
	if len(w) >= maxLexeme {
		return false
	}
	if !isLetter(w[0]) {
		return strings.IndexFunc(w, func(r rune) bool { return r > '9' }) < 0
	}
	return true
}

// plainSeparator says whether the byte at i (past the end: the end) is a
// blank to the parser where it stands.
func plainSeparator(text string, i int) bool {
	if i >= len(text) {
		return true
	}
	c := text[i]
	switch {
	case isBlank(c) || strings.IndexByte(plainPunct, c) >= 0:
		return true
	case strings.IndexByte(beforeBlank, c) >= 0:
		return i+1 == len(text) || isBlank(text[i+1])
	}
	return false
}

func isAlnum(c byte) bool { return isLetter(c) || c >= '0' && c <= '9' }

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// encodeTsvector is tsvectorsend's format of the tokens: the number of
// lexemes, then each lexeme (sorted as PostgreSQL sorts them: bytes, then
// length) NUL-terminated, its number of positions and the positions
// (weight D: the top two bits 0). A lexeme keeps at most maxPositions,
// none after one at maxPos and none twice, as PostgreSQL's uniqueWORD.
func encodeTsvector(low string, toks []token) []byte {
	word := func(t token) string { return low[t.at:t.end] }
	for i := range toks {
		toks[i].key = keyOf(low, toks[i].at, toks[i].end)
	}
	slices.SortFunc(toks, compareTokens(low))
	b := make([]byte, 4, 4+len(toks)*8)
	n := 0
	for i := 0; i < len(toks); {
		j := i + 1
		for j < len(toks) && word(toks[j]) == word(toks[i]) {
			j++
		}
		b = encodeLexeme(b, word(toks[i]), toks[i:j])
		n, i = n+1, j
	}
	binary.BigEndian.PutUint32(b, uint32(n))
	return b
}

// encodeLexeme appends one lexeme, w: same are its tokens in position
// order.
func encodeLexeme(b []byte, w string, same []token) []byte {
	b = append(append(b, w...), 0)
	count := len(b)
	b = append(b, 0, 0)
	n, last := 0, uint16(0)
	for _, t := range same {
		if n > 0 && (n >= maxPositions || last == maxPos || t.pos == last) {
			continue
		}
		b = binary.BigEndian.AppendUint16(b, t.pos)
		n, last = n+1, t.pos
	}
	binary.BigEndian.PutUint16(b[count:], uint16(n))
	return b
}

// lexProbe holds every letter in both cases, digits and blanks: a
// database whose 'simple' configuration was changed (stop words) or whose
// lower case differs (a Turkish locale's I) makes it another tsvector.
const lexProbe = "The QUICK brown fox, the lazy DOG: ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789 a1 it's; I i read-only the end."

// serverLexes says whether conn's database makes plain texts' tsvectors
// as tsvectorOf does.
func serverLexes(ctx context.Context, conn *pgx.Conn) (bool, error) {
	v, _ := tsvectorOf(lexProbe)
	vals, oids, formats := params(param{oidTsvector, v}, param{oidText, []byte(lexProbe)})
	res := conn.PgConn().ExecParams(ctx, `SELECT ($1::tsvector = to_tsvector('simple', $2::text))::text`, vals, oids, formats, nil).Read()
	if res.Err != nil {
		return false, res.Err
	}
	return len(res.Rows) == 1 && string(res.Rows[0][0]) == "true", nil
}
