package jsjson

// WellFormed exposes wellFormed to the external tests.
var WellFormed = wellFormed
