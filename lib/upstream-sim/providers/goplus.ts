/**
 * Simulated GoPlus token security, EVM (`/api/v1/token_security/{chainId}`) and Solana
 * (`/api/v1/solana/token_security`). Deterministic per chain and address: most tokens are
 * clean; some are honeypots, high-tax, mintable, closed-source (most flags then absent,
 * as GoPlus does), with unlocked LP and concentrated holders, or a hidden owner. About
 * one address in nine is unknown to GoPlus and answers `result: {}`. Flags are the
 * strings "1"/"0"; `is_locked`/`is_contract` are integers; percentages use 1 = 100 %.
 * Solana records use the live spellings (`non_transferable`, holder rows keyed
 * `account`), not the SDK schema's (`none_transferable`, `token_account`).
 */
import { keccak256, toBytes } from "viem";
import { hash32, type World } from "@/lib/upstream-sim/world";
import type { SimProvider, SimResponse } from "@/lib/upstream-sim/provider";

const unit = (s: string) => hash32(s) / 4294967296;
const hexAddr = (key: string) => keccak256(toBytes(key)).slice(0, 42);
const B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
const b58Addr = (key: string) => Array.from({ length: 44 }, (_, i) => B58[hash32(`${key}:${i}`) % 58]).join("");
const DEAD = "0x000000000000000000000000000000000000dead";
const ZERO = "0x0000000000000000000000000000000000000000";

export const GOPLUS_EVM_CHAINS: Record<string, { dexes: string[] }> = {
  "1": { dexes: ["UniswapV2", "UniswapV3"] },
  "56": { dexes: ["PancakeV2", "PancakeV3"] },
  "137": { dexes: ["QuickSwap", "UniswapV3"] },
  "42161": { dexes: ["Camelot", "UniswapV3"] },
  "8453": { dexes: ["Aerodrome", "UniswapV3"] },
  "10": { dexes: ["Velodrome", "UniswapV3"] },
  "43114": { dexes: ["TraderJoe", "Pharaoh"] },
};

export type EvmProfile = "unknown" | "trusted" | "clean" | "honeypot" | "high_tax" | "mintable" | "closed_source" | "unlocked_lp" | "hidden_owner";

/** Well-known tokens GoPlus lists as trusted (USDC is a mintable proxy, yet trusted). */
const TRUSTED: Record<string, { name: string; symbol: string }> = {
  "8453:0x833589fcd6edb6e08f4c7c32d4f71b54bda02913": { name: "USD Coin", symbol: "USDC" },
  "1:0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48": { name: "USD Coin", symbol: "USDC" },
};

/** Which kind of token the simulator makes of `address` on `chainId`. */
export function evmProfile(world: World, chainId: string, address: string): EvmProfile {
  const a = address.toLowerCase();
  if (TRUSTED[`${chainId}:${a}`]) return "trusted";
  const h = hash32(`${world.seed}:goplus:${chainId}:${a}`);
  if (h % 9 === 0) return "unknown";
  const kinds: EvmProfile[] = ["honeypot", "high_tax", "mintable", "closed_source", "unlocked_lp", "hidden_owner"];
  return kinds[(h >>> 4) % 16] ?? "clean";
}

const SYLLABLES = ["moon", "pep", "doge", "based", "frog", "wif", "chad", "giga", "toshi", "brett", "mochi", "degen", "higher", "keycat", "aero", "zora"];

function tokenNames(key: string): { name: string; symbol: string } {
  const a = SYLLABLES[hash32(`${key}:n1`) % SYLLABLES.length]!;
  const b = SYLLABLES[hash32(`${key}:n2`) % SYLLABLES.length]!;
  const name = `${a[0]!.toUpperCase()}${a.slice(1)}${b === a ? "" : ` ${b[0]!.toUpperCase()}${b.slice(1)}`}`;
  return { name, symbol: (a.slice(0, 3) + b.slice(0, 2)).toUpperCase() };
}

/** Ten decreasing shares summing to `total` (a fraction of supply). */
function shares(key: string, total: number): number[] {
  const w = Array.from({ length: 10 }, (_, i) => Math.exp(-i * (0.25 + unit(`${key}:lambda`) * 0.4)) * (0.8 + 0.4 * unit(`${key}:w${i}`)));
  const s = w.reduce((x, y) => x + y, 0);
  return w.map((x) => (x / s) * total).sort((x, y) => y - x);
}

const pct = (x: number) => x.toFixed(6);

function holders(key: string, supply: number, top10: number, opts: { lpPool: string | null; creator: string; creatorShare: number; solana?: boolean }) {
  const s = shares(`${key}:holders`, top10);
  return s.map((share, i) => {
    const isPool = i === 0 && opts.lpPool !== null;
    const isCreator = i === 1 && opts.creatorShare > 0;
    const address = isPool ? opts.lpPool! : isCreator ? opts.creator : opts.solana ? b58Addr(`${key}:h${i}`) : hexAddr(`${key}:h${i}`);
    const balance = (supply * share).toFixed(6);
    const base = {
      balance,
      percent: pct(share),
      is_locked: 0,
      tag: isPool ? (opts.solana ? "Raydium Authority V4" : "UniswapV2Pair") : "",
    };
    return opts.solana ? { account: address, ...base } : { address, ...base, is_contract: isPool ? 1 : 0 };
  });
}

function lpHolders(key: string, lpSupply: number, lockedShare: number, solana: boolean) {
  // The locked part sits with a burn address or a locker, the rest with the deployer.
  const out: Array<Record<string, unknown>> = [];
  if (lockedShare > 0) {
    const burned = unit(`${key}:burn`) < 0.5;
    const addr = solana ? (burned ? "11111111111111111111111111111111" : b58Addr(`${key}:locker`)) : burned ? DEAD : hexAddr(`${key}:locker`);
    out.push({
      ...(solana ? { account: addr } : { address: addr, is_contract: burned ? 0 : 1 }),
      tag: burned ? "Null Address" : solana ? "Streamflow Locker" : "UNCX Network Security : Token Vesting",
      balance: (lpSupply * lockedShare).toFixed(9),
      percent: pct(lockedShare),
      ...(solana ? {} : { is_locked: 1 }),
      ...(burned || solana ? {} : { locked_detail: [{ amount: (lpSupply * lockedShare).toFixed(9), end_time: "2027-06-30T00:00:00+00:00", opt_time: "2025-01-15T08:21:11+00:00" }] }),
    });
  }
  const rest = 1 - lockedShare;
  const parts = [0.7, 0.2, 0.1].map((f) => f * rest).filter((x) => x > 0);
  parts.forEach((share, i) => {
    const addr = solana ? b58Addr(`${key}:lp${i}`) : hexAddr(`${key}:lp${i}`);
    out.push({
      ...(solana ? { account: addr } : { address: addr, is_contract: 0, is_locked: 0 }),
      tag: "",
      balance: (lpSupply * share).toFixed(9),
      percent: pct(share),
    });
  });
  return out;
}

function evmRecord(world: World, chainId: string, address: string, profile: Exclude<EvmProfile, "unknown">): Record<string, unknown> {
  const a = address.toLowerCase();
  const key = `${world.seed}:goplus:${chainId}:${a}`;
  const r = (k: string) => unit(`${key}:${k}`);
  const names = TRUSTED[`${chainId}:${a}`] ?? tokenNames(key);
  const supply = Math.round(10 ** (6 + r("supply") * 6));
  const creator = hexAddr(`${key}:creator`);
  const lpPool = hexAddr(`${key}:pool`);
  const concentrated = profile === "unlocked_lp" || profile === "honeypot";
  const top10 = concentrated ? 0.7 + r("top") * 0.2 : 0.15 + r("top") * 0.3;
  const creatorShare = profile === "unlocked_lp" ? 0.35 + r("cs") * 0.1 : profile === "trusted" ? 0 : r("cs") * 0.05;
  const lockedShare = profile === "unlocked_lp" || profile === "honeypot" || profile === "hidden_owner" ? 0 : profile === "trusted" ? 0 : 0.9 + r("lock") * 0.1;
  const lpSupply = 10 ** (3 + r("lps") * 5);
  const dexes = GOPLUS_EVM_CHAINS[chainId]!.dexes;
  const liquidity = profile === "trusted" ? 5e7 + r("liq") * 1e8 : 10 ** (4 + r("liq") * 3);
  const owner = profile === "clean" ? (r("own") < 0.7 ? ZERO : "") : profile === "trusted" ? hexAddr(`${key}:admin`) : creator;
  const f = (b: boolean) => (b ? "1" : "0");
  const rec: Record<string, unknown> = {
    token_name: names.name,
    token_symbol: names.symbol,
    total_supply: String(supply),
    holder_count: String(Math.round(10 ** (2 + r("hc") * (profile === "trusted" ? 1 : 4)) * (profile === "trusted" ? 1e5 : 1))),
    creator_address: creator,
    creator_balance: (supply * creatorShare).toFixed(6),
    creator_percent: pct(creatorShare),
    is_in_dex: "1",
    dex: dexes.map((name, i) => ({ name, liquidity: (liquidity * (i === 0 ? 0.75 : 0.25)).toFixed(8), pair: hexAddr(`${key}:pair${i}`) })),
    buy_tax: profile === "high_tax" ? "0.12" : profile === "clean" && r("tax") < 0.2 ? "0.01" : "0",
    sell_tax: profile === "honeypot" ? "1" : profile === "high_tax" ? "0.25" : profile === "clean" && r("tax") < 0.2 ? "0.01" : "0",
    cannot_sell_all: f(profile === "honeypot"),
    holders: holders(key, supply, top10, { lpPool, creator, creatorShare }),
    lp_holder_count: String(1 + Math.floor(r("lphc") * 40)),
    lp_total_supply: lpSupply.toFixed(9),
    lp_holders: lpHolders(key, lpSupply, lockedShare, false),
  };
  if (profile === "trusted") rec.trust_list = "1";
  if (profile === "closed_source") {
    // Without source GoPlus cannot check the contract's functions: those flags are absent.
    rec.is_open_source = "0";
    return rec;
  }
  Object.assign(rec, {
    is_open_source: "1",
    is_proxy: f(profile === "hidden_owner" || profile === "trusted"),
    is_mintable: f(profile === "mintable" || profile === "trusted"),
    owner_address: owner,
    owner_balance: owner && owner !== ZERO ? (supply * creatorShare).toFixed(6) : "0",
    owner_percent: owner && owner !== ZERO ? pct(creatorShare) : "0.000000",
    can_take_back_ownership: f(profile === "hidden_owner"),
    owner_change_balance: f(profile === "mintable"),
    hidden_owner: f(profile === "hidden_owner"),
    selfdestruct: "0",
    external_call: f(profile === "honeypot"),
    cannot_buy: "0",
    slippage_modifiable: f(profile === "honeypot" || profile === "high_tax"),
    personal_slippage_modifiable: f(profile === "honeypot"),
    is_honeypot: f(profile === "honeypot"),
    transfer_pausable: f(profile === "hidden_owner" || profile === "trusted"),
    is_blacklisted: f(profile === "honeypot" || profile === "trusted"),
    is_whitelisted: f(profile === "honeypot"),
    is_anti_whale: "0",
    anti_whale_modifiable: "0",
    trading_cooldown: "0",
  });
  if (profile === "honeypot") rec.other_potential_risks = "Owner can set different transaction taxes for each user, which can trigger serious losses.";
  return rec;
}

/** `soul_bound`: a Token-2022 mint with the non-transferable extension (no pool, no market). */
export type SolanaProfile = "unknown" | "trusted" | "clean" | "mint_authority" | "freeze_authority" | "transfer_fee" | "concentrated" | "soul_bound";
const SOL_USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";

/** Which kind of SPL token the simulator makes of `mint`. */
export function solanaProfile(world: World, mint: string): SolanaProfile {
  if (mint === SOL_USDC) return "trusted";
  const h = hash32(`${world.seed}:goplus:solana:${mint}`);
  if (h % 9 === 0) return "unknown";
  const kinds: SolanaProfile[] = ["mint_authority", "freeze_authority", "transfer_fee", "concentrated", "soul_bound"];
  return kinds[(h >>> 4) % 12] ?? "clean";
}

function solanaRecord(world: World, mint: string, profile: Exclude<SolanaProfile, "unknown">): Record<string, unknown> {
  const key = `${world.seed}:goplus:solana:${mint}`;
  const r = (k: string) => unit(`${key}:${k}`);
  const names = profile === "trusted" ? { name: "USD Coin", symbol: "USDC" } : tokenNames(key);
  const supply = Math.round(10 ** (8 + r("supply") * 4));
  const authority = (k: string) => [{ address: b58Addr(`${key}:${k}`), malicious_address: 0 }];
  const flag = (on: boolean, k: string) => ({ status: on ? "1" : "0", authority: on ? authority(k) : [] });
  const top10 = profile === "concentrated" ? 0.75 + r("top") * 0.15 : 0.12 + r("top") * 0.3;
  const lockedShare = profile === "concentrated" ? 0 : 0.95 + r("lock") * 0.05;
  const lpSupply = 10 ** (4 + r("lps") * 4);
  const tvl = profile === "trusted" ? 3e7 : 10 ** (4 + r("tvl") * 3);
  // Nobody can trade a non-transferable token: no pool, no LP, no DEX entry.
  const pooled = profile !== "soul_bound";
  return {
    metadata: { name: names.name, symbol: names.symbol, description: "", uri: `https://ipfs.io/ipfs/Qm${b58Addr(`${key}:uri`).slice(0, 44)}` },
    mintable: flag(profile === "mint_authority" || profile === "trusted" || profile === "soul_bound", "mint"),
    freezable: flag(profile === "freeze_authority" || profile === "trusted", "freeze"),
    closable: flag(false, "close"),
    balance_mutable_authority: flag(false, "bal"),
    metadata_mutable: { status: profile === "clean" ? "0" : "1", metadata_upgrade_authority: profile === "clean" ? [] : authority("meta") },
    transfer_fee_upgradable: flag(profile === "transfer_fee", "feeauth"),
    transfer_hook_upgradable: flag(false, "hookauth"),
    default_account_state_upgradable: flag(false, "dasauth"),
    default_account_state: "1",
    non_transferable: profile === "soul_bound" ? "1" : "0",
    transfer_fee: profile === "transfer_fee" ? { current_fee_rate: { fee_rate: "0.05", maximum_fee: "1000000000" }, scheduled_fee_rate: [] } : {},
    transfer_hook: [],
    creators: [{ address: b58Addr(`${key}:creator`), malicious_address: 0 }],
    holders: holders(key, supply, top10, { lpPool: pooled ? b58Addr(`${key}:pool`) : null, creator: b58Addr(`${key}:creator`), creatorShare: 0, solana: true }),
    lp_holders: pooled ? lpHolders(key, lpSupply, lockedShare, true) : [],
    dex: !pooled ? [] : [
      {
        dex_name: "Raydium",
        id: b58Addr(`${key}:pool`),
        type: "standard",
        tvl: tvl.toFixed(6),
        price: (tvl / supply / 50).toPrecision(8),
        fee_rate: "0.0025",
        burn_percent: Math.round(lockedShare * 10000) / 100,
        lp_amount: lpSupply.toFixed(6),
        open_time: String(1_700_000_000 + Math.floor(r("open") * 60_000_000)),
        day: { volume: (tvl * (0.1 + r("dv") * 2)).toFixed(6), price_min: "0", price_max: "0" },
      },
    ],
    trusted_token: profile === "trusted" ? 1 : 0,
  };
}

const ok = (result: Record<string, unknown>): SimResponse => ({ body: { code: 1, message: "OK", result } });
const fail = (code: number, message: string): SimResponse => ({ body: { code, message, result: null } });

export const goplusSim: SimProvider = {
  name: "goplus",
  envVar: "GOPLUS_BASE_URL",
  handle(req, world) {
    const addresses = (req.query.get("contract_addresses") ?? "").split(",").map((s) => s.trim()).filter(Boolean);
    if (req.path === "/api/v1/solana/token_security") {
      if (addresses.length === 0) return fail(5006, "Param error!");
      if (addresses.length > 1) return fail(4010, "Batch queries need an app key");
      const mint = addresses[0]!;
      if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(mint)) return fail(2004, "Contract address format error!");
      const profile = solanaProfile(world, mint);
      return ok(profile === "unknown" ? {} : { [mint]: solanaRecord(world, mint, profile) });
    }
    const m = /^\/api\/v1\/token_security\/([^/]+)$/.exec(req.path);
    if (!m) return null;
    const chainId = m[1]!;
    if (!GOPLUS_EVM_CHAINS[chainId]) return fail(2018, "ChainID not supported");
    if (addresses.length === 0) return fail(5006, "Param error!");
    if (addresses.length > 1) return fail(4010, "Batch queries need an app key");
    const address = addresses[0]!.toLowerCase();
    if (!/^0x[0-9a-f]{40}$/.test(address)) return fail(2004, "Contract address format error!");
    const profile = evmProfile(world, chainId, address);
    return ok(profile === "unknown" ? {} : { [address]: evmRecord(world, chainId, address, profile) });
  },
};
