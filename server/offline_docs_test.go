package server_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"licensectl.dev/sdk/go/machinefile"
)

// tamper changes one character of a certificate's enc, keeping the armour
// and the envelope well formed, so only the signature can tell.
func tamper(t *testing.T, cert string) string {
	t.Helper()
	body := strings.TrimSpace(cert)
	body = strings.TrimSuffix(strings.TrimPrefix(body, machinefile.Begin), machinefile.End)
	raw, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(body), ""))
	if err != nil {
		t.Fatal(err)
	}
	var env machinefile.Envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	flip := "A"
	if env.Enc[0] == 'A' {
		flip = "B"
	}
	env.Enc = flip + env.Enc[1:]
	out, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	return armoured(out)
}

// armoured is the canonical armour of an envelope's bytes: base64 wrapped at
// 76 columns between the armour lines.
func armoured(body []byte) string {
	b64 := base64.StdEncoding.EncodeToString(body)
	var out strings.Builder
	out.WriteString(machinefile.Begin + "\n")
	for len(b64) > 76 {
		out.WriteString(b64[:76] + "\n")
		b64 = b64[76:]
	}
	out.WriteString(b64 + "\n" + machinefile.End + "\n")
	return out.String()
}

// envelopeOf reads the envelope of a canonical certificate.
func envelopeOf(t *testing.T, cert string) machinefile.Envelope {
	t.Helper()
	body := strings.TrimSuffix(strings.TrimPrefix(cert, machinefile.Begin+"\n"), machinefile.End+"\n")
	raw, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(body, "\n", ""))
	if err != nil {
		t.Fatal(err)
	}
	var env machinefile.Envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	return env
}

// respellings are texts of cert's payload other than cert: a duplicate key
// in another letter case, the signature's base64 with its padding bits
// set, and CRLF line ends. A strict verifier refuses each.
func respellings(t *testing.T, cert string) map[string]string {
	t.Helper()
	e := envelopeOf(t, cert)
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	sig := strings.TrimRight(e.Sig, "=")
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	last := strings.IndexByte(alphabet, sig[len(sig)-1])
	loose := sig[:len(sig)-1] + string(alphabet[last|1]) + e.Sig[len(sig):]
	return map[string]string{
		"duplicate key": armoured([]byte(`{"ALG":` + q(e.Alg) + `,"alg":` + q(e.Alg) + `,"kid":` + q(e.Kid) + `,"enc":` + q(e.Enc) + `,"sig":` + q(e.Sig) + `}`)),
		"padding bits":  armoured([]byte(`{"alg":` + q(e.Alg) + `,"kid":` + q(e.Kid) + `,"enc":` + q(e.Enc) + `,"sig":` + q(loose) + `}`)),
		"crlf":          strings.ReplaceAll(cert, "\n", "\r\n"),
	}
}

// respelled is the same envelope in another text: the base64 on one line.
// A strict verifier refuses it, so that one payload has one file.
func respelled(t *testing.T, cert string) string {
	t.Helper()
	body := strings.TrimSuffix(strings.TrimPrefix(cert, machinefile.Begin+"\n"), machinefile.End+"\n")
	return machinefile.Begin + "\n" + strings.ReplaceAll(body, "\n", "") + "\n" + machinefile.End + "\n"
}

// verifier is one of docs/offline.md's verification programs and how to
// run it.
type verifier struct {
	lang, file string
	cmd        []string // the interpreter and what it needs, before the script
	probe      []string // a command that fails when the runtime is missing
	debian     string   // the Debian package that provides it
}

var verifiers = []verifier{
	{lang: "python", file: "verify.py", cmd: []string{"python3"}, probe: []string{"python3", "-c", "import cryptography"}, debian: "python3-cryptography"},
	{lang: "javascript", file: "verify.js", cmd: []string{"node"}, probe: []string{"node", "-e", "require('node:crypto').createPublicKey"}, debian: "nodejs"},
}

// docBlock is the first fenced code block of lang in docs/offline.md.
func docBlock(t *testing.T, lang string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "docs", "offline.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```" + lang + "\n(.*?)```").FindSubmatch(raw)
	if m == nil {
		t.Fatalf("docs/offline.md has no %s block", lang)
	}
	return string(m[1])
}

// TestOfflineDocsVerifiers runs the Python and JavaScript verification code
// of docs/offline.md, as written there, against machine files a real server
// issued: a good one passes; a tampered, foreign-key, expired or
// other-device one is refused. Without python3-cryptography or nodejs
// locally that language is skipped with a SKIP line; on CI (CI=true) it
// fails, as .ci/run installs both.
func TestOfflineDocsVerifiers(t *testing.T) {
	t.Parallel()
	f := newRT(t)
	key := f.license(t, planOpts{maxDevices: 3, plan: map[string]any{"max_offline_days": 30}})
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	issue := func(fp string) string {
		s := f.activate(t, key, fp)
		ts, n := f.replay()
		var out struct {
			Certificate string `json:"certificate"`
		}
		f.do(t, "POST", "/licenses/checkout", map[string]any{"timestamp": ts, "nonce": n, "license_key": key, "ttl": 3600},
			"Authorization", "Bearer "+s.AccessToken).Want(t, http.StatusOK).JSON(t, &out)
		return out.Certificate
	}
	jwks := func(query string) string {
		raw, err := json.Marshal(f.jwks(t, query))
		if err != nil {
			t.Fatal(err)
		}
		return string(raw)
	}
	good := issue("docs-device")
	// A file issued a day ago by the server's clock is past its hour now.
	f.s.Clock().Set(time.Now().Add(-24 * time.Hour))
	expired := issue("docs-device-old")
	// One issued by a clock a day ahead: the verifier's clock reads as if
	// set back past its issue.
	f.s.Clock().Set(time.Now().Add(24 * time.Hour))
	future := issue("docs-device-future")
	f.s.Clock().Set(time.Now())
	tampered := tamper(t, good)

	prod, dev := write("prod.jwks", jwks("")), write("dev.jwks", jwks("?environment=development"))
	cases := []struct {
		name, cert, jwks, fp string
		ok                   bool
		why                  string
	}{
		{"good", write("good.mf", good), prod, "docs-device", true, ""},
		{"tampered", write("tampered.mf", tampered), prod, "docs-device", false, "bad signature"},
		{"foreign key", write("good2.mf", good), dev, "docs-device", false, "not pinned"},
		{"expired", write("expired.mf", expired), prod, "docs-device-old", false, "expired"},
		{"other device", write("good3.mf", good), prod, "another-device", false, "another device"},
		{"issued in the future", write("future.mf", future), prod, "docs-device-future", false, "issued after"},
		{"respelled", write("respelled.mf", respelled(t, good)), prod, "docs-device", false, "not a machine file"},
	}
	for name, text := range respellings(t, good) {
		cases = append(cases, struct {
			name, cert, jwks, fp string
			ok                   bool
			why                  string
		}{name, write(strings.ReplaceAll(name, " ", "-")+".mf", text), prod, "docs-device", false, "not a machine file"})
	}
	for _, v := range verifiers {
		t.Run(v.lang, func(t *testing.T) {
			if err := exec.Command(v.probe[0], v.probe[1:]...).Run(); err != nil {
				if os.Getenv("CI") == "true" {
					t.Fatalf("%s missing on CI: .ci/run must install Debian's %s", v.lang, v.debian)
				}
				t.Logf("SKIP: %s verification of docs/offline.md: install Debian's %s to run it", v.lang, v.debian)
				t.Skipf("SKIP: install Debian's %s", v.debian)
			}
			script := write(v.file, docBlock(t, v.lang))
			// The key as a user types it: the verifiers read it the way
			// the server does.
			typed := strings.ToLower(strings.ReplaceAll(key, "-", ""))
			for _, c := range cases {
				args := append(append(append([]string{}, v.cmd[1:]...), script), c.cert, c.jwks, typed, c.fp)
				out, err := exec.Command(v.cmd[0], args...).CombinedOutput()
				switch {
				case c.ok && err != nil:
					t.Errorf("%s: refused a good file: %v\n%s", c.name, err, out)
				case c.ok && !strings.Contains(string(out), `"fingerprint":"docs-device"`) && !strings.Contains(string(out), `"fingerprint": "docs-device"`):
					t.Errorf("%s: payload = %s", c.name, out)
				case !c.ok && err == nil:
					t.Errorf("%s: accepted: %s", c.name, out)
				case !c.ok && !strings.Contains(string(out), "refused") || !c.ok && !strings.Contains(string(out), c.why):
					t.Errorf("%s: output %q, want a refusal naming %q", c.name, out, c.why)
				}
			}
		})
	}
}
