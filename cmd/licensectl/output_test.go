package main

import (
	"bytes"
	"licensectl/server/api"
	"strings"
	"testing"
	"time"
)

func TestTableText(t *testing.T) {
	t.Parallel()
	long := "A Name Far Longer Than Any Column Should Be"
	for _, tt := range []struct {
		name string
		fit  bool
		want string
	}{
		{"OK/piped keeps everything", false, "0193a5c2-slug-that-is-long  " + long + "\n"},
		{"OK/terminal cuts free text only", true, "0193a5c2-slug-that-is-long  A Name Far Longer T…\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			tab := newTable(&b)
			tab.fit = tt.fit
			tab.row("0193a5c2-slug-that-is-long", tab.text(long, 20))
			if err := tab.flush(); err != nil {
				t.Fatal(err)
			}
			if b.String() != tt.want {
				t.Fatalf("got %q, want %q", b.String(), tt.want)
			}
		})
	}
}

func TestWriteCSV(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	exp := at.Add(time.Hour)
	page := api.Page[api.LicenseItem]{Data: []api.LicenseItem{
		{ID: "l1", Key: "K1", Status: "active", Plan: api.PlanRef{ID: "p1", Name: "Pro, \"2026\""}, User: &api.UserRef{ID: "u1", Email: "bob@example.com"},
			ExpiresAt: &exp, CreatedAt: at, UpdatedAt: at},
		{ID: "l2", Key: "K2", Status: "inactive", Plan: api.PlanRef{ID: "p1"}, CreatedAt: at, UpdatedAt: at},
	}}
	var b bytes.Buffer
	if err := writeCSV(&b, page); err != nil {
		t.Fatal(err)
	}
	want := "id,key,status,plan_id,plan_name,user_id,user_email,devices_count,activated_at,expires_at,created_at,updated_at\n" +
		"l1,K1,active,p1,\"Pro, \"\"2026\"\"\",u1,bob@example.com,0,,2026-11-24T11:00:00Z,2026-11-24T10:00:00Z,2026-11-24T10:00:00Z\n" +
		"l2,K2,inactive,p1,,,,0,,,2026-11-24T10:00:00Z,2026-11-24T10:00:00Z\n"
	if got := b.String(); got != want {
		t.Fatalf("csv:\n%s\nwant:\n%s", got, want)
	}
	if err := writeCSV(&b, struct{ X int }{}); err == nil || !strings.Contains(err.Error(), "not a list") {
		t.Fatalf("writeCSV(non-list) = %v", err)
	}
}

func TestCSVCells(t *testing.T) {
	t.Parallel()
	got := csvCells([]string{"=SUM(A1)", "+1", "-1", "@x", "\tx", "\rx", "a=b", "", "'", "\x1b[2J"})
	want := []string{"'=SUM(A1)", "'+1", "'-1", "'@x", `'\x09x`, `'\x0dx`, "a=b", "", "'", `\x1b[2J`}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("csvCells:\n got %q\nwant %q", got, want)
	}
}
