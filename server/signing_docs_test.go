package server_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// signedAnswerBlock is the first fenced block of lang in docs/runtime.md's
// section on signed answers.
func signedAnswerBlock(t *testing.T, lang string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "docs", "runtime.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(raw), "\n## Signed answers")
	if !ok {
		t.Fatal("docs/runtime.md has no section on signed answers")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatalf("docs/runtime.md's signed answers have no %s block", lang)
	}
	return m[1]
}

// forger is a local proxy in front of the server, the attack signed answers
// defeat: it answers {"valid":true} unsigned, or passes the server's answer
// with a changed body, or replays the first signed answer it saw.
type forger struct {
	upstream string
	mode     string
	mu       sync.Mutex
	kept     *http.Response
	keptBody []byte
}

func (p *forger) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	mode := p.mode
	p.mu.Unlock()
	if mode == "unsigned" {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"valid":true,"entitlements":["everything"]}`)
		return
	}
	body, _ := io.ReadAll(r.Body)
	req, _ := http.NewRequest(r.Method, p.upstream+r.URL.RequestURI(), bytes.NewReader(body))
	req.Header = r.Header.Clone()
	// A transparent proxy: the server signs for the host the client named.
	req.Host = r.Host
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer res.Body.Close()
	answer, _ := io.ReadAll(res.Body)
	p.mu.Lock()
	if mode == "replay" {
		if p.kept == nil {
			p.kept, p.keptBody = res, answer
		}
		res, answer = p.kept, p.keptBody
	}
	p.mu.Unlock()
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	if mode == "change" {
		answer = bytes.Replace(answer, []byte(`"valid":false`), []byte(`"valid":true `), 1)
	}
	w.WriteHeader(res.StatusCode)
	_, _ = w.Write(answer)
}

func (p *forger) set(mode string) {
	p.mu.Lock()
	p.mode = mode
	p.mu.Unlock()
}

// TestRuntimeDocsSignatureVerifiers runs the Python and JavaScript programs
// of docs/runtime.md, as written there, against a real server: its signed
// answers (valid, invalid, a 401) are genuine; an unsigned forgery, a
// changed body, a replayed answer, a key that is not pinned and the
// unsigned 401 of an unknown public key are refused.
// Without python3-cryptography or nodejs locally that language is skipped;
// on CI (CI=true) it fails, as .ci/run installs both.
func TestRuntimeDocsSignatureVerifiers(t *testing.T) {
	f := newRT(t)
	key := f.license(t, planOpts{ents: []string{"pro"}})
	a := f.activate(t, key, "docs-signed")
	dir := t.TempDir()
	write := func(name string, content []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, content, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	jwks := func(query string) []byte {
		return f.s.Do(t, "GET", "/v1/runtime/applications/"+f.appID+"/jwks.json"+query, nil).Want(t, http.StatusOK).Body
	}
	prod, dev := write("prod.jwks", jwks("")), write("dev.jwks", jwks("?environment=development"))
	proxy := &forger{upstream: f.s.URL}
	forged := httptest.NewServer(proxy)
	t.Cleanup(forged.Close)

	cases := []struct {
		name, url, pub, jwks, token, mode string
		ok                                bool
		want                              string // in the output
	}{
		{"valid", f.s.URL, f.pub, prod, a.AccessToken, "", true, `"valid":true`},
		{"invalid token", f.s.URL, f.pub, prod, "not-a-token", "", true, `"valid":false`},
		{"through a proxy that changes nothing", forged.URL, f.pub, prod, a.AccessToken, "pass", true, `"valid":true`},
		{"unknown public key", f.s.URL, "app_pub_live_unknown", prod, a.AccessToken, "", false, "Content-Digest"},
		{"unsigned forgery", forged.URL, f.pub, prod, a.AccessToken, "unsigned", false, "Content-Digest"},
		{"changed body", forged.URL, f.pub, prod, "not-a-token", "change", false, "Content-Digest"},
		{"replayed answer", forged.URL, f.pub, prod, a.AccessToken, "replay", false, "not an answer to this request"},
		{"key not pinned", f.s.URL, f.pub, dev, a.AccessToken, "", false, "not pinned"},
	}
	for _, v := range verifiers {
		t.Run(v.lang, func(t *testing.T) {
			if err := exec.Command(v.probe[0], v.probe[1:]...).Run(); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("%s missing on CI: .ci/run must install Debian's %s", v.lang, v.debian)
				}
				t.Skipf("SKIP: %s verification of docs/runtime.md: install Debian's %s", v.lang, v.debian)
			}
			script := write("answer-"+v.file, []byte(signedAnswerBlock(t, v.lang)))
			run := func(url, pub, jwks, token string) (string, error) {
				args := append(append(append([]string{}, v.cmd[1:]...), script), url, pub, jwks, token)
				out, err := exec.Command(v.cmd[0], args...).CombinedOutput()
				return string(out), err
			}
			for _, c := range cases {
				proxy.set(c.mode)
				if c.mode == "replay" {
					// The proxy keeps the first signed answer it passes
					// and serves it to the next request.
					proxy.mu.Lock()
					proxy.kept = nil
					proxy.mu.Unlock()
					if out, err := run(forged.URL, c.pub, c.jwks, c.token); err != nil {
						t.Fatalf("the answer the proxy keeps did not verify: %v\n%s", err, out)
					}
				}
				out, err := run(c.url, c.pub, c.jwks, c.token)
				switch {
				case c.ok && err != nil:
					t.Errorf("%s: refused a genuine answer: %v\n%s", c.name, err, out)
				case !c.ok && err == nil:
					t.Errorf("%s: accepted: %s", c.name, out)
				case c.ok && !strings.HasPrefix(out, "genuine "):
					t.Errorf("%s: output %q", c.name, out)
				case !c.ok && !strings.HasPrefix(out, "refused: "):
					t.Errorf("%s: output %q, want a refusal", c.name, out)
				case !strings.Contains(out, c.want):
					t.Errorf("%s: output %q, want %q in it", c.name, out, c.want)
				}
			}
		})
	}
}
