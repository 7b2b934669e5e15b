package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Release builds set these with
// -ldflags "-X main.version=v1.2.3 -X main.commit=abc1234 -X main.date=2026-11-24T10:00:00Z";
// a plain `go build` from a checkout fills commit and date from the VCS
// stamp Go embeds, so a binary always says where it came from.
var (
	version = "dev"
	commit  = ""
	date    = ""
)

// versionInfo is the JSON output of version.
type versionInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit"`
	Date     string `json:"date"`
	Modified bool   `json:"modified"`
	Go       string `json:"go"`
}

// buildVersion reads the version from the link-time variables, falling back
// to the build information the toolchain embedded.
func buildVersion() versionInfo {
	v := versionInfo{Version: version, Commit: commit, Date: date, Go: runtime.Version()}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				if v.Commit == "" {
					v.Commit = s.Value
				}
			case "vcs.time":
				if v.Date == "" {
					v.Date = s.Value
				}
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	return v
}

// String is the one-line form printed by `version` and `--version`.
func (v versionInfo) String() string {
	c := v.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if c == "" {
		c = "unknown"
	}
	if v.Modified {
		c += "+dirty"
	}
	d := v.Date
	if d == "" {
		d = "unknown"
	}
	return fmt.Sprintf("licensectl %s (commit %s, built %s, %s)", v.Version, c, d, v.Go)
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version, commit and build date",
		Example: "  licensectl version\n  licensectl version -o json\n  licensectl --version",
		Args:    exactArgs(),
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := outputFor(cmd, fmtTable, fmtJSON)
			if err != nil {
				return err
			}
			v := buildVersion()
			if out.format == fmtJSON {
				return out.json(v)
			}
			return out.line(v.String())
		},
	}
}
