package tui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// BenchmarkLicensesView draws a 100-row page of licenses at 200×60 (docs/tui.md
// §9.1 and §15.4: under 2 ms).
func BenchmarkLicensesView(b *testing.B) {
	s := seed(b, 250)
	h, l := s.licenses(b, s.db, Options{})
	h.send(tea.WindowSizeMsg{Width: 200, Height: 60})
	if len(l.rows()) != perPage {
		b.Fatalf("page holds %d rows, want %d", len(l.rows()), perPage)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = h.m.View()
	}
}

// BenchmarkRootUpdateKey is one cursor move through the root's key
// precedence (docs/tui.md §15.4: under 50 µs).
func BenchmarkRootUpdateKey(b *testing.B) {
	s := seed(b, 250)
	h, _ := s.licenses(b, s.db, Options{})
	keys := []tea.KeyMsg{keyMsg("j"), keyMsg("k")}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		h.m.Update(keys[i&1])
		i++
	}
}
