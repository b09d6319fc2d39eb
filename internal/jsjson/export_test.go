package jsjson

// WellFormed exposes wellFormed to the external tests.
var WellFormed = wellFormed

// FromWTF8 exposes fromWTF8 to the external tests.
var FromWTF8 = fromWTF8

// SkipDigits exposes skipDigits to the external tests.
var SkipDigits = skipDigits[[]byte]
