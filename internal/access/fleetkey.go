package access

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"
)

// FleetKey is the secret the owner gives each of their machines
// (serve --fleet-key-file): a machine's piweb proves it (Proof) with every
// request it forwards to another machine, which serves such a request
// only with the right proof. It is never stored in the fleet database nor
// sent. The zero value is no key: nothing is forwarded and nothing
// forwarded is served.
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

// ProofWindow is how old (or how far ahead) a proof may be: the clocks
// of two machines of a fleet must agree within it, and a proof read off
// a request opens nothing after it.
const ProofWindow = 5 * time.Minute

// Proof is what a request forwarded to machine at now carries instead of
// the key: the time, and HMAC-SHA256 of the machine's name and that time
// under the key, in hex ("UNIX.HEX"). The key itself never leaves its
// machine, and a proof read off one machine's link, or by a machine
// advertising a URL it should not, opens that machine only, and only
// within ProofWindow.
func (k FleetKey) Proof(machine string, now time.Time) string {
	if k.hash == nil {
		return ""
	}
	ts := strconv.FormatInt(now.Unix(), 10)
	return ts + "." + k.mac(machine, ts)
}

func (k FleetKey) mac(machine, ts string) string {
	m := hmac.New(sha256.New, []byte(k.secret))
	m.Write([]byte("piweb fleet proof\x00" + machine + "\x00" + ts))
	return hex.EncodeToString(m.Sum(nil))
}

// Why CheckProof refuses a proof.
var (
	ErrWrongProof = errors.New("wrong fleet key")
	ErrStaleProof = errors.New("fleet proof out of its time window")
)

// CheckProof says whether got is a proof for machine (this one) made
// within ProofWindow of now, its signature compared in constant time,
// and how far the proof's clock is behind now. No key matches nothing.
func (k FleetKey) CheckProof(machine, got string, now time.Time) (skew time.Duration, err error) {
	ts, sig, found := strings.Cut(got, ".")
	unix, perr := strconv.ParseInt(ts, 10, 64)
	if k.hash == nil || !found || perr != nil ||
		subtle.ConstantTimeCompare([]byte(sig), []byte(k.mac(machine, ts))) != 1 {
		return 0, ErrWrongProof
	}
	skew = now.Sub(time.Unix(unix, 0))
	if skew > ProofWindow || skew < -ProofWindow {
		return skew, ErrStaleProof
	}
	return skew, nil
}
