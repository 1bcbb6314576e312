/**
 * Every error the service answers with, by stable machine-readable code. Status and
 * default message live here once; callers throw `ApiError(code, ...)`. There is no
 * 500: a failure nobody anticipated is `service_unavailable` (503 with Retry-After,
 * nothing charged), with the details in the log only.
 */
export const ERROR_CODES = {
  bad_request: { status: 400, message: "The request is malformed." },
  invalid_credential: { status: 402, message: "The bundle token or API key is not valid." },
  payment_required: { status: 402, message: "Payment required." },
  free_tier_not_covered: { status: 402, message: "The free tier does not cover this product." },
  payment_invalid: { status: 402, message: "The payment was refused." },
  payment_replayed: { status: 402, message: "This payment has already been used." },
  bundle_exhausted: { status: 402, message: "The bundle has no credits left for this call." },
  not_found: { status: 404, message: "Not found." },
  method_not_allowed: { status: 405, message: "Method not allowed." },
  payment_conflict: { status: 409, message: "This payment (or its payment identifier) was presented before with another payload." },
  request_timeout: { status: 408, message: "The request was not received in time." },
  payload_too_large: { status: 413, message: "The request body is too large." },
  validation_error: { status: 422, message: "Invalid parameters." },
  rate_limited: { status: 429, message: "Too many requests." },
  headers_too_large: { status: 431, message: "The request headers are too large." },
  quota_exhausted: { status: 429, message: "The daily quota of this API key is used up." },
  settlement_failed: { status: 402, message: "The payment could not be settled; nothing was charged." },
  settlement_pending: { status: 503, message: "The settlement's outcome is not known yet; send the same payment again to resolve it." },
  upstream_unavailable: { status: 503, message: "An upstream data source is unavailable; nothing was charged." },
  service_unavailable: { status: 503, message: "The service is temporarily unavailable; nothing was charged." },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERROR_CODES;
