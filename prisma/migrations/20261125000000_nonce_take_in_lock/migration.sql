-- The facilitator key's nonce take as a function (lib/payments/x402/nonces.ts, take()), so
-- that an optimistic payment's lock can take its broadcast's nonce in the same round trip
-- (lib/payments/ledger.ts, lockPayment): one statement fewer on the paid call's path.
--
-- evm_take_nonce: $1 address, $2 the node's pending nonce, $3 its latest, $4 the chain read
-- is fresh, $5 the new holder's token, $6 lease expiry (s), $7 release grace (s), $8 may
-- wait. The body is the statement take() ran before, unchanged (see its comment there), in
-- PL/pgSQL so that its plan is cached per connection as the statement's was (a SQL function
-- is planned again on every call).
CREATE OR REPLACE FUNCTION "evm_take_nonce"(
  p_address TEXT, p_pending BIGINT, p_latest BIGINT, p_fresh BOOLEAN, p_token TEXT,
  p_expiry_seconds DOUBLE PRECISION, p_grace_seconds DOUBLE PRECISION, p_may_wait BOOLEAN
) RETURNS TABLE (nonce TEXT, need_fresh BOOLEAN, wait_ms INTEGER)
LANGUAGE plpgsql VOLATILE ROWS 1 AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY WITH mined AS (
    DELETE FROM "evm_nonce_leases" WHERE address = $1 AND nonce < $3
  ), reusable AS (
    SELECT nonce FROM "evm_nonce_leases" WHERE address = $1 AND nonce >= $2 AND
      (CASE WHEN $4
        THEN state = 'free' OR (nonce = $2 AND ((state = 'released' AND since < now() - make_interval(secs => $7))
                                             OR (state IN ('held', 'used') AND since < now() - make_interval(secs => $6))))
        ELSE state IN ('free', 'released') OR (state IN ('held', 'used') AND since < now() - make_interval(secs => $6)) END)
     ORDER BY nonce LIMIT 1
  ), claimed AS (
    UPDATE "evm_nonce_leases" SET state = 'held', token = $5, since = now()
     WHERE $4 AND address = $1 AND nonce = (SELECT nonce FROM reusable) AND
      (CASE WHEN $4
        THEN state = 'free' OR (nonce = $2 AND ((state = 'released' AND since < now() - make_interval(secs => $7))
                                             OR (state IN ('held', 'used') AND since < now() - make_interval(secs => $6))))
        ELSE state IN ('free', 'released') OR (state IN ('held', 'used') AND since < now() - make_interval(secs => $6)) END)
    RETURNING nonce
  ), young AS (
    SELECT ceil(extract(epoch FROM since + make_interval(secs => $7) - now()) * 1000) AS ms FROM "evm_nonce_leases"
     WHERE $4 AND $8 AND address = $1 AND nonce = $2 AND state = 'released' AND since >= now() - make_interval(secs => $7)
  ), counter AS (
    INSERT INTO "evm_sender_nonces" AS s (address, next_nonce, updated_at)
    SELECT $1, $2 + 1, now()
     WHERE NOT EXISTS (SELECT 1 FROM claimed) AND ($4 OR NOT EXISTS (SELECT 1 FROM reusable)) AND NOT EXISTS (SELECT 1 FROM young)
    ON CONFLICT (address) DO UPDATE SET next_nonce = GREATEST(s.next_nonce, $2) + 1, updated_at = now()
    RETURNING next_nonce - 1 AS nonce
  ), leased AS (
    INSERT INTO "evm_nonce_leases" (address, nonce, state, token, since) SELECT $1, nonce, 'held', $5, now() FROM counter
    ON CONFLICT (address, nonce) DO UPDATE SET state = 'held', token = $5, since = now()
  )
  SELECT (SELECT nonce::text FROM claimed UNION ALL SELECT nonce::text FROM counter LIMIT 1),
         (NOT $4 AND EXISTS (SELECT 1 FROM reusable)),
         (SELECT ms::int FROM young WHERE NOT EXISTS (SELECT 1 FROM claimed) LIMIT 1);
END
$$;

-- A paid call's lock (x402_lock_payment) and, when it reserved a share of the payer's
-- optimistic cap (so the call is delivered once its transfer is broadcast), the nonce of
-- that broadcast (evm_take_nonce), in one statement. Nothing is taken for a payment that
-- was not locked or reserved nothing: it settles in confirmed mode or not at all.
CREATE OR REPLACE FUNCTION "x402_lock_payment_taking_nonce"(
  p_id TEXT, p_scheme TEXT, p_network TEXT, p_reference TEXT, p_payer TEXT, p_amount BIGINT,
  p_asset TEXT, p_pay_to TEXT, p_product TEXT, p_surface TEXT,
  p_cap BIGINT, p_payload TEXT, p_reservation_seconds DOUBLE PRECISION,
  p_address TEXT, p_pending BIGINT, p_latest BIGINT, p_token TEXT,
  p_expiry_seconds DOUBLE PRECISION, p_grace_seconds DOUBLE PRECISION
) RETURNS TABLE (locked BOOLEAN, reserved BOOLEAN, failed_id TEXT, failed_tx TEXT, nonce TEXT, need_fresh BOOLEAN, wait_ms INTEGER)
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  SELECT l.locked, l.reserved, l.failed_id, l.failed_tx INTO locked, reserved, failed_id, failed_tx
    FROM "x402_lock_payment"(p_id, p_scheme, p_network, p_reference, p_payer, p_amount, p_asset, p_pay_to,
                             p_product, p_surface, p_cap, p_payload, p_reservation_seconds) l;
  IF reserved THEN
    -- Taken with the chain's last read, whatever its age (never fresh, never waiting): a
    -- reuse that needs a fresh read answers need_fresh and the caller takes on its own.
    SELECT t.nonce, t.need_fresh, t.wait_ms INTO nonce, need_fresh, wait_ms
      FROM "evm_take_nonce"(p_address, p_pending, p_latest, false, p_token, p_expiry_seconds, p_grace_seconds, false) t;
  END IF;
  RETURN NEXT;
END
$$;
