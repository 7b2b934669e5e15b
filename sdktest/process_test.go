package sdktest

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"licensectl.dev/sdk/go"
)

// childEnv makes the test binary a client process of the refresh race.
const childEnv = "SDKTEST_CHILD"

// child validates once with the state directory the parent named, its
// clock far enough ahead that the access token needs a refresh, and says
// whether the session stayed valid.
func child() int {
	jwks, err := os.ReadFile(os.Getenv("SDKTEST_JWKS"))
	if err != nil {
		fmt.Println(err)
		return 2
	}
	ahead, _ := time.ParseDuration(os.Getenv("SDKTEST_AHEAD"))
	c, err := licensing.New(licensing.Config{BaseURL: os.Getenv("SDKTEST_URL"), PublicKey: os.Getenv("SDKTEST_PUB"), JWKS: jwks,
		StateDir: os.Getenv("SDKTEST_STATE"), Now: func() time.Time { return time.Now().Add(ahead) }})
	if err != nil {
		fmt.Println(err)
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := c.Validate(ctx)
	fmt.Printf("valid=%v reason=%s err=%v\n", st.Valid, st.Reason, err)
	if err != nil || !st.Valid {
		return 1
	}
	return 0
}

// TestRefreshRace has two processes refresh one state directory's pair at
// the same moment: both stay signed in, and so does the pair stored.
func TestRefreshRace(t *testing.T) {
	v := newVendor(t)
	key, _ := v.license(t, nil)
	base := v.base(t)
	dir := filepath.Join(t.TempDir(), "state")
	c := v.client(t, base, dir, nil)
	if err := c.Activate(ctx(t), key, "device-1"); err != nil {
		t.Fatal(err)
	}
	jwks := filepath.Join(t.TempDir(), "jwks.json")
	if err := os.WriteFile(jwks, v.jwks, 0o600); err != nil {
		t.Fatal(err)
	}
	stored := func() string {
		b, err := os.ReadFile(filepath.Join(dir, "session.json"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for round := range 3 {
		before := stored()
		// 14 minutes ahead: the 15-minute access token is past its
		// refresh point for both processes.
		ahead := fmt.Sprintf("%dm", 14*(round+1))
		var wg sync.WaitGroup
		outs := make([]string, 2)
		errs := make([]error, 2)
		for i := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), childEnv+"=1", "SDKTEST_URL="+base, "SDKTEST_PUB="+v.pub, "SDKTEST_JWKS="+jwks,
					"SDKTEST_STATE="+dir, "SDKTEST_AHEAD="+ahead)
				out, err := cmd.CombinedOutput()
				outs[i], errs[i] = string(out), err
			}()
		}
		wg.Wait()
		for i := range 2 {
			if errs[i] != nil || !strings.Contains(outs[i], "valid=true") {
				t.Fatalf("round %d, process %d: %v\n%s", round, i, errs[i], outs[i])
			}
		}
		if stored() == before {
			t.Fatalf("round %d: nobody refreshed", round)
		}
	}
	// The pair the processes left is good: a third client signs in with it.
	ahead := v.client(t, base, dir, func() time.Time { return time.Now().Add(42 * time.Minute) })
	if st, err := ahead.Validate(ctx(t)); err != nil || !st.Valid {
		t.Fatalf("after the race: %+v, %v", st, err)
	}
}

// TestLeaseLost takes a floating seat, has support free it through the
// management API, and waits for the library to report the lost seat; a
// second device is refused while the seat is held; Close releases it.
func TestLeaseLost(t *testing.T) {
	v := newVendor(t)
	key, licID := v.license(t, planSpec{"max_concurrent": 1, "lease_seconds": 60})
	base := v.base(t)
	c := v.client(t, base, "", nil)
	other := v.client(t, base, "", nil)
	c2 := ctx(t)
	if err := c.Activate(c2, key, "device-1"); err != nil {
		t.Fatal(err)
	}
	if err := other.Activate(c2, key, "device-2"); err != nil {
		t.Fatal(err)
	}
	if st, err := c.Validate(c2); err != nil || st.Valid || st.Reason != "lease_required" {
		t.Fatalf("without a seat: %+v, %v", st, err)
	}
	var apiErr *licensing.Error
	if _, err := c.Entitled(c2, "export.pdf"); !errors.As(err, &apiErr) || apiErr.Code != "lease_required" {
		t.Fatalf("Entitled without a seat: %v", err)
	}
	l, err := c.Lease(c2)
	if err != nil || l.MaxConcurrent != 1 || l.SeatsInUse != 1 {
		t.Fatalf("Lease = %+v, %v", l, err)
	}
	if st, err := c.Validate(c2); err != nil || !st.Valid {
		t.Fatalf("with a seat: %+v, %v", st, err)
	}
	if _, err := other.Lease(c2); !errors.As(err, &apiErr) || apiErr.Code != "seats_exhausted" || apiErr.RetryAfter <= 0 {
		t.Fatalf("second device: %v", err)
	}
	// Close releases the seat at once: the other device takes it.
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l2, err := other.Lease(c2)
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	defer l2.Close()

	// Support frees the seat; the next heartbeat (a third of 60 s) finds
	// it gone.
	leases := v.s.As(t, v.org.APIKey, http.MethodGet, "/v1/mgmt/applications/"+v.appID+"/licenses/"+licID+"/leases", nil).Want(t, http.StatusOK).List(t)
	if len(leases) != 1 {
		t.Fatalf("leases: %v", leases)
	}
	v.s.As(t, v.org.APIKey, http.MethodDelete, "/v1/mgmt/applications/"+v.appID+"/licenses/"+licID+"/leases/"+leases[0]["id"].(string), nil).Want(t, http.StatusOK)
	select {
	case err := <-l2.Lost:
		if !errors.As(err, &apiErr) || apiErr.Code != "lease_not_found" {
			t.Fatalf("lost: %v", err)
		}
	case <-time.After(40 * time.Second):
		t.Fatal("the freed seat was not reported within two heartbeats")
	}
}

// TestScratchModule builds a program outside the repository that requires
// the library through the replace line docs/client.md gives, with the
// module proxy off: it needs nothing but the standard library, and its
// go.sum stays empty.
func TestScratchModule(t *testing.T) {
	sdk, err := filepath.Abs(filepath.Join("..", "sdk", "go"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/photoeditor\n\ngo 1.26.0\n\nrequire licensectl.dev/sdk/go v0.0.0\n\nreplace licensectl.dev/sdk/go => "+sdk+"\n")
	write("main.go", `package main

import (
	"context"
	"fmt"
	"os"

	"licensectl.dev/sdk/go"
	"licensectl.dev/sdk/go/machinefile"
)

func main() {
	c, err := licensing.New(licensing.Config{BaseURL: "https://licenses.example.com", PublicKey: "app_pub_live_x",
		JWKS: []byte(`+"`"+`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}`+"`"+`), StateDir: os.TempDir()})
	if err != nil {
		panic(err)
	}
	st, err := c.Validate(context.Background())
	fmt.Println(st.Valid, err, machinefile.AlgEncrypted)
}
`)
	cmd := exec.Command("go", "build", "-o", filepath.Join(dir, "app"), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOPROXY=off", "GOFLAGS=-mod=mod", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "go.sum")); err == nil && len(strings.TrimSpace(string(b))) > 0 {
		t.Fatalf("go.sum lists modules:\n%s", b)
	}
	list := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".")
	list.Dir, list.Env = dir, cmd.Env
	out, err := list.Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range strings.Fields(string(out)) {
		if p != "example.com/photoeditor" && !strings.HasPrefix(p, "licensectl.dev/sdk/go") {
			t.Errorf("%s depends on %s", runtime.Version(), p)
		}
	}
}
