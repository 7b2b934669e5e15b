// Command runtime-client is what a desktop application does with licensectl,
// through the client library (licensectl.dev/sdk/go, docs/client.md):
// activate a license key on this device, validate (online with a signed
// answer, or offline from the machine file the library keeps), check an
// entitlement, optionally take a floating seat, sign out, and optionally
// free the device.
//
//	licensectl app jwks --app "Photo Editor" -o jwks.json   # pinned at build time
//	go run ./examples/runtime-client -server http://127.0.0.1:8080 -jwks jwks.json \
//	    -public-key app_pub_live_… -license 7KQ2M-9XW4T-HB3ZP-0D6RN-C5VYE -entitlement export.pdf
//
// It spends one of the license's self-service device resets only when asked
// (-reset): a reset is a real and limited thing.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"licensectl.dev/sdk/go"
)

// Config is what the program needs to know.
type Config struct {
	Server      string // base URL of the licensing server
	PublicKey   string // the application environment's app_pub_… key
	JWKS        []byte // the environment's key set, pinned
	StateDir    string // where the library keeps the session and machine file
	License     string // the license key the user typed; "" uses the stored session
	Fingerprint string // a stable identifier of this device
	Entitlement string // a feature to check
	Lease       bool   // take (and release) a floating seat
	Logout      bool   // sign out at the end
	Reset       bool   // free this device with a self-service reset at the end
}

func main() {
	var c Config
	var jwks string
	stateDir, _ := os.UserConfigDir()
	flag.StringVar(&c.Server, "server", "http://127.0.0.1:8080", "licensing server base URL")
	flag.StringVar(&c.PublicKey, "public-key", os.Getenv("LICENSECTL_PUBLIC_KEY"), "application public key (app_pub_…)")
	flag.StringVar(&jwks, "jwks", "jwks.json", "the environment's JWKS document (licensectl app jwks -o FILE)")
	flag.StringVar(&c.StateDir, "state", filepath.Join(stateDir, "photo-editor", "licensing"), "state directory")
	flag.StringVar(&c.License, "license", "", "license key to activate (empty: use the stored session)")
	flag.StringVar(&c.Fingerprint, "fingerprint", "", "device fingerprint (default: licensing.Fingerprint)")
	flag.StringVar(&c.Entitlement, "entitlement", "export.pdf", "entitlement key to check")
	flag.BoolVar(&c.Lease, "lease", false, "take a floating seat and release it")
	flag.BoolVar(&c.Logout, "logout", false, "sign out at the end")
	flag.BoolVar(&c.Reset, "reset", false, "spend a self-service device reset to free this device at the end")
	flag.Parse()
	raw, err := os.ReadFile(jwks)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	c.JWKS = raw
	if c.Fingerprint == "" {
		if c.Fingerprint, err = licensing.Fingerprint("photo-editor"); err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := Run(ctx, c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// Run walks through the library's calls once, printing what happens to out.
func Run(ctx context.Context, c Config, out io.Writer) error {
	lc, err := licensing.New(licensing.Config{BaseURL: c.Server, PublicKey: c.PublicKey, JWKS: c.JWKS, StateDir: c.StateDir})
	if err != nil {
		return err
	}
	if c.License != "" {
		if err := lc.Activate(ctx, c.License, c.Fingerprint); err != nil {
			return fmt.Errorf("activate: %w", err)
		}
		fmt.Fprintln(out, "activated")
	}
	st, err := lc.Validate(ctx)
	if err != nil {
		return fmt.Errorf("validate: %w", err)
	}
	if st.Reason == "lease_required" && c.Lease {
		// A floating seat first; the library heartbeats it meanwhile.
		l, err := lc.Lease(ctx)
		if err != nil {
			return fmt.Errorf("lease: %w", err)
		}
		fmt.Fprintf(out, "seat taken: %d of %d in use\n", l.SeatsInUse, l.MaxConcurrent)
		defer func() {
			if err := l.Close(); err == nil {
				fmt.Fprintln(out, "seat released")
			}
		}()
		if st, err = lc.Validate(ctx); err != nil {
			return fmt.Errorf("validate: %w", err)
		}
	}
	switch {
	case !st.Valid:
		fmt.Fprintf(out, "not valid: %s\n", st.Reason)
	case st.Offline:
		fmt.Fprintf(out, "valid offline until %s: entitlements %v\n", st.ValidUntil.UTC().Format(time.RFC3339), st.Entitlements)
	default:
		fmt.Fprintf(out, "validated: valid, entitlements %v\n", st.Entitlements)
	}
	if st.Valid {
		granted, err := lc.Entitled(ctx, c.Entitlement)
		if err != nil {
			return fmt.Errorf("entitlement: %w", err)
		}
		fmt.Fprintf(out, "entitlement %s: granted=%v\n", c.Entitlement, granted)
	}
	if c.Logout {
		if err := lc.Logout(ctx); err != nil {
			return fmt.Errorf("logout: %w", err)
		}
		fmt.Fprintln(out, "logged out")
	}
	if c.Reset && c.License != "" {
		n, err := lc.ResetDevice(ctx, c.License, c.Fingerprint)
		if err != nil {
			return fmt.Errorf("device reset: %w", err)
		}
		fmt.Fprintf(out, "device reset: %d resets left\n", n)
	}
	return nil
}
