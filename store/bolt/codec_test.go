package bolt

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"licensectl/store"
	"licensectl/store/storedoc"
)

// fill sets every field of the value v points at to a non-zero value, so
// that a field the codec forgets cannot round-trip unnoticed. n varies the
// values between calls.
func fill(v reflect.Value, n int) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Unix(1_790_000_000+int64(n), int64(n)*1001).UTC()))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n+i)
			}
		}
	case reflect.String:
		v.SetString(fmt.Sprintf("s%d", n))
		if n%2 == 0 {
			v.SetString(store.NewID())
		}
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(n + 1))
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte(fmt.Sprintf(`{"n":%d}`, n)))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		fill(s.Index(0), n+1)
		fill(s.Index(1), n+2)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		if v.Type().Elem().Kind() == reflect.Interface {
			m.SetMapIndex(reflect.ValueOf("id"), reflect.ValueOf(store.NewID()))
			m.SetMapIndex(reflect.ValueOf("name"), reflect.ValueOf("x"))
			m.SetMapIndex(reflect.ValueOf("count"), reflect.ValueOf(float64(n)))
			m.SetMapIndex(reflect.ValueOf("list"), reflect.ValueOf([]any{"a", true}))
		} else {
			k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
			fill(k, n)
			fill(e, n+1)
			m.SetMapIndex(k, e)
		}
		v.Set(m)
	default:
		panic("fill: no case for " + v.Type().String())
	}
}

// records are a value of every type encodeRecord has a codec for, and what
// of it is deliberately not stored.
var codecRecords = []struct {
	v    any
	keep func(v any) // clears what is not stored
}{
	{v: new(store.Organization)},
	{v: new(store.Member)},
	{v: new(store.DashboardSession)},
	{v: new(mailToken)},
	{v: new(store.Application)},
	{v: new(store.APIKey)},
	{v: new(store.AppSecret)},
	{v: new(store.Entitlement)},
	{v: new(store.Plan), keep: func(v any) { v.(*store.Plan).Entitlements = nil }},
	{v: new(store.License)},
	{v: new(licenseV5)},
	{v: new(store.EndUser)},
	{v: new(store.Device)},
	{v: new(sessionRecord)},
	{v: new(store.AuditEntry), keep: func(v any) { a := v.(*store.AuditEntry); a.Actor.IP, a.Actor.UserAgent = "", "" }},
}

// TestRecordCodecRoundTrip fills every field of every stored type and reads
// it back: a field added to a domain type without a line in its codec
// fails here, before it can be lost on disk.
func TestRecordCodecRoundTrip(t *testing.T) {
	for _, c := range codecRecords {
		typ := reflect.TypeOf(c.v).Elem()
		t.Run(typ.Name(), func(t *testing.T) {
			for n := range 4 {
				in := reflect.New(typ)
				if n > 0 { // n = 0 is the zero value: nil stays nil
					fill(in.Elem(), n*100)
				}
				k := idb(store.NewID())
				if f := in.Elem().FieldByName("ID"); f.IsValid() {
					f.SetString(ids(k))
				}
				if c.keep != nil {
					c.keep(in.Interface())
				}
				raw, err := encodeRecord(in.Interface())
				if err != nil {
					t.Fatal(err)
				}
				out := reflect.New(typ)
				if err := decodeRecord(k, raw, out.Interface()); err != nil {
					t.Fatalf("decode: %v", err)
				}
				if !reflect.DeepEqual(in.Interface(), out.Interface()) {
					t.Fatalf("round trip changed the record:\n in %+v\nout %+v", in.Elem(), out.Elem())
				}
				again, _ := encodeRecord(out.Interface())
				if string(again) != string(raw) {
					t.Fatal("encoding is not deterministic")
				}
				// A record cut short is refused or reads as an older record,
				// never garbage past its end.
				if len(raw) > 1 {
					_ = decodeRecord(k, raw[:len(raw)/2], reflect.New(typ).Interface())
				}
				if err := decodeRecord(k, append(raw, 0), reflect.New(typ).Interface()); err == nil {
					t.Fatal("trailing bytes accepted")
				}
			}
		})
	}
}

func TestRecordCodecTimesKeepZone(t *testing.T) {
	for _, ts := range []time.Time{
		{},
		time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 24, 12, 0, 0, 123456000, time.UTC),
		time.Date(2026, 11, 24, 12, 0, 0, 123456789, time.UTC),
		time.Date(1969, 7, 20, 20, 17, 40, 1, time.FixedZone("", -3*3600)),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.FixedZone("", 5*3600+1800)),
	} {
		w := &wbuf{}
		w.time(ts)
		r := &rbuf{b: w.b}
		got := r.time()
		if err := r.done(); err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(ts)
		b, _ := json.Marshal(got)
		if !got.Equal(ts) || string(a) != string(b) {
			t.Errorf("%s read back as %s", a, b)
		}
	}
}

func TestRecordCodecRefusesUntaggedRecords(t *testing.T) {
	type untagged struct {
		Name string
	}
	type tagged struct {
		Name string `json:"n"`
	}
	for _, c := range []struct {
		name string
		v    any
		ok   bool
	}{
		{"OK", &tagged{Name: "x"}, true},
		{"OKSharedDocument", &storedoc.PartnerIdentity{MemberID: "m"}, true},
		{"ErrUntagged", &untagged{Name: "x"}, false},
		{"ErrDomainType", &store.Environment{}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw, err := encodeRecord(c.v)
			if (err == nil) != c.ok {
				t.Fatalf("encode = %s, %v", raw, err)
			}
			if err := decodeRecord(nil, []byte(`{}`), c.v); (err == nil) != c.ok {
				t.Fatalf("decode = %v", err)
			}
		})
	}
}

func TestSymbolsUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range symbols {
		if seen[s] {
			t.Fatalf("symbol %q twice", s)
		}
		seen[s] = true
	}
}

// BenchmarkDecodeLicense compares reading a license in version 1's JSON and
// in the compact format; the runtime decodes licenses on cache misses.
func BenchmarkDecodeLicense(b *testing.B) {
	l := new(store.License)
	fill(reflect.ValueOf(l).Elem(), 7)
	k := idb(l.ID)
	if k == nil {
		l.ID = store.NewID()
		k = idb(l.ID)
	}
	v1, _ := json.Marshal(l)
	v2, err := encodeRecord(l)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("v1-json", func(b *testing.B) {
		for b.Loop() {
			if err := decodeV1(v1, new(store.License)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("v2-compact", func(b *testing.B) {
		for b.Loop() {
			if err := decodeRecord(k, v2, new(store.License)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestRecordCodecReadsRecordsBeforeAppends: a device record written before
// components were appended, and a plan record written before rebind, read
// as none and as the default, with no migration.
func TestRecordCodecReadsRecordsBeforeAppends(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		name    string
		v       any
		trailer int // bytes the appended fields take when empty
		check   func(t *testing.T, k []byte, old []byte)
	}{
		{"device", &store.Device{AppID: store.NewID(), EnvID: store.NewID(), Fingerprint: "fp", Status: store.DeviceActive, LicenseIDs: []string{}, CreatedAt: now}, 2,
			func(t *testing.T, k, old []byte) {
				d := new(store.Device)
				if err := decodeRecord(k, old, d); err != nil || d.Components != nil || d.Fingerprint != "fp" {
					t.Fatalf("old device = %+v, %v", d, err)
				}
			}},
		{"plan", &store.Plan{AppID: store.NewID(), Name: "Pro", MaxDevices: 2, LeaseSeconds: 900, MaxOfflineDays: 30, EntitlementIDs: []string{}, CreatedAt: now, UpdatedAt: now}, 1,
			func(t *testing.T, k, old []byte) {
				p := new(store.Plan)
				if err := decodeRecord(k, old, p); err != nil || p.Rebind != "" || p.RebindMode() != store.RebindMost || p.Name != "Pro" {
					t.Fatalf("old plan = %+v, %v", p, err)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := encodeRecord(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if tail := raw[len(raw)-tc.trailer:]; string(tail) != string(make([]byte, tc.trailer)) {
				t.Fatalf("the empty appended fields are %x, want %d zero bytes", tail, tc.trailer)
			}
			tc.check(t, idb(store.NewID()), raw[:len(raw)-tc.trailer])
		})
	}
}
