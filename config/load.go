package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// EnvPrefix starts the name of every environment variable read by Load:
// key server.listen is LICENSECTL_SERVER_LISTEN.
const EnvPrefix = "LICENSECTL_"

// DefaultFile is the configuration file Load reads when LoadOptions.File is
// empty and no --config flag was given, if it exists in the working directory.
const DefaultFile = "licensectl.yaml"

// Names of the flags defined by BindFlags and read by Load.
const (
	FlagConfig  = "config"
	FlagListen  = "listen"
	FlagDataDir = "data-dir"
)

// flagKeys maps each flag Load reads to the configuration key it sets.
var flagKeys = []struct{ flag, key string }{
	{FlagListen, "server.listen"},
	{FlagDataDir, "data_dir"},
}

// LoadOptions says where Load finds the configuration besides the defaults.
type LoadOptions struct {
	// File is the YAML file to read (--config). When empty, the --config flag
	// of Flags is used if given; otherwise ./licensectl.yaml is read if it
	// exists. A file named explicitly must exist.
	File string
	// Flags holds the command-line flags defined by BindFlags; may be nil. Only
	// flags the user set (Changed) override the other sources.
	Flags *pflag.FlagSet
	// Env looks up an environment variable; nil means os.LookupEnv. A variable
	// set to the empty string counts as unset.
	Env func(string) (string, bool)
}

// BindFlags defines --config, --listen and --data-dir on fs, with empty
// defaults so that an unset flag never hides the file or the environment.
func BindFlags(fs *pflag.FlagSet) {
	fs.String(FlagConfig, "", "configuration file (default ./"+DefaultFile+" if it exists)")
	fs.String(FlagListen, "", "address to listen on, host:port (overrides server.listen)")
	fs.String(FlagDataDir, "", "directory of the database, operator token and mail (overrides data_dir)")
}

// Load builds the configuration from, highest precedence first: the flags of
// opts.Flags, LICENSECTL_* environment variables, the YAML file and Default().
// A key the file does not know is an error, so is an unparsable value; the
// result is checked with Validate. Lists given in the file or environment,
// billing.tiers included, replace the default list entirely.
//
// In the environment, durations are Go duration strings ("300s", "15m"),
// string lists are comma-separated and billing.tiers is a JSON array of tier
// objects with the same keys as the file.
func Load(opts LoadOptions) (Config, error) {
	c, err := load(opts)
	if err != nil {
		return Config{}, err
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// load is Load without Validate.
func load(opts LoadOptions) (Config, error) {
	lookup := opts.Env
	if lookup == nil {
		lookup = os.LookupEnv
	}
	v := viper.New()

	path, explicit := opts.File, opts.File != ""
	if !explicit && opts.Flags != nil {
		if f := opts.Flags.Lookup(FlagConfig); f != nil && f.Changed {
			path, explicit = f.Value.String(), true
		}
	}
	if !explicit {
		path = DefaultFile
	}
	if err := readFile(v, path, explicit); err != nil {
		return Config{}, err
	}

	leaves := leafKeys()
	for _, l := range leaves {
		v.SetDefault(l.key, l.value)
	}

	// Viper reads the environment only through os.LookupEnv, so the injectable
	// lookup is applied here as overrides; flags are applied after it so that
	// they win.
	for _, l := range leaves {
		if val, ok := lookup(EnvName(l.key)); ok && val != "" {
			v.Set(l.key, val)
		}
	}
	if opts.Flags != nil {
		for _, fk := range flagKeys {
			if f := opts.Flags.Lookup(fk.flag); f != nil && f.Changed {
				v.Set(fk.key, f.Value.String())
			}
		}
	}

	var c Config
	if err := v.UnmarshalExact(&c, viper.DecodeHook(decodeHook())); err != nil {
		return Config{}, fmt.Errorf("config: %w", err)
	}
	return c, nil
}

// EnvName returns the environment variable that sets key, e.g.
// LICENSECTL_RUNTIME_REPLAY_WINDOW for runtime.replay_window.
func EnvName(key string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// readFile reads the YAML file at path into v and rejects keys Config does
// not have. A missing file is an error only when it was named explicitly.
func readFile(v *viper.Viper, path string, explicit bool) error {
	data, err := os.ReadFile(path)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("config: %w", err)
	}
	v.SetConfigType("yaml")
	if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
		return fmt.Errorf("config: %s: %w", path, err)
	}
	if unknown := unknownKeys(v); len(unknown) > 0 {
		return fmt.Errorf("config: %s: unknown keys: %s", path, strings.Join(unknown, ", "))
	}
	return nil
}

// unknownKeys returns, sorted, the keys read into v that are not leaves of
// Config. A section left empty (every key under it commented out) is allowed.
// Keys inside billing.tiers entries are checked when decoding.
func unknownKeys(v *viper.Viper) []string {
	known, sections := map[string]bool{}, map[string]bool{}
	for _, l := range leafKeys() {
		known[l.key] = true
		for i, c := range l.key {
			if c == '.' {
				sections[l.key[:i]] = true
			}
		}
	}
	var unknown []string
	for _, k := range v.AllKeys() {
		if !known[k] && !(sections[k] && v.Get(k) == nil) {
			unknown = append(unknown, k)
		}
	}
	slices.Sort(unknown)
	return unknown
}

// leaf is one settable key of Config and its default value.
type leaf struct {
	key   string
	value any
}

// leafKeys walks the mapstructure tags of Config and returns every key whose
// value is not a section, with its value in Default(). Lists (billing.tiers
// included) are leaves: they are set as a whole.
func leafKeys() []leaf {
	var out []leaf
	var walk func(prefix string, v reflect.Value)
	walk = func(prefix string, v reflect.Value) {
		t := v.Type()
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("mapstructure"), ",")
			if name == "" || name == "-" {
				continue
			}
			key := prefix + name
			fv := v.Field(i)
			if fv.Kind() == reflect.Struct {
				walk(key+".", fv)
				continue
			}
			out = append(out, leaf{key: key, value: fv.Interface()})
		}
	}
	walk("", reflect.ValueOf(Default()))
	return out
}

var (
	durationType = reflect.TypeFor[time.Duration]()
	stringsType  = reflect.TypeFor[[]string]()
	dursType     = reflect.TypeFor[[]time.Duration]()
	tiersType    = reflect.TypeFor[[]Tier]()
)

// decodeHook converts what the file and the environment give into Config's
// types: duration strings, comma-separated string lists and the JSON tier list.
// A bare number is refused for a duration: it would silently mean nanoseconds.
// An empty list decodes to nil, as in Default().
func decodeHook() mapstructure.DecodeHookFunc {
	return mapstructure.DecodeHookFuncType(func(from, to reflect.Type, data any) (any, error) {
		switch {
		case to.Kind() == reflect.Slice && from.Kind() == reflect.Slice && reflect.ValueOf(data).Len() == 0:
			return nil, nil
		case to == durationType:
			if from == durationType {
				return data, nil
			}
			if from.Kind() == reflect.String {
				s := strings.TrimSpace(data.(string))
				d, err := time.ParseDuration(s)
				if err != nil {
					return nil, fmt.Errorf("%q is not a duration such as \"300s\" or \"15m\"", s)
				}
				return d, nil
			}
			return nil, fmt.Errorf("%v is not a duration: write it with a unit, such as \"300s\" or \"15m\"", data)
		case to == stringsType && from.Kind() == reflect.String:
			var out []string
			for s := range strings.SplitSeq(data.(string), ",") {
				if s = strings.TrimSpace(s); s != "" {
					out = append(out, s)
				}
			}
			return out, nil
		case to == dursType && from.Kind() == reflect.String:
			var out []time.Duration
			for s := range strings.SplitSeq(data.(string), ",") {
				if s = strings.TrimSpace(s); s == "" {
					continue
				}
				d, err := time.ParseDuration(s)
				if err != nil {
					return nil, fmt.Errorf("%q is not a duration such as \"5s\" or \"2h\"", s)
				}
				out = append(out, d)
			}
			return out, nil
		case to == tiersType && from.Kind() == reflect.String:
			dec := json.NewDecoder(strings.NewReader(data.(string)))
			dec.UseNumber()
			var tiers []map[string]any
			if err := dec.Decode(&tiers); err != nil {
				return nil, fmt.Errorf("want a JSON array of tiers: %w", err)
			}
			return tiers, nil
		}
		return data, nil
	})
}
