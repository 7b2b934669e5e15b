package store

import (
	"encoding/json"
	"time"
)

// EventBody renders the payload of ev's deliveries once (docs/design.md
// §9), at the time of its audit entry auditID: the application and, for
// an entry of one environment, that environment's name, the snapshot of
// the object ev concerns and its extra data, all read from src as they
// stand in the change's transaction.
func EventBody(ev AuditEvent, auditID string, src SnapshotSource, now time.Time) ([]byte, error) {
	data := EventData{AuditID: auditID}
	if ev.AppID != "" {
		appID := ev.AppID
		data.ApplicationID = &appID
		a, err := src.Application(ev.AppID)
		if err != nil {
			return nil, err
		}
		if a != nil && len(ev.EnvIDs) == 1 {
			if env := a.EnvByID(ev.EnvIDs[0]); env != nil {
				name := env.Name
				data.Environment = &name
			}
		}
	}
	kind, obj, err := Snapshot(ev.Target, src, now)
	if err != nil {
		return nil, err
	}
	data.Kind, data.Object = kind, obj
	if data.Extra, err = EventExtra(ev.Event, ev.Metadata, src); err != nil {
		return nil, err
	}
	return json.Marshal(EventPayload{Type: ev.Event, Timestamp: now.UTC(), Data: data})
}
