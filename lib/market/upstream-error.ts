import { brand } from "@/lib/errors/brand";
/**
 * The one error of an upstream call (timeout, network, HTTP status, rate limit, parse),
 * apart from the client base (./upstream.ts) so that the limiter, which the client base
 * uses, can raise it too without the two modules importing each other.
 */
export type UpstreamFailure = "timeout" | "network" | "http" | "rate_limited" | "parse" | "upstream_error";

export interface UpstreamErrorDetail {
  /** What the answer means for this provider, in words a caller can act on (no URL). */
  note?: string;
  /** The provider's Retry-After, in ms. */
  retryAfterMs?: number;
}

export class UpstreamError extends Error {
  readonly provider: string;
  readonly kind: UpstreamFailure;
  readonly status?: number;
  readonly note?: string;
  readonly retryAfterMs?: number;
  constructor(provider: string, kind: UpstreamFailure, message: string, status?: number, detail: UpstreamErrorDetail = {}) {
    super(`${provider}: ${message}`);
    this.name = "UpstreamError";
    this.provider = provider;
    this.kind = kind;
    this.status = status;
    this.note = detail.note;
    this.retryAfterMs = detail.retryAfterMs;
  }
}
brand(UpstreamError, "UpstreamError");
