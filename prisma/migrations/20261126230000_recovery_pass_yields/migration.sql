-- A payment claimed by a recovery pass (lib/payments/recovery.ts: holder 'recovery:<process>')
-- is only being looked up on the chain; the payer presenting the same payment meanwhile
-- holds the signed payment itself and takes the row over at once instead of being told
-- "in progress" for the pass's lease. The pass writes its verdict only while the row is
-- still its own (holder unchanged), so a takeover makes that write a no-op.
CREATE OR REPLACE FUNCTION "x402_seen_outcome"(r "payments", p_network TEXT, p_reference TEXT, p_identity TEXT) RETURNS TEXT
LANGUAGE sql STABLE AS $$
  SELECT CASE
    WHEN r.network <> p_network OR r.reference <> p_reference OR (r.identity IS NOT NULL AND r.identity IS DISTINCT FROM p_identity) THEN 'conflict'
    WHEN r.status IN ('settled', 'broadcast') AND r.response IS NOT NULL THEN 'served'
    WHEN r.status IN ('unknown', 'landed')
      OR (r.status IN ('pending', 'pending_optimistic', 'sent')
          AND (COALESCE(r.lease_until, r.updated_at + interval '10 minutes') < now() OR r.holder LIKE 'recovery:%')) THEN 'reclaimable'
    WHEN r.status IN ('pending', 'pending_optimistic', 'sent') THEN 'in_progress'
    ELSE 'done'
  END
$$;
