-- The optimistic lock's nonce take for a payer with other payments in flight: taken in the
-- lock's statement too when the payer's balance, read by the caller while the payment was
-- verified (p_balance, NULL: not read; p_balance_at: when that read was sent, epoch
-- seconds), covers those payments and this one, the very check hold.ts (fundsCover) makes
-- before anything is sent, so such a take is not handed back for lack of funds. Without it
-- an agent paying faster than blocks come took its nonce after the handler (one more
-- database round trip, and a signature and maybe a fee read there).
--
-- The balance was read before this statement: a payment of the payer that settled in
-- between has left the rows in flight while the balance still holds its amount. So, with a
-- balance given, the payer's payments settled (or found transferred) since the read was
-- sent, less 2 s for the clocks of the instances and the database, still count as in flight
-- here, and payer_in_flight answers them too, so fundsCover judges the same sum. Counting
-- one twice only makes the caller read both again (fundsCover); missing one would let a
-- transfer the balance cannot cover be sent at our expense.
--
-- A new overload: instances still running the 26-argument function keep calling it during
-- a rolling deploy.
CREATE OR REPLACE FUNCTION "x402_lock_payment_taking_nonce"(
  p_id TEXT, p_scheme TEXT, p_network TEXT, p_reference TEXT, p_payer TEXT, p_amount BIGINT,
  p_asset TEXT, p_pay_to TEXT, p_product TEXT, p_surface TEXT,
  p_cap BIGINT, p_payload TEXT, p_reservation_seconds DOUBLE PRECISION,
  p_holder TEXT, p_lease_seconds DOUBLE PRECISION, p_identity TEXT, p_idem TEXT,
  p_service_cap BIGINT, p_loss_window_seconds DOUBLE PRECISION, p_expires_at DOUBLE PRECISION,
  p_address TEXT, p_pending BIGINT, p_latest BIGINT, p_token TEXT,
  p_expiry_seconds DOUBLE PRECISION, p_grace_seconds DOUBLE PRECISION, p_balance BIGINT,
  p_balance_at DOUBLE PRECISION
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
  IF p_balance IS NOT NULL AND p_payer IS NOT NULL AND p_balance_at IS NOT NULL THEN
    payer_in_flight := payer_in_flight + COALESCE((SELECT sum(amount_atomic) FROM "payments"
      WHERE network = p_network AND payer = p_payer AND status IN ('settled', 'landed')
        AND updated_at > to_timestamp(p_balance_at) - interval '2 seconds'), 0);
  END IF;
  IF reserved AND (payer_in_flight = 0 OR (p_balance IS NOT NULL AND payer_in_flight + p_amount <= p_balance)) THEN
    SELECT t.nonce, t.need_fresh, t.wait_ms INTO nonce, need_fresh, wait_ms
      FROM "evm_take_nonce"(p_address, p_pending, p_latest, false, p_token, p_expiry_seconds, p_grace_seconds, false) t;
  END IF;
  RETURN NEXT;
END
$$;
