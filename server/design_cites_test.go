package server_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The code cites the design by section so a reader can find why it does
// what it does; a citation is only useful if the cited file is in the
// repository and has that section.
var (
	// designCite is a citation with its list of sections: "docs/design.md
	// §5", "docs/tui.md §10, §12", "docs/design.md §2 and §11". A comment
	// may wrap between the file and the section, hence \s+.
	designCite   = regexp.MustCompile(`docs/(design|tui)\.md\s+(§[0-9.]*[0-9](?:(?:,\s*|\s+and\s+|\s+or\s+)§[0-9.]*[0-9])*)`)
	citedSection = regexp.MustCompile(`§([0-9.]*[0-9])`)
	// bareCite is a citation of the design as it was cited while it was
	// kept outside the repository: the file name without docs/, or the
	// word design followed by a section.
	bareCite = regexp.MustCompile(`(?:^|[^/\w.])(?:design|tui)\.md|(?:^|[^/\w.])(?:design|tui)\s+§`)
	// sectionHeading is "## 5. Runtime sessions" or "### 3.4 Importing …".
	sectionHeading = regexp.MustCompile(`(?m)^#{2,3} ([0-9]+(?:\.[0-9]+)?)\.?\s`)
)

// designSections reads the section numbers of docs/design.md and docs/tui.md,
// keyed by "design" and "tui".
func designSections(t *testing.T) map[string]map[string]bool {
	t.Helper()
	out := map[string]map[string]bool{}
	for _, name := range []string{"design", "tui"} {
		raw, err := os.ReadFile(filepath.Join("..", "docs", name+".md"))
		if err != nil {
			t.Fatal(err)
		}
		secs := map[string]bool{}
		for _, m := range sectionHeading.FindAllStringSubmatch(string(raw), -1) {
			secs[m[1]] = true
		}
		if len(secs) == 0 {
			t.Fatalf("docs/%s.md has no numbered section headings", name)
		}
		out[name] = secs
	}
	return out
}

// citeProblems lists what is wrong with the design citations in text.
func citeProblems(text string, sections map[string]map[string]bool) []string {
	var probs []string
	for _, m := range bareCite.FindAllString(text, -1) {
		probs = append(probs, "cites "+strings.TrimLeft(m, " \t\n([\"'")+" without docs/")
	}
	for _, m := range designCite.FindAllStringSubmatch(text, -1) {
		for _, s := range citedSection.FindAllStringSubmatch(m[2], -1) {
			if !sections[m[1]][s[1]] {
				probs = append(probs, "cites docs/"+m[1]+".md §"+s[1]+", which it has no heading for")
			}
		}
	}
	return probs
}

// TestDesignCitations holds every Go comment's citation of the design to
// the files in docs/ and the sections they have.
func TestDesignCitations(t *testing.T) {
	t.Parallel()
	sections := designSections(t)
	for _, must := range []string{"1", "14"} {
		if !sections["design"][must] {
			t.Fatalf("docs/design.md has no section %s", must)
		}
	}
	if !sections["tui"]["3.4"] {
		t.Fatal("docs/tui.md has no section 3.4")
	}

	t.Run("Checker", func(t *testing.T) {
		for text, want := range map[string]int{
			"the order of docs/design.md §5 and docs/tui.md §3.4": 0,
			"(docs/design.md\n§13) and docs/tui.md §10, §12":      0,
			"docs/design.md §2 and §11; OIDC Core §5.4":           0,
			"as design.md §5 says":                                1,
			"(design §7)":                                         1,
			"(tui.md\n§15.4)":                                     1,
			"docs/design.md §18":                                  1,
			"docs/tui.md §14.5":                                   1,
			"docs/design.md §6, §99":                              1,
		} {
			if got := citeProblems(text, sections); len(got) != want {
				t.Errorf("%q: got %q, want %d problems", text, got, want)
			}
		}
	})

	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != ".." && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		for _, cg := range f.Comments {
			for _, p := range citeProblems(commentText(cg), sections) {
				t.Errorf("%s: %s", fset.Position(cg.Pos()), p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d Go files, want the whole repository", files)
	}
}

// commentText is a comment group's text with the markers removed and its
// lines kept apart, directives included (ast.CommentGroup.Text drops them).
func commentText(cg *ast.CommentGroup) string {
	lines := make([]string, len(cg.List))
	for i, c := range cg.List {
		lines[i] = strings.TrimPrefix(strings.TrimPrefix(strings.TrimSuffix(c.Text, "*/"), "//"), "/*")
	}
	return strings.Join(lines, "\n")
}
