package main

import (
	"os"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"licensectl/tui"
)

// newTUICmd is `licensectl tui`: the interactive console, over the same
// session (local file or --server) as every admin command.
func newTUICmd(e *env) *cobra.Command {
	var (
		readOnly, noColor, ascii, mouse bool
		app                             string
		refresh                         time.Duration
	)
	cmd := &cobra.Command{
		Use:   "tui",
		Short: "Interactive terminal UI for day-to-day administration",
		Long: "tui opens an interactive console: organizations, applications, licenses,\n" +
			"users, devices, audit. Locally it holds the data file for the whole session\n" +
			"(a running server must be stopped, or use --server). Keys: ? help, : jump, q quit.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			in, inOK := e.stdin.(*os.File)
			out, outOK := e.stdout.(*os.File)
			if t, _ := e.getenv("TERM"); !inOK || !outOK || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) || t == "dumb" {
				return usageErrorf("licensectl tui needs an interactive terminal; use the CLI commands in scripts")
			}
			// tui.* in the configuration, unless a flag says otherwise.
			cfg, err := loadConfig(cmd, e)
			if err != nil {
				return err
			}
			flags := cmd.Flags()
			if !flags.Changed("read-only") {
				readOnly = cfg.TUI.ReadOnly
			}
			if !flags.Changed("refresh") {
				refresh = cfg.TUI.Refresh
			}
			if !flags.Changed("mouse") {
				mouse = cfg.TUI.Mouse
			}
			if _, ok := e.getenv("NO_COLOR"); ok || cfg.TUI.Color == "never" {
				noColor = true
			}
			// Everything that can fail is resolved here, on the normal
			// screen with the CLI's own advice, before the TUI takes it.
			s, err := e.open(cmd, openOpts{readOnly: readOnly})
			if err != nil {
				return err
			}
			defer s.close()
			ctx := cmd.Context()
			orgID, err := s.org(ctx)
			if err != nil && !isUsage(err) {
				return err
			}
			var appID string
			if app != "" {
				ref, err := s.app(ctx, app)
				if err != nil {
					return err
				}
				orgID, appID = ref.OrgID, ref.AppID
			}
			cred := ""
			if k := e.flagOrEnv(cmd, flagAPIKey, envAPIKey); len(k) > 4 && s.remote {
				cred = k[len(k)-4:]
			}
			return tui.Run(ctx, tui.Options{
				Data: s.svc, Remote: s.remote, Where: s.where, Credential: cred,
				OrgID: orgID, AppID: appID, Env: s.env, ReadOnly: readOnly,
				Color: !noColor, ASCII: ascii, Refresh: refresh, Mouse: mouse,
				Input: in, Output: out, Clipboard: out, ClipboardMode: cfg.TUI.Clipboard,
			})
		},
	}
	f := cmd.Flags()
	f.BoolVar(&readOnly, "read-only", false, "no changes: actions are not offered (locally the file is opened read-only; tui.read_only)")
	f.BoolVar(&noColor, "no-color", false, "no colours (also with NO_COLOR set, or tui.color: never)")
	f.BoolVar(&ascii, "ascii", false, "plain ASCII symbols instead of ▶ ✓ ✗")
	f.StringVar(&app, "app", "", "start on this application's dashboard (id, slug or name)")
	f.DurationVar(&refresh, "refresh", 5*time.Second, "remote mode: how often the overview and details refresh (tui.refresh)")
	f.BoolVar(&mouse, "mouse", false, "mouse reporting: the wheel scrolls (tui.mouse; :mouse toggles it)")
	return cmd
}
