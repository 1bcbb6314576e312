/**
 * The A2A facts every A2A module and the agent card share: where the two bindings
 * answer, the a2a-x402 extension (v0.2) and the message metadata keys this service reads
 * and writes. The HTTP+JSON binding lives under /a2a rather than at the site root:
 * `/v1/*` is the product namespace and `/` is the home page.
 */

/** Base URL path of the HTTP+JSON binding (`POST {A2A_REST_PATH}/v1/message:send`). */
export const A2A_REST_PATH = "/a2a";
/** URL path of the JSON-RPC binding (`POST`, method `message/send`). */
export const A2A_JSONRPC_PATH = "/a2a/jsonrpc";

/**
 * `A2A-Version` of the 0.3 protocol as the SDK's compatibility layer names it in the card's
 * interfaces (a request without the header asks for it, A2A 1.0 section 3.6.2).
 */
export const A2A_LEGACY_VERSION = "0.3";

/** a2a-x402 extension, spec v0.2 (google-agentic-commerce/a2a-x402). */
export const X402_EXTENSION_URI = "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2";

/** Message and task metadata keys. */
export const META = {
  /** Which card skill a new message asks for (a skill id from the agent card). */
  skill: "skill",
  /** Prepaid bundle token (same value as the HTTP X-Bundle-Token header). */
  bundleToken: "bundle_token",
  /** Free-tier API key (same value as the HTTP X-Api-Key header). */
  apiKey: "api_key",
  /** What the call used: credential kind, receipt id, quota or bundle credits left. */
  access: "echo.access",
  /** Error of a failed task: `{code, message, status}` (a 422 also has a `detail` data part). */
  error: "echo.error",
  /** Where the gated call's time went, in ms (`verify_ms`, `handler_ms`, `settle_ms`; also the Server-Timing header). */
  timing: "echo.timing",
  paymentStatus: "x402.payment.status",
  paymentRequired: "x402.payment.required",
  paymentPayload: "x402.payment.payload",
  paymentReceipts: "x402.payment.receipts",
  paymentError: "x402.payment.error",
} as const;

/** Largest request body either binding reads (an x402 payload is a few KiB). */
export const A2A_MAX_BODY_BYTES = 64 * 1024;
