// GET /v1/wallet — Base wallet intel: basename, contract check, nonce, ETH/USDC balances, activity.
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import type { Address } from "viem";
import { defineProduct } from "@/lib/catalog/types";
import { addressCounters } from "@/lib/market/sources/blockscout";
import { BASE_USDC, baseRpc, basename, erc20BalanceOf, getBalance, getCode, transactionCount } from "@/lib/market/sources/evm-rpc";
import { evmAddressParam } from "@/lib/catalog/products/onchain/params";
import { sig, unitsToNumber } from "@/lib/catalog/products/onchain/format";

/** EIP-7702 delegation designator: code 0xef0100 ‖ 20-byte delegate address. */
const DELEGATION_PREFIX = "0xef0100";

const NONCE_NOTE =
  "tx_count is eth_getTransactionCount (the nonce): it counts only transactions this address sent as an EOA. For contracts, including ERC-4337 smart wallets, it counts contract creations and says nothing about activity; use total_transactions (Blockscout) for that.";

type ActivityLevel = "none" | "light" | "active" | "heavy";

function activityLevel(n: number): ActivityLevel {
  if (n === 0) return "none";
  if (n < 10) return "light";
  if (n < 1000) return "active";
  return "heavy";
}

export const wallet = defineProduct({
  id: "wallet",
  path: "/v1/wallet",
  title: "Base wallet intel",
  description:
    "Intel on an address on Base: its primary basename (ENSIP-19 L2ReverseRegistrar, falling back to the legacy Basenames L2Resolver record; not forward-verified), whether it is a contract (or an EIP-7702 delegated EOA), its nonce (transactions sent as an EOA), ETH and USDC balances, Blockscout activity counters (null with a note when Blockscout is unavailable) and an activity summary. `address` is a 0x address in any letter case; the response echoes its EIP-55 checksum form.",
  tags: ["wallet", "base", "onchain", "identity"],
  kind: "data",
  httpPrice: "0.02",
  tool: { name: "get_base_wallet_intel", price: "0.02", label: "Base wallet intel" },
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {
    address: evmAddressParam("EVM address (0x + 40 hex characters, any letter case); normalised to its EIP-55 checksum form."),
  },
  output: z.object({
    address: z.string().describe("The address in EIP-55 checksum form"),
    chain: z.literal("base").describe("Chain queried"),
    chain_id: z.literal(8453).describe("EVM chain id"),
    basename: z.string().nullable().describe("Primary basename (e.g. alice.base.eth); null when none is set or the lookup failed"),
    basename_source: z.enum(["l2_reverse_registrar", "l2_resolver_legacy"]).nullable().describe("Contract holding the reverse record: the ENSIP-19 L2ReverseRegistrar or the legacy L2Resolver"),
    is_contract: z.boolean().describe("True when the address has code (a contract or smart wallet; EIP-7702 delegated EOAs count as false)"),
    account_type: z.enum(["eoa", "contract", "eip7702_delegated_eoa"]).describe("Kind of account, from eth_getCode"),
    tx_count: z.number().int().nonnegative().describe("Nonce (eth_getTransactionCount at latest): transactions sent by this address as an EOA"),
    tx_count_note: z.string().describe("What tx_count does and does not count"),
    eth_balance: z.number().nonnegative().describe("Native ETH balance on Base, ETH"),
    eth_balance_wei: z.string().describe("Native ETH balance, wei (exact, decimal string)"),
    usdc_balance: z.number().nonnegative().describe("Native USDC balance (0x8335…2913), USDC (6 decimals)"),
    usdc_balance_units: z.string().describe("USDC balance in base units (exact, decimal string)"),
    total_transactions: z.number().int().nullable().describe("Transactions involving the address, sent or received (Blockscout); null when Blockscout is unavailable"),
    token_transfers: z.number().int().nullable().describe("Token transfers involving the address (Blockscout); null when unavailable"),
    gas_used: z.number().nullable().describe("Gas used by transactions the address sent (Blockscout); null when unavailable"),
    activity: z
      .object({
        level: z.enum(["none", "light", "active", "heavy"]).describe("none (0), light (<10), active (<1000) or heavy (≥1000) transactions"),
        transactions_basis: z.number().int().nonnegative().describe("Transaction count the level is based on: Blockscout's total when available, else the nonce"),
        summary: z.string().describe("One-sentence summary for humans and agents"),
      })
      .describe("Activity summary"),
    unavailable: z.array(z.string()).describe("Components that could not be fetched ('blockscout', 'basename'); their fields are null"),
    notes: z.array(z.string()).describe("Caveats, including which components are unavailable"),
    sources: z.array(z.string()).describe("Upstream providers used"),
    ts: z.string().describe("Time the response was computed (ISO 8601)"),
  }),
  example: {
    address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    chain: "base",
    chain_id: 8453,
    basename: "priya.base.eth",
    basename_source: "l2_resolver_legacy",
    is_contract: true,
    account_type: "contract",
    tx_count: 1,
    tx_count_note: "tx_count is eth_getTransactionCount (the nonce): it counts only transactions this address sent as an EOA. For contracts, including ERC-4337 smart wallets, it counts contract creations and says nothing about activity; use total_transactions (Blockscout) for that.",
    eth_balance: 0.0285314637101,
    eth_balance_wei: "28531463710123415",
    usdc_balance: 736498.615592,
    usdc_balance_units: "736498615592",
    total_transactions: 5,
    token_transfers: 5,
    gas_used: 0,
    activity: {
      level: "light",
      transactions_basis: 5,
      summary: "priya.base.eth (0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913) is a contract on Base with 5 transactions (1 sent), 0.02853 ETH and 736498.62 USDC; activity level: light.",
    },
    unavailable: [],
    notes: [],
    sources: ["base-rpc", "blockscout"],
    ts: "2026-11-26T19:18:58.853Z",
  },
  cacheTtlSeconds: 30,
  sources: ["base-rpc", "blockscout"],
  handler: async ({ address }, ctx) => {
    const a = address as Address;
    const [code, nonce, wei, usdc, name, counters] = await Promise.allSettled([
      getCode(baseRpc, a),
      transactionCount(baseRpc, a),
      getBalance(baseRpc, a),
      erc20BalanceOf(baseRpc, BASE_USDC, a),
      basename(a),
      addressCounters(a),
    ]);
    // The RPC facts are the product; basename and Blockscout are optional extras.
    for (const r of [code, nonce, wei, usdc]) if (r.status === "rejected") throw r.reason;
    const c = (code as PromiseFulfilledResult<`0x${string}`>).value;
    const n = Number((nonce as PromiseFulfilledResult<bigint>).value);
    const balWei = (wei as PromiseFulfilledResult<bigint>).value;
    const usdcUnits = (usdc as PromiseFulfilledResult<bigint>).value;
    const accountType: "eoa" | "contract" | "eip7702_delegated_eoa" = c === "0x" ? "eoa" : c.startsWith(DELEGATION_PREFIX) && c.length === 2 + 46 ? "eip7702_delegated_eoa" : "contract";

    const unavailable: string[] = [];
    const notes: string[] = [];
    const bn = name.status === "fulfilled" ? name.value : null;
    if (!bn) {
      unavailable.push("basename");
      notes.push("basename lookup failed; basename is null (unknown), not 'no name'");
    }
    const bc = counters.status === "fulfilled" ? counters.value : null;
    if (!bc) {
      unavailable.push("blockscout");
      notes.push("Blockscout counters are unavailable: total_transactions, token_transfers and gas_used are null");
    }
    const basis = bc ? Math.max(bc.transactions_count, n) : n;
    const level = activityLevel(basis);
    const eth = sig(unitsToNumber(balWei, 18), 12);
    const usdcAmount = unitsToNumber(usdcUnits, 6);
    const who = bn?.name ? `${bn.name} (${address})` : address;
    const kind = accountType === "contract" ? "contract" : accountType === "eoa" ? "EOA" : "EIP-7702 delegated EOA";
    const txText = bc ? `${bc.transactions_count} transactions (${n} sent)` : `${n} sent transactions (nonce)`;
    return {
      address,
      chain: "base" as const,
      chain_id: 8453 as const,
      basename: bn?.name ?? null,
      basename_source: bn?.source ?? null,
      is_contract: accountType === "contract",
      account_type: accountType,
      tx_count: n,
      tx_count_note: NONCE_NOTE,
      eth_balance: eth,
      eth_balance_wei: balWei.toString(),
      usdc_balance: usdcAmount,
      usdc_balance_units: usdcUnits.toString(),
      total_transactions: bc?.transactions_count ?? null,
      token_transfers: bc?.token_transfers_count ?? null,
      gas_used: bc?.gas_usage_count ?? null,
      activity: {
        level,
        transactions_basis: basis,
        summary: `${who} is a${kind === "EOA" || kind === "EIP-7702 delegated EOA" ? "n" : ""} ${kind} on Base with ${txText}, ${eth.toPrecision(4)} ETH and ${usdcAmount.toFixed(2)} USDC; activity level: ${level}.`,
      },
      unavailable,
      notes,
      sources: bc ? ["base-rpc", "blockscout"] : ["base-rpc"],
      ts: ctx.now.toISOString(),
    };
  },
});
