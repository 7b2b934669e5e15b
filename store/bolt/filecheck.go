package bolt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt maps the file and reads pages where the meta page says they are:
// a file cut short (a copy that stopped, a full disk during a restore)
// makes it touch memory past the end of the mapping, and the process dies
// with SIGBUS and a goroutine dump. checkFile reads the two meta pages with
// plain reads first and refuses, in one line, a file that cannot hold the
// pages its newest valid meta page names.

// ErrDamaged is returned by Open for a file that is not a whole database.
type ErrDamaged struct {
	Path   string
	Reason string
}

func (e *ErrDamaged) Error() string {
	return fmt.Sprintf("%s is damaged (%s): restore a backup with `licensectl restore FILE`", e.Path, e.Reason)
}

// pageFault is the error of a panic p that bbolt raised reading the file at
// path: bbolt trusts the pages it maps, so a garbled one (element offsets
// pointing past the page, a bucket's root naming a page of another kind)
// makes it index out of range or trip an assertion instead of returning an
// error. Open and ExportRecords (the walk of store copy) recover and answer
// this one line instead of a goroutine dump; bbolt's View and Update have
// rolled their transaction back by then. (restore checks a backup's pages
// with bbolt's own consistency check before it reads them.) The panic's
// text is kept in the reason, so a fault of the program still shows.
func pageFault(path string, p any) error {
	return &ErrDamaged{Path: path, Reason: fmt.Sprintf("a page does not decode: %v", p)}
}

// Layout of a bbolt meta page: a 16-byte page header, then the meta.
const (
	boltMagic     = 0xED0CDAED
	metaOffset    = 16
	metaSize      = 56 // magic … txid, the bytes the checksum covers
	minPageSize   = 512
	maxPageSize   = 1 << 16
	metaPageCount = 2
)

type metaPage struct {
	pageSize uint32
	pgid     uint64 // high water mark: pages in use
	txid     uint64
}

// checkFile reports an *ErrDamaged for a file too short for its pages. A
// missing or empty file is fine: Open creates it.
func checkFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	if size == 0 {
		return nil
	}
	damaged := func(format string, args ...any) error {
		return &ErrDamaged{Path: path, Reason: fmt.Sprintf(format, args...)}
	}
	first, err := readMeta(f, 0)
	if err != nil {
		return damaged("no valid meta page at its start: %v", err)
	}
	best := first
	if second, err := readMeta(f, int64(first.pageSize)); err == nil && second.txid > best.txid {
		best = second
	}
	if need := int64(best.pgid) * int64(best.pageSize); size < need || size < metaPageCount*int64(best.pageSize) {
		return damaged("%d bytes, but its pages need %d: the file was cut short", size, max(need, metaPageCount*int64(best.pageSize)))
	}
	return nil
}

// readMeta reads and checks the meta page at off.
func readMeta(f *os.File, off int64) (metaPage, error) {
	buf := make([]byte, metaOffset+metaSize+8)
	if _, err := f.ReadAt(buf, off); err != nil {
		if errors.Is(err, io.EOF) {
			return metaPage{}, errors.New("the file ends inside it")
		}
		return metaPage{}, err
	}
	m := buf[metaOffset:]
	le := binary.LittleEndian
	if le.Uint32(m[0:]) != boltMagic {
		return metaPage{}, errors.New("not a database file")
	}
	h := fnv.New64a()
	h.Write(m[:metaSize])
	if h.Sum64() != le.Uint64(m[metaSize:]) {
		return metaPage{}, errors.New("its checksum does not match")
	}
	mp := metaPage{pageSize: le.Uint32(m[8:]), pgid: le.Uint64(m[40:]), txid: le.Uint64(m[48:])}
	if mp.pageSize < minPageSize || mp.pageSize > maxPageSize || mp.pageSize&(mp.pageSize-1) != 0 {
		return metaPage{}, fmt.Errorf("page size %d", mp.pageSize)
	}
	return mp, nil
}
