/**
 * Shared pieces of the simulated Stellar network: the ledger clock (a ledger closes
 * every ~5.5 s from the world's origin, on whole seconds like the real network),
 * Horizon's problem+json errors, paging parameters and number formatting.
 */
import { hash32, prng, type World } from "@/lib/upstream-sim/world";
import type { SimResponse } from "@/lib/upstream-sim/provider";

export const USDC_ISSUER = "GA5ZSEJYB37JRC5AVCIA5MOP4RHTM335X2KGX3IHOJAPP5RE34K4KZVN";
export const LEDGER_MS = 5_500;
export const HORIZON_URL = "https://horizon.stellar.org";

/** Sequence of the ledger that closed at the world's origin. */
export function baseSequence(world: World): number {
  return 56_000_000 + (hash32(`ledger-base:${world.seed}`) % 500_000);
}

/** Close time (ms, whole seconds) of ledger `seq`. */
export function closeTime(world: World, seq: number): number {
  const k = seq - baseSequence(world);
  return world.originHour + Math.floor((k * LEDGER_MS) / 1000) * 1000;
}

/** Sequence of the latest ledger closed at or before `t`. */
export function sequenceAt(world: World, t: number): number {
  let seq = baseSequence(world) + Math.floor((t - world.originHour) / LEDGER_MS);
  while (closeTime(world, seq + 1) <= t) seq += 1;
  while (closeTime(world, seq) > t) seq -= 1;
  return seq;
}

/** Horizon's ISO timestamps have no milliseconds. */
export function horizonTime(t: number): string {
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Horizon's 7-decimal amount strings. */
export function amount7(x: number): string {
  return x.toFixed(7);
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

/** A price as the reduced rational n/d with d | 10^7 (Horizon's int32 price_r). */
export function rational(price: number): { n: number; d: number } {
  const n = Math.max(1, Math.round(price * 1e7));
  const g = gcd(n, 1e7);
  return { n: n / g, d: 1e7 / g };
}

/** Horizon's problem+json answer (`type` is the last segment of its horizon-errors URL). */
export function problem(status: number, type: string, title: string, detail: string, extras?: Record<string, unknown>): SimResponse {
  return {
    status,
    headers: { "Content-Type": "application/problem+json; charset=utf-8" },
    body: { type: `https://stellar.org/horizon-errors/${type}`, title, status, detail, ...(extras ? { extras } : {}) },
  };
}

/** Horizon's problem+json for a bad request parameter. */
export function badRequest(field: string, reason: string): SimResponse {
  return problem(400, "bad_request", "Bad Request", "The request you sent was invalid in some way.", { invalid_field: field, reason });
}

/** Parses `limit` (1..200, default `def`); a string reason when invalid. */
export function parseLimit(q: URLSearchParams, def: number): number | string {
  const raw = q.get("limit");
  if (raw === null || raw === "") return def;
  if (!/^\d+$/.test(raw)) return "unparseable value";
  const n = Number(raw);
  if (n < 1 || n > 200) return "limit must be between 1 and 200";
  return n;
}

/** Parses `order` (asc|desc, default asc). */
export function parseOrder(q: URLSearchParams): "asc" | "desc" | null {
  const o = q.get("order") ?? "asc";
  return o === "asc" || o === "desc" ? o : null;
}

/** True when the query names XLM as the first asset and Circle USDC as the second. */
export function isXlmUsdc(q: URLSearchParams, first: "selling" | "base", second: "buying" | "counter"): boolean {
  return (
    q.get(`${first}_asset_type`) === "native" &&
    q.get(`${second}_asset_type`) === "credit_alphanum4" &&
    q.get(`${second}_asset_code`) === "USDC" &&
    q.get(`${second}_asset_issuer`) === USDC_ISSUER
  );
}

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
/** A deterministic, well-formed-looking Stellar account id (G + 55 base32 chars). */
export function accountId(key: string): string {
  const r = prng(hash32(key));
  let s = "G";
  for (let i = 0; i < 55; i++) s += B32[Math.floor(r() * 32)];
  return s;
}

/** Operation id (TOID): ledger << 32 | tx << 12 | op. */
export function toid(seq: number, tx: number, op: number): string {
  return ((BigInt(seq) << 32n) | (BigInt(tx) << 12n) | BigInt(op)).toString();
}

/** 64 deterministic hex characters (ledger hashes, liquidity pool ids). */
export function hex64(key: string): string {
  const r = prng(hash32(key));
  let s = "";
  for (let i = 0; i < 8; i++) s += Math.floor(r() * 0x100000000).toString(16).padStart(8, "0");
  return s;
}
