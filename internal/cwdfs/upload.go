package cwdfs

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"

	"piweb/internal/errs"
)

// MaxUpload bounds one uploaded file.
const MaxUpload = 32 << 20

// uploadTemp is the name prefix of an upload being written; a crash
// leaves at most such a file, never a half-written one under its name.
const uploadTemp = ".piweb-upload-"

// CheckName checks an uploaded file's name: one path element that is not
// ".", "..", hidden debris of ours, or over 255 bytes.
func CheckName(name string) error {
	if name == "" || name == "." || name == ".." || len(name) > 255 || strings.ContainsAny(name, "/\\\x00") ||
		strings.HasPrefix(name, uploadTemp) {
		return fail(errs.Invalid, "a file name must be one name, without / or \\")
	}
	return nil
}

// Upload writes src into the directory dir (a real path inside root, as
// Resolve gives it) as name: into a temp file there, synced, then moved
// into place. Without overwrite an existing name is refused (Exists) and
// nothing changes; with it an existing regular file is replaced in one
// rename. On any failure, a full disk included (NoSpace), the temp file
// is removed: nothing half-written is left. src longer than max bytes is
// refused (TooLarge). It returns the bytes written.
func Upload(root, dir, name string, src io.Reader, max int64, overwrite bool) (int64, error) {
	if err := CheckName(name); err != nil {
		return 0, err
	}
	if !inside(root, dir) {
		return 0, fail(errs.Forbidden, "path leads outside the session's directory")
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return 0, fail(errs.NotFound, "folder not found")
	}
	defer r.Close()
	if fi, err := r.Lstat(name); err == nil && (!overwrite || !fi.Mode().IsRegular()) {
		if !fi.Mode().IsRegular() {
			return 0, fail(errs.Invalid, "%s exists and is not a regular file", name)
		}
		return 0, fail(errs.Exists, "%s exists", name)
	}
	tmp := uploadTemp + randomHex()
	n, err := writeTemp(r, tmp, src, max)
	if err != nil {
		r.Remove(tmp)
		return 0, err
	}
	if err := place(r, tmp, name, overwrite); err != nil {
		r.Remove(tmp)
		return 0, err
	}
	return n, nil
}

func randomHex() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// writeTemp copies at most max bytes of src into a new file and syncs it,
// and says how many it copied.
func writeTemp(r *os.Root, tmp string, src io.Reader, max int64) (int64, error) {
	f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return 0, writeErr(err)
	}
	n, err := io.Copy(f, io.LimitReader(src, max+1))
	if err == nil && n > max {
		err = fail(errs.TooLarge, "the file is over %d bytes", max)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return n, writeErr(err)
}

// place moves tmp to name: a hard link, which fails rather than replace
// an existing file, or with overwrite a rename.
func place(r *os.Root, tmp, name string, overwrite bool) error {
	if overwrite {
		return writeErr(r.Rename(tmp, name))
	}
	if err := r.Link(tmp, name); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fail(errs.Exists, "%s exists", name)
		}
		return writeErr(err)
	}
	return writeErr(r.Remove(tmp))
}

// writeErr words a failed write for the client.
func writeErr(err error) error {
	var fe *errs.Error
	switch {
	case err == nil || errors.As(err, &fe):
		return err
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return fail(errs.NoSpace, "the disk is full: nothing was written")
	case errors.Is(err, fs.ErrPermission), errors.Is(err, syscall.EROFS):
		return fail(errs.Forbidden, "the folder cannot be written to")
	}
	return fail(errs.Invalid, "the file could not be written")
}
