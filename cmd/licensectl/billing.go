package main

import (
	"context"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"licensectl/pix"
	"licensectl/server/api"
	"licensectl/store"
)

func newBillingCmd(e *env) *cobra.Command {
	return noun("billing", "Billing plans, the organization's subscription and usage, Pix checkout",
		newBillingPlansCmd(e), newBillingSubscriptionCmd(e), newBillingUsageCmd(e), newBillingCheckoutCmd(e), newBillingConfirmCmd(e))
}

// limit writes a tier limit, -1 as "unlimited".
func limit(n int64) string {
	if n == store.Unlimited {
		return "unlimited"
	}
	return strconv.FormatInt(n, 10)
}

// of writes a count against its limit.
func of(c store.UsageCount) string { return strconv.FormatInt(c.Current, 10) + " of " + limit(c.Limit) }

// money writes cents as BRL.
func money(cents int64) string { return "R$ " + pix.FormatAmount(cents) }

func newBillingPlansCmd(e *env) *cobra.Command {
	return csvList(&cobra.Command{
		Use:   "plans",
		Short: "List the billing plans (tiers) and their limits",
		Example: "  licensectl billing plans\n" +
			"  licensectl billing plans -o json",
		Args: exactArgs(),
		RunE: e.onSession(func(ctx context.Context, cmd *cobra.Command, s *session, out *output, args []string) error {
			tiers, err := s.svc.BillingPlans(ctx)
			if err != nil {
				return err
			}
			return out.emit(api.BillingPlans{Plans: mapSlice(tiers, api.BillingPlanOf)}, func(t *table) {
				t.row("KEY", "NAME", "PRICE/30 DAYS", "APPS", "LICENSES", "REQUESTS/MONTH", "AUDIT DAYS", "MEMBERS")
				for _, p := range tiers {
					t.row(p.Key, t.text(p.Name, 14), money(p.PriceCents), limit(p.MaxApplications), limit(p.MaxLicenses),
						limit(p.MaxRequestsPerMonth), limit(p.AuditLogRetentionDays), limit(p.MaxDashboardMembers))
				}
			})
		}),
	})
}

func subscriptionFields(t *table, sub *store.Subscription) {
	t.field("ID", sub.ID)
	t.field("Plan", sub.Plan.Key+" ("+sub.Plan.Name+")")
	t.field("Status", sub.Status)
	t.field("Provider", sub.Provider)
	t.field("Period start", stamp(sub.CurrentPeriodStart))
	t.field("Period end", stampp(sub.CurrentPeriodEnd))
}

func newBillingSubscriptionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "subscription",
		Short: "Show the organization's subscription",
		Example: "  licensectl billing subscription\n" +
			"  licensectl billing subscription --org acme -o json",
		Args: exactArgs(),
		RunE: e.onOrg(func(ctx context.Context, cmd *cobra.Command, s *session, org string, out *output, args []string) error {
			sub, err := s.svc.BillingSubscription(ctx, org)
			if err != nil {
				return err
			}
			return out.emit(api.SubscriptionBody{Subscription: api.SubscriptionOf(sub)}, func(t *table) { subscriptionFields(t, sub) })
		}),
	}
}

func newBillingUsageCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "usage",
		Short: "Show the organization's usage this month against its plan's limits",
		Example: "  licensectl billing usage\n" +
			"  licensectl billing usage -o json",
		Args: exactArgs(),
		RunE: e.onOrg(func(ctx context.Context, cmd *cobra.Command, s *session, org string, out *output, args []string) error {
			u, err := s.svc.BillingUsage(ctx, org, store.SystemClock())
			if err != nil {
				return err
			}
			return out.emit(api.UsageOf(u), func(t *table) {
				t.field("Plan", u.PlanKey+" ("+u.PlanName+"), "+u.Status)
				t.field("Period start", day(u.PeriodStart))
				t.field("Applications", of(u.Applications))
				t.field("Licenses active", of(u.LicensesActive)+" (every license not revoked or banned, never-activated ones included)")
				t.field("Runtime requests", of(u.RuntimeRequests)+" (runtime calls this month with a valid application key)")
				// "508 of 100" reads as an error unless the reader learns
				// that the server only counts (a self-hosted default).
				if u.Enforced {
					t.field("Limits", "enforced: what would cross a limit is refused")
				} else {
					t.field("Limits", "not enforced (billing.enforce is off): counted only, nothing is refused")
				}
			})
		}),
	}
}

func newBillingCheckoutCmd(e *env) *cobra.Command {
	var phone, document string
	c := &cobra.Command{
		Use:   "checkout PLAN",
		Short: "Start a Pix payment for a paid plan: prints the copy-paste code (and its QR code on a terminal)",
		Long: "Creates a pending Pix transaction for PLAN and prints its copy-paste code\n" +
			"(\"Pix copia e cola\"). On a terminal the QR code is drawn too, to scan with a\n" +
			"bank app. The transaction expires after an hour; the payment is confirmed by\n" +
			"the provider's callback or with `licensectl billing confirm`.",
		Example: "  licensectl billing checkout starter --phone +5581987654321 --document 111.444.777-35\n" +
			"  licensectl billing checkout pro --phone +5511987654321 --document 12.ABC.345/01DE-35 -o json",
		Args: exactArgs("PLAN"),
		RunE: e.onOrg(func(ctx context.Context, cmd *cobra.Command, s *session, org string, out *output, args []string) error {
			co, err := s.svc.BillingCheckout(ctx, store.CheckoutInput{OrgID: org, PlanKey: args[0], CustomerPhone: phone, CustomerDocument: document})
			if err != nil {
				return err
			}
			view := api.Checkout{TransactionID: co.TransactionID, QRCode: co.QRCode, CopyPaste: co.CopyPaste, AmountCents: co.AmountCents}
			if out.format == fmtJSON {
				return out.json(view)
			}
			if isTerminal(out.w) {
				art, err := pix.QRTerminal(co.CopyPaste)
				if err != nil {
					return err
				}
				if _, err := io.WriteString(out.w, art); err != nil {
					return err
				}
			}
			t := newTable(out.w)
			t.field("Transaction", co.TransactionID)
			t.field("Amount", money(co.AmountCents))
			t.field("Copy-paste", co.CopyPaste)
			return t.flush()
		}),
	}
	c.Flags().StringVar(&phone, "phone", "", "the payer's phone in E.164 form, e.g. +5581987654321")
	c.Flags().StringVar(&document, "document", "", "the payer's CPF or CNPJ (punctuation ignored)")
	return c
}

// isTerminal reports whether w is a terminal, where a QR code can be drawn.
func isTerminal(w io.Writer) bool {
	_, ok := terminal(w)
	return ok
}

// terminal returns the file behind a standard stream when it is a
// terminal: where a person can read a QR code, answer a question or type a
// secret.
func terminal(stream any) (*os.File, bool) {
	f, ok := stream.(*os.File)
	return f, ok && term.IsTerminal(int(f.Fd()))
}

func newBillingConfirmCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "confirm TRANSACTION_ID",
		Short: "Record a Pix payment by hand and put its plan in force (operator)",
		Example: "  licensectl billing confirm 01970000-0000-7000-8000-000000000000\n" +
			"  licensectl --server http://127.0.0.1:8080 --api-key \"$(cat data/operator.token)\" billing confirm ID -o json",
		Args: exactArgs("TRANSACTION_ID"),
		RunE: e.onSession(func(ctx context.Context, cmd *cobra.Command, s *session, out *output, args []string) error {
			sub, err := s.svc.ConfirmBillingTransaction(ctx, args[0])
			if err != nil {
				return err
			}
			return out.emit(api.SubscriptionBody{Subscription: api.SubscriptionOf(sub)}, func(t *table) { subscriptionFields(t, sub) })
		}),
	}
}
