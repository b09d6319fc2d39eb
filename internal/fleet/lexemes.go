package fleet

import (
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

// lexemes are a text's words in order, lower-cased, each with its
// positions, sorted as PostgreSQL sorts a tsvector's lexemes.
type lexeme struct {
	word string
	pos  []uint16
}

// tsvectorOf is to_tsvector('simple', text) in tsvector's binary format,
// or false when text is not plain.
func tsvectorOf(text string) ([]byte, bool) {
	toks, ok := plainTokens(text)
	if !ok {
		return nil, false
	}
	return encodeTsvector(lexemesOf(toks)), true
}

// plainTokens splits a plain text into the parser's tokens in order, or
// says that it is not plain.
func plainTokens(text string) ([]string, bool) {
	if len(text) > maxLexedText {
		return nil, false
	}
	var toks []string
	for i := 0; i <= len(text); {
		if i < len(text) && isAlnum(text[i]) {
			end, words, ok := compound(text, i)
			if !ok {
				return nil, false
			}
			toks, i = append(toks, words...), end
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
// joined to it by single hyphens: the parser's tokens of it (a word; or
// a hyphenated word, then each of its parts, when each starts with a
// letter) and where it ends.
func compound(text string, start int) (end int, toks []string, ok bool) {
	var parts []string
	for i := start; ; {
		j := i
		for j < len(text) && isAlnum(text[j]) {
			j++
		}
		parts = append(parts, text[i:j])
		if j+1 < len(text) && text[j] == '-' && isAlnum(text[j+1]) {
			i = j + 1
			continue
		}
		end = j
		break
	}
	if len(parts) == 1 {
		return end, parts, plainRun(parts[0])
	}
	whole := text[start:end]
	if len(whole) >= maxLexeme {
		return 0, nil, false
	}
	for _, p := range parts {
		if !isLetter(p[0]) {
			return 0, nil, false // a number: signed, or a version
		}
	}
	return end, append([]string{whole}, parts...), true
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

// lexemesOf gives each lower-cased token its positions from 1, clamped
// at maxPos, at most maxPositions each, as PostgreSQL's uniqueWORD keeps
// them.
func lexemesOf(words []string) []lexeme {
	at := make(map[string]int, len(words))
	var out []lexeme
	for i, w := range words {
		w = strings.ToLower(w)
		pos := uint16(min(i+1, maxPos))
		j, seen := at[w]
		if !seen {
			at[w] = len(out)
			out = append(out, lexeme{word: w, pos: []uint16{pos}})
			continue
		}
		l := &out[j]
		if last := l.pos[len(l.pos)-1]; len(l.pos) < maxPositions && last != maxPos && last != pos {
			l.pos = append(l.pos, pos)
		}
	}
	slices.SortFunc(out, func(a, b lexeme) int { return strings.Compare(a.word, b.word) })
	return out
}

// encodeTsvector is tsvectorsend's format: the number of lexemes, then
// each lexeme NUL-terminated, its number of positions and the positions
// (weight D, the top two bits 0).
func encodeTsvector(ls []lexeme) []byte {
	size := 4
	for _, l := range ls {
		size += len(l.word) + 3 + 2*len(l.pos)
	}
	b := binary.BigEndian.AppendUint32(make([]byte, 0, size), uint32(len(ls)))
	for _, l := range ls {
		b = append(append(b, l.word...), 0)
		b = binary.BigEndian.AppendUint16(b, uint16(len(l.pos)))
		for _, p := range l.pos {
			b = binary.BigEndian.AppendUint16(b, p)
		}
	}
	return b
}

// lexProbe holds every letter in both cases, digits and blanks: a
// database whose 'simple' configuration was changed (stop words) or whose
// lower case differs (a Turkish locale's I) makes it another tsvector.
const lexProbe = "The QUICK brown fox, the lazy DOG: ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnopqrstuvwxyz 0123456789 a1 it's; I i the end."

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
