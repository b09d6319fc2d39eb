package piconfig

import (
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"piweb/internal/apitype"
	"piweb/internal/errs"
	"piweb/internal/jsjson"
)

// MaxKeyLen bounds an API key piweb stores: real keys are a few hundred
// bytes at most, and a pasted file is a mistake.
const MaxKeyLen = 4096

// Credential is one provider's entry in auth.json as the browser may see
// it: never the key itself (apitype.Credential, where the API's shapes are
// defined).
type Credential = apitype.Credential

// AuthFile is auth.json as the browser may see it (apitype.AuthFile, where
// the API's shapes are defined).
type AuthFile = apitype.AuthFile

// ReadAuth lists auth.json's credentials, masked, by provider name.
func (s *Store) ReadAuth() AuthFile {
	f := AuthFile{Path: s.AuthPath(), Credentials: []Credential{}}
	d, err := readDoc(f.Path)
	if d != nil {
		f.Exists = d.exists
	}
	if err != nil {
		f.Error = err.Error()
		return f
	}
	v := d.obj.Value()
	for i := range v.Len() {
		c := v.Index(i)
		cred := Credential{Provider: v.Key(i), Type: c.Get("type").Str()}
		if cred.Type == "api_key" {
			cred.Masked = Mask(c.Get("key").Str())
		}
		f.Credentials = append(f.Credentials, cred)
	}
	sort.Slice(f.Credentials, func(i, j int) bool { return f.Credentials[i].Provider < f.Credentials[j].Provider })
	return f
}

// Mask hides a key but for its last 4 characters (all of it when short).
// A reference pi resolves (an ALL_CAPS environment variable name or a
// "!command") is not a secret and is returned as is.
func Mask(key string) string {
	if isReference(key) {
		return key
	}
	n := utf8.RuneCountInString(key)
	if n < 12 {
		return strings.Repeat("•", 8)
	}
	r := []rune(key)
	return strings.Repeat("•", 8) + string(r[n-4:])
}

// isReference tells pi's key references from literal keys: pi runs a
// value starting with "!" and reads an environment variable whose name is
// the whole value (resolveConfigValue).
func isReference(k string) bool {
	if k == "" {
		return false
	}
	if k[0] == '!' {
		return true
	}
	for i, c := range k {
		if !(c == '_' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// CheckKey refuses what cannot be an API key: empty, longer than
// MaxKeyLen, not UTF-8, or holding a line break or other control
// character (a paste of several lines).
func CheckKey(key string) error {
	switch {
	case strings.TrimSpace(key) == "":
		return invalidf("the API key is empty")
	case len(key) > MaxKeyLen:
		return invalidf("the API key is %d bytes long; keys longer than %d bytes are refused (was a file pasted?)", len(key), MaxKeyLen)
	case !utf8.ValidString(key):
		return invalidf("the API key is not valid UTF-8")
	case strings.ContainsAny(key, "\r\n"):
		return invalidf("the API key contains a line break; paste it on one line")
	}
	for _, c := range key {
		if c < 0x20 || c == 0x7f {
			return invalidf("the API key contains a control character")
		}
	}
	return nil
}

// CheckProvider refuses provider names pi could not have.
func CheckProvider(p string) error {
	if p == "" || len(p) > 200 || strings.ContainsAny(p, "\x00\r\n/\\") {
		return invalidf("invalid provider name")
	}
	return nil
}

// authLockPath is where pi locks auth.json: the resolved file's path
// (proper-lockfile's default realpath), since pi creates the file first.
func (s *Store) authLockPath() string {
	if real, err := filepath.EvalSymlinks(s.AuthPath()); err == nil {
		return real
	}
	return s.AuthPath()
}

// SetAPIKey stores key for provider as pi's AuthStorage.modify does:
// {"type":"api_key","key":key} replacing the provider's entry in place (or
// added last), the file written as JSON.stringify(data, null, 2), mode
// 0600 for a new file (an existing file keeps its mode).
func (s *Store) SetAPIKey(provider, key string, replaceCorrupt bool) error {
	if err := CheckProvider(provider); err != nil {
		return err
	}
	if err := CheckKey(key); err != nil {
		return err
	}
	var cred jsjson.Object
	cred.Set("type", jsjson.String("api_key"))
	cred.Set("key", jsjson.String(key))
	return s.editAuth(replaceCorrupt, func(o *jsjson.Object) error { o.Set(provider, cred.Value()); return nil })
}

// ErrNoCredential is returned when removing a credential auth.json lacks.
var ErrNoCredential = errs.New(errs.NotFound, "auth.json has no credential for this provider", "piconfig: auth.json has no credential for this provider")

// RemoveCredential deletes provider's entry as pi's AuthStorage.delete
// does; a provider without one is ErrNoCredential and nothing is written
// (pi would rewrite the file unchanged).
func (s *Store) RemoveCredential(provider string) error {
	if err := CheckProvider(provider); err != nil {
		return err
	}
	return s.editAuth(false, func(o *jsjson.Object) error {
		if !has(o, provider) {
			return ErrNoCredential
		}
		o.Delete(provider)
		return nil
	})
}

func (s *Store) editAuth(replaceCorrupt bool, edit func(*jsjson.Object) error) error {
	return s.update(s.AuthPath(), s.authLockPath(), 0o600, replaceCorrupt, func(d *doc) ([]byte, error) {
		if err := edit(&d.obj); err != nil {
			return nil, err
		}
		return stringify2(d.obj.Value()), nil
	})
}
