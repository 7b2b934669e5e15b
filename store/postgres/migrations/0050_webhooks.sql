-- The webhooks part (docs/design.md §12): what the outbox adds to the
-- tables of 0001.

-- claimed_seq orders the endpoints for the claim's round-robin: every claim
-- moves the endpoints it served behind the others, in the order it served
-- them, so the next claim (of any server) starts with those served least
-- recently.
ALTER TABLE webhooks ADD COLUMN claimed_seq bigint NOT NULL DEFAULT 0;
CREATE SEQUENCE webhook_claim_seq;

-- queued: a pending delivery waits in the queue, due at next_attempt_at.
-- A delivery of a disabled endpoint and a test ping are pending but not
-- queued: the first waits for the endpoint to be enabled, the second is
-- sent by the request that made it.
ALTER TABLE webhook_deliveries ADD COLUMN queued boolean NOT NULL DEFAULT true;
CREATE INDEX webhook_deliveries_queued ON webhook_deliveries (next_attempt_at) WHERE status = 'pending' AND queued;
CREATE INDEX webhook_deliveries_hook_queued ON webhook_deliveries (webhook_id, next_attempt_at, id) WHERE status = 'pending' AND queued;
-- The live leases, read by every claim for the bounds; RecordAttempt clears
-- a lease, so the index holds about the deliveries in flight.
CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (leased_until) WHERE leased_until IS NOT NULL;
-- The deliveries that share an event's payload, to drop it with the last.
CREATE INDEX webhook_deliveries_body_of ON webhook_deliveries (body_of) WHERE body_of IS NOT NULL;
