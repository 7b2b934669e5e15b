package bolt

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// The compact record format (schema version 2). A record is its fields in
// the order its codec (codec_records.go) writes them, with no names:
//
//   - an id is one byte 0 for "", 1 then 16 bytes for a canonical UUID, or 2
//     then a string for anything else, so every string round-trips exactly;
//   - a string or byte slice is a uvarint length then the bytes; a nil slice,
//     map or pointer is written as 0 and a present one as 1+length (or 1
//     then the value), so nil and empty stay apart as they did in JSON;
//   - a time is the zig-zag varint of its Unix seconds, the uvarint of its
//     nanoseconds and the zig-zag varint of its zone offset in seconds.
//
// A record's own id is its key and is not repeated in the value. Fields are
// only ever appended: a record that ends before a field decodes it as the
// zero value, so adding a field at the end needs no migration. Anything
// else (a field removed, reordered or changed in type) is a new schema
// version with a migration (migrate.go).

// errTrailing is a record longer than its codec: corruption, or a file of a
// newer binary that the schema version check did not stop.
var errTrailing = errors.New("trailing bytes after the last field")

// wbuf appends fields.
type wbuf struct{ b []byte }

func (w *wbuf) uvarint(v uint64) { w.b = binary.AppendUvarint(w.b, v) }
func (w *wbuf) varint(v int64)   { w.b = binary.AppendVarint(w.b, v) }
func (w *wbuf) int(v int)        { w.varint(int64(v)) }

func (w *wbuf) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

func (w *wbuf) str(s string) {
	w.uvarint(uint64(len(s)))
	w.b = append(w.b, s...)
}

// bytes writes a byte slice keeping nil apart from empty.
func (w *wbuf) bytes(b []byte) {
	if b == nil {
		w.uvarint(0)
		return
	}
	w.uvarint(uint64(len(b)) + 1)
	w.b = append(w.b, b...)
}

func (w *wbuf) id(s string) {
	switch k := idb(s); {
	case s == "":
		w.b = append(w.b, 0)
	case k != nil && ids(k) == s:
		w.b = append(w.b, 1)
		w.b = append(w.b, k...)
	default:
		w.b = append(w.b, 2)
		w.str(s)
	}
}

// ids writes a list of ids keeping nil apart from empty.
func (w *wbuf) ids(list []string) { w.list(list, w.id) }

// strs writes a list of strings keeping nil apart from empty.
func (w *wbuf) strs(list []string) { w.list(list, w.str) }

// list writes a list of strings keeping nil apart from empty.
func (w *wbuf) list(list []string, item func(string)) {
	if list == nil {
		w.uvarint(0)
		return
	}
	w.uvarint(uint64(len(list)) + 1)
	for _, s := range list {
		item(s)
	}
}

// time writes t as its Unix seconds, then one uvarint holding the fraction
// of the second (in microseconds when it is whole ones, as the store's clock
// gives them) with two flags, then the zone offset only when there is one.
func (w *wbuf) time(t time.Time) {
	_, off := t.Zone()
	frac, flags := uint64(t.Nanosecond()), uint64(0)
	if frac%1000 == 0 {
		frac, flags = frac/1000, flags|timeMicro
	}
	if off != 0 {
		flags |= timeZone
	}
	w.varint(t.Unix())
	w.uvarint(frac<<2 | flags)
	if off != 0 {
		w.varint(int64(off))
	}
}

// Flags of a time's fraction.
const (
	timeMicro = 1 << 0
	timeZone  = 1 << 1
)

func (w *wbuf) ptime(t *time.Time) {
	w.bool(t != nil)
	if t != nil {
		w.time(*t)
	}
}

func (w *wbuf) pstr(s *string) {
	w.bool(s != nil)
	if s != nil {
		w.str(*s)
	}
}

func (w *wbuf) pint(v *int) {
	w.bool(v != nil)
	if v != nil {
		w.int(*v)
	}
}

// idTimes writes a map of id → time in key order, so equal maps encode the
// same and an unchanged record is byte-for-byte unchanged.
func (w *wbuf) idTimes(m map[string]time.Time) {
	if m == nil {
		w.uvarint(0)
		return
	}
	w.uvarint(uint64(len(m)) + 1)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.id(k)
		w.time(m[k])
	}
}

// times writes a list of times keeping nil apart from empty.
func (w *wbuf) times(list []time.Time) {
	if list == nil {
		w.uvarint(0)
		return
	}
	w.uvarint(uint64(len(list)) + 1)
	for _, t := range list {
		w.time(t)
	}
}

// Value kinds of a metadata entry.
const (
	metaUUID   = 'u' // a canonical UUID string as 16 bytes
	metaString = 's'
	metaJSON   = 'j' // anything else, as JSON: it reads back as JSON gives it
)

// meta writes audit metadata. Values read back exactly as a JSON round trip
// gives them (numbers as float64), which is what version 1 stored.
func (w *wbuf) meta(m map[string]any) error {
	if m == nil {
		w.uvarint(0)
		return nil
	}
	w.uvarint(uint64(len(m)) + 1)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		w.sym(k)
		if s, ok := m[k].(string); ok {
			if b := idb(s); b != nil && ids(b) == s {
				w.b = append(w.b, metaUUID)
				w.b = append(w.b, b...)
			} else {
				w.b = append(w.b, metaString)
				w.sym(s)
			}
			continue
		}
		raw, err := json.Marshal(m[k])
		if err != nil {
			return fmt.Errorf("metadata %s: %w", k, err)
		}
		w.b = append(w.b, metaJSON)
		w.bytes(raw)
	}
	return nil
}

// rbuf reads fields. The first malformed field sets err and every later read
// gives zero values; past the end every read gives the zero value, as a
// record written before a field was appended holds none.
type rbuf struct {
	b   []byte
	err error
}

func (r *rbuf) fail(what string) {
	if r.err == nil {
		r.err = fmt.Errorf("malformed %s", what)
	}
	r.b = nil
}

func (r *rbuf) uvarint() uint64 {
	if len(r.b) == 0 {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail("uvarint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *rbuf) varint() int64 {
	if len(r.b) == 0 {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail("varint")
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *rbuf) int() int { return int(r.varint()) }

func (r *rbuf) byte1() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *rbuf) bool() bool { return r.byte1() == 1 }

func (r *rbuf) take(n uint64, what string) []byte {
	if n > uint64(len(r.b)) {
		r.fail(what)
		return nil
	}
	out := r.b[:n:n]
	r.b = r.b[n:]
	return out
}

func (r *rbuf) str() string { return string(r.take(r.uvarint(), "string")) }

func (r *rbuf) bytes() []byte {
	n := r.uvarint()
	if n == 0 {
		return nil
	}
	return append([]byte{}, r.take(n-1, "bytes")...)
}

func (r *rbuf) id() string {
	switch r.byte1() {
	case 0:
		return ""
	case 1:
		if b := r.take(16, "id"); b != nil {
			return ids(b)
		}
		return ""
	case 2:
		return r.str()
	}
	r.fail("id")
	return ""
}

func (r *rbuf) ids() []string { return r.list("id list", r.id) }

func (r *rbuf) strs() []string { return r.list("string list", r.str) }

// list reads what wbuf.list wrote.
func (r *rbuf) list(what string, item func() string) []string {
	n := r.uvarint()
	if n == 0 {
		return nil
	}
	if n-1 > uint64(len(r.b)) {
		r.fail(what)
		return nil
	}
	out := make([]string, 0, n-1)
	for range n - 1 {
		out = append(out, item())
	}
	return out
}

func (r *rbuf) time() time.Time {
	sec, sub := r.varint(), r.uvarint()
	nsec, off := sub>>2, int64(0)
	if sub&timeMicro != 0 {
		nsec *= 1000
	}
	if sub&timeZone != 0 {
		off = r.varint()
	}
	if nsec >= 1e9 {
		r.fail("time")
		return time.Time{}
	}
	t := time.Unix(sec, int64(nsec))
	if off == 0 {
		return t.UTC()
	}
	return t.In(time.FixedZone("", int(off)))
}

func (r *rbuf) ptime() *time.Time {
	if !r.bool() {
		return nil
	}
	t := r.time()
	return &t
}

func (r *rbuf) pstr() *string {
	if !r.bool() {
		return nil
	}
	s := r.str()
	return &s
}

func (r *rbuf) pint() *int {
	if !r.bool() {
		return nil
	}
	v := r.int()
	return &v
}

func (r *rbuf) times() []time.Time {
	n := r.uvarint()
	if n == 0 {
		return nil
	}
	if n-1 > uint64(len(r.b)) {
		r.fail("time list")
		return nil
	}
	out := make([]time.Time, 0, n-1)
	for range n - 1 {
		out = append(out, r.time())
	}
	return out
}

func (r *rbuf) idTimes() map[string]time.Time {
	n := r.uvarint()
	if n == 0 {
		return nil
	}
	if n-1 > uint64(len(r.b)) {
		r.fail("time map")
		return nil
	}
	out := make(map[string]time.Time, n-1)
	for range n - 1 {
		k := r.id()
		out[k] = r.time()
	}
	return out
}

func (r *rbuf) meta() map[string]any {
	n := r.uvarint()
	if n == 0 {
		return nil
	}
	if n-1 > uint64(len(r.b)) {
		r.fail("metadata")
		return nil
	}
	out := make(map[string]any, n-1)
	for range n - 1 {
		k := r.sym()
		switch r.byte1() {
		case metaUUID:
			if b := r.take(16, "metadata id"); b != nil {
				out[k] = ids(b)
			}
		case metaString:
			out[k] = r.sym()
		case metaJSON:
			var v any
			if err := json.Unmarshal(r.bytes(), &v); err != nil {
				r.fail("metadata value")
				return nil
			}
			out[k] = v
		default:
			r.fail("metadata kind")
			return nil
		}
	}
	return out
}

// done reports the first error, or trailing bytes.
func (r *rbuf) done() error {
	if r.err != nil {
		return r.err
	}
	if len(r.b) > 0 {
		return errTrailing
	}
	return nil
}

// hash writes a SHA-256 hex digest as its 32 bytes (1 then the bytes), ""
// as 0, and anything else as 2 then the string.
func (w *wbuf) hash(s string) {
	if s == "" {
		w.b = append(w.b, 0)
		return
	}
	if b, err := hex.DecodeString(s); err == nil && len(b) == sha256.Size && hex.EncodeToString(b) == s {
		w.b = append(w.b, 1)
		w.b = append(w.b, b...)
		return
	}
	w.b = append(w.b, 2)
	w.str(s)
}

func (w *wbuf) hashes(list []string) { w.list(list, w.hash) }

func (r *rbuf) hash() string {
	switch r.byte1() {
	case 0:
		return ""
	case 1:
		return hex.EncodeToString(r.take(sha256.Size, "hash"))
	case 2:
		return r.str()
	}
	r.fail("hash")
	return ""
}

func (r *rbuf) hashes() []string { return r.list("hash list", r.hash) }
