package store

import (
	"context"
	"testing"
)

// TestActingAs: the actor changes, the request's address and user agent
// stay, and the context it came from is left as it was.
func TestActingAs(t *testing.T) {
	for _, tt := range []struct {
		name string
		ctx  context.Context
		want Actor
	}{
		{"OKRequest", WithActor(context.Background(), Actor{Type: ActorMember, ID: "m1", IP: "192.0.2.1", UserAgent: "cli"}),
			Actor{Type: ActorLicense, ID: "l1", IP: "192.0.2.1", UserAgent: "cli"}},
		{"OKNoActor", context.Background(), Actor{Type: ActorLicense, ID: "l1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			before := ActorFrom(tt.ctx)
			if got := ActorFrom(ActingAs(tt.ctx, ActorLicense, "l1")); got != tt.want {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			if after := ActorFrom(tt.ctx); after != before {
				t.Errorf("the original context now carries %+v", after)
			}
		})
	}
}
