-- A payer's payments in flight counted against its balance (issue 30: a payer must never
-- make the service pay fees for transfers that must fail). Every paid call's lock now
-- returns `payer_in_flight`, the value of the payer's other payments that may still move
-- its funds: held by a live call (pending, pending_optimistic: lease not run out), sent,
-- or delivered and not yet confirmed (broadcast). The caller compares it with the balance
-- only when it is not zero (lib/payments/x402/hold.ts), so a payer's sequential calls pay
-- nothing for it. Read under an advisory lock on the payer, taken before the network's
-- optimistic lock, so concurrent calls of one payer on any instance see each other.
--
-- One partial index serves both sums (this payer's rows in flight; the optimistic ones
-- are a subset), replacing payments_in_flight_idx.
CREATE INDEX IF NOT EXISTS "payments_payer_in_flight_idx" ON "payments" ("network", "payer") WHERE "status" IN ('pending', 'pending_optimistic', 'sent', 'broadcast');
DROP INDEX IF EXISTS "payments_in_flight_idx";

DROP FUNCTION IF EXISTS "x402_lock_payment_taking_nonce"(TEXT, TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, DOUBLE PRECISION, TEXT, DOUBLE PRECISION, TEXT, TEXT, BIGINT, DOUBLE PRECISION, DOUBLE PRECISION, TEXT, BIGINT, BIGINT, TEXT, DOUBLE PRECISION, DOUBLE PRECISION);
DROP FUNCTION IF EXISTS "x402_lock_payment"(TEXT, TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, DOUBLE PRECISION, TEXT, DOUBLE PRECISION, TEXT, TEXT, BIGINT, DOUBLE PRECISION, DOUBLE PRECISION);

-- As in 20261126190000_payment_leases_and_answers, with payer_in_flight.
CREATE FUNCTION "x402_lock_payment"(
  p_id TEXT, p_scheme TEXT, p_network TEXT, p_reference TEXT, p_payer TEXT, p_amount BIGINT,
  p_asset TEXT, p_pay_to TEXT, p_product TEXT, p_surface TEXT,
  p_cap BIGINT, p_payload TEXT, p_reservation_seconds DOUBLE PRECISION,
  p_holder TEXT, p_lease_seconds DOUBLE PRECISION, p_identity TEXT, p_idem TEXT,
  p_service_cap BIGINT, p_loss_window_seconds DOUBLE PRECISION, p_expires_at DOUBLE PRECISION
) RETURNS TABLE (
  outcome TEXT, reserved BOOLEAN, failed_id TEXT, failed_tx TEXT,
  row_id TEXT, row_status TEXT, row_product TEXT, row_tx TEXT, row_error TEXT, row_created DOUBLE PRECISION,
  response TEXT, lease_ms INTEGER, payer_in_flight BIGINT
)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_room BOOLEAN := false;
  v_failed_id TEXT;
  v_failed_tx TEXT;
  r "payments"%ROWTYPE;
BEGIN
  reserved := false;
  payer_in_flight := 0;
  IF p_payer IS NOT NULL THEN
    -- The payer's payments in flight, read under a lock on the payer (taken before the
    -- network's, always in that order): concurrent calls of one payer see each other.
    PERFORM pg_advisory_xact_lock(hashtextextended('payer:' || p_network || ':' || p_payer, 0));
    SELECT COALESCE(sum(amount_atomic), 0) INTO payer_in_flight FROM "payments"
     WHERE network = p_network AND payer = p_payer AND status IN ('pending', 'pending_optimistic', 'sent', 'broadcast')
       AND (status IN ('sent', 'broadcast') OR lease_until > now());
  END IF;
  IF p_cap IS NOT NULL AND p_payer IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(hashtextextended('optimistic:' || p_network, 0));
    -- The payer's latest optimistic payment that failed after delivery, unless a payment of
    -- the payer settled in confirmed mode since.
    SELECT f.id, f.tx_hash INTO v_failed_id, v_failed_tx FROM "payments" f
     WHERE f.network = p_network AND f.payer = p_payer AND f.status = 'optimistic_failed'
       AND NOT EXISTS (SELECT 1 FROM "payments" p WHERE p.network = p_network AND p.payer = p_payer
                        AND p.status = 'settled' AND NOT p.optimistic AND p.updated_at > f.updated_at)
     ORDER BY f.updated_at DESC LIMIT 1;
    IF v_failed_id IS NULL THEN
      -- The payer's value delivered and unconfirmed, or reserved by a call under way (a
      -- reservation older than p_reservation_seconds belongs to a process that died mid-call).
      SELECT COALESCE(sum(amount_atomic), 0) + p_amount <= p_cap INTO v_room FROM "payments"
       WHERE network = p_network AND payer = p_payer AND status IN ('broadcast', 'pending_optimistic')
         AND (status = 'broadcast' OR updated_at > now() - make_interval(secs => p_reservation_seconds));
      IF v_room AND p_service_cap IS NOT NULL THEN
        -- The same across every payer, plus what optimistic payments lost lately.
        SELECT COALESCE((SELECT sum(amount_atomic) FROM "payments"
                          WHERE network = p_network AND status IN ('broadcast', 'pending_optimistic')
                            AND (status = 'broadcast' OR updated_at > now() - make_interval(secs => p_reservation_seconds))), 0)
             + COALESCE((SELECT sum(amount_atomic) FROM "payments"
                          WHERE status = 'optimistic_failed' AND network = p_network
                            AND updated_at > now() - make_interval(secs => p_loss_window_seconds)), 0)
             + p_amount <= p_service_cap INTO v_room;
      END IF;
    END IF;
  END IF;
  failed_id := v_failed_id;
  failed_tx := v_failed_tx;
  INSERT INTO "payments" (id, scheme, network, reference, payer, amount_atomic, asset, pay_to, product, surface, status,
                          optimistic, settlement_payload, updated_at, holder, lease_until, identity, idempotency_key, expires_at)
  VALUES (p_id, p_scheme, p_network, p_reference, p_payer, p_amount, p_asset, p_pay_to, p_product, p_surface,
          CASE WHEN v_room THEN 'pending_optimistic' ELSE 'pending' END, v_room, CASE WHEN v_room THEN p_payload END, now(),
          p_holder, now() + make_interval(secs => p_lease_seconds), p_identity, p_idem, to_timestamp(p_expires_at))
  ON CONFLICT DO NOTHING;
  IF FOUND THEN
    outcome := 'locked';
    reserved := v_room;
    row_id := p_id;
    RETURN NEXT;
    RETURN;
  END IF;
  -- Seen before: this payment's row (by its reference), else the row holding its payment identifier.
  SELECT * INTO r FROM "payments" x
   WHERE (x.network = p_network AND x.reference = p_reference) OR (p_idem IS NOT NULL AND x.idempotency_key = p_idem)
   ORDER BY (x.network = p_network AND x.reference = p_reference) DESC LIMIT 1 FOR UPDATE;
  IF NOT FOUND THEN
    -- Deleted between the insert and this read (its call failed and released it): try again.
    outcome := 'retry';
    RETURN NEXT;
    RETURN;
  END IF;
  row_id := r.id;
  row_status := r.status;
  row_product := r.product;
  row_tx := r.tx_hash;
  row_error := r.error;
  row_created := extract(epoch FROM r.created_at);
  outcome := "x402_seen_outcome"(r, p_network, p_reference, p_identity);
  IF outcome = 'served' THEN
    response := r.response;
  ELSIF outcome = 'reclaimable' THEN
    -- Its holder is gone, or it left the outcome to the chain: this call takes it over (and
    -- settles it in confirmed mode: an optimistic reservation of a dead call is dropped).
    UPDATE "payments" SET status = 'pending', holder = p_holder, lease_until = now() + make_interval(secs => p_lease_seconds),
                          optimistic = false, settlement_payload = NULL, updated_at = now(),
                          identity = COALESCE(identity, p_identity)
     WHERE id = r.id;
    outcome := 'reclaimed';
  ELSIF outcome = 'in_progress' THEN
    lease_ms := greatest(0, ceil(extract(epoch FROM COALESCE(r.lease_until, r.updated_at + interval '10 minutes') - now()) * 1000))::int;
  END IF;
  RETURN NEXT;
END
$$;

-- The same, and the broadcast's nonce when the lock reserved a share of the optimistic
-- cap (see 20261125000000_nonce_take_in_lock).
CREATE FUNCTION "x402_lock_payment_taking_nonce"(
  p_id TEXT, p_scheme TEXT, p_network TEXT, p_reference TEXT, p_payer TEXT, p_amount BIGINT,
  p_asset TEXT, p_pay_to TEXT, p_product TEXT, p_surface TEXT,
  p_cap BIGINT, p_payload TEXT, p_reservation_seconds DOUBLE PRECISION,
  p_holder TEXT, p_lease_seconds DOUBLE PRECISION, p_identity TEXT, p_idem TEXT,
  p_service_cap BIGINT, p_loss_window_seconds DOUBLE PRECISION, p_expires_at DOUBLE PRECISION,
  p_address TEXT, p_pending BIGINT, p_latest BIGINT, p_token TEXT,
  p_expiry_seconds DOUBLE PRECISION, p_grace_seconds DOUBLE PRECISION
) RETURNS TABLE (
  outcome TEXT, reserved BOOLEAN, failed_id TEXT, failed_tx TEXT,
  row_id TEXT, row_status TEXT, row_product TEXT, row_tx TEXT, row_error TEXT, row_created DOUBLE PRECISION,
  response TEXT, lease_ms INTEGER, payer_in_flight BIGINT,
  nonce TEXT, need_fresh BOOLEAN, wait_ms INTEGER
)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  SELECT l.outcome, l.reserved, l.failed_id, l.failed_tx, l.row_id, l.row_status, l.row_product, l.row_tx, l.row_error, l.row_created, l.response, l.lease_ms, l.payer_in_flight
    INTO outcome, reserved, failed_id, failed_tx, row_id, row_status, row_product, row_tx, row_error, row_created, response, lease_ms, payer_in_flight
    FROM "x402_lock_payment"(p_id, p_scheme, p_network, p_reference, p_payer, p_amount, p_asset, p_pay_to,
                             p_product, p_surface, p_cap, p_payload, p_reservation_seconds,
                             p_holder, p_lease_seconds, p_identity, p_idem, p_service_cap, p_loss_window_seconds, p_expires_at) l;
  -- The broadcast's nonce is taken here only when nothing else of the payer is in flight:
  -- otherwise its funds are checked first (hold.ts, fundsCover) and a refusal there would
  -- hand back a nonce other sends have passed, leaving a gap the key fills at its own cost.
  IF reserved AND payer_in_flight = 0 THEN
    SELECT t.nonce, t.need_fresh, t.wait_ms INTO nonce, need_fresh, wait_ms
      FROM "evm_take_nonce"(p_address, p_pending, p_latest, false, p_token, p_expiry_seconds, p_grace_seconds, false) t;
  END IF;
  RETURN NEXT;
END
$$;
