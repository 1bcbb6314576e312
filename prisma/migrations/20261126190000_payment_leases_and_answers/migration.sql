-- Charged means delivered, whatever dies (lib/payments/ledger.ts): a payment row is held by
-- a lease its process renews, and it keeps the answer that was sent for it.
--
-- holder, lease_until: the process holding a payment in flight (pending, pending_optimistic,
--   sent) and until when; a row whose lease ran out belongs to a dead (or cut-off) process
--   and the next presentation of the same payment takes it over. Rows of earlier versions
--   have no lease: they count as held for 10 minutes after their last update, as before.
-- identity: SHA-256 of the payment's canonical form (what the chain settles) and of its
--   payment identifier (x402 `payment-identifier` extension), so a presentation of the same
--   reference with another payload is told apart from the same payment presented again.
-- idempotency_key: SHA-256 of the payment identifier (never the id itself: it is the
--   payer's secret that seals the bundle token kept in the answer).
-- response, served_at: the answer (the product's output and the receipt; secrets sealed)
--   and when it was stored, written in the same statement as the settlement's record.
-- expires_at: when the payment can no longer be used (an EIP-3009 authorization's
--   validBefore, a Stellar transaction's maxTime, a Solana blockhash's reach): a payment
--   never transferred is void after it, which reconciliation reads from the chain.
ALTER TABLE "payments" ADD COLUMN "holder" TEXT,
ADD COLUMN "expires_at" TIMESTAMPTZ(3),
ADD COLUMN "lease_until" TIMESTAMPTZ(3),
ADD COLUMN "identity" TEXT,
ADD COLUMN "idempotency_key" TEXT,
ADD COLUMN "response" TEXT,
ADD COLUMN "served_at" TIMESTAMPTZ(3);

CREATE UNIQUE INDEX "payments_idempotency_key_key" ON "payments"("idempotency_key");

-- The sweep for payments whose holder is gone (lease run out).
CREATE INDEX "payments_lease_until_idx" ON "payments"("lease_until") WHERE "status" IN ('pending', 'pending_optimistic', 'sent');

-- One bundle per payment: a purchase served again after a lost answer finds its bundle.
CREATE UNIQUE INDEX "bundles_payment_id_key" ON "bundles"("payment_id");

-- The payment lock (see 20261125120000_payments_in_flight_index for the optimistic part),
-- now also:
-- * holding the new row by a lease (p_holder, p_lease_seconds) and recording its identity;
-- * a service-wide cap on optimistic value (p_service_cap): value delivered and not yet
--   confirmed, reserved by calls under way, or lost to optimistic payments that failed in
--   the last p_loss_window_seconds, across every payer and instance; beyond it, calls
--   settle in confirmed mode. Reservations are taken under one advisory lock per network,
--   so concurrent calls on any instance never pass either cap together;
-- * answering a presentation of a payment already seen in the same round trip: `outcome`
--   says what the row is ('locked': new; 'reclaimed': taken over from a dead holder or an
--   unknown outcome; 'served': answered before, `response` holds the answer; 'in_progress':
--   held by a live process, `lease_ms` left; 'conflict': the same reference or payment
--   identifier with another payload; 'done': settled, failed or expired for good).
DROP FUNCTION IF EXISTS "x402_lock_payment_taking_nonce"(TEXT, TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, DOUBLE PRECISION, TEXT, BIGINT, BIGINT, TEXT, DOUBLE PRECISION, DOUBLE PRECISION);
DROP FUNCTION IF EXISTS "x402_lock_payment"(TEXT, TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, TEXT, TEXT, TEXT, BIGINT, TEXT, DOUBLE PRECISION);

-- What a payment seen before is to a new presentation of it (lockPayment and the lookup
-- after a refusal before the lock, lib/payments/ledger.ts): 'conflict' (another payload
-- with its reference or payment identifier), 'served' (answered; its answer is kept),
-- 'reclaimable' (its holder is gone, or it left the outcome to the chain), 'in_progress'
-- (held by a live process) or 'done' (settled, failed or expired for good).
CREATE FUNCTION "x402_seen_outcome"(r "payments", p_network TEXT, p_reference TEXT, p_identity TEXT) RETURNS TEXT
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN r.network <> p_network OR r.reference <> p_reference OR (r.identity IS NOT NULL AND r.identity IS DISTINCT FROM p_identity) THEN 'conflict'
    WHEN r.status IN ('settled', 'broadcast') AND r.response IS NOT NULL THEN 'served'
    WHEN r.status IN ('unknown', 'landed')
      OR (r.status IN ('pending', 'pending_optimistic', 'sent') AND COALESCE(r.lease_until, r.updated_at + interval '10 minutes') < now()) THEN 'reclaimable'
    WHEN r.status IN ('pending', 'pending_optimistic', 'sent') THEN 'in_progress'
    ELSE 'done'
  END
$$;

CREATE FUNCTION "x402_lock_payment"(
  p_id TEXT, p_scheme TEXT, p_network TEXT, p_reference TEXT, p_payer TEXT, p_amount BIGINT,
  p_asset TEXT, p_pay_to TEXT, p_product TEXT, p_surface TEXT,
  p_cap BIGINT, p_payload TEXT, p_reservation_seconds DOUBLE PRECISION,
  p_holder TEXT, p_lease_seconds DOUBLE PRECISION, p_identity TEXT, p_idem TEXT,
  p_service_cap BIGINT, p_loss_window_seconds DOUBLE PRECISION, p_expires_at DOUBLE PRECISION
) RETURNS TABLE (
  outcome TEXT, reserved BOOLEAN, failed_id TEXT, failed_tx TEXT,
  row_id TEXT, row_status TEXT, row_product TEXT, row_tx TEXT, row_error TEXT, row_created DOUBLE PRECISION,
  response TEXT, lease_ms INTEGER
)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_room BOOLEAN := false;
  v_failed_id TEXT;
  v_failed_tx TEXT;
  r "payments"%ROWTYPE;
BEGIN
  reserved := false;
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
  response TEXT, lease_ms INTEGER,
  nonce TEXT, need_fresh BOOLEAN, wait_ms INTEGER
)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  SELECT l.outcome, l.reserved, l.failed_id, l.failed_tx, l.row_id, l.row_status, l.row_product, l.row_tx, l.row_error, l.row_created, l.response, l.lease_ms
    INTO outcome, reserved, failed_id, failed_tx, row_id, row_status, row_product, row_tx, row_error, row_created, response, lease_ms
    FROM "x402_lock_payment"(p_id, p_scheme, p_network, p_reference, p_payer, p_amount, p_asset, p_pay_to,
                             p_product, p_surface, p_cap, p_payload, p_reservation_seconds,
                             p_holder, p_lease_seconds, p_identity, p_idem, p_service_cap, p_loss_window_seconds, p_expires_at) l;
  IF reserved THEN
    SELECT t.nonce, t.need_fresh, t.wait_ms INTO nonce, need_fresh, wait_ms
      FROM "evm_take_nonce"(p_address, p_pending, p_latest, false, p_token, p_expiry_seconds, p_grace_seconds, false) t;
  END IF;
  RETURN NEXT;
END
$$;
