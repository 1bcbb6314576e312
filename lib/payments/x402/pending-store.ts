/**
 * x402's PendingSettlementStore in the database every instance shares: when the official
 * EVM scheme broadcast a settlement but could not confirm it in time, it records the
 * transaction under the payment's signature and answers `settlement_pending`; the settle
 * retried for the same payment (the resource server's second ask, or the payer presenting
 * the payment again on any instance) then reconciles against that transaction instead of
 * verifying and sending a second one. The default in-memory store only helps when the
 * retry lands on the same process.
 */
import type { PendingSettlementStore } from "@x402/core/facilitator";
import { PENDING_SETTLEMENT_TTL_MS } from "@x402/core/facilitator";
import { getDbHandle } from "@/lib/db/client";

/** Entries live as long as x402's own store keeps them. */
const TTL_SECONDS = PENDING_SETTLEMENT_TTL_MS / 1000;

export class DbPendingSettlements implements PendingSettlementStore {
  async get(key: string): Promise<string | undefined> {
    const h = await getDbHandle();
    const rows = await h.query<{ tx_hash: string }>(
      `SELECT tx_hash FROM x402_pending_settlements WHERE key = $1 AND created_at > now() - make_interval(secs => $2::double precision)`,
      [key, TTL_SECONDS],
    );
    return rows[0]?.tx_hash;
  }

  async set(key: string, txHash: string): Promise<void> {
    const h = await getDbHandle();
    await h.query(
      `WITH expired AS (DELETE FROM x402_pending_settlements WHERE created_at < now() - make_interval(secs => $3::double precision))
       INSERT INTO x402_pending_settlements (key, tx_hash, created_at) VALUES ($1, $2, now())
       ON CONFLICT (key) DO UPDATE SET tx_hash = EXCLUDED.tx_hash, created_at = now()`,
      [key, txHash, TTL_SECONDS],
    );
  }

  async delete(key: string): Promise<void> {
    const h = await getDbHandle();
    await h.query(`DELETE FROM x402_pending_settlements WHERE key = $1`, [key]);
  }
}
