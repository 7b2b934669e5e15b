package server

import (
	"net/http"
	"time"

	"github.com/gorilla/mux"

	"licensectl/server/api"
	"licensectl/server/webhook"
	"licensectl/store"
)

// initWebhooks builds the URL guard and the dispatcher; Open starts it.
func (s *Server) initWebhooks() {
	c := s.cfg.Webhooks
	s.guard = webhook.NewGuard(c.AllowHTTP, c.AllowPrivateTargets)
	sender := &webhook.Sender{Client: s.guard.Client(c.Timeout), UserAgent: "licensectl/" + s.version, Now: s.now}
	failures := newWebhookFailureLog(s.logger, s.now)
	s.dispatcher = webhook.NewDispatcher(s.db, sender, webhook.Config{
		Workers: c.Workers,
		Policy:  store.RetryPolicy{Schedule: c.RetrySchedule, DisableAfter: c.DisableAfter},
		// A send ends within the timeout; the margin covers recording it.
		Lease: c.Timeout + 30*time.Second,
		Drain: min(s.cfg.Server.ShutdownTimeout, c.Timeout),
		OnAttempt: func(job *store.DeliveryJob, a store.Attempt) {
			s.metrics.webhookAttempt(a)
			failures.attempt(job, a)
		},
	}, s.logger)
}

func (s *Server) listWebhookEvents(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, store.Events())
	return nil
}

func (s *Server) listWebhooks(w http.ResponseWriter, r *http.Request) error {
	list, err := s.db.ListWebhooks(r.Context(), appRef(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, mapList(list, api.WebhookOf))
	return nil
}

func (s *Server) createWebhook(w http.ResponseWriter, r *http.Request) error {
	var req api.CreateWebhookRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if err := store.CheckEventPatterns(req.Events); err != nil {
		return err
	}
	if err := s.guard.CheckURL(r.Context(), req.URL); err != nil {
		return err
	}
	h, err := s.db.CreateWebhook(r.Context(), appRef(r), req.URL, req.Events)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.WebhookCreated{ID: h.ID, ApplicationID: h.AppID, URL: h.URL, Events: h.Events,
		Status: h.Status, Secret: h.Secret, CreatedAt: h.CreatedAt})
	return nil
}

func (s *Server) updateWebhook(w http.ResponseWriter, r *http.Request) error {
	var req api.UpdateWebhookRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	if req.URL != nil {
		if err := s.guard.CheckURL(r.Context(), *req.URL); err != nil {
			return err
		}
	}
	h, err := s.db.UpdateWebhook(r.Context(), appRef(r), mux.Vars(r)["webhookId"], store.WebhookUpdate{URL: req.URL, Events: req.Events, Status: req.Status})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.WebhookOf(h))
	return nil
}

func (s *Server) deleteWebhook(w http.ResponseWriter, r *http.Request) error {
	if err := s.db.DeleteWebhook(r.Context(), appRef(r), mux.Vars(r)["webhookId"]); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}

func (s *Server) testWebhook(w http.ResponseWriter, r *http.Request) error {
	job, a, err := s.dispatcher.Ping(r.Context(), appRef(r), mux.Vars(r)["webhookId"])
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.WebhookTestResultOf(job.Delivery.ID, a))
	return nil
}

func (s *Server) listDeliveries(w http.ResponseWriter, r *http.Request) error {
	p, err := pageRequest(r)
	if err != nil {
		return err
	}
	f := store.DeliveryFilter{Status: r.URL.Query().Get("status"), PageRequest: p}
	page, err := s.db.ListDeliveries(r.Context(), appRef(r), mux.Vars(r)["webhookId"], f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.PageOf(page, api.DeliveryOf))
	return nil
}

func (s *Server) retryDelivery(w http.ResponseWriter, r *http.Request) error {
	v := mux.Vars(r)
	if err := s.db.RetryDelivery(r.Context(), appRef(r), v["webhookId"], v["deliveryId"]); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.Success{Success: true})
	return nil
}
