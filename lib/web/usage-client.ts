/**
 * Browser-side calls to the free endpoints behind the free-key and usage pages. The
 * credential goes only into a request header of a same-origin call, and the e-mail only
 * into a POST body: neither ever appears in a URL (history, access logs).
 */
import { isApiKeyShaped } from "@/lib/access/credentials";

export interface Receipt {
  receipt_id: string;
  product: string;
  surface: string;
  credits: number | null;
  amount_usd: string | null;
  at: string;
}

export type UsageReport =
  | { kind: "api_key"; daily_quota: number; used_today: number; remaining_today: number; resets_at: string; recent: Receipt[] }
  | { kind: "bundle"; bundle_id: string; tier: string; credits_total: number; credits_remaining: number; recent: Receipt[] };

export interface MintedKey {
  api_key: string;
  key_prefix: string;
  daily_quota: number;
  used_today: number;
  remaining_today: number;
  resets_at: string;
  email_recorded: boolean;
  covers: string[];
}

/** Error message of any JSON error body of the API (422 detail, {error:{message}}, 402 {error}). */
export function apiErrorMessage(body: unknown, status: number): string {
  const b = body as { detail?: Array<{ msg?: string }>; error?: string | { message?: string } } | null;
  if (b?.detail?.[0]?.msg) return b.detail[0].msg;
  if (typeof b?.error === "string") return b.error;
  if (b?.error && typeof b.error === "object" && b.error.message) return b.error.message;
  return `The service answered HTTP ${status}.`;
}

async function getJson<T>(url: string, headers: Record<string, string> = {}, init: RequestInit = {}): Promise<{ ok: true; data: T } | { ok: false; message: string; status: number }> {
  let res: Response;
  try {
    res = await fetch(url, { ...init, headers: { Accept: "application/json", ...headers }, cache: "no-store" });
  } catch {
    return { ok: false, message: "Could not reach the service. Check your connection and try again.", status: 0 };
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) return { ok: false, message: apiErrorMessage(body, res.status), status: res.status };
  return { ok: true, data: body as T };
}

/** Header carrying `credential`: free keys by their prefix, anything else as a bundle token. */
export function credentialHeaders(credential: string): Record<string, string> {
  const c = credential.trim();
  return isApiKeyShaped(c) ? { "X-Api-Key": c } : { "X-Bundle-Token": c };
}

export function fetchUsage(usagePath: string, credential: string) {
  return getJson<UsageReport>(usagePath, credentialHeaders(credential));
}

export function mintKey(freeKeyPath: string, email: string) {
  const body = JSON.stringify(email.trim() ? { email: email.trim() } : {});
  return getJson<MintedKey>(freeKeyPath, { "Content-Type": "application/json" }, { method: "POST", body });
}

/** Loose e-mail check before asking the server (which validates precisely). */
export function emailLooksValid(email: string): boolean {
  const e = email.trim();
  return e === "" || /^[^\s@]+@[^\s@]+\.[^\s@]{2,}$/.test(e);
}
