/**
 * Credential values: a fixed prefix (so a leaked value is recognisable and a bearer
 * value can be told apart from a bundle token) plus 256 random bits. Only the SHA-256
 * is stored; the value is shown once to its owner.
 */
import { createHash, randomBytes } from "node:crypto";
import { API_KEY_PREFIX, BUNDLE_TOKEN_PREFIX } from "@/lib/access/credentials";

export function newSecret(kind: "api_key" | "bundle"): { value: string; hash: string; prefix: string } {
  const value = (kind === "api_key" ? API_KEY_PREFIX : BUNDLE_TOKEN_PREFIX) + randomBytes(32).toString("base64url");
  return { value, hash: hashSecret(value), prefix: value.slice(0, 14) };
}

export function hashSecret(value: string): string {
  return createHash("sha256").update(value, "utf8").digest("hex");
}

/** Whether `value` has the shape of one of our credentials (cheap pre-check before the DB). */
export function wellFormed(value: string, kind: "api_key" | "bundle"): boolean {
  const prefix = kind === "api_key" ? API_KEY_PREFIX : BUNDLE_TOKEN_PREFIX;
  return value.startsWith(prefix) && /^[A-Za-z0-9_-]{43}$/.test(value.slice(prefix.length));
}
