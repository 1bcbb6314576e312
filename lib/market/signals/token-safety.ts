/**
 * Token risk scoring over GoPlus token-security records (upstreams.md §11).
 *
 * GoPlus conventions: flags are the strings "1"/"0"; a MISSING flag means unknown (most
 * flags are absent when the source is not verified), so unknowns never add or remove
 * points — they are listed in `unknown` instead. Taxes and holder `percent` are string
 * fractions where "1" means 100 %.
 *
 * The score is a sum of points (table below), capped at 100; higher = riskier.
 * Verdict: score ≥ 70 likely_scam, ≥ 40 high_risk, ≥ 20 caution, else low_risk.
 * A confirmed honeypot / untradeable token is floored at 80 (likely_scam). A token on
 * GoPlus's trust list is capped at 10 first (USDC is mintable, pausable and
 * blacklistable by design — that is not a scam signal for it). When at least half of the
 * scored fields are unknown the score is floored at 20 (caution): no data ≠ low risk.
 */
import { isFiniteNumber } from "./math";

export type RiskVerdict = "low_risk" | "caution" | "high_risk" | "likely_scam";

/** Verdict thresholds on the 0..100 score. */
export const RISK_THRESHOLDS = Object.freeze({ likely_scam: 70, high_risk: 40, caution: 20 });
/** Taxes / transfer fees above this (%) count as high. */
export const HIGH_TAX_PCT = 10;
/** Taxes at or above this (%) are near-confiscatory. */
export const EXTREME_TAX_PCT = 50;

/** "1"/1/true → true, "0"/0/false → false, anything else (missing, "") → null. */
export function goplusFlag(v: unknown): boolean | null {
  if (v === "1" || v === 1 || v === true) return true;
  if (v === "0" || v === 0 || v === false) return false;
  return null;
}

/** Number from a number or a non-empty numeric string; null otherwise. */
export function goplusNumber(v: unknown): number | null {
  if (isFiniteNumber(v)) return v;
  if (typeof v === "string" && v.trim() !== "") {
    const n = Number(v);
    return Number.isFinite(n) ? n : null;
  }
  return null;
}

function asArray(v: unknown): Array<Record<string, unknown>> {
  return Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === "object" && x !== null) : [];
}

function asObject(v: unknown): Record<string, unknown> | null {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** Σ holders[].percent · 100 (top-10 concentration); null when the list is absent/empty. */
function concentrationPct(holders: unknown): number | null {
  const hs = asArray(holders);
  if (hs.length === 0) return null;
  let s = 0;
  for (const h of hs) s += goplusNumber(h.percent) ?? 0;
  return Math.min(100, s * 100);
}

/** Σ percent · 100 over LP holders with is_locked = 1; null when no lock info exists. */
function lpLockedPct(lpHolders: unknown): number | null {
  const hs = asArray(lpHolders);
  if (hs.length === 0 || !hs.some((h) => "is_locked" in h)) return null;
  let s = 0;
  for (const h of hs) if (goplusFlag(h.is_locked) === true) s += goplusNumber(h.percent) ?? 0;
  return Math.min(100, s * 100);
}

function verdictFor(score: number): RiskVerdict {
  if (score >= RISK_THRESHOLDS.likely_scam) return "likely_scam";
  if (score >= RISK_THRESHOLDS.high_risk) return "high_risk";
  if (score >= RISK_THRESHOLDS.caution) return "caution";
  return "low_risk";
}

/** Shared scoring of holder concentration and LP lock (points in the tables below). */
function holderPoints(top: number | null, lp: number | null, add: (pts: number, why: string) => void): void {
  if (top !== null) {
    if (top > 80) add(15, `top-10 holders own ${top.toFixed(1)}% (> 80%)`);
    else if (top > 50) add(8, `top-10 holders own ${top.toFixed(1)}% (> 50%)`);
  }
  if (lp !== null && lp < 50) add(10, `only ${lp.toFixed(1)}% of LP is locked (< 50%)`);
}

/**
 * Cap, trust cap and floors, in this order:
 *   min(points, 100) → trusted: min(score, 10) → honeypot-like: max(score, 80)
 *   → not trusted and ≥ half of the scored fields unknown: max(score, 20) ("caution"),
 *     because "no data" must not read as "low risk".
 */
function finish(
  points: number,
  floorReason: string | null,
  trusted: boolean | null,
  unknownShare: number,
  reasons: string[],
): { score: number; verdict: RiskVerdict } {
  let score = Math.min(100, points);
  if (trusted === true && score > 10) {
    score = 10;
    reasons.push("on the GoPlus trust list: score capped at 10");
  }
  if (floorReason !== null && score < 80) {
    score = 80;
    reasons.push(`${floorReason}: score floored at 80`);
  }
  if (trusted !== true && unknownShare >= 0.5 && score < RISK_THRESHOLDS.caution) {
    score = RISK_THRESHOLDS.caution;
    reasons.push(`insufficient data (${Math.round(unknownShare * 100)}% of checks unknown): score floored at ${RISK_THRESHOLDS.caution}`);
  }
  return { score, verdict: verdictFor(score) };
}

export type EvmTokenFlags = {
  honeypot: boolean | null;
  mintable: boolean | null;
  ownerCanChangeBalance: boolean | null;
  closedSource: boolean | null;
  hiddenOwner: boolean | null;
  canTakeBackOwnership: boolean | null;
  highBuyTax: boolean | null;
  highSellTax: boolean | null;
  transferPausable: boolean | null;
  blacklist: boolean | null;
  cannotSellAll: boolean | null;
  slippageModifiable: boolean | null;
  proxy: boolean | null;
  inDex: boolean | null;
};

export type TokenRiskBase = {
  /** 0..100, higher = riskier. */
  score: number;
  verdict: RiskVerdict;
  taxes: { buyPct: number | null; sellPct: number | null };
  topHolderConcentrationPct: number | null;
  lpLockedPct: number | null;
  holderCount: number | null;
  trusted: boolean | null;
  /** GoPlus fields that were missing (unknown, not scored). */
  unknown: string[];
  /** Each scored finding with its points, e.g. "honeypot (+60)". */
  reasons: string[];
};

export type EvmTokenRisk = TokenRiskBase & { flags: EvmTokenFlags };

const EVM_FLAG_FIELDS = [
  "is_honeypot", "is_mintable", "owner_change_balance", "is_open_source", "hidden_owner", "can_take_back_ownership",
  "transfer_pausable", "is_blacklisted", "cannot_sell_all", "slippage_modifiable", "is_proxy", "is_in_dex",
] as const;

/**
 * Risk of an EVM token from its GoPlus record (`result["<lower-case address>"]`).
 *
 * Points: honeypot 60 · owner can change balances 30 · closed source 25 ·
 * cannot sell all 25 · sell tax ≥ 50 % 40 (> 10 % 20) · buy tax ≥ 50 % 30 (> 10 % 15) ·
 * hidden owner 20 · can take back ownership 20 · mintable 15 · tax modifiable 10 ·
 * transfers pausable 10 · blacklist 10 · proxy 5 · not listed on any DEX 5 ·
 * top-10 holders > 80 % 15 (> 50 % 8) · LP locked < 50 % 10.
 * Floor 80 for honeypot or a 100 % buy/sell tax.
 */
export function evmTokenRisk(record: Record<string, unknown>): EvmTokenRisk {
  const unknown: string[] = EVM_FLAG_FIELDS.filter((k) => goplusFlag(record[k]) === null);
  const buyFrac = goplusNumber(record.buy_tax);
  const sellFrac = goplusNumber(record.sell_tax);
  if (buyFrac === null) unknown.push("buy_tax");
  if (sellFrac === null) unknown.push("sell_tax");
  const buyPct = buyFrac === null ? null : buyFrac * 100;
  const sellPct = sellFrac === null ? null : sellFrac * 100;
  const top = concentrationPct(record.holders);
  const lp = lpLockedPct(record.lp_holders);
  if (top === null) unknown.push("holders");
  if (lp === null) unknown.push("lp_holders");

  const openSource = goplusFlag(record.is_open_source);
  const flags: EvmTokenFlags = {
    honeypot: goplusFlag(record.is_honeypot),
    mintable: goplusFlag(record.is_mintable),
    ownerCanChangeBalance: goplusFlag(record.owner_change_balance),
    closedSource: openSource === null ? null : !openSource,
    hiddenOwner: goplusFlag(record.hidden_owner),
    canTakeBackOwnership: goplusFlag(record.can_take_back_ownership),
    highBuyTax: buyPct === null ? null : buyPct > HIGH_TAX_PCT,
    highSellTax: sellPct === null ? null : sellPct > HIGH_TAX_PCT,
    transferPausable: goplusFlag(record.transfer_pausable),
    blacklist: goplusFlag(record.is_blacklisted),
    cannotSellAll: goplusFlag(record.cannot_sell_all),
    slippageModifiable: goplusFlag(record.slippage_modifiable),
    proxy: goplusFlag(record.is_proxy),
    inDex: goplusFlag(record.is_in_dex),
  };

  const reasons: string[] = [];
  let points = 0;
  const add = (pts: number, why: string) => {
    points += pts;
    reasons.push(`${why} (+${pts})`);
  };
  if (flags.honeypot) add(60, "honeypot: buys succeed but sells fail");
  if (flags.ownerCanChangeBalance) add(30, "owner can change balances");
  if (flags.closedSource) add(25, "contract source not verified");
  if (flags.cannotSellAll) add(25, "holders cannot sell their whole balance");
  if (sellPct !== null && sellPct >= EXTREME_TAX_PCT) add(40, `sell tax ${sellPct.toFixed(1)}% (≥ ${EXTREME_TAX_PCT}%)`);
  else if (flags.highSellTax) add(20, `sell tax ${(sellPct as number).toFixed(1)}% (> ${HIGH_TAX_PCT}%)`);
  if (buyPct !== null && buyPct >= EXTREME_TAX_PCT) add(30, `buy tax ${buyPct.toFixed(1)}% (≥ ${EXTREME_TAX_PCT}%)`);
  else if (flags.highBuyTax) add(15, `buy tax ${(buyPct as number).toFixed(1)}% (> ${HIGH_TAX_PCT}%)`);
  if (flags.hiddenOwner) add(20, "hidden owner");
  if (flags.canTakeBackOwnership) add(20, "ownership can be taken back");
  if (flags.mintable) add(15, "supply is mintable");
  if (flags.slippageModifiable) add(10, "owner can modify the tax");
  if (flags.transferPausable) add(10, "transfers can be paused");
  if (flags.blacklist) add(10, "owner can blacklist addresses");
  if (flags.proxy) add(5, "upgradeable proxy contract");
  if (flags.inDex === false) add(5, "not listed on any DEX");
  holderPoints(top, lp, add);

  const untradeable = (buyPct !== null && buyPct >= 100) || (sellPct !== null && sellPct >= 100);
  const floor = flags.honeypot ? "honeypot" : untradeable ? "100% tax (untradeable)" : null;
  const trusted = goplusFlag(record.trust_list);
  // Share of the scored fields (flags + both taxes) that GoPlus did not report.
  const unknownShare = unknown.filter((k) => k !== "holders" && k !== "lp_holders").length / (EVM_FLAG_FIELDS.length + 2);
  const { score, verdict } = finish(points, floor, trusted, unknownShare, reasons);
  const hc = goplusNumber(record.holder_count);
  return {
    score,
    verdict,
    flags,
    taxes: { buyPct, sellPct },
    topHolderConcentrationPct: top,
    lpLockedPct: lp,
    holderCount: hc,
    trusted,
    unknown,
    reasons,
  };
}

export type SolanaTokenFlags = {
  mintAuthority: boolean | null;
  freezeAuthority: boolean | null;
  ownerCanChangeBalance: boolean | null;
  closable: boolean | null;
  metadataMutable: boolean | null;
  transferFeeUpgradable: boolean | null;
  transferHook: boolean | null;
  nonTransferable: boolean | null;
  defaultAccountFrozen: boolean | null;
  highTransferFee: boolean | null;
};

export type SolanaTokenRisk = TokenRiskBase & { flags: SolanaTokenFlags; transferFeePct: number | null };

/** `{status: "0"|"1", authority: [...]}` objects → flag of `status`. */
function statusFlag(v: unknown): boolean | null {
  const o = asObject(v);
  return o ? goplusFlag(o.status) : null;
}

/**
 * The soul-bound flag: live GoPlus answers spell it `non_transferable`, its SDK schema
 * `none_transferable`. The live spelling wins when both carry a value.
 */
function nonTransferable(record: Record<string, unknown>): boolean | null {
  return goplusFlag(record.non_transferable) ?? goplusFlag(record.none_transferable);
}

/**
 * Risk of a Solana SPL / Token-2022 mint from its GoPlus record.
 *
 * Points: non-transferable 50 · balances mutable by an authority 30 · freeze authority 25 ·
 * accounts frozen by default 25 · mint authority 20 · transfer hook 15 ·
 * transfer fee ≥ 50 % 40 (> 10 % 20) · fee upgradable 10 · closable 10 ·
 * metadata mutable 5 · top-10 holders > 80 % 15 (> 50 % 8) · LP locked < 50 % 10.
 * Floor 80 for non-transferable tokens (holders can never sell).
 * The Token-2022 transfer fee applies to every transfer, so it is reported as both the
 * buy and the sell tax. `transfer_fee` present without a current rate means 0 %.
 */
export function solanaTokenRisk(record: Record<string, unknown>): SolanaTokenRisk {
  const unknown: string[] = [];
  const track = (field: string, v: boolean | null) => {
    if (v === null) unknown.push(field);
    return v;
  };
  const hook = Array.isArray(record.transfer_hook) ? record.transfer_hook.length > 0 : null;
  const das = record.default_account_state;
  const defaultFrozen = das === "2" || das === 2 ? true : das === "0" || das === "1" || das === 0 || das === 1 ? false : null;

  let feePct: number | null = null;
  const tf = asObject(record.transfer_fee);
  if (tf) {
    const cur = asObject(tf.current_fee_rate);
    const rate = cur ? goplusNumber(cur.fee_rate) : null;
    feePct = rate === null ? 0 : rate * 100;
  } else {
    unknown.push("transfer_fee");
  }

  const flags: SolanaTokenFlags = {
    mintAuthority: track("mintable", statusFlag(record.mintable)),
    freezeAuthority: track("freezable", statusFlag(record.freezable)),
    ownerCanChangeBalance: track("balance_mutable_authority", statusFlag(record.balance_mutable_authority)),
    closable: track("closable", statusFlag(record.closable)),
    metadataMutable: track("metadata_mutable", statusFlag(record.metadata_mutable)),
    transferFeeUpgradable: track("transfer_fee_upgradable", statusFlag(record.transfer_fee_upgradable)),
    transferHook: track("transfer_hook", hook),
    nonTransferable: track("non_transferable", nonTransferable(record)),
    defaultAccountFrozen: track("default_account_state", defaultFrozen),
    highTransferFee: feePct === null ? null : feePct > HIGH_TAX_PCT,
  };
  const top = concentrationPct(record.holders);
  const lp = lpLockedPct(record.lp_holders);
  if (top === null) unknown.push("holders");
  if (lp === null) unknown.push("lp_holders");

  const reasons: string[] = [];
  let points = 0;
  const add = (pts: number, why: string) => {
    points += pts;
    reasons.push(`${why} (+${pts})`);
  };
  if (flags.nonTransferable) add(50, "token is non-transferable");
  if (flags.ownerCanChangeBalance) add(30, "an authority can change balances");
  if (flags.freezeAuthority) add(25, "freeze authority is active (accounts can be frozen)");
  if (flags.defaultAccountFrozen) add(25, "new token accounts start frozen");
  if (flags.mintAuthority) add(20, "mint authority is active");
  if (flags.transferHook) add(15, "transfer hook can block transfers");
  if (feePct !== null && feePct >= EXTREME_TAX_PCT) add(40, `transfer fee ${feePct.toFixed(2)}% (≥ ${EXTREME_TAX_PCT}%)`);
  else if (flags.highTransferFee) add(20, `transfer fee ${(feePct as number).toFixed(2)}% (> ${HIGH_TAX_PCT}%)`);
  if (flags.transferFeeUpgradable) add(10, "transfer fee can be changed");
  if (flags.closable) add(10, "mint can be closed");
  if (flags.metadataMutable) add(5, "metadata is mutable");
  holderPoints(top, lp, add);

  const trusted = goplusFlag(record.trusted_token);
  // 9 status/flag fields + transfer_fee are scored; holders/LP are optional context.
  const unknownShare = unknown.filter((k) => k !== "holders" && k !== "lp_holders").length / 10;
  const { score, verdict } = finish(points, flags.nonTransferable ? "non-transferable token" : null, trusted, unknownShare, reasons);
  return {
    score,
    verdict,
    flags,
    taxes: { buyPct: feePct, sellPct: feePct },
    transferFeePct: feePct,
    topHolderConcentrationPct: top,
    lpLockedPct: lp,
    holderCount: goplusNumber(record.holder_count),
    trusted,
    unknown,
    reasons,
  };
}
