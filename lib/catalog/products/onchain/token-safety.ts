// GET /v1/token-safety — GoPlus token risk score 0-100, verdict and flags (EVM chains and Solana).
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { evmTokenSecurity, GOPLUS_EVM_CHAIN_IDS, solanaTokenSecurity, type GoplusSolanaRecord } from "@/lib/market/sources/goplus";
import { evmTokenRisk, solanaTokenRisk, goplusNumber, type EvmTokenRisk, type SolanaTokenRisk } from "@/lib/market/signals/token-safety";
import { checkAddressForChain, safetyChainParam, tokenAddressParam } from "@/lib/catalog/products/onchain/params";
import { dpOrNull } from "@/lib/catalog/products/onchain/format";

const flag = (d: string) => z.boolean().nullable().describe(`${d} (null = unknown or not applicable on this chain)`);

const Flags = z.object({
  honeypot: flag("EVM: buys succeed but sells fail"),
  cannot_sell_all: flag("EVM: holders cannot sell their whole balance"),
  mintable: flag("Supply can be increased (EVM is_mintable; Solana: mint authority still active)"),
  freeze_authority: flag("Solana: an authority can freeze token accounts"),
  owner_can_change_balance: flag("Owner / an authority can change holders' balances"),
  closed_source: flag("EVM: contract source is not verified"),
  proxy: flag("EVM: upgradeable proxy contract"),
  hidden_owner: flag("EVM: hidden owner"),
  can_take_back_ownership: flag("EVM: renounced ownership can be reclaimed"),
  transfer_pausable: flag("EVM: transfers can be paused"),
  blacklist: flag("EVM: owner can blacklist addresses"),
  high_buy_tax: flag("Buy tax (Solana: transfer fee) above 10%"),
  high_sell_tax: flag("Sell tax (Solana: transfer fee) above 10%"),
  tax_modifiable: flag("Tax / transfer fee can be changed by the owner"),
  non_transferable: flag("Solana: token cannot be transferred"),
  transfer_hook: flag("Solana: a transfer hook program can block transfers"),
  closable: flag("Solana: the mint can be closed"),
  metadata_mutable: flag("Solana: token metadata can be changed"),
  high_holder_concentration: flag("Top-10 holders own more than 50% of supply"),
  lp_mostly_unlocked: flag("Less than 50% of the liquidity-pool tokens are locked or burned"),
});
type FlagsOut = z.infer<typeof Flags>;
const NO_FLAGS: FlagsOut = Object.fromEntries(Object.keys(Flags.shape).map((k) => [k, null])) as FlagsOut;

const pct = (d: string) => z.number().min(0).nullable().describe(d);

function concentrationFlags(r: EvmTokenRisk | SolanaTokenRisk, lpPct: number | null) {
  return {
    high_holder_concentration: r.topHolderConcentrationPct === null ? null : r.topHolderConcentrationPct > 50,
    lp_mostly_unlocked: lpPct === null ? null : lpPct < 50,
  };
}

function evmFlags(r: EvmTokenRisk): FlagsOut {
  const f = r.flags;
  return {
    ...NO_FLAGS,
    honeypot: f.honeypot,
    cannot_sell_all: f.cannotSellAll,
    mintable: f.mintable,
    owner_can_change_balance: f.ownerCanChangeBalance,
    closed_source: f.closedSource,
    proxy: f.proxy,
    hidden_owner: f.hiddenOwner,
    can_take_back_ownership: f.canTakeBackOwnership,
    transfer_pausable: f.transferPausable,
    blacklist: f.blacklist,
    high_buy_tax: f.highBuyTax,
    high_sell_tax: f.highSellTax,
    tax_modifiable: f.slippageModifiable,
    ...concentrationFlags(r, r.lpLockedPct),
  };
}

function solanaFlags(r: SolanaTokenRisk, lpPct: number | null): FlagsOut {
  const f = r.flags;
  return {
    ...NO_FLAGS,
    mintable: f.mintAuthority,
    freeze_authority: f.freezeAuthority,
    owner_can_change_balance: f.ownerCanChangeBalance,
    high_buy_tax: f.highTransferFee,
    high_sell_tax: f.highTransferFee,
    tax_modifiable: f.transferFeeUpgradable,
    non_transferable: f.nonTransferable,
    transfer_hook: f.transferHook,
    closable: f.closable,
    metadata_mutable: f.metadataMutable,
    ...concentrationFlags(r, lpPct),
  };
}

/** Largest burned-LP share GoPlus reports in Solana `dex[]` (its LP holders carry no lock flag). */
function solanaBurnedLpPct(rec: GoplusSolanaRecord): number | null {
  const xs = (rec.dex ?? []).map((d) => d.burn_percent).filter((x): x is number => typeof x === "number" && Number.isFinite(x));
  return xs.length ? Math.min(100, Math.max(...xs)) : null;
}

export const tokenSafety = defineProduct({
  id: "token-safety",
  path: "/v1/token-safety",
  title: "Token safety check",
  description:
    "Risk check of a token from GoPlus security data: a risk score 0-100 (higher = riskier), a verdict (low_risk, caution, high_risk, likely_scam), flags (honeypot, mint / freeze authority, high buy/sell taxes, owner powers, top-holder concentration, LP lock), taxes, holder concentration and the list of fields GoPlus did not report (unknown, never counted as safe). Chains: base, eth, bsc, polygon, arbitrum, optimism, avalanche (0x token address) and solana (base58 mint). A token GoPlus has no record of answers 200 with found=false, verdict 'unknown' and risk_score null.",
  tags: ["security", "tokens", "onchain"],
  kind: "data",
  httpPrice: "0.02",
  tool: { name: "check_token_safety", price: "0.02", label: "Token safety check" },
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {
    chain: safetyChainParam,
    address: tokenAddressParam("Token contract address (0x + 40 hex) on EVM chains, or the base58 mint address on solana.", "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
  },
  output: z.object({
    chain: z.enum(["base", "eth", "bsc", "polygon", "arbitrum", "optimism", "avalanche", "solana"]).describe("Chain checked"),
    chain_id: z.number().int().nullable().describe("EVM chain id used with GoPlus; null for solana"),
    address: z.string().describe("Token address (EIP-55 checksum on EVM chains, the mint as given on solana)"),
    found: z.boolean().describe("False when GoPlus has no record of this token on this chain"),
    token_name: z.string().nullable().describe("Token name reported by GoPlus"),
    token_symbol: z.string().nullable().describe("Token symbol reported by GoPlus"),
    risk_score: z.number().min(0).max(100).nullable().describe("0 (no findings) .. 100 (riskiest); null when the token is unknown"),
    verdict: z.enum(["low_risk", "caution", "high_risk", "likely_scam", "unknown"]).describe("Verdict from the score (≥70 likely_scam, ≥40 high_risk, ≥20 caution); 'unknown' when GoPlus has no record"),
    flags: Flags.describe("Risk flags; true = the risky property is present"),
    buy_tax_pct: pct("Buy tax in percent (Solana: Token-2022 transfer fee); null when unknown"),
    sell_tax_pct: pct("Sell tax in percent (Solana: Token-2022 transfer fee); null when unknown"),
    top10_holder_pct: pct("Share of supply held by the top-10 holders, percent"),
    lp_locked_pct: pct("Share of liquidity-pool tokens locked or burned, percent (Solana: burned LP share from GoPlus dex data)"),
    holder_count: z.number().int().nonnegative().nullable().describe("Number of holders; null when unknown"),
    dex_liquidity_usd: z.number().nonnegative().nullable().describe("Liquidity across the DEX pools GoPlus lists, USD; null when unknown"),
    trusted: z.boolean().nullable().describe("On GoPlus's trust list (well-known token); null when not stated"),
    reasons: z.array(z.string()).describe("Scored findings with their points, e.g. 'honeypot: buys succeed but sells fail (+60)'"),
    unknown_fields: z.array(z.string()).describe("GoPlus fields that were missing (unknown, not scored)"),
    note: z.string().nullable().describe("Explanation when the token is unknown or data is partial"),
    source: z.literal("goplus").describe("Upstream provider"),
    ts: z.string().describe("Time the response was computed (ISO 8601)"),
  }),
  example: {
    chain: "base",
    chain_id: 8453,
    address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
    found: true,
    token_name: "USD Coin",
    token_symbol: "USDC",
    risk_score: 10,
    verdict: "low_risk",
    flags: {
      honeypot: false,
      cannot_sell_all: false,
      mintable: true,
      freeze_authority: null,
      owner_can_change_balance: false,
      closed_source: false,
      proxy: true,
      hidden_owner: false,
      can_take_back_ownership: false,
      transfer_pausable: true,
      blacklist: true,
      high_buy_tax: false,
      high_sell_tax: false,
      tax_modifiable: false,
      non_transferable: null,
      transfer_hook: null,
      closable: null,
      metadata_mutable: null,
      high_holder_concentration: false,
      lp_mostly_unlocked: true,
    },
    buy_tax_pct: 0,
    sell_tax_pct: 0,
    top10_holder_pct: 33.62,
    lp_locked_pct: 0,
    holder_count: 74682792,
    dex_liquidity_usd: 90508631.97,
    trusted: true,
    reasons: ["supply is mintable (+15)", "transfers can be paused (+10)"],
    unknown_fields: [],
    note: null,
    source: "goplus",
    ts: "2026-11-26T19:18:58.984Z",
  },
  cacheTtlSeconds: 300,
  sources: ["goplus"],
  handler: async ({ chain, address }, ctx) => {
    const addr = checkAddressForChain("address", chain, address);
    const base = {
      chain,
      chain_id: chain === "solana" ? null : GOPLUS_EVM_CHAIN_IDS[chain],
      address: addr,
      source: "goplus" as const,
      ts: ctx.now.toISOString(),
    };
    const unknown = (label: string) => ({
      ...base,
      found: false,
      token_name: null,
      token_symbol: null,
      risk_score: null,
      verdict: "unknown" as const,
      flags: NO_FLAGS,
      buy_tax_pct: null,
      sell_tax_pct: null,
      top10_holder_pct: null,
      lp_locked_pct: null,
      holder_count: null,
      dex_liquidity_usd: null,
      trusted: null,
      reasons: [],
      unknown_fields: [],
      note: `GoPlus has no security record for this ${label} on ${chain}: it may not be a token, may be too new to be indexed, or may live on another chain. Unknown is not safe.`,
    });

    if (chain === "solana") {
      const rec = await solanaTokenSecurity(addr);
      if (!rec) return unknown("mint");
      const r = solanaTokenRisk(rec);
      const lp = r.lpLockedPct ?? solanaBurnedLpPct(rec);
      const tvl = (rec.dex ?? []).map((d) => goplusNumber(d.tvl)).filter((x): x is number => x !== null);
      return {
        ...base,
        found: true,
        token_name: rec.metadata?.name || null,
        token_symbol: rec.metadata?.symbol || null,
        risk_score: r.score,
        verdict: r.verdict,
        flags: solanaFlags(r, lp),
        buy_tax_pct: dpOrNull(r.taxes.buyPct, 4),
        sell_tax_pct: dpOrNull(r.taxes.sellPct, 4),
        top10_holder_pct: dpOrNull(r.topHolderConcentrationPct, 2),
        lp_locked_pct: dpOrNull(lp, 2),
        holder_count: r.holderCount,
        dex_liquidity_usd: tvl.length ? dpOrNull(tvl.reduce((a, b) => a + b, 0), 2) : null,
        trusted: r.trusted,
        reasons: r.reasons,
        unknown_fields: r.unknown,
        note: r.lpLockedPct === null && lp !== null ? "LP lock from the burned share of GoPlus's DEX pools (Solana LP holders carry no lock flag); it does not change the score" : null,
      };
    }

    const rec = await evmTokenSecurity(chain, addr);
    if (!rec) return unknown("token");
    const r = evmTokenRisk(rec);
    const liq = (rec.dex ?? []).map((d) => goplusNumber(d.liquidity)).filter((x): x is number => x !== null);
    const closed = r.flags.closedSource === true;
    return {
      ...base,
      found: true,
      token_name: rec.token_name || null,
      token_symbol: rec.token_symbol || null,
      risk_score: r.score,
      verdict: r.verdict,
      flags: evmFlags(r),
      buy_tax_pct: dpOrNull(r.taxes.buyPct, 4),
      sell_tax_pct: dpOrNull(r.taxes.sellPct, 4),
      top10_holder_pct: dpOrNull(r.topHolderConcentrationPct, 2),
      lp_locked_pct: dpOrNull(r.lpLockedPct, 2),
      holder_count: r.holderCount === null ? null : Math.round(r.holderCount),
      dex_liquidity_usd: liq.length ? dpOrNull(liq.reduce((a, b) => a + b, 0), 2) : null,
      trusted: r.trusted,
      reasons: r.reasons,
      unknown_fields: r.unknown,
      note: closed ? "the contract source is not verified, so GoPlus could not check most of its functions; those flags are unknown" : null,
    };
  },
});
