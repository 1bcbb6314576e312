/**
 * Tool arguments: the JSON Schema each tool advertises (generated from the catalog's
 * parameter docs; every extra argument is a string on this surface, `hours` included)
 * and their validation through the same zod parameter schemas the HTTP query uses.
 * Failures are spec 2.6 issues located under "arguments", so an MCP caller gets the
 * same `detail[]` an HTTP caller gets under "query".
 */
import { paramsSchema, type ParamDoc, type ParamSet } from "@/lib/catalog/params";
import { toValidationIssues } from "@/lib/catalog/validate";
import { ValidationError, type ValidationIssue } from "@/lib/errors";
import { freeEndpoint, productById } from "@/lib/catalog/lookup";
import { MCP_MAX_CREDENTIAL_CHARS } from "@/lib/mcp/info";
import { FREE_TOOLS } from "@/lib/catalog/free";

export type JsonSchema = Record<string, unknown>;

/** Optional credential arguments of every paid tool (spec 4.5). */
export const CREDENTIAL_ARGS = ["payment", "bundle_token", "api_key"] as const;
export type CredentialArgs = { [K in (typeof CREDENTIAL_ARGS)[number]]?: string | null };

const WHERE = "arguments";

/** What the `payment` argument takes on this instance (from the payment-method registry). */
export interface PaymentArgument {
  /** Labels of the x402 methods ("USDC on eip155:8453"), offered in accepts[]. */
  x402: string[];
  /** Labels of the other per-call methods (native XLM with a memo), offered beside accepts[]. */
  others: string[];
}

function paymentDoc(pay: PaymentArgument): string {
  if (pay.x402.length === 0 && pay.others.length === 0) {
    return 'Per-call payment is not configured on this instance: a payment sent here is refused. Use "bundle_token" or "api_key".';
  }
  const parts: string[] = [];
  if (pay.x402.length > 0) parts.push(`base64 of an x402 v2 PaymentPayload (v1 accepted) signed against accepts[] of the payment requirement this tool returns without credentials (${pay.x402.join(" or ")})`);
  if (pay.others.length > 0) parts.push(`the base64 payload described by the requirement's offer for ${pay.others.join(" or ")}`);
  return `Payment for exactly this tool's price: ${parts.join("; or ")}. The payload object may instead be sent in _meta["x402/payment"].`;
}

/** Read lazily: the catalog is imported by modules this one serves. */
function credentialDocs(pay: PaymentArgument): Record<(typeof CREDENTIAL_ARGS)[number], string> {
  const bundle = productById("bundle");
  if (!bundle.tool) throw new Error("the bundle product has no MCP tool");
  return {
    payment: paymentDoc(pay),
    bundle_token: `Prepaid bundle token (from ${bundle.tool.name} or GET ${bundle.path}); the call consumes its credits.`,
    api_key: `Free-tier API key (from ${FREE_TOOLS.freeKey} or GET ${freeEndpoint("/v1/free-key").path}); covers standard tools within its daily quota.`,
  };
}

/** JSON Schema of one catalog parameter as an MCP string argument. */
function argumentSchema(doc: ParamDoc): JsonSchema {
  const range = doc.type === "integer" && doc.minimum !== undefined && doc.maximum !== undefined ? ` An integer from ${doc.minimum} to ${doc.maximum}, given as a string.` : "";
  return {
    type: "string",
    description: `${doc.description}${range}`,
    ...(doc.default !== undefined ? { default: String(doc.default) } : {}),
    ...(doc.enum ? { enum: doc.enum } : {}),
    ...(doc.pattern ? { pattern: doc.pattern } : {}),
    ...(doc.type === "integer" ? { pattern: "^[+-]?\\d+$" } : {}),
    ...(doc.maxLength !== undefined ? { maxLength: doc.maxLength } : {}),
    ...(doc.example !== undefined ? { examples: [doc.example] } : {}),
  };
}

/**
 * Input schema of a tool: its catalog parameters, plus the credentials when it is paid.
 * `payment` stays an argument even when no per-call method is accepted (a payment sent
 * anyway gets a clear refusal rather than an unknown-argument error); its description
 * then says so.
 */
export function inputSchemaFor(params: ParamSet, paid: boolean, pay: PaymentArgument = { x402: [], others: [] }): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const [name, p] of Object.entries(params)) {
    properties[name] = argumentSchema(p.doc);
    if (p.doc.required) required.push(name);
  }
  if (paid) {
    const docs = credentialDocs(pay);
    for (const name of CREDENTIAL_ARGS) {
      properties[name] = { anyOf: [{ type: "string", maxLength: MCP_MAX_CREDENTIAL_CHARS }, { type: "null" }], default: null, description: docs[name] };
    }
  }
  return { type: "object", properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

function issue(name: string, type: string, msg: string, input: unknown, ctx?: Record<string, unknown>): ValidationIssue {
  return { loc: [WHERE, name], msg, type, input: input ?? null, ...(ctx ? { ctx } : {}) };
}

export interface ParsedArguments<T = unknown> {
  /** Parameter values after the catalog's validation (defaults applied). */
  params: T;
  /** The raw string values of the catalog parameters (null/absent dropped). */
  raw: Record<string, string>;
  credentials: CredentialArgs;
}

/**
 * Validates tool arguments against a tool's parameters (and credentials when paid).
 * Unknown arguments are refused rather than ignored: a misspelt `hours` silently
 * replaced by its default would charge the caller for data it did not ask for.
 * `null` counts as "not given" (clients often send null for optional arguments).
 * Throws a ValidationError (spec 2.6, loc ["arguments", name]).
 */
export function parseArguments<T = unknown>(params: ParamSet, paid: boolean, args: unknown): ParsedArguments<T> {
  if (args !== undefined && args !== null && (typeof args !== "object" || Array.isArray(args))) {
    throw new ValidationError([{ loc: [WHERE], msg: "Input should be a valid dictionary", type: "dict_type", input: args }]);
  }
  const given = (args ?? {}) as Record<string, unknown>;
  const issues: ValidationIssue[] = [];
  const raw: Record<string, string> = {};
  const credentials: CredentialArgs = {};
  const broken = new Set<string>();

  for (const [name, value] of Object.entries(given)) {
    const isCredential = paid && (CREDENTIAL_ARGS as readonly string[]).includes(name);
    if (!isCredential && !Object.hasOwn(params, name)) {
      issues.push(issue(name, "extra_forbidden", "Extra inputs are not permitted", value));
      continue;
    }
    if (value === null || value === undefined) continue;
    if (typeof value !== "string") {
      issues.push(issue(name, "string_type", "Input should be a valid string", value));
      broken.add(name);
      continue;
    }
    if (isCredential) {
      if (value.length > MCP_MAX_CREDENTIAL_CHARS) {
        issues.push(
          issue(name, "string_too_long", `String should have at most ${MCP_MAX_CREDENTIAL_CHARS} characters`, value.slice(0, 64) + "…", { max_length: MCP_MAX_CREDENTIAL_CHARS }),
        );
      } else {
        credentials[name as keyof CredentialArgs] = value;
      }
      continue;
    }
    raw[name] = value;
  }

  const parsed = paramsSchema(params).safeParse(raw, { reportInput: true });
  if (!parsed.success) {
    // A parameter already refused for its type would be reported twice (e.g. as missing).
    const own = toValidationIssues(parsed.error.issues, WHERE).filter((i) => !broken.has(String(i.loc[1])));
    issues.push(...own);
  }
  if (issues.length) throw new ValidationError(issues);
  return { params: (parsed.success ? parsed.data : {}) as T, raw, credentials };
}

/** The same issues, with handler-side cross-field checks (loc "query") moved to "arguments". */
export function asArgumentIssues(err: ValidationError): ValidationIssue[] {
  return err.detail.map((d) => (d.loc[0] === "query" ? { ...d, loc: [WHERE, ...d.loc.slice(1)] } : d));
}
