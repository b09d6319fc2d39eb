package access

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// A share link (GET /share/TOKEN) opens one session's read-only page to
// whoever holds it: the token is the whole authorization, so it is long
// (256 bits from crypto/rand) and kept only as its SHA-256, which is what
// a request's token is looked up by (a map of hashes: how close a guess
// came says nothing, and the stored file gives no working link).

// NewShareToken returns a new share token and its hash (ShareHash).
func NewShareToken() (token, hash string) {
	token = base64.RawURLEncoding.EncodeToString(RandomBytes(32))
	return token, ShareHash(token)
}

// ShareHash is the key a share token is stored and looked up by.
func ShareHash(token string) string {
	h := sha256.Sum256([]byte(token))
	return hex.EncodeToString(h[:])
}

// ShareTokenShape reports whether s could be a token NewShareToken made
// (43 characters of base64url): the security layer lets only such paths
// through without sign-in.
func ShareTokenShape(s string) bool {
	if len(s) != 43 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
