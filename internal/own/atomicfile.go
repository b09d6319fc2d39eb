package own

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"piweb/internal/durable"
)

// WriteFile replaces path with data: a temp file beside it
// (".piweb-tmp-<name>-*") is given mode, written, synced and renamed over
// path, and the folder is synced. The folder must exist.
func WriteFile(path string, data []byte, mode fs.FileMode) error {
	dir := filepath.Dir(path)
	name, err := durable.WriteTemp(dir, ".piweb-tmp-"+filepath.Base(path)+"-*", mode, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
	if err != nil {
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return durable.SyncDir(dir)
}

// WritePrivateJSON replaces path with v as indented JSON and a final
// newline, the user's alone: mode 0600, its folder created 0700.
func WritePrivateJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return WriteFile(path, append(b, '\n'), 0o600)
}

// ReadJSON decodes the JSON file at path, as WritePrivateJSON wrote it,
// into v. A missing file is not an error: found is false and v untouched.
// A file that does not parse is, naming the path (callers must not
// overwrite it then).
func ReadJSON(path string, v any) (found bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return true, fmt.Errorf("%s: %w", path, err)
	}
	return true, nil
}
