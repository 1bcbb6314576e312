/**
 * What both bindings do around the SDK: read the body within A2A_MAX_BODY_BYTES, tell
 * which protocol version a request speaks (A2A 1.0, or 0.3 through the SDK's
 * compatibility layer), build the call context (requested extensions, version, the HTTP
 * request for the gate) and echo the a2a-x402 extension when the client asked for it and
 * the agent card declares it (an instance that takes no x402 payment does not), in the
 * header of the request's version (`A2A-Extensions`; 0.3: `X-A2A-Extensions`).
 */
import { A2A_VERSION_HEADER, Extensions, HTTP_EXTENSION_HEADER } from "@a2a-js/sdk";
import { LEGACY_HTTP_EXTENSION_HEADER } from "@a2a-js/sdk/compat/v0_3";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { readBounded } from "@/lib/http/read-bounded";
import { serverTiming } from "@/lib/http/access-render";
import { A2A_LEGACY_VERSION, A2A_MAX_BODY_BYTES, X402_EXTENSION_URI } from "@/lib/a2a/protocol";
import { Caller } from "@/lib/a2a/executor";
import { a2aExtensions, isA2aV1 } from "@/lib/discovery/cards";

export type Body = { ok: true; value: unknown } | { ok: false; status: number; code: number; message: string };

/**
 * The request's JSON body; a refusal (-32700 unparsable, -32600 too large) otherwise.
 * `emptyAs`: what an empty (or all-whitespace) body stands for, where the method's
 * request has nothing beyond the URL; without it an empty body is unparsable JSON.
 */
export async function readJsonBody(req: Request, opts: { emptyAs?: unknown } = {}): Promise<Body> {
  const text = await readBounded(req, A2A_MAX_BODY_BYTES).catch(() => undefined);
  if (text === null) return { ok: false, status: 413, code: -32600, message: `Request body too large: at most ${A2A_MAX_BODY_BYTES} bytes.` };
  if (text === undefined) return { ok: false, status: 400, code: -32700, message: "The request body could not be read." };
  if (opts.emptyAs !== undefined && text.trim() === "") return { ok: true, value: opts.emptyAs };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, status: 400, code: -32700, message: "Invalid JSON payload." };
  }
}

/** The `A2A-Version` the request asks for; none means 0.3 (A2A 1.0, section 3.6.2). */
export function requestedVersion(req: Request): string {
  return req.headers.get(A2A_VERSION_HEADER)?.trim() || A2A_LEGACY_VERSION;
}

/** Whether the request is served A2A 0.3 (through the SDK's compatibility layer). */
export function isLegacy(req: Request): boolean {
  return !isA2aV1(requestedVersion(req));
}

function extensionHeader(legacy: boolean): string {
  return legacy ? LEGACY_HTTP_EXTENSION_HEADER : HTTP_EXTENSION_HEADER;
}

/** Extensions the client asked for: 1.0's header, or for 0.3 its own (the 1.0 one as a fallback, as the SDK does). */
function askedExtensions(req: Request, legacy: boolean): Extensions {
  const raw = (legacy ? req.headers.get(LEGACY_HTTP_EXTENSION_HEADER) : null) ?? req.headers.get(HTTP_EXTENSION_HEADER) ?? undefined;
  return Extensions.parseServiceParameter(raw);
}

export function callContext(req: Request, caller: Caller, legacy: boolean, version = requestedVersion(req)): ServerCallContext {
  return new ServerCallContext({ requestedExtensions: askedExtensions(req, legacy), user: caller, requestedVersion: version });
}

/** Server-Timing of the message's gated call (one per message: a skill call), when one ran. */
export function timingHeaders(caller: Caller): Record<string, string> {
  const timing = caller.timing ? serverTiming(caller.timing) : "";
  return timing ? { "Server-Timing": timing } : {};
}

/** Response headers shared by both bindings; `contentType` per version (1.0 HTTP+JSON: application/a2a+json). */
export function a2aHeaders(req: Request, legacy: boolean, contentType = "application/json"): Record<string, string> {
  const h: Record<string, string> = { "Content-Type": `${contentType}; charset=utf-8`, "Cache-Control": "no-store" };
  if (askedExtensions(req, legacy).includes(X402_EXTENSION_URI) && a2aExtensions().some((e) => e.uri === X402_EXTENSION_URI)) h[extensionHeader(legacy)] = X402_EXTENSION_URI;
  return h;
}
