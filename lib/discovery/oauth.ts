/**
 * OAuth discovery for agents that look for it first: RFC 9728 protected-resource
 * metadata (for the whole service and per resource) and, at the RFC 8414 path, a
 * statement that no authorization server runs here. Access is not granted with OAuth
 * tokens: the mechanism is x402 payment per call (when this instance takes one), or a
 * prepaid bundle token / free-tier key; the documents say so.
 *
 * The service runs no OAuth authorization server, so the protected-resource metadata
 * names none (`authorization_servers` is optional in RFC 9728 and absent here): an
 * OAuth client must not be sent to metadata without a token endpoint. Per-resource
 * metadata exists for the resources the service protects (the paid catalog paths and
 * the MCP endpoint); any other well-formed `rest` is 404.
 */
import { ApiError, ValidationError } from "@/lib/errors";
import { productByPath } from "@/lib/catalog";
import { usd6 } from "@/lib/payments/price";
import { paymentOffer } from "@/lib/payments/offer";
import { OAUTH_RESOURCE_PREFIX, docUrl } from "@/lib/discovery/documents";
import { freeEndpoint } from "@/lib/catalog/lookup";
import { SERVICE, acceptedCredentials, paymentFacts } from "@/lib/discovery/service";
import { MCP_PATH } from "@/lib/mcp/info";

/** A resource path under this service: segments of unreserved URL characters, no dot segments. */
export const REST_PATTERN = "^[A-Za-z0-9_~-][A-Za-z0-9._~-]*(/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*$";
export const REST_MAX_LENGTH = 200;
const REST_RE = new RegExp(REST_PATTERN);

/** Validates the `rest` path segment (spec 2.6 422 with loc ["path", "rest"]). */
export function validateRest(rest: string): string {
  if (rest.length > REST_MAX_LENGTH) {
    throw new ValidationError([
      { type: "string_too_long", loc: ["path", "rest"], msg: `String should have at most ${REST_MAX_LENGTH} characters`, input: rest.slice(0, 64) + "…", ctx: { max_length: REST_MAX_LENGTH } },
    ]);
  }
  if (!REST_RE.test(rest)) {
    throw new ValidationError([
      { type: "string_pattern_mismatch", loc: ["path", "rest"], msg: `String should match pattern '${REST_PATTERN}'`, input: rest, ctx: { pattern: REST_PATTERN } },
    ]);
  }
  return rest;
}

/**
 * How access is granted, from the payment-method registry: x402 (with the methods it
 * accepts) when this instance takes per-call payments; otherwise no x402 member at all,
 * and the mechanism is a prepaid bundle token or a free-tier key.
 */
function mechanism(base: string) {
  const pay = paymentFacts();
  return {
    authorization_mechanism: pay.perCall ? "x402" : "bundle_token_or_api_key",
    x402: pay.perCall
      ? {
          version: 2,
          // `exact` (and the first x402 network) when an x402 method is accepted; null when only other schemes (XLM with a memo) are.
          scheme: pay.x402.length > 0 ? "exact" : null,
          network: pay.network,
          asset: pay.asset,
          pay_to: pay.pay_to,
          methods: pay.methods.map((m) => ({ id: m.id, scheme: m.scheme, network: m.network, asset: m.asset, pay_to: m.payTo })),
          headers: { v2: pay.x402.length > 0 ? "PAYMENT-SIGNATURE" : null, v1: "X-PAYMENT" },
          discovery: docUrl(base, "/.well-known/x402"),
          manifest: docUrl(base, "/.well-known/x402-manifest.json"),
        }
      : null,
    alternatives: {
      bundle_token: { header: "X-Bundle-Token", also: "Authorization: Bearer <token>", mcp_argument: "bundle_token" },
      api_key: { header: "X-Api-Key", mcp_argument: "api_key", mint: `${base}${freeEndpoint("/v1/free-key").path}` },
    },
  };
}

/**
 * Throws a 404 unless `rest` names a resource this service protects: a paid catalog
 * path (e.g. "v1/quote") or the MCP endpoint ("mcp").
 */
export function assertProtectedResource(rest: string): void {
  if (`/${rest}` === MCP_PATH || productByPath(`/${rest}`)) return;
  throw new ApiError("not_found", `/${rest} is not a protected resource of this service: metadata exists for the paid paths of /v1/manifest and for ${MCP_PATH}.`);
}

/** RFC 9728 metadata of `resource` (the whole service when `rest` is empty). */
export function protectedResourceMetadata(base: string, rest = ""): Record<string, unknown> {
  if (rest) assertProtectedResource(rest);
  const resource = rest ? `${base}/${rest}` : base;
  const product = rest ? productByPath(`/${rest}`) : undefined;
  return {
    resource,
    resource_name: product ? `${SERVICE.title}: ${product.title}` : SERVICE.title,
    resource_documentation: docUrl(base, "/auth.md"),
    bearer_methods_supported: ["header"],
    scopes_supported: [],
    ...mechanism(base),
    ...(product
      ? {
          price_usd: usd6(product.httpPrice),
          accepted_credentials: acceptedCredentials(product),
          payment_offer: paymentOffer(product.httpPrice),
        }
      : {}),
    openapi: docUrl(base, "/openapi.json"),
    metadata_url: rest ? `${base}${OAUTH_RESOURCE_PREFIX}/${rest}` : docUrl(base, OAUTH_RESOURCE_PREFIX),
  };
}

/**
 * What /.well-known/oauth-authorization-server answers (spec 4.3 keeps the path): no
 * OAuth here, x402 is the mechanism. It is deliberately NOT RFC 8414 metadata: an
 * authorization server without a token endpoint or a single grant type would be
 * invalid metadata for one that does not exist. Without `issuer` an OAuth client's
 * validation (RFC 8414 section 3.3) rejects it instead of trying to use it; no other
 * document points to it (lib/discovery/documents.ts).
 */
export function authorizationServerMetadata(base: string): Record<string, unknown> {
  return {
    authorization_server: false,
    protected_resource_metadata: docUrl(base, OAUTH_RESOURCE_PREFIX),
    service_documentation: docUrl(base, "/auth.md"),
    ...mechanism(base),
    note: paymentFacts().perCall
      ? "No OAuth authorization server runs here: this service issues no OAuth tokens and needs no account, and this document is not RFC 8414 metadata. Authorization is per call with x402: call a paid endpoint, receive 402 with the payment requirement, sign it and repeat the call with PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (v1). A prepaid bundle token (X-Bundle-Token) or a free-tier key (X-Api-Key) are the alternatives."
      : "No OAuth authorization server runs here: this service issues no OAuth tokens and needs no account, and this document is not RFC 8414 metadata. This instance takes no per-call payment: send a prepaid bundle token (X-Bundle-Token) or a free-tier key (X-Api-Key).",
  };
}

/** The validated `rest` of a /.well-known/oauth-protected-resource/{rest} request path. */
export function restFromPath(pathname: string): string {
  const raw = pathname.slice(OAUTH_RESOURCE_PREFIX.length + 1);
  let rest = raw;
  try {
    rest = decodeURIComponent(raw);
  } catch {
    // A malformed escape keeps its "%", which the pattern rejects.
  }
  return validateRest(rest);
}
