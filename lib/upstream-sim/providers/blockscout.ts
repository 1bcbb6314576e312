/**
 * Simulated Blockscout (Base) `/api/v2/addresses/{addr}/counters`, consistent with the
 * simulated Base node: transactions = sent (nonce) + incoming, counts as strings.
 */
import type { SimProvider } from "@/lib/upstream-sim/provider";
import { simAccount } from "@/lib/upstream-sim/providers/evm-rpc";
import { hash32 } from "@/lib/upstream-sim/world";

const COUNTERS_RE = /^\/api\/v2\/addresses\/([^/]+)\/counters\/?$/;

export const blockscoutSim: SimProvider = {
  name: "blockscout",
  envVar: "BLOCKSCOUT_BASE_URL",
  handle(req, world) {
    const m = COUNTERS_RE.exec(req.path);
    if (!m) return null;
    const addr = decodeURIComponent(m[1]!);
    if (!/^0x[0-9a-fA-F]{40}$/.test(addr)) return { status: 422, body: { message: "Invalid parameter(s)", errors: { address_hash_param: ["Invalid address hash"] } } };
    const acct = simAccount(world, "base", addr);
    const sent = acct.kind === "eoa" ? acct.nonce : 0;
    const txs = sent + acct.incomingTxs;
    const gasPerTx = 45_000 + (hash32(`${world.seed}:gas:${addr.toLowerCase()}`) % 120_000);
    return {
      body: {
        transactions_count: String(txs),
        token_transfers_count: String(acct.tokenTransfers),
        gas_usage_count: String(sent * gasPerTx),
        validations_count: "0",
      },
    };
  },
};
