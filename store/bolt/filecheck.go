package bolt

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt's on-disk meta page, as bbolt 1.x writes it: a 16-byte page header,
// then magic, version, page size, flags (4 bytes each), the root bucket
// (16), the freelist page (8), the high-water page id (8), the transaction
// id (8) and an FNV-64a checksum of the 56 bytes before it.
const (
	boltPageHeader = 16
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	boltMetaSum    = 56
	boltMetaSize   = boltMetaSum + 8
)

type boltMeta struct {
	pageSize   uint32
	highWater  uint64
	txid       uint64
	valid      bool
	wrongMagic bool
}

func readMeta(b []byte) boltMeta {
	if len(b) < boltPageHeader+boltMetaSize {
		return boltMeta{}
	}
	m := b[boltPageHeader : boltPageHeader+boltMetaSize]
	le := binary.LittleEndian
	if le.Uint32(m[0:]) != boltMagic {
		return boltMeta{wrongMagic: true}
	}
	h := fnv.New64a()
	h.Write(m[:boltMetaSum])
	return boltMeta{pageSize: le.Uint32(m[8:]), highWater: le.Uint64(m[40:]), txid: le.Uint64(m[48:]),
		valid: le.Uint32(m[4:]) == boltVersion && h.Sum64() == le.Uint64(m[boltMetaSum:])}
}

// checkFile looks at a database file before bbolt maps it. bbolt trusts the
// file's size: a file cut short (a failed copy, a full disk during a
// restore) makes it touch pages past the end, and the process dies of
// SIGBUS with a goroutine dump. This says in one line what is wrong
// instead. A missing or empty file is fine: bbolt creates it.
func checkFile(path string) error {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
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
	restore := "restore a backup (licensectl restore FILE)"
	head := make([]byte, 4096)
	n, err := io.ReadFull(f, head)
	if err != nil && err != io.ErrUnexpectedEOF {
		return err
	}
	m0 := readMeta(head[:n])
	if m0.wrongMagic || (!m0.valid && n < boltPageHeader+boltMetaSize) {
		return fmt.Errorf("%s is not a licensectl database (%d bytes, no database header): check data_dir, or %s", path, size, restore)
	}
	best := m0
	ps := int64(m0.pageSize)
	if !m0.valid {
		ps = int64(os.Getpagesize()) // where bbolt then looks for the second meta
	}
	if ps >= 512 && ps <= 1<<16 {
		b := make([]byte, boltPageHeader+boltMetaSize)
		if _, err := f.ReadAt(b, ps); err == nil {
			if m1 := readMeta(b); m1.valid && int64(m1.pageSize) == ps && (!m0.valid || m1.txid > m0.txid) {
				best = m1
			}
		}
	}
	if !best.valid {
		return fmt.Errorf("%s is damaged (its first meta page fails its checksum): %s", path, restore)
	}
	ps = int64(best.pageSize)
	if ps < 512 || ps > 1<<16 {
		return fmt.Errorf("%s is damaged (page size %d): %s", path, ps, restore)
	}
	if need := int64(best.highWater) * ps; size < need || size < 2*ps {
		return fmt.Errorf("%s is truncated (%d bytes; its last commit needs %d): %s", path, size, max(need, 2*ps), restore)
	}
	return nil
}
