package storedoc

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"licensectl/store"
)

// TestGoldenJSON pins each document's JSON, which is the on-disk format of
// both stores (a bbolt record, a PostgreSQL doc column): a renamed tag, a
// dropped field or a new field without a decision fails here first.
func TestGoldenJSON(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC)
	later := at.Add(time.Hour)
	tests := []struct {
		name   string
		doc    any
		golden string
	}{
		{"Subscription", &Subscription{Status: "trialing", Provider: "pix", Plan: "pro", TrialEndsAt: &later, PeriodStart: at, PeriodEnd: &later},
			`{"st":"trialing","pv":"pix","pl":"pro","te":"2026-03-04T06:06:07.000000008Z","ps":"2026-03-04T05:06:07.000000008Z","pe":"2026-03-04T06:06:07.000000008Z"}`},
		{"BillingTransaction", &BillingTransaction{ID: "t1", OrgID: "o1", Plan: "pro", Amount: 4900, Status: "paid", DocKind: "cpf",
			Document: "12345678909", Phone: "+5511999999999", CopyPaste: "000201", CreatedAt: at, ExpiresAt: later, PaidAt: &later},
			`{"id":"t1","o":"o1","pl":"pro","a":4900,"st":"paid","dk":"cpf","d":"12345678909","ph":"+5511999999999","cp":"000201",` +
				`"c":"2026-03-04T05:06:07.000000008Z","e":"2026-03-04T06:06:07.000000008Z","p":"2026-03-04T06:06:07.000000008Z"}`},
		{"Onboarding", &Onboarding{TourStatus: "completed", CurrentStep: 3, CompletedSteps: []string{"a", "b"}, DismissedFeatures: []string{"c"},
			FeatureProgress: map[string]string{"d": "done"}, CompletedAt: &at},
			`{"ts":"completed","cs":3,"st":["a","b"],"df":["c"],"fp":{"d":"done"},"ca":"2026-03-04T05:06:07.000000008Z"}`},
		{"PartnerIdentity", &PartnerIdentity{MemberID: "m1", LinkedAt: at, AccountVerified: true},
			`{"m":"m1","at":"2026-03-04T05:06:07.000000008Z","v":true}`},
		{"Webhook", &Webhook{ID: "w1", OrgID: "o1", AppID: "a1", URL: "https://example.com/hook", Events: []string{"license.created"},
			Status: "active", Secret: "whsec_1", FailingSince: &at, TimedOut: true, CreatedAt: at, UpdatedAt: later},
			`{"id":"w1","org":"o1","app":"a1","url":"https://example.com/hook","ev":["license.created"],"st":"active","sec":"whsec_1",` +
				`"fail":"2026-03-04T05:06:07.000000008Z","to":true,"ca":"2026-03-04T05:06:07.000000008Z","ua":"2026-03-04T06:06:07.000000008Z"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := json.Marshal(tc.doc)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.golden {
				t.Errorf("JSON\n got %s\nwant %s", got, tc.golden)
			}
			var keys map[string]json.RawMessage
			if err := json.Unmarshal([]byte(tc.golden), &keys); err != nil {
				t.Fatal(err)
			}
			typ := reflect.TypeOf(tc.doc).Elem()
			if typ.NumField() != len(keys) {
				t.Errorf("%s has %d fields, the golden document %d: pin the new field", typ, typ.NumField(), len(keys))
			}
			back := reflect.New(typ).Interface()
			if err := json.Unmarshal([]byte(tc.golden), back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, tc.doc) {
				t.Errorf("decoded %+v, want %+v", back, tc.doc)
			}
		})
	}
}

// TestDomainRoundTrip: a document converts to its domain value and back
// unchanged, and a missing onboarding document is the initial progress.
func TestDomainRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	bt := &BillingTransaction{ID: "t1", OrgID: "o1", Plan: "pro", Amount: 4900, Status: "pending", DocKind: "cnpj",
		Document: "11222333000181", Phone: "+5511988887777", CopyPaste: "000201", CreatedAt: at, ExpiresAt: at.Add(time.Hour), PaidAt: &at}
	if got := BillingTransactionOf(bt.Domain()); !reflect.DeepEqual(got, bt) {
		t.Errorf("billing transaction: got %+v, want %+v", got, bt)
	}
	sub := &Subscription{Status: "active", Provider: "pix", Plan: "pro", PeriodStart: at, PeriodEnd: &at}
	if state := sub.State(); Subscription(state) != *sub {
		t.Errorf("subscription: got %+v, want %+v", state, *sub)
	}
	ob := &Onboarding{TourStatus: "in_progress", CurrentStep: 2, CompletedSteps: []string{"a"}, DismissedFeatures: []string{"b"},
		FeatureProgress: map[string]string{"c": "seen"}, CompletedAt: &at}
	p := ob.Progress()
	if got := OnboardingOf(p); !reflect.DeepEqual(got, ob) {
		t.Errorf("onboarding: got %+v, want %+v", got, ob)
	}
	p.CompletedSteps[0], p.FeatureProgress["c"] = "x", "x"
	if ob.CompletedSteps[0] != "a" || ob.FeatureProgress["c"] != "seen" {
		t.Error("the progress shares its lists with the document")
	}
	wh := &Webhook{ID: "w1", OrgID: "o1", AppID: "a1", URL: "https://example.com/hook", Events: []string{"license.created"},
		Status: "disabled", Secret: "whsec_1", FailingSince: &at, TimedOut: true, CreatedAt: at, UpdatedAt: at}
	d := wh.Domain()
	if got := WebhookOf(d); !reflect.DeepEqual(got, wh) {
		t.Errorf("webhook: got %+v, want %+v", got, wh)
	}
	d.Events[0] = "x"
	if wh.Events[0] != "license.created" {
		t.Error("the endpoint shares its event list with the document")
	}
	if got, want := (*Onboarding)(nil).Progress(), store.NewOnboardingProgress(); !reflect.DeepEqual(got, want) {
		t.Errorf("no document: got %+v, want %+v", got, want)
	}
}
