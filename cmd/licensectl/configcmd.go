package main

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"licensectl/config"
)

func newConfigCmd(e *env) *cobra.Command {
	return noun("config", "Inspect the configuration", newConfigShowCmd(e))
}

// configView is the JSON output of config show.
type configView struct {
	Mode   string         `json:"mode"`
	Server string         `json:"server,omitempty"`
	Org    string         `json:"org,omitempty"`
	Env    string         `json:"env"`
	Config map[string]any `json:"config"`
}

func newConfigShowCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "show",
		Short: "Show the effective configuration (secrets masked) and the admin connection",
		Example: "  licensectl config show\n" +
			"  LICENSECTL_SERVER_LISTEN=0.0.0.0:9000 licensectl config show -o json",
		Args: exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := outputFor(cmd, fmtTable, fmtJSON)
			if err != nil {
				return err
			}
			cfg, err := loadConfig(cmd, e)
			if err != nil {
				return err
			}
			v := configView{Mode: "local", Env: must(cmd.Flags().GetString(flagEnv)), Config: map[string]any{}}
			v.Org = must(cmd.Flags().GetString(flagOrg))
			if url := e.flagOrEnv(cmd, flagServer, envServer); url != "" {
				v.Mode, v.Server = "remote", url
			}
			var leaves [][2]string
			walkConfig("", reflect.ValueOf(cfg), v.Config, &leaves)
			return out.emit(v, func(t *table) {
				t.row("mode", v.Mode)
				if v.Server != "" {
					t.row("server", v.Server)
				}
				t.row("org", orDash(v.Org))
				t.row("env", v.Env)
				for _, l := range leaves {
					t.row(l[0], l[1])
				}
			})
		},
	}
}

func must[T any](v T, _ error) T { return v }

// secretKeys are the keys whose name does not say they hold a secret: a
// database URL carries its password (docs/design.md §12).
var secretKeys = []string{"storage.postgres.url"}

// secretKey reports whether a configuration key (the dotted path) holds a
// secret to mask.
func secretKey(k string) bool {
	if slices.Contains(secretKeys, k) {
		return true
	}
	k = k[strings.LastIndex(k, ".")+1:]
	for _, s := range []string{"password", "secret", "token"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// walkConfig fills m with the configuration keyed by the names of
// licensectl.yaml and appends each leaf as "dotted.key value" to leaves.
func walkConfig(prefix string, v reflect.Value, m map[string]any, leaves *[][2]string) {
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("mapstructure"), ",")
		if name == "" || name == "-" {
			continue
		}
		fv := v.Field(i)
		key := prefix + name
		if fv.Kind() == reflect.Struct {
			sub := map[string]any{}
			m[name] = sub
			walkConfig(key+".", fv, sub, leaves)
			continue
		}
		val := fv.Interface()
		if secretKey(key) && fv.Kind() == reflect.String && fv.String() != "" {
			val = "********"
		}
		text := fmt.Sprint(val)
		switch x := val.(type) {
		case time.Duration:
			text = x.String()
			val = x.String()
		case []config.Tier:
			names := make([]string, 0, len(x))
			for _, tier := range x {
				names = append(names, tier.Key)
			}
			text = strings.Join(names, ",")
		case []string:
			text = strings.Join(x, ",")
		}
		m[name] = val
		*leaves = append(*leaves, [2]string{key, orDash(text)})
	}
}
