/**
 * The JSON-RPC binding (POST {base}/a2a/jsonrpc): the SDK's JsonRpcTransportHandler, fed
 * from a Web Request. Protocol errors are JSON-RPC error objects; nothing answers 500.
 */
import { JsonRpcTransportHandler } from "@a2a-js/sdk/server";
import { logUnexpected } from "@/lib/errors";
import { a2aRequestHandler } from "@/lib/a2a/handler";
import { a2aHeaders, callContext, readJsonBody, timingHeaders } from "@/lib/a2a/transport";
import { Caller } from "@/lib/a2a/executor";
import { processState } from "@/lib/process-state";

/** The SDK's JSON-RPC handler over the shared request handler (process-wide, like it). */
const transport = () => processState("a2a.jsonrpc", () => new JsonRpcTransportHandler(a2aRequestHandler()));

function rpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error: { code, message } }), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });
}

export async function serveJsonRpc(req: Request): Promise<Response> {
  const body = await readJsonBody(req);
  if (!body.ok) return rpcError(body.status, body.code, body.message);
  const caller = new Caller(req);
  try {
    const result = await transport().handle(body.value, callContext(req, caller));
    // Streaming methods are refused by the SDK (the card says streaming: false).
    if (typeof (result as AsyncIterable<unknown>)[Symbol.asyncIterator] === "function") return rpcError(400, -32004, "Streaming is not supported.");
    return new Response(JSON.stringify(result), { status: 200, headers: { ...a2aHeaders(req), ...timingHeaders(caller) } });
  } catch (err) {
    logUnexpected(err, { surface: "a2a", binding: "jsonrpc" });
    return rpcError(503, -32603, "The service is temporarily unavailable; nothing was charged.", { "Retry-After": "10" });
  }
}
