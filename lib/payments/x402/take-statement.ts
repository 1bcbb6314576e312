/**
 * The shapes of a nonce take's statement (lib/payments/x402/nonces.ts, TAKE), apart from
 * the allocator: the ledger runs a take with a write of its own in one statement
 * (lib/payments/ledger.ts, takeMarkingSent), and the allocator imports the ledger's lock
 * types, so these live where neither imports the other.
 */
/** What a nonce take answers (nonces.ts, TAKE). */
export interface TakeRow {
  nonce: string | null;
  need_fresh: boolean | null;
  wait_ms: number | null;
}

/** TAKE's arguments (nonces.ts), $1 to $8. */
export type TakeArgs = readonly [address: string, pending: number, latest: number, fresh: boolean, token: string, expirySeconds: number, graceSeconds: number, mayWait: boolean];

/**
 * Runs a take's first statement in place of TAKE: the same take with another write of the
 * caller's in the same statement (lib/payments/ledger.ts, takeMarkingSent). It must answer
 * what TAKE answers for these arguments.
 */
export type TakeStatement = (args: TakeArgs) => Promise<TakeRow[]>;
