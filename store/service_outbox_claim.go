package store

// ClaimPick is one delivery a claim takes, with the endpoint it goes to.
type ClaimPick struct {
	DeliveryID string
	Webhook    *Webhook
}

// Rounds decides which due deliveries a claim under c takes (docs/design.md
// §9): rounds of one delivery per endpoint, the endpoints in the order
// given (the storage's rotation point first), oldest first within an
// endpoint, each round over the endpoints that took one in the last, until
// c.Limit or until none can take more. An endpoint is passed over while it
// or its application is Full by the live leases (perHook, every owner's by
// endpoint; perApp, c.Owner's by application), which count the picks as
// they are made. next gives an endpoint's next due delivery not under a
// live lease, "" when it has none left; it is asked at most once per
// endpoint per round. The picks come in the order they were made, so the
// last is the last endpoint served.
func (c Claim) Rounds(hooks []*Webhook, perHook, perApp map[string]int, next func(w *Webhook) (string, error)) ([]ClaimPick, error) {
	var out []ClaimPick
	round := hooks
	for len(out) < c.Limit && len(round) > 0 {
		var again []*Webhook
		for _, w := range round {
			if len(out) == c.Limit {
				break
			}
			if c.Full(w.TimedOut, perHook[w.ID], perApp[w.AppID]) {
				continue
			}
			id, err := next(w)
			if err != nil {
				return nil, err
			}
			if id == "" {
				continue
			}
			perHook[w.ID]++
			perApp[w.AppID]++
			out = append(out, ClaimPick{DeliveryID: id, Webhook: w})
			again = append(again, w)
		}
		round = again
	}
	return out, nil
}
