/**
 * What both bindings do around the SDK: read the body within A2A_MAX_BODY_BYTES, build
 * the call context (requested extensions, the HTTP request for the gate) and echo the
 * a2a-x402 extension when the client asked for it and the agent card declares it (an
 * instance that takes no x402 payment does not).
 */
import { Extensions, HTTP_EXTENSION_HEADER } from "@a2a-js/sdk";
import { ServerCallContext } from "@a2a-js/sdk/server";
import { readBounded } from "@/lib/http/read-bounded";
import { serverTiming } from "@/lib/http/access-render";
import { A2A_MAX_BODY_BYTES, X402_EXTENSION_URI } from "@/lib/a2a/protocol";
import { Caller } from "@/lib/a2a/executor";
import { a2aExtensions } from "@/lib/discovery/cards";

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

export function callContext(req: Request, caller: Caller): ServerCallContext {
  return new ServerCallContext(Extensions.parseServiceParameter(req.headers.get(HTTP_EXTENSION_HEADER) ?? undefined), caller);
}

/** Server-Timing of the message's gated call (one per message: a skill call), when one ran. */
export function timingHeaders(caller: Caller): Record<string, string> {
  const timing = caller.timing ? serverTiming(caller.timing) : "";
  return timing ? { "Server-Timing": timing } : {};
}

/** Response headers shared by both bindings. */
export function a2aHeaders(req: Request): Record<string, string> {
  const h: Record<string, string> = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" };
  const asked = Extensions.parseServiceParameter(req.headers.get(HTTP_EXTENSION_HEADER) ?? undefined);
  if (asked.includes(X402_EXTENSION_URI) && a2aExtensions().some((e) => e.uri === X402_EXTENSION_URI)) h[HTTP_EXTENSION_HEADER] = X402_EXTENSION_URI;
  return h;
}
