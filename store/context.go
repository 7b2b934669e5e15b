package store

import (
	"context"
	"time"
)

// Actor is who performs a change; it is written into audit entries.
type Actor struct {
	Type      string `json:"type"` // member, api_key, app_secret, operator, end_user, user, license, system
	ID        string `json:"id"`
	IP        string `json:"-"`
	UserAgent string `json:"-"`
}

// Actor types.
const (
	ActorMember    = "member"
	ActorAPIKey    = "api_key"
	ActorAppSecret = "app_secret"
	ActorOperator  = "operator"
	ActorEndUser   = "end_user"
	// ActorUser is an end-user acting on the web, signed in to the portal:
	// docs/design.md §17 names the portal's deactivation so.
	ActorUser    = "user"
	ActorLicense = "license"
	ActorSystem  = "system"
)

type actorKey struct{}

// WithActor returns a context carrying the actor of the request, so that the
// audit entry written with a change names who made it.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// ActingAs is ctx with its actor's type and id replaced, keeping the
// request's address and user agent: what Tx.ActAs does to the rest of a
// transaction.
func ActingAs(ctx context.Context, typ, id string) context.Context {
	a := ActorFrom(ctx)
	a.Type, a.ID = typ, id
	return WithActor(ctx, a)
}

// ActorFrom returns the actor carried by ctx, or the system actor.
func ActorFrom(ctx context.Context) Actor {
	if a, ok := ctx.Value(actorKey{}).(Actor); ok {
		return a
	}
	return Actor{Type: ActorSystem}
}

// Clock returns the current time; tests inject their own to move time.
type Clock func() time.Time

// SystemClock is the wall clock in UTC, truncated to microseconds so that a
// value survives a JSON round trip unchanged.
func SystemClock() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }
