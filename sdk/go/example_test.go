package licensing_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"licensectl.dev/sdk/go"
)

// jwks is the environment's key set, embedded at build time in a real
// application (licensectl app jwks -o jwks.json, then //go:embed jwks.json).
var jwks = []byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","kid":"k1","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}`)

func Example() {
	dir, _ := os.UserConfigDir()
	c, err := licensing.New(licensing.Config{
		BaseURL:   "https://licenses.example.com",
		PublicKey: "app_pub_live_…",
		JWKS:      jwks,
		StateDir:  filepath.Join(dir, "Photo Editor", "licensing"),
	})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	fp, err := licensing.Fingerprint("photo-editor")
	if err != nil {
		panic(err)
	}
	if err := c.Activate(ctx, "7kq2m9xw4thb3zp0d6rnc5vye", fp); err != nil {
		var apiErr *licensing.Error
		if errors.As(err, &apiErr) && apiErr.Code == "device_limit_reached" {
			fmt.Println("This license is in use on its maximum number of computers.")
		}
		return
	}
	st, err := c.Validate(ctx)
	switch {
	case errors.Is(err, licensing.ErrNotGenuine):
		fmt.Println("Could not verify the licensing server.")
	case errors.Is(err, licensing.ErrClockTampered):
		fmt.Println("Your computer's clock is set in the past.")
	case err != nil:
		fmt.Println("Connect to the internet to check your license.")
	case st.Valid && st.Offline:
		fmt.Println("Offline: licensed until", st.ValidUntil.Format("2 January"))
	case st.Valid:
		fmt.Println("Licensed:", st.Entitlements)
	default:
		fmt.Println("Not licensed:", st.Reason)
	}
}
