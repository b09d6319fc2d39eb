// Package jsjson reads and writes JSON exactly as JavaScript's JSON.parse and
// JSON.stringify do, so that piweb can write session lines that are byte for
// byte what pi itself would write.
//
// pi writes every session line with JSON.stringify. Go's encoding/json differs
// in small ways that break byte compatibility: it escapes <, > and &, always
// escapes U+2028 and U+2029, prints -0 as "-0", and does not reorder
// integer-like object keys the way JavaScript objects do. This package
// implements the JavaScript rules instead:
//
//   - AppendString and AppendNumber encode single strings and numbers.
//   - Value is an ordered JSON value model; Parse accepts exactly what
//     JSON.parse accepts and Stringify(Parse(b)) equals
//     JSON.stringify(JSON.parse(b)).
//   - Object builds new objects in a fixed key order, with JavaScript's
//     "undefined is omitted" rule.
//   - Canonical, IsCanonical and Valid work on raw bytes; Valid is fast enough
//     for the hot path of scanning session files of hundreds of megabytes.
//     ScanString (one string) and ValidEnd (one value) are its parts, which
//     the session parser's and the index's own scanners build on.
//   - The raw view (ValueEnd, Members, Elements, Field, FirstField, KeyIs,
//     DecodeString) reads a few members of JSON text without decoding the
//     rest; it does not validate, and never panics or loops on input that
//     is not valid.
//
// # Text model
//
// A JavaScript string is a sequence of UTF-16 code units, while a Go string
// is a sequence of bytes. The bridge is the one pi uses: it reads files as
// UTF-8 with Node's decoder, which follows the WHATWG Encoding Standard and
// replaces each maximal ill-formed subsequence with one U+FFFD. Parse and
// AppendString therefore treat invalid UTF-8 the same way.
//
// JSON text can also contain lone surrogates written as escapes ("\ud800").
// JSON.stringify keeps them as lowercase escapes. Values produced by Parse
// hold such strings internally in WTF-8 (surrogates encoded like other code
// points) so that Stringify writes the escape back; Value.Str converts each
// lone surrogate to U+FFFD, as Node does when it encodes a string as UTF-8.
package jsjson
