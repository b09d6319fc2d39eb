package access

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"fmt"
	"io"
	"os"
)

// FleetKey is the secret the owner gives each of their machines
// (serve --fleet-key-file): a machine's piweb sends it with every request
// it forwards to another machine, which serves such a request only with
// the right key. It is never stored in the fleet database. The zero
// value is no key: nothing is forwarded and nothing forwarded is served.
type FleetKey struct {
	secret string
	hash   []byte
}

// MinFleetKey is the shortest key accepted, in bytes.
const MinFleetKey = 16

// NewFleetKey is a key of secret ("" is no key).
func NewFleetKey(secret string) FleetKey {
	if secret == "" {
		return FleetKey{}
	}
	h := sha256.Sum256([]byte(secret))
	return FleetKey{secret: secret, hash: h[:]}
}

// ReadFleetKey reads the key file at path: a regular file of this OS
// user, readable by no one else (mode 0600 or stricter), whose first
// line holds at least MinFleetKey bytes. Anything else is refused with a
// message that says what to fix.
func ReadFleetKey(path string) (FleetKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return FleetKey{}, fmt.Errorf("--fleet-key-file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return FleetKey{}, fmt.Errorf("--fleet-key-file: %w", err)
	}
	if err := keyFileSafe(path, fi); err != nil {
		return FleetKey{}, err
	}
	b, err := io.ReadAll(io.LimitReader(f, 4096))
	if err != nil {
		return FleetKey{}, fmt.Errorf("--fleet-key-file: %w", err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	line = bytes.TrimSpace(line)
	if len(line) < MinFleetKey {
		return FleetKey{}, fmt.Errorf("--fleet-key-file %s: the key must be at least %d characters (for instance: openssl rand -hex 32 > %s)", path, MinFleetKey, path)
	}
	return NewFleetKey(string(line)), nil
}

// keyFileSafe refuses a key file another user could read or change.
func keyFileSafe(path string, fi os.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("--fleet-key-file %s: not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("--fleet-key-file %s: mode %04o lets other users read it; run chmod 600 %s", path, perm, path)
	}
	if uid, known := fileOwner(fi); known && uid != os.Getuid() {
		return fmt.Errorf("--fleet-key-file %s: owned by uid %d, not by the user running piweb (uid %d); chown it", path, uid, os.Getuid())
	}
	return nil
}

// Set says whether there is a key.
func (k FleetKey) Set() bool { return k.hash != nil }

// Secret is the key itself, for the requests this machine forwards.
func (k FleetKey) Secret() string { return k.secret }

// OK compares a request's key with this one in constant time (hashes, so
// lengths leak nothing); no key matches nothing.
func (k FleetKey) OK(got string) bool {
	if got == "" || k.hash == nil {
		return false
	}
	h := sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(h[:], k.hash) == 1
}
