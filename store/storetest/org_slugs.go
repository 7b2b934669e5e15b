package storetest

import (
	"strings"
	"testing"

	"licensectl/store"
)

// testOrganizationSlugs: an organization is found by its slug as by its id;
// a slug no organization has, another's letter case or an id in its place is
// not_found.
func testOrganizationSlugs(t *testing.T, open Opener) {
	f := newFixture(t, open)
	other, err := f.db.CreateOrganization(f.ctx, store.CreateOrganizationInput{Name: "Slug Twin"})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []*store.Organization{f.org, other} {
		got, err := f.be.FindOrganizationBySlug(f.ctx, o.Slug)
		if err != nil || got.ID != o.ID || got.Slug != o.Slug {
			t.Fatalf("FindOrganizationBySlug(%s) = %+v, %v; want %s", o.Slug, got, err, o.ID)
		}
	}
	for _, slug := range []string{"no-such-org", strings.ToUpper(f.org.Slug), f.org.ID, ""} {
		_, err := f.be.FindOrganizationBySlug(f.ctx, slug)
		wantCode(t, "FindOrganizationBySlug("+slug+")", err, store.ECodeNotFound)
	}
}
