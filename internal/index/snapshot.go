package index

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"syscall"

	"piweb/pisession"
)

// The listing snapshot is a file beside the index (its path plus ".ls")
// that holds, for every session file of the last listing in discovery
// order, the file's identity on disk as indexed (device, inode, size,
// mtime) and its element of ls --json, and then the whole ls --json
// output. It is what makes a warm ls cheap: when the discovered files are
// the same, in the same order, and a stat of each matches, the answer is
// the stored output, without opening the database (QuickListJSON); when a
// few files changed, only their rows are brought up to date and read, and
// the output is made again from the elements. The snapshot is checked
// against the disk, never against the database, so it is right even when
// another piweb updated the index since: a file's element depends only on
// the file, which its identity stands for, exactly as the index's own
// change detection assumes. A torn or foreign file fails its checksum or
// version and is ignored.

const (
	snapMagic = "piweb-ls\x00"
	// snapVersion changes with the layout below or with what a listing
	// element holds; the schema version is written too.
	snapVersion = 3
)

// snapEntry is one file of a listing snapshot.
type snapEntry struct {
	path     string
	fid      fileID
	bad      bool    // recorded as unreadable: always looked at again
	modified float64 // pi's modified, the sort key
	elem     []byte  // the ls --json element; nil when not listed
}

// snapPath is the snapshot of the index at dbPath.
func snapPath(dbPath string) string { return dbPath + ".ls" }

// encodeSnapshot lays the entries out as: magic, version, schema version,
// the cwds whose project settings were read (roots), count, then per entry the path, dev, ino, size, mtime, flags, modified
// and the offset and length of its element in the output; then the
// output's length and flags, the output and a newline; and a CRC-32 of
// all that (CRC-32). Lengths and integers are varints, modified 8 bytes. It also
// returns the snapshot as decodeSnapshot would.
func encodeSnapshot(cwds []string, es []snapEntry) ([]byte, *snapshot) {
	order, offs, n := listOutput(es)
	b := make([]byte, 0, n+len(es)*200+64)
	b = append(b, snapMagic...)
	b = binary.AppendUvarint(b, snapVersion)
	b = binary.AppendUvarint(b, schemaVersion)
	b = binary.AppendUvarint(b, uint64(len(cwds)))
	for _, c := range cwds {
		b = appendBytes(b, []byte(c))
	}
	b = binary.AppendUvarint(b, uint64(len(es)))
	for i, e := range es {
		b = appendBytes(b, []byte(e.path))
		b = binary.AppendUvarint(b, e.fid.dev)
		b = binary.AppendUvarint(b, e.fid.ino)
		b = binary.AppendVarint(b, e.fid.size)
		b = binary.AppendVarint(b, e.fid.mtimeNs)
		b = binary.AppendUvarint(b, boolBit(e.bad, 1)|boolBit(e.elem != nil, 2))
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(e.modified))
		b = binary.AppendUvarint(b, uint64(offs[i]))
		b = binary.AppendUvarint(b, uint64(len(e.elem)))
	}
	escape := false
	for _, e := range es {
		escape = escape || needsHTMLEscape(e.elem)
	}
	s := &snapshot{cwds: cwds, entries: es, escape: escape}
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, boolBit(s.escape, 1))
	start := len(b)
	b = append(appendOutput(b, es, order, n), '\n')
	s.out = b[start : start+n : start+n+1]
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b)), s
}

func boolBit(b bool, bit uint64) uint64 {
	if b {
		return bit
	}
	return 0
}

func appendBytes(b, s []byte) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var (
	errSnapshot = errors.New("index: bad listing snapshot")
	errMismatch = errors.New("index: listing snapshot of other files")
)

// snapshot is a decoded listing snapshot. Elements and output point into
// the bytes read.
type snapshot struct {
	cwds    []string // whose project settings gave roots (projectDir)
	entries []snapEntry
	out     []byte // ls --json, followed in memory by a newline
	escape  bool   // out has characters encoding/json escapes for HTML
}

// decodeSnapshot reads what encodeSnapshot wrote, whose checksum the
// caller checked (snapshotSum). With files, the
// snapshot must list exactly those paths in that order (else errMismatch),
// and the entries take their path strings from files instead of new ones.
func decodeSnapshot(b []byte, files []found) (*snapshot, error) {
	d, cwds := snapshotHead(b)
	if d.err {
		return nil, errSnapshot
	}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return nil, errSnapshot
	}
	if files != nil && n != uint64(len(files)) {
		return nil, errMismatch
	}
	es := make([]snapEntry, n)
	spans := make([][2]uint64, n) // offset and length of each element
	for i := range es {
		p := d.bytes()
		if files == nil {
			es[i].path = string(p)
		} else if string(p) != files[i].path {
			return nil, errMismatch
		} else {
			es[i].path = files[i].path
		}
		spans[i] = d.entry(&es[i])
	}
	s := &snapshot{cwds: cwds, entries: es}
	nOut := d.uvarint()
	s.escape = d.uvarint()&1 != 0
	if d.err || nOut+1 != uint64(len(d.b)) || d.b[nOut] != '\n' {
		return nil, errSnapshot
	}
	s.out = d.b[: nOut : nOut+1]
	for i, sp := range spans {
		if sp[0] == math.MaxUint64 {
			continue
		}
		if sp[0] > nOut || sp[1] > nOut-sp[0] {
			return nil, errSnapshot
		}
		es[i].elem = s.out[sp[0] : sp[0]+sp[1] : sp[0]+sp[1]]
	}
	return s, nil
}

// entry reads the rest of an entry after its path and returns the offset
// and length of its element (offset MaxUint64 when it has none).
func (d *snapDecoder) entry(e *snapEntry) [2]uint64 {
	e.fid.dev, e.fid.ino = d.uvarint(), d.uvarint()
	e.fid.size, e.fid.mtimeNs = d.varint(), d.varint()
	flags := d.uvarint()
	e.modified = math.Float64frombits(d.uint64())
	sp := [2]uint64{d.uvarint(), d.uvarint()}
	e.bad = flags&1 != 0
	if flags&2 == 0 {
		sp[0] = math.MaxUint64
	}
	return sp
}

// snapshotSum checks the magic and the checksum of a snapshot.
func snapshotSum(b []byte) bool {
	if len(b) < len(snapMagic)+4 || string(b[:len(snapMagic)]) != snapMagic {
		return false
	}
	body := b[:len(b)-4]
	return crc32.ChecksumIEEE(body) == binary.LittleEndian.Uint32(b[len(body):])
}

// snapshotHead reads a snapshot's version and cwds, without the checksum;
// the decoder is left at the entries (d.err when the head is not usable).
func snapshotHead(b []byte) (d snapDecoder, cwds []string) {
	if len(b) < len(snapMagic)+4 || string(b[:len(snapMagic)]) != snapMagic {
		return snapDecoder{err: true}, nil
	}
	d.b = b[len(snapMagic) : len(b)-4]
	if d.uvarint() != snapVersion || d.uvarint() != schemaVersion {
		return snapDecoder{err: true}, nil
	}
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		return snapDecoder{err: true}, nil
	}
	for range n {
		cwds = append(cwds, string(d.bytes()))
	}
	return d, cwds
}

// snapDecoder reads the fields of a snapshot; err is set, and zero values
// returned, once the bytes run out or a number is malformed.
type snapDecoder struct {
	b   []byte
	err bool
}

func (d *snapDecoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.err, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *snapDecoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.err, d.b = true, nil
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *snapDecoder) uint64() uint64 {
	if len(d.b) < 8 {
		d.err, d.b = true, nil
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *snapDecoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.err, d.b = true, nil
		return nil
	}
	s := d.b[:n:n]
	d.b = d.b[n:]
	return s
}

// readSnapshot maps the snapshot at path into memory and decodes it (see
// decodeSnapshot for files); nil when there is none or it is not usable.
// The snapshot points into the mapping until done is called.
func readSnapshot(path string, files []found) (s *snapshot, done func()) {
	b, done := mapFile(path)
	if s, err := decodeSnapshot(b, files); err == nil && snapshotSum(b) {
		return s, done
	}
	done()
	return nil, func() {}
}

// mapFile maps the file at path read-only; nil when it cannot. Mapping
// instead of reading spares a copy and fresh memory for the few megabytes
// of a large listing, which matters to a warm ls that does little else.
// The mapping lasts until done is called.
func mapFile(path string) (b []byte, done func()) {
	f, err := os.Open(path)
	if err != nil {
		return nil, func() {}
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 || int64(int(fi.Size())) != fi.Size() {
		return nil, func() {}
	}
	b, err = syscall.Mmap(int(f.Fd()), 0, int(fi.Size()), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, func() {}
	}
	return b, func() { syscall.Munmap(b) }
}

// writeSnapshot replaces the snapshot at path: written beside it and
// renamed over it, so that a reader sees the old or the new one whole. It
// is not synced: after a crash a torn snapshot fails its checksum.
func writeSnapshot(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// diffSnapshot compares the scanned files (stat'd) with the snapshot. It
// returns the entries in discovery order (an entry the disk no longer
// matches has only its path), the paths to bring up to date (changed, new,
// unreadable before) and the snapshot's paths that are gone.
func diffSnapshot(files []found, snap []snapEntry) (es []snapEntry, stale, gone []string) {
	old := make(map[string]*snapEntry, len(snap))
	for i := range snap {
		old[snap[i].path] = &snap[i]
	}
	es = make([]snapEntry, len(files))
	for i, f := range files {
		es[i].path = f.path
		if o := old[f.path]; o != nil && !o.bad && f.statOK && o.fid.unchanged(f.fid) {
			es[i] = *o
		} else {
			stale = append(stale, f.path)
		}
		delete(old, f.path)
	}
	for p := range old {
		gone = append(gone, p)
	}
	return es, stale, gone
}

// snapshotHit reports whether every file of the snapshot is unchanged on
// disk (decodeSnapshot checked that the paths are those scanned).
func snapshotHit(es []snapEntry, files []found) bool {
	for i := range es {
		if es[i].bad || !files[i].statOK || !es[i].fid.unchanged(files[i].fid) {
			return false
		}
	}
	return true
}

// listOutput lays out ls --json from the entries, before escaping for
// HTML: pi 1.6's listAll order (modified, newest first, ties in candidate
// order: pisession.SortCandidates) of the listed entries, their elements'
// offsets in the output, and its length.
func listOutput(es []snapEntry) (order, offs []int, n int) {
	order = make([]int, 0, len(es))
	for i := range es {
		if es[i].elem != nil {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return pisession.CompareCandidates(es[a].path, pisession.MtimeMsNs(es[a].fid.mtimeNs),
			es[b].path, pisession.MtimeMsNs(es[b].fid.mtimeNs))
	})
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(es[b].modified, es[a].modified) })
	offs = make([]int, len(es))
	n = 1
	for k, i := range order {
		if k > 0 {
			n++
		}
		offs[i] = n
		n += len(es[i].elem)
	}
	return order, offs, n + 1
}

// appendOutput appends the output listOutput laid out, and points each
// element at its place in it, so that a listing's elements are held once
// (a first message can be tens of MB: issue 21).
// The output, n bytes, and what follows it (a newline and a checksum) fit
// in b without growing it again.
func appendOutput(b []byte, es []snapEntry, order []int, n int) []byte {
	b = slices.Grow(b, n+16)
	b = append(b, '[')
	for k, i := range order {
		if k > 0 {
			b = append(b, ',')
		}
		b = append(b, es[i].elem...)
		es[i].elem = b[len(b)-len(es[i].elem) : len(b) : len(b)]
	}
	return append(b, ']')
}

// outputJSON is ls --json as json.Marshal of the listing writes it: with
// <, >, &, U+2028 and U+2029 escaped, as encoding/json does for HTML.
func outputJSON(out []byte, escape bool) []byte {
	if !escape {
		return out
	}
	var buf bytes.Buffer
	buf.Grow(len(out) + len(out)/8)
	json.HTMLEscape(&buf, out)
	return buf.Bytes()
}

// WriteQuickListJSON writes ListJSON and a newline to w from the listing
// snapshot alone, without opening the index, when the discovered session
// files are exactly those of the snapshot and none changed; ok is false,
// and nothing written, otherwise: then Open and ListJSON give the answer.
// This is piweb ls --json on a warm cache: a directory read per project,
// a stat per file, and the stored output written as it lies in the file.
func WriteQuickListJSON(o Options, w io.Writer) (ok bool, err error) {
	if o, err = o.withDefaults(); err != nil {
		return false, nil
	}
	b, done := mapFile(snapPath(o.Path))
	defer done()
	d, cwds := snapshotHead(b)
	if d.err {
		return false, nil
	}
	// The checksum is computed while the folders are scanned; the paths
	// are compared after.
	sum := make(chan bool, 1)
	go func() { sum <- snapshotSum(b) }()
	files, _ := scan(roots(o.AgentDir, o.Getenv, cwds), true)
	if !<-sum {
		return false, nil
	}
	s, err := decodeSnapshot(b, files)
	if err != nil || !snapshotHit(s.entries, files) {
		return false, nil
	}
	if s.escape {
		_, err = w.Write(append(outputJSON(s.out, true), '\n'))
	} else {
		_, err = w.Write(s.out[:len(s.out)+1]) // the newline stored after it
	}
	return true, err
}
