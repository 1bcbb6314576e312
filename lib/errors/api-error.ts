import { ERROR_CODES, type ErrorCode } from "@/lib/errors/codes";
import { brand } from "@/lib/errors/brand";

/** One entry of spec 2.6's `detail[]`. */
export interface ValidationIssue {
  loc: Array<string | number>;
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

/**
 * A failure with a stable code; turned into a JSON response by `errorResponse`. When the
 * caller should retry later, `retryAfterSeconds` says when (typed, like the gate's
 * refusals); it is rendered here once, as the HTTP `Retry-After` header and the body's
 * `retry_after`, so callers never write either by hand.
 */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly extra: Record<string, unknown>;
  readonly retryAfterSeconds: number | null;

  constructor(
    code: ErrorCode,
    message?: string,
    opts: { headers?: Record<string, string>; extra?: Record<string, unknown>; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(message ?? ERROR_CODES[code].message, { cause: opts.cause });
    this.name = "ApiError";
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.retryAfterSeconds = opts.retryAfterSeconds ?? null;
    const retry = this.retryAfterSeconds;
    this.headers = retry === null ? (opts.headers ?? {}) : { ...opts.headers, "Retry-After": String(retry) };
    this.extra = retry === null ? (opts.extra ?? {}) : { retry_after: retry, ...opts.extra };
  }

  /** JSON body of the HTTP error response. */
  httpBody(): unknown {
    return { error: { code: this.code, message: this.message, ...this.extra } };
  }

  /** Headers of the HTTP error response. */
  httpHeaders(): Record<string, string> {
    return this.headers;
  }
}
brand(ApiError, "ApiError");

/** Spec 2.6 validation failure (HTTP 422). */
export class ValidationError extends ApiError {
  readonly detail: ValidationIssue[];
  constructor(detail: ValidationIssue[]) {
    super("validation_error", detail[0]?.msg ?? "Invalid parameters.");
    this.name = "ValidationError";
    this.detail = detail;
  }

  override httpBody(): unknown {
    return { detail: this.detail };
  }
}
brand(ValidationError, "ValidationError");

/** A product could not be computed from its upstreams (HTTP 503 with Retry-After). */
export class UnavailableError extends ApiError {
  declare readonly retryAfterSeconds: number;
  constructor(message: string, opts: { retryAfterSeconds?: number; sources?: string[]; cause?: unknown } = {}) {
    super("upstream_unavailable", message, {
      retryAfterSeconds: opts.retryAfterSeconds ?? 30,
      extra: opts.sources ? { sources: opts.sources } : {},
      cause: opts.cause,
    });
    this.name = "UnavailableError";
  }
}
brand(UnavailableError, "UnavailableError");

/**
 * The service itself could not complete the call (its database or another internal
 * dependency failed, or an unexpected error): HTTP 503 with Retry-After, nothing
 * charged. The cause goes to the log only; the response names no internals.
 */
export class ServiceUnavailableError extends ApiError {
  declare readonly retryAfterSeconds: number;
  constructor(message?: string, opts: { retryAfterSeconds?: number; cause?: unknown } = {}) {
    super("service_unavailable", message, { retryAfterSeconds: opts.retryAfterSeconds ?? 10, cause: opts.cause });
    this.name = "ServiceUnavailableError";
  }
}
brand(ServiceUnavailableError, "ServiceUnavailableError");
