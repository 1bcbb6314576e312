/**
 * HTTP in front of the MCP transport, for /mcp and /mcp/{path} (spec 4.4: GET, POST, PUT,
 * PATCH and DELETE answer 200 JSON, or 422 for an invalid `path`):
 *
 * - POST /mcp: MCP JSON-RPC over streamable HTTP. The body is read here first, bounded
 *   (413 over MCP_MAX_BODY_BYTES), parsed (400 / -32700) and shape-checked as JSON-RPC 2.0
 *   (400 / -32600), so malformed traffic gets a JSON-RPC error before the SDK sees it;
 *   these statuses are what MCP clients expect from a streamable-HTTP server. A crash
 *   inside the transport answers 200 with a JSON-RPC -32603 error for the request's id:
 *   the client's pending call fails with a JSON-RPC error it can read instead of a bare
 *   HTTP failure, and nothing ran to completion, so nothing was charged.
 * - GET /mcp: with `Accept: text/event-stream` (an MCP client opening the optional
 *   standalone SSE stream) 405, which is how a stateless streamable-HTTP server says it
 *   offers none (the official SDK client treats 405 as "no stream" and carries on);
 *   otherwise 200 JSON describing the server. PUT and PATCH answer the same description.
 * - DELETE /mcp: 200 JSON acknowledging that there is no session to end (the server is
 *   stateless and never issues an Mcp-Session-Id).
 * - /mcp/{path} and /mcp?path=<view>: the JSON view (lib/mcp/paths.ts) on every method. A
 *   JSON-RPC message POSTed to a view gets a JSON-RPC error pointing at /mcp, so an MCP
 *   client configured with the wrong URL fails with a readable message. Unknown views are
 *   404 JSON on every method: answering 200 for a resource that does not exist would hide
 *   a typo in a tool name.
 * - An invalid `path` value, or `path` given twice: 422 (spec 2.6) on every method, loc
 *   ["query","path"] or ["path","path"].
 * - A JSON object naming a member twice (JSON.parse would keep the last one silently): a
 *   repeated tool argument gets the usual bad-argument tool result, anything else 400.
 * Nothing here answers HTML or a bare 500.
 */
import { paramsSchema } from "@/lib/catalog/params";
import { validateOrThrow } from "@/lib/catalog/validate";
import { ApiError, errorResponse, jsonResponse } from "@/lib/errors";
import { baseUrl } from "@/lib/http/base-url";
import { ROUTE_METHODS, allowHeader } from "@/lib/http/methods";
import { queryRecord, repeatedParamIssue } from "@/lib/http/query";
import { findDuplicateMember, type DuplicateMember } from "@/lib/json/duplicate-members";
import { log } from "@/lib/log";
import { MCP_MAX_BODY_BYTES, MCP_PATH } from "@/lib/mcp/info";
import { readBounded } from "@/lib/http/read-bounded";
import { MCP_PATH_PARAM, pathView, sessionEnd } from "@/lib/mcp/paths";
import { errorResult, toolServerTiming } from "@/lib/mcp/results";
import { mcpTransportHandler } from "@/lib/mcp/server";

/** Browser-based MCP clients (e.g. the Inspector UI) call cross-origin; credentials travel in the body, never in cookies. */
const CORS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "Mcp-Session-Id, Mcp-Protocol-Version, Allow, Server-Timing",
  // Lets a browser client's Resource Timing see Server-Timing too (it is no secret).
  "Timing-Allow-Origin": "*",
};

/** Every method spec 4.4 declares, on /mcp and /mcp/{path} alike. */
const ALLOW = allowHeader(ROUTE_METHODS);

const pathSchema = paramsSchema({ path: MCP_PATH_PARAM });

const CORS_ENTRIES = Object.entries(CORS);

function withCors(res: Response): Response {
  // Responses from the SDK may have immutable headers; copy when needed.
  try {
    for (const [k, v] of CORS_ENTRIES) res.headers.set(k, v);
    return res;
  } catch {
    const headers = new Headers(res.headers);
    for (const [k, v] of CORS_ENTRIES) headers.set(k, v);
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  }
}

/** A JSON-RPC 2.0 error response (the form MCP clients parse on the transport). */
export function jsonRpcError(status: number, code: number, message: string, id: string | number | null = null, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id }), {
    status,
    headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", ...headers },
  });
}

function methodNotAllowed(method: string, why: string): Response {
  return errorResponse(new ApiError("method_not_allowed", `${method} is not allowed here: ${why}`, { headers: { Allow: ALLOW } }));
}

const NO_STORE = { "Cache-Control": "no-store" };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isId = (v: unknown): v is string | number => typeof v === "string" || (typeof v === "number" && Number.isFinite(v));

/** Why `m` is not a JSON-RPC 2.0 request, notification or response; null when it is one. */
function jsonRpcProblem(m: unknown): string | null {
  if (!isObject(m)) return "a JSON-RPC message must be an object";
  if (m.jsonrpc !== "2.0") return '"jsonrpc" must be "2.0"';
  if ("method" in m) {
    if (typeof m.method !== "string" || m.method === "") return '"method" must be a non-empty string';
    if ("id" in m && !isId(m.id)) return '"id" must be a string or a number';
    if ("params" in m && m.params !== undefined && typeof m.params !== "object") return '"params" must be an object or an array';
    return null;
  }
  if (("result" in m || "error" in m) && (isId(m.id) || m.id === null)) return null;
  return 'a request needs "method"; a response needs "id" and "result" or "error"';
}

/** The first id of a JSON-RPC message or batch, for an error answering it. */
function firstId(body: unknown): string | number | null {
  const first = Array.isArray(body) ? body.find((m) => isObject(m) && isId(m.id)) : body;
  return isObject(first) && isId(first.id) ? first.id : null;
}

/** Whether `text` is a JSON-RPC 2.0 message or batch (a misdirected MCP client). */
function jsonRpcBody(text: string | null): unknown {
  if (!text) return undefined;
  try {
    const body: unknown = JSON.parse(text);
    const messages = Array.isArray(body) ? body : [body];
    return messages.length > 0 && messages.every((m) => jsonRpcProblem(m) === null) ? body : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The answer to a message in which one object names a member twice. A repeated tool
 * argument gets the tool result any bad argument gets (isError, spec 2.6 `detail` with
 * loc ["arguments", name]), like `tickers=A&tickers=B` over HTTP; a repeat anywhere
 * else makes the message itself ambiguous: 400 Invalid Request naming where it is.
 */
function duplicateAnswer(body: unknown, d: DuplicateMember): Response {
  const where = d.path.length ? d.path.join(".") : "the message";
  if (isObject(body) && isId(body.id) && body.method === "tools/call" && d.path.join("/") === "params/arguments") {
    const result = errorResult({ detail: [repeatedParamIssue(d.name, d.values, "arguments")] });
    return jsonResponse({ jsonrpc: "2.0", id: body.id, result }, { headers: NO_STORE });
  }
  return jsonRpcError(400, -32600, `Invalid Request: "${d.name}" is given ${d.values.length} times in ${where}; send each member once.`, firstId(body));
}

/** The first protocol revision without JSON-RPC batching (MCP 2025-06-18 removed it; 2025-03-26 had added it). */
const NO_BATCH_SINCE = "2025-06-18";

/**
 * Why a batch is refused under the protocol revision the client negotiated, or null when
 * that revision has batching. This server is stateless, so the negotiated revision is
 * what the client sends with every request after `initialize`: the MCP-Protocol-Version
 * header (absent: 2025-03-26, as the specification tells servers to assume), or the
 * revision an `initialize` inside the batch asks for. Revision strings are dates, so
 * they compare as text.
 */
function batchRefusal(req: Request, batch: unknown[]): string | null {
  const header = req.headers.get("mcp-protocol-version")?.trim();
  const asked = batch.map((m) => (isObject(m) && m.method === "initialize" && isObject(m.params) && typeof m.params.protocolVersion === "string" ? m.params.protocolVersion : null)).find((v) => v !== null);
  const version = header || asked || null;
  if (version === null || version < NO_BATCH_SINCE) return null;
  return `Invalid Request: JSON-RPC batches are not part of MCP protocol ${version} (batching was removed in ${NO_BATCH_SINCE}); send one message per POST.`;
}

/** The MCP transport: the caller's request (body already read) and the JSON-RPC message or batch it carried → the answer. */
export type Transport = (req: Request, body: unknown) => Promise<Response>;

async function serveTransport(req: Request, transport: Transport): Promise<Response> {
  const text = await readBounded(req, MCP_MAX_BODY_BYTES).catch(() => undefined);
  if (text === undefined) return jsonRpcError(400, -32700, "Parse error: the request body could not be read.");
  if (text === null) return jsonRpcError(413, -32600, `Request body too large: at most ${MCP_MAX_BODY_BYTES} bytes.`);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return jsonRpcError(400, -32700, "Parse error: the request body is not valid JSON.");
  }
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return jsonRpcError(400, -32600, "Invalid Request: empty batch.");
  for (const m of messages) {
    const problem = jsonRpcProblem(m);
    if (problem) return jsonRpcError(400, -32600, `Invalid Request: ${problem}.`, isObject(m) && isId(m.id) ? m.id : null);
  }
  if (Array.isArray(body)) {
    const refused = batchRefusal(req, body);
    if (refused) return jsonRpcError(400, -32600, refused, null);
  }
  const duplicate = findDuplicateMember(text);
  if (duplicate) return duplicateAnswer(body, duplicate);
  let res: Response;
  try {
    res = await transport(req, body);
  } catch (err) {
    log.error("mcp.transport_error", { message: (err as Error)?.message });
    return jsonRpcError(200, -32603, "Internal error: the MCP transport failed; nothing was charged. Retry the request.", firstId(body));
  }
  return isObject(body) && isId(body.id) ? singleAnswer(res, body.id) : res;
}

/**
 * The SDK's stateless transport answers every request as an SSE stream. When that stream
 * holds nothing but the response to the one request POSTed, it is sent as that JSON
 * object instead: streamable HTTP lets the server answer a request either way and
 * requires clients to take both, a plain JSON answer is what curl users expect, and it
 * is cheaper to send (one body instead of a stream of events, piped through Next chunk
 * by chunk). It runs after the transport answered, outside the "nothing was charged"
 * crash handling: the exchange may have charged by then.
 */
async function singleAnswer(res: Response, id: string | number): Promise<Response> {
  if (res.status !== 200 || !(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) return res;
  let text: string;
  try {
    text = await res.text();
  } catch (err) {
    // The exchange ran (a paid call may have been charged), so this error says so.
    log.error("mcp.answer_unreadable", { message: (err as Error)?.message });
    return jsonRpcError(200, -32603, "Internal error: the answer could not be sent, but the call may have run; check your usage or receipt before retrying a paid call.", id);
  }
  const data = text
    .split(/\r?\n/)
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).trim())
    .filter((d) => d !== "");
  let answer: { id?: unknown; result?: { _meta?: Record<string, unknown> } } | undefined;
  try {
    answer = data.length === 1 ? (JSON.parse(data[0]!) as typeof answer) : undefined;
  } catch {
    answer = undefined;
  }
  const headers = new Headers(res.headers);
  // Anything else (notifications before the answer, several events) stays the SSE stream it was.
  if (answer?.id !== id) return new Response(text, { status: res.status, headers });
  headers.set("Content-Type", "application/json");
  // A lone paid tools/call: its gate's timing (lib/mcp/results.ts) as Server-Timing, as on GET /v1/*.
  const serverTimingValue = toolServerTiming(answer.result);
  if (serverTimingValue) headers.set("Server-Timing", serverTimingValue);
  for (const h of ["Connection", "X-Accel-Buffering", "Content-Length"]) headers.delete(h);
  return new Response(data[0], { status: 200, headers });
}

function wantsEventStream(req: Request): boolean {
  return (req.headers.get("accept") ?? "").toLowerCase().includes("text/event-stream");
}

/**
 * Serves /mcp (`segments` null; `path` from the query) and /mcp/{path} (`segments` from
 * the route). `transport` is the MCP handler (a parameter so a test can make it fail).
 */
export async function serveMcp(req: Request, segments: string[] | null, transport: Transport = mcpTransportHandler): Promise<Response> {
  const method = req.method.toUpperCase();
  try {
    if (method === "OPTIONS") {
      return new Response(null, {
        status: 204,
        headers: {
          ...CORS,
          "Access-Control-Allow-Methods": ALLOW,
          "Access-Control-Allow-Headers": "Content-Type, Accept, Authorization, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-Id",
          "Access-Control-Max-Age": "86400",
          Allow: ALLOW,
        },
      });
    }
    // No query string, no `path` in it: POST /mcp itself needs no URL parsed.
    const raw = segments ? segments.join("/") : req.url.includes("?") ? queryRecord(new URL(req.url), ["path"]).path : undefined;
    // The MCP transport itself (POST /mcp, no `path`) is the hot path: no view to validate.
    if (raw === undefined && method === "POST") return withCors(await serveTransport(req, transport));
    const { path } = validateOrThrow(pathSchema, { path: raw }, segments ? "path" : "query");
    const base = baseUrl(req);

    if (path === "") {
      switch (method) {
        case "POST":
          return withCors(await serveTransport(req, transport));
        case "DELETE":
          return withCors(jsonResponse(sessionEnd(base), { headers: NO_STORE }));
        default:
          if ((method === "GET" || method === "HEAD") && wantsEventStream(req)) {
            return withCors(methodNotAllowed(method, "this stateless server offers no standalone SSE stream; POST JSON-RPC messages instead."));
          }
          return withCors(jsonResponse(pathView("", base), { headers: NO_STORE }));
      }
    }
    // A sub-path is a JSON view whatever the method; an unknown one is 404.
    const view = pathView(path, base);
    if (method === "POST") {
      const rpc = jsonRpcBody(await readBounded(req, MCP_MAX_BODY_BYTES).catch(() => null));
      if (rpc !== undefined) {
        return withCors(jsonRpcError(200, -32600, `Invalid Request: ${MCP_PATH}/${path} is a JSON view, not the MCP transport. POST JSON-RPC messages to ${base}${MCP_PATH}.`, firstId(rpc)));
      }
    }
    return withCors(jsonResponse(view, { headers: NO_STORE }));
  } catch (err) {
    return withCors(errorResponse(err, { route: "mcp", method }));
  }
}
