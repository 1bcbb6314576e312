/**
 * The JSON-RPC binding (POST {base}/a2a/jsonrpc): the SDK's own transport handlers, fed
 * from a Web Request. A2A 1.0 methods (`SendMessage`, `GetTask`, `CancelTask`) go to its
 * JsonRpcTransportHandler; 0.3 ones (`message/send`, …) and anything else to its 0.3
 * compatibility handler, as the SDK's Express handler dispatches them (the two method
 * grammars are disjoint; an unknown method answers in 0.3's terms, spec 3.6.2). The
 * handlers are built once per process. Protocol errors are JSON-RPC error objects;
 * nothing answers 500.
 */
import { isV1JsonRpcMethod } from "@a2a-js/sdk/compat/v0_3";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { JsonRpcTransportHandler, validateVersion, type DefaultRequestHandler } from "@a2a-js/sdk/server";
import { logUnexpected } from "@/lib/errors";
import { a2aRequestHandler, currentCard } from "@/lib/a2a/handler";
import { a2aHeaders, callContext, readJsonBody, requestedVersion, timingHeaders } from "@/lib/a2a/transport";
import { Caller } from "@/lib/a2a/executor";
import { processState } from "@/lib/process-state";

interface Transports {
  v1: JsonRpcTransportHandler;
  legacy: LegacyJsonRpcTransportHandler;
}

/** The SDK's JSON-RPC handlers (1.0 and 0.3) over a request handler (process-wide, like it: one pair per handler). */
function transports(handler: DefaultRequestHandler): Transports {
  const all = processState("a2a.jsonrpc.by-handler", () => new WeakMap<DefaultRequestHandler, Transports>());
  let t = all.get(handler);
  if (!t) {
    t = { v1: new JsonRpcTransportHandler(handler), legacy: new LegacyJsonRpcTransportHandler(handler) };
    all.set(handler, t);
  }
  return t;
}

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}, id: unknown = null): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });
}

/** Serves one POST of the JSON-RPC binding through the process's request handler (the route's POST). */
export function serveJsonRpc(req: Request): Promise<Response> {
  return serveJsonRpcWith(req, a2aRequestHandler());
}

/** Serves one POST of the JSON-RPC binding through `handler`. */
export async function serveJsonRpcWith(req: Request, handler: DefaultRequestHandler): Promise<Response> {
  const body = await readJsonBody(req);
  if (!body.ok) return rpcError(body.status, body.code, body.message);
  const value = body.value;
  const method = typeof value === "object" && value !== null ? (value as { method?: unknown }).method : undefined;
  const legacy = !isV1JsonRpcMethod(method);
  const id = typeof value === "object" && value !== null ? ((value as { id?: unknown }).id ?? null) : null;
  const caller = new Caller(req);
  const version = requestedVersion(req);
  const headers = a2aHeaders(req, legacy);
  try {
    let result: unknown;
    try {
      validateVersion(version, currentCard(), "JSONRPC");
      const { v1, legacy: v03 } = transports(handler);
      const context = callContext(req, caller, legacy, version);
      result = legacy ? await v03.handle(value as Record<string, unknown>, context) : await v1.handle(value as Record<string, unknown>, context);
    } catch (err) {
      // Refusals the SDK raises before its own handler answers (an unsupported A2A-Version).
      const error = legacy ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError(err) : JsonRpcTransportHandler.mapToJSONRPCError(err);
      if (error.code === -32603) throw err;
      return new Response(JSON.stringify({ jsonrpc: "2.0", id, error }), { status: 200, headers });
    }
    // Streaming methods are refused by the SDK (the card says streaming: false).
    if (typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function") return rpcError(400, -32004, "Streaming is not supported.", {}, id);
    return new Response(JSON.stringify(result), { status: 200, headers: { ...headers, ...timingHeaders(caller) } });
  } catch (err) {
    logUnexpected(err, { surface: "a2a", binding: "jsonrpc" });
    return rpcError(503, -32603, "The service is temporarily unavailable; nothing was charged.", { "Retry-After": "10" }, id);
  }
}
