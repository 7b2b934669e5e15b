package config

import (
	"slices"
	"strings"
)

// UnknownEnv returns, sorted, the names of the LICENSECTL_* variables in
// environ ("NAME=value" entries, as os.Environ gives) that set no key of
// Config and are not among also (variables read elsewhere, such as the CLI's
// LICENSECTL_SERVER). A mistyped name would otherwise leave its key at the
// default without a word, while an unknown key in the file is refused.
func UnknownEnv(environ []string, also ...string) []string {
	known := map[string]bool{}
	for _, l := range leafKeys() {
		known[EnvName(l.key)] = true
	}
	for _, n := range also {
		known[n] = true
	}
	var unknown []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, EnvPrefix) && !known[name] && !slices.Contains(unknown, name) {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	return unknown
}
