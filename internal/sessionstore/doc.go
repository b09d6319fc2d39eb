// Package sessionstore is the one place piweb changes a session file, and
// it promises that no byte of one is lost: new lines are appended with one
// O_APPEND write, after checking that the file is still the size the
// caller parsed (else ErrChanged); whole-file rewrites go through a synced
// temp file, a hard-linked backup and a rename, and copy onto the new file
// whatever another process appends to the old one; deleting and restoring
// are journaled in the trash, and Store.Recover completes or undoes a step
// a crash interrupted. Cache keeps parses keyed on device, inode, size and
// mtime. What it writes, piweb/pisession makes.
//
// The package has no net/http and no SQL.
package sessionstore
