package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"licensectl/config"
	"licensectl/server/api"
	"licensectl/server/client"
	"licensectl/store"
)

// backend is what the commands use: store.Admin, the backup, and the few
// things a server does for a remote command that local mode does itself.
// local implements it on the data file and remote over HTTP; the
// commands never ask which one they have.
type backend interface {
	store.Admin
	// Backup writes a consistent copy of the store to w.
	Backup(ctx context.Context, w io.Writer) (int64, error)
	// OrgBound reports whether the credential belongs to one organization
	// (an API key), which it then always acts in.
	OrgBound() bool
	// PingWebhook sends the endpoint a webhook.test ping now and records it
	// as a delivery.
	PingWebhook(ctx context.Context, ref store.AppRef, webhookID string) (*api.WebhookTestResult, error)
	// WebhookEvents lists every event name an endpoint can subscribe to.
	WebhookEvents(ctx context.Context) ([]string, error)
	// RegisterWebhook creates an endpoint after the network checks of its
	// URL, which CreateWebhook leaves to its caller.
	RegisterWebhook(ctx context.Context, ref store.AppRef, url string, events []string) (*store.Webhook, error)
	// JWKS returns the JWKS document of the application's environment env,
	// byte for byte as the server serves it. Returns not_found.
	JWKS(ctx context.Context, ref store.AppRef, env string) ([]byte, error)
}

var (
	_ backend = local{}
	_ backend = remote{}
)

// session is one admin command's connection: the backend, the mode, and the
// organization and environment it acts in.
type session struct {
	svc    backend
	remote bool
	where  string // data file or server URL, for messages
	orgArg string // --org as given
	env    string
	close  func() error
	cfg    config.Config // local mode: the loaded configuration
}

// openOpts adjust how a session opens.
type openOpts struct {
	// create lets local mode create the data directory and file.
	create bool
	// readOnly opens the local file for reading only (backup).
	readOnly bool
	// lockTimeout replaces the 2 s wait for a locked file (completion).
	lockTimeout time.Duration
}

// open connects cmd to its backend: remote with --server (or
// LICENSECTL_SERVER), else the local data file.
func (e *env) open(cmd *cobra.Command, opts openOpts) (*session, error) {
	flags := cmd.Flags()
	envName, _ := flags.GetString(flagEnv)
	if !store.ValidEnv(envName) {
		return nil, usageErrorf("--env must be production or development, not %q", envName)
	}
	orgArg, _ := flags.GetString(flagOrg)
	s := &session{env: envName, orgArg: strings.TrimSpace(orgArg)}
	if url := e.flagOrEnv(cmd, flagServer, envServer); url != "" {
		key := e.flagOrEnv(cmd, flagAPIKey, envAPIKey)
		if key == "" {
			return nil, usageErrorf("remote mode (--server %s) needs --api-key or %s: a developer API key or the operator token", url, envAPIKey)
		}
		if !strings.Contains(url, "://") {
			url = "http://" + url
		}
		c := client.New(url, key, client.WithUserAgent("licensectl/"+version))
		s.svc, s.remote, s.where, s.close = remote{c}, true, c.BaseURL(), func() error { return nil }
		return s, nil
	}
	cfg, err := loadConfig(cmd, e)
	if err != nil {
		return nil, err
	}
	db, path, err := openLocal(cfg, opts)
	if err != nil {
		return nil, err
	}
	s.svc, s.where, s.close, s.cfg = local{db, cfg}, path, db.Close, cfg
	return s, nil
}

// flagOrEnv is the flag's value when set, else the environment variable's.
func (e *env) flagOrEnv(cmd *cobra.Command, flag, envVar string) string {
	if f := cmd.Flags().Lookup(flag); f != nil && f.Changed {
		return strings.TrimSpace(f.Value.String())
	}
	if v, ok := e.getenv(envVar); ok {
		return strings.TrimSpace(v)
	}
	return ""
}

// org returns the id of the organization the command acts in.
//
// Locally: --org (id or slug), or the only organization of the store; with
// several, --org is required. Remotely with the operator token: --org (a slug
// is resolved through the operator's organization list). Remotely with an
// API key: its own organization; --org, when given, must name it. Without
// --org remotely the id is "", and the server uses the credential's.
func (s *session) org(ctx context.Context) (string, error) {
	if s.orgArg != "" {
		if s.svc.OrgBound() {
			// An API key acts in its own organization whatever the header
			// says: refuse an --org naming another rather than ignore it.
			o, err := s.svc.FindOrganization(ctx, "")
			if err != nil {
				return "", err
			}
			if o.ID != s.orgArg && o.Slug != s.orgArg {
				return "", store.Invalid("org", "--org %q is not the organization of this API key (%s)", s.orgArg, o.Slug)
			}
			return o.ID, nil
		}
		if store.ValidID(s.orgArg) {
			if !s.remote {
				if _, err := s.svc.FindOrganization(ctx, s.orgArg); err != nil {
					return "", err
				}
			}
			return s.orgArg, nil
		}
		list, err := s.svc.ListOrganizations(ctx)
		if err != nil {
			return "", fmt.Errorf("resolve --org %q: %w", s.orgArg, err)
		}
		for _, o := range list {
			if o.Slug == s.orgArg {
				return o.ID, nil
			}
		}
		return "", store.Errorf(store.ECodeNotFound, "organization %q not found", s.orgArg)
	}
	if s.remote {
		return "", nil
	}
	list, err := s.svc.ListOrganizations(ctx)
	if err != nil {
		return "", err
	}
	switch len(list) {
	case 0:
		return "", fmt.Errorf("%s has no organization yet: create one with `licensectl org create NAME`", s.where)
	case 1:
		return list[0].ID, nil
	}
	return "", flagNeededf("%s has %d organizations: choose one with --org (id or slug; see `licensectl org list`)", s.where, len(list))
}

// app resolves an application named by id, slug, or name in any letter case.
func (s *session) app(ctx context.Context, name string) (store.AppRef, error) {
	orgID, err := s.org(ctx)
	if err != nil {
		return store.AppRef{}, err
	}
	if name == "" {
		return store.AppRef{}, usageErrorf("name the application with --app (id, slug or name)")
	}
	if store.ValidID(name) {
		return store.AppRef{OrgID: orgID, AppID: name}, nil
	}
	list, err := s.svc.ListApplications(ctx, orgID)
	if err != nil {
		return store.AppRef{}, err
	}
	a, err := pick("application", name, list, func(a *store.Application) named {
		return named{id: a.ID, exact: []string{a.Slug}, names: []string{a.Name}}
	})
	if err != nil {
		return store.AppRef{}, err
	}
	return store.AppRef{OrgID: orgID, AppID: a.ID}, nil
}

// scope resolves the application and adds the --env environment.
func (s *session) scope(ctx context.Context, app string) (store.Scope, error) {
	ref, err := s.app(ctx, app)
	if err != nil {
		return store.Scope{}, err
	}
	return store.Scope{OrgID: ref.OrgID, AppID: ref.AppID, Env: s.env}, nil
}

// plan resolves a plan of the application by id, or name in any letter case.
func (s *session) plan(ctx context.Context, ref store.AppRef, name string) (*store.Plan, error) {
	list, err := s.svc.ListPlans(ctx, ref)
	if err != nil {
		return nil, err
	}
	return pick("plan", name, list, func(p *store.Plan) named { return named{id: p.ID, names: []string{p.Name}} })
}

// entitlementIDs resolves entitlements named by id or key.
func (s *session) entitlementIDs(ctx context.Context, ref store.AppRef, names []string) ([]string, error) {
	if len(names) == 0 {
		return nil, nil
	}
	list, err := s.svc.ListEntitlements(ctx, ref)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(names))
next:
	for _, n := range names {
		for _, e := range list {
			if e.ID == n || e.Key == n {
				out = append(out, e.ID)
				continue next
			}
		}
		return nil, store.Errorf(store.ECodeNotFound, "entitlement %q not found", n)
	}
	return out, nil
}

// withSession opens a session for cmd, runs fn and closes the session.
func (e *env) withSession(cmd *cobra.Command, opts openOpts, fn func(ctx context.Context, s *session) error) error {
	return e.withSessionCtx(cmd.Context(), cmd, opts, fn)
}

// withSessionCtx is withSession with an explicit context.
func (e *env) withSessionCtx(ctx context.Context, cmd *cobra.Command, opts openOpts, fn func(ctx context.Context, s *session) error) error {
	s, err := e.open(cmd, opts)
	if err != nil {
		return err
	}
	err = fn(ctx, s)
	if cerr := s.close(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// scopedRun is the body of a command about one organization, application or
// application environment: it gets the session, what the command is about,
// and the -o output.
type scopedRun[T any] func(ctx context.Context, cmd *cobra.Command, s *session, on T, out *output, args []string) error

// onOrg is the RunE of a command about the organization (--org, or the
// API key's own).
func (e *env) onOrg(fn scopedRun[string]) func(*cobra.Command, []string) error {
	return runOn(e, fn, func(ctx context.Context, s *session) (string, error) { return s.org(ctx) })
}

// onApp is the RunE of a command about the application named by --app.
func (e *env) onApp(app *string, fn scopedRun[store.AppRef]) func(*cobra.Command, []string) error {
	return runOn(e, fn, func(ctx context.Context, s *session) (store.AppRef, error) { return s.app(ctx, *app) })
}

// onScope is the RunE of a command about the --env environment of the
// application named by --app.
func (e *env) onScope(app *string, fn scopedRun[store.Scope]) func(*cobra.Command, []string) error {
	return runOn(e, fn, func(ctx context.Context, s *session) (store.Scope, error) { return s.scope(ctx, *app) })
}

// onSession is the RunE of a command that needs the session only (operator
// commands, the billing tiers).
func (e *env) onSession(fn func(ctx context.Context, cmd *cobra.Command, s *session, out *output, args []string) error) func(*cobra.Command, []string) error {
	return runOn(e, func(ctx context.Context, cmd *cobra.Command, s *session, _ struct{}, out *output, args []string) error {
		return fn(ctx, cmd, s, out, args)
	}, func(context.Context, *session) (struct{}, error) { return struct{}{}, nil })
}

func runOn[T any](e *env, fn scopedRun[T], resolve func(ctx context.Context, s *session) (T, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		out, err := outputFor(cmd, fmtTable, fmtJSON)
		if err != nil {
			return err
		}
		return e.withSession(cmd, openOpts{}, func(ctx context.Context, s *session) error {
			on, err := resolve(ctx, s)
			if err != nil {
				return err
			}
			return fn(ctx, cmd, s, on, out, args)
		})
	}
}

// bindApp adds the required --app flag that names a command's application.
func bindApp(c *cobra.Command, app *string) {
	c.Flags().StringVar(app, "app", "", "application id, slug or name (required)")
	_ = c.MarkFlagRequired("app")
}
