-- A paid call's lock and, when it may be delivered in optimistic mode, its share of the
-- payer's optimistic cap, in one round trip (lib/payments/ledger.ts, lockPayment): the
-- payment row is inserted (the replay guard: unique network + reference), already as
-- `pending_optimistic` with the signed payment when the payer is in good standing and its
-- value in flight leaves room. `p_cap` NULL: a plain lock.
--
-- Concurrent calls of one payer never pass the cap together: the standing and the value in
-- flight are read under a transaction-scoped advisory lock on the payer, and each statement
-- of this (VOLATILE) function reads with a fresh snapshot, so it sees the reservations that
-- earlier holders of the lock committed while it waited.
CREATE OR REPLACE FUNCTION "x402_lock_payment"(
  p_id TEXT, p_scheme TEXT, p_network TEXT, p_reference TEXT, p_payer TEXT, p_amount BIGINT,
  p_asset TEXT, p_pay_to TEXT, p_product TEXT, p_surface TEXT,
  p_cap BIGINT, p_payload TEXT, p_reservation_seconds DOUBLE PRECISION
) RETURNS TABLE (locked BOOLEAN, reserved BOOLEAN, failed_id TEXT, failed_tx TEXT)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  v_room BOOLEAN := false;
  v_failed_id TEXT;
  v_failed_tx TEXT;
BEGIN
  IF p_cap IS NOT NULL AND p_payer IS NOT NULL THEN
    PERFORM pg_advisory_xact_lock(hashtextextended('optimistic:' || p_network || ':' || p_payer, 0));
    -- The payer's latest optimistic payment that failed after delivery, unless a payment of
    -- the payer settled in confirmed mode since.
    SELECT f.id, f.tx_hash INTO v_failed_id, v_failed_tx FROM "payments" f
     WHERE f.network = p_network AND f.payer = p_payer AND f.status = 'optimistic_failed'
       AND NOT EXISTS (SELECT 1 FROM "payments" p WHERE p.network = p_network AND p.payer = p_payer
                        AND p.status = 'settled' AND NOT p.optimistic AND p.updated_at > f.updated_at)
     ORDER BY f.updated_at DESC LIMIT 1;
    IF v_failed_id IS NULL THEN
      -- Delivered and unconfirmed, or reserved by a call under way (a reservation older than
      -- p_reservation_seconds belongs to a process that died mid-call).
      SELECT COALESCE(sum(amount_atomic), 0) + p_amount <= p_cap INTO v_room FROM "payments"
       WHERE network = p_network AND payer = p_payer
         AND (status = 'broadcast' OR (status = 'pending_optimistic' AND updated_at > now() - make_interval(secs => p_reservation_seconds)));
    END IF;
  END IF;
  INSERT INTO "payments" (id, scheme, network, reference, payer, amount_atomic, asset, pay_to, product, surface, status, optimistic, settlement_payload, updated_at)
  VALUES (p_id, p_scheme, p_network, p_reference, p_payer, p_amount, p_asset, p_pay_to, p_product, p_surface,
          CASE WHEN v_room THEN 'pending_optimistic' ELSE 'pending' END, v_room, CASE WHEN v_room THEN p_payload END, now())
  ON CONFLICT (network, reference) DO NOTHING;
  locked := FOUND;
  reserved := FOUND AND v_room;
  failed_id := v_failed_id;
  failed_tx := v_failed_tx;
  RETURN NEXT;
END
$$;
