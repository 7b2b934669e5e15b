package main

import (
	"licensectl/server/api"
	"testing"

	"licensectl/server/servertest"
	"licensectl/store"
)

// memberScenario adds, lists and removes dashboard members through c, which
// acts with owner rights in an organization whose only owner is owner.
func memberScenario(t *testing.T, c *cli, owner string) {
	var m api.MemberItem
	c.json(&m, "member", "add", "Dev@Acme.test", "--role", "developer", "--password", servertest.Password)
	if m.ID == "" || m.Email != "dev@acme.test" || m.Role != store.RoleDeveloper {
		t.Fatalf("member add = %+v", m)
	}
	c.fails(1, args("member", "add", "dev@acme.test", "--password", servertest.Password), "Error: email_taken: ")
	c.fails(1, args("member", "add", "weak@acme.test", "--password", "password"), "Error: validation_failed: ")
	c.fails(2, args("member", "add", "nopw@acme.test"), "password")
	var list []api.MemberItem
	c.json(&list, "member", "list")
	if len(list) != 2 {
		t.Fatalf("member list = %+v", list)
	}
	c.ok("member", "remove", "dev@acme.test")
	c.json(&list, "member", "list")
	if len(list) != 1 || list[0].Email != owner {
		t.Fatalf("member list after remove = %+v", list)
	}
	c.fails(1, args("member", "remove", owner), "Error: last_owner: ")
	c.fails(1, args("member", "remove", "nobody@acme.test"), "Error: not_found: ")
}

func TestLocalMembers(t *testing.T) {
	t.Parallel()
	c := newLocal(t)
	c.ok("org", "create", "Acme", "--owner-email", "owner@acme.test", "--owner-password-file", passwordFile(t))
	memberScenario(t, c, "owner@acme.test")
}

func TestRemoteMembers(t *testing.T) {
	t.Parallel()
	srv := servertest.New(t)
	org := srv.NewOrg(t)
	memberScenario(t, newRemote(t, srv.URL, srv.OperatorToken(), "--org", org.ID), org.OwnerEmail)
	// A developer API key acts as an admin: it may not remove an owner.
	newRemote(t, srv.URL, org.APIKey).fails(1, args("member", "remove", org.OwnerEmail), "Error: forbidden: ")
}
