package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"licensectl/store"
)

func fakeHarness(t *testing.T, f *fakeData, w, h int, o Options) *harness {
	o.OrgID, o.AppID, o.Where = f.org.ID, f.app.ID, "/srv/licensectl/licensectl.db"
	return newHarness(t, f, o, w, h)
}

func TestGoldenViews(t *testing.T) {
	screens := []struct {
		name string
		keys []string
	}{
		{"overview", nil},
		{"licenses", []string{"2", "j"}},
		{"license", []string{"2", "enter"}},
		{"help", []string{"2", "?"}},
		{"palette", []string{":", "l"}},
		{"confirm", []string{"2", "s"}},
		{"confirm_typed", []string{"2", "X"}},
		{"generate", []string{"2", "n"}},
	}
	for _, size := range [][2]int{{80, 24}, {100, 30}, {60, 16}} {
		for _, sc := range screens {
			name := fmt.Sprintf("%s_%dx%d", sc.name, size[0], size[1])
			t.Run(name, func(t *testing.T) {
				h := fakeHarness(t, newFake(), size[0], size[1], Options{})
				h.press(sc.keys...)
				golden(t, name, h.view())
			})
		}
	}
	t.Run("too_small_50x12", func(t *testing.T) {
		h := fakeHarness(t, newFake(), 50, 12, Options{})
		golden(t, "too_small_50x12", h.view())
	})
	t.Run("licenses_preview_140x30", func(t *testing.T) {
		h := fakeHarness(t, newFake(), 140, 30, Options{})
		h.press("2", "j", "j")
		golden(t, "licenses_preview_140x30", h.view())
	})
	t.Run("remote_ascii_100x30", func(t *testing.T) {
		h := fakeHarness(t, newFake(), 100, 30, Options{Remote: true, Credential: "pO2v", ASCII: true, ReadOnly: true})
		h.m.c.where = "http://127.0.0.1:8080"
		h.press("2")
		golden(t, "remote_ascii_100x30", h.view())
	})
}

// Update must never wait for the store: with ListLicenses blocked, keys
// are still handled and the status line says loading.
func TestUpdateNeverBlocks(t *testing.T) {
	f := newFake()
	h := fakeHarness(t, f, 100, 30, Options{})
	f.block = make(chan struct{})
	defer close(f.block)
	done := make(chan string)
	go func() {
		// The commands are not run: a blocked store call lives in them.
		var cmds []tea.Cmd
		for _, k := range strings.Split("2jjkk]][[Gg?", "") {
			_, cmd := h.m.Update(keyMsg(k))
			cmds = append(cmds, cmd)
			_, _ = h.m.Update(keyMsg("esc"))
		}
		for range 38 {
			_, cmd := h.m.Update(keyMsg("j"))
			cmds = append(cmds, cmd)
		}
		go func() {
			for _, c := range cmds {
				if c != nil {
					go c()
				}
			}
		}()
		done <- h.m.View()
	}()
	select {
	case v := <-done:
		if !strings.Contains(v, "loading…") {
			t.Fatalf("status line does not say loading:\n%s", v)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Update blocked on the store")
	}
}

func TestGenerateFormErrors(t *testing.T) {
	t.Run("ErrForm", func(t *testing.T) {
		h := fakeHarness(t, newFake(), 100, 30, Options{})
		h.press("2", "n", "tab", "backspace", "0", "tab", "soon", "enter")
		h.contains("✗ a number from 1 to 1000")
		h.contains("✗ not a duration like 30d")
	})
	t.Run("ErrValidationFailed", func(t *testing.T) {
		f := newFake()
		f.genErr = store.Invalid("expires_at", "expires_at must be in the future")
		h := fakeHarness(t, f, 100, 30, Options{})
		h.press("2", "n", "tab", "tab", "2020-01-01", "enter")
		if f, ok := h.m.over.(*form); !ok || !strings.HasPrefix(f.title, "Generate licenses") {
			t.Fatal("the form did not come back with the server's error")
		}
		v := h.view()
		i, j := strings.Index(v, "Expires"), strings.Index(v, "✗ expires_at must be in the future")
		if i < 0 || j < i {
			t.Fatalf("the error is not under its field:\n%s", v)
		}
	})
	t.Run("OK", func(t *testing.T) {
		h := fakeHarness(t, newFake(), 100, 30, Options{})
		h.press("2", "n", "tab", "backspace", "3", "enter")
		h.contains("Generated 3 Pro licenses")
		h.contains("Y copy all keys")
		// w writes the keys to a new file, and never over an existing one.
		dir := t.TempDir()
		t.Chdir(dir)
		h.press("w")
		h.contains("path: ./licenses-pro-20261124.txt")
		h.press("enter")
		h.contains("✓ Wrote 3 keys to ./licenses-pro-20261124.txt")
		got, err := os.ReadFile(filepath.Join(dir, "licenses-pro-20261124.txt"))
		if err != nil || strings.Count(string(got), "\n") != 3 {
			t.Fatalf("written file = %q, %v", got, err)
		}
		h.press("w", "enter")
		h.contains("exists; choose another name")
	})
}

func TestSecretShownOnce(t *testing.T) {
	f := newFake()
	h := fakeHarness(t, f, 100, 30, Options{})
	h.press("0", "n", "ci", "enter")
	h.contains(f.secret)
	so := h.m.over.(*secretOnce)
	h.press("esc")
	h.contains("Close without copying? y/N")
	h.press("n", "enter")
	if h.m.over != nil || so.secret != "" {
		t.Fatal("the plaintext outlived its modal")
	}
	if strings.Contains(h.view(), f.secret) {
		t.Fatal("the plaintext is still on screen")
	}
}

// TestSecretCopyShowsNoPlaintext (docs/tui.md §8.3 and §14, item 8): copying a
// secret in its modal echoes what was copied and its length, never any of
// its characters, for every secret shown once: an application secret, an
// API key and a webhook's signing secret.
func TestSecretCopyShowsNoPlaintext(t *testing.T) {
	t.Setenv("DISPLAY", "") // OSC 52 only: no desktop tool is run
	t.Setenv("WAYLAND_DISPLAY", "")
	s := seed(t, 0)
	data := &registering{DB: s.db}
	for _, tc := range []struct {
		name, tab string
		keys      []string
		want      string
	}{
		{"app secret", "0", []string{"n", "ci", "enter"}, "✓ Copied the application secret ("},
		{"webhook", "7", []string{"n", "https://hooks.example.com/in", "ctrl+s"}, "✓ Copied the signing secret ("},
		{"API key", "", []string{"3", "n", "ci", "enter"}, "✓ Copied the API key ("},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var clip strings.Builder
			o := Options{OrgID: s.orgID, Clipboard: &clip}
			if tc.tab != "" {
				o.AppID = s.app.ID
			}
			h := newHarness(t, data, o, 120, 30)
			if tc.tab != "" {
				h.press(tc.tab)
			}
			h.press(tc.keys...)
			so, ok := h.m.over.(*secretOnce)
			if !ok {
				t.Fatalf("no secret-once modal:\n%s", h.view())
			}
			secret := so.secret
			h.press("y")
			h.contains(fmt.Sprintf("%s%d characters)", tc.want, len(secret)))
			h.press("enter")
			v := h.view()
			for i := 0; i+6 <= len(secret); i++ {
				if strings.Contains(v, secret[i:i+6]) {
					t.Fatalf("%q of the plaintext is on screen after the modal closed:\n%s", secret[i:i+6], v)
				}
			}
			if !strings.Contains(clip.String(), "\x1b]52;c;") {
				t.Fatal("nothing was copied")
			}
		})
	}
}

// TestGeneratedRowsMarked (docs/tui.md §8.2): esc from the generated keys
// returns to Licenses on page 1 with the new rows marked, whatever page and
// filter the list showed before.
func TestGeneratedRowsMarked(t *testing.T) {
	s := seed(t, 150)
	h, l := s.licenses(t, s.db, Options{})
	h.press("/", "inactive", "enter", "]")
	if l.page != 2 {
		t.Fatalf("page %d before generating, want 2", l.page)
	}
	h.press("n", "tab", "ctrl+u", "3", "enter")
	h.contains("Generated 3 Pro licenses")
	h.press("esc")
	if _, ok := h.m.top().(*tabs); !ok || l.page != 1 || len(l.q.chips) != 0 {
		t.Fatalf("after esc: top %T, page %d, chips %v; want Licenses on page 1 unfiltered", h.m.top(), l.page, l.q.chips)
	}
	h.contains("3 marked")
	rows := l.rows()
	for i, it := range rows[:4] {
		_, marked := l.marked[l.spec.id(it)]
		if marked != (i < 3) {
			t.Fatalf("row %d marked %v; want the 3 new rows on top marked", i, marked)
		}
	}
}

// TestGenerateExtraEntitlements (docs/tui.md §8.2): the extra entitlements
// are a multi-select of those the chosen plan does not grant; the picked
// ones are sent by id.
func TestGenerateExtraEntitlements(t *testing.T) {
	f := newFake()
	for i, key := range []string{"export.pdf", "beta", "cloud.sync"} {
		f.ents = append(f.ents, &store.Entitlement{ID: fixedID(700 + i), Key: key, Name: key})
	}
	f.plans[0].Entitlements = []store.EntitlementRef{{ID: fixedID(700), Key: "export.pdf"}}
	h := fakeHarness(t, f, 100, 30, Options{})
	h.press("2", "n", "tab", "tab", "tab")
	h.contains("Extra entitlements: none")
	h.contains("▶ [ ] beta")
	if v := h.view(); strings.Contains(v, "] export.pdf") {
		t.Fatalf("an entitlement of the plan is offered:\n%s", v)
	}
	h.press("j", " ")
	h.contains("[x] cloud.sync")
	golden(t, "generate_entitlements_100x30", h.view())
	h.press("enter")
	h.contains("Generated 1 Pro licenses")
	if want := []string{fixedID(702)}; !slices.Equal(f.genIn.EntitlementIDs, want) {
		t.Fatalf("entitlements sent: %v, want %v", f.genIn.EntitlementIDs, want)
	}
}
