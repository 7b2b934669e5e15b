package store

import "context"

// ListDeliveries implements Webhooks: the filter checked before anything
// is read, then the application, the endpoint (of that application) and
// the page, in one read.
func (sv *Service) ListDeliveries(ctx context.Context, ref AppRef, webhookID string, f DeliveryFilter) (*Page[*Delivery], error) {
	if err := f.Check(); err != nil {
		return nil, err
	}
	var out *Page[*Delivery]
	err := sv.view(ctx, func(t Tx) error {
		if _, err := t.App(ref); err != nil {
			return err
		}
		if _, err := t.Webhook(ref.AppID, webhookID); err != nil {
			return err
		}
		p, err := t.DeliveryPage(webhookID, f)
		out = p
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
