/**
 * HTTP requests from a chosen local address. Every 127.x.y.z address is the loopback,
 * so a test can be two different clients (127.0.0.1 and 127.0.0.2) of the service on
 * 127.0.0.1, as far as the socket is concerned: what per-IP limits must tell apart.
 */
import http from "node:http";

export interface FromResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or the text when it is not JSON. */
  body: any;
}

export function requestFrom(localAddress: string, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<FromResponse> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? "GET", headers: init.headers, localAddress, agent: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => (text += d));
      res.on("end", () => {
        const headers = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) headers.set(k, Array.isArray(v) ? v.join(", ") : v);
        let body: any = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, headers, text, body });
      });
      res.on("error", reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error(`request to ${url} from ${localAddress} timed out`)));
    req.on("error", reject);
    req.end(init.body);
  });
}

/** A JSON-RPC tools/call over MCP's streamable HTTP from `localAddress`; the tool result. */
export async function callToolFrom(localAddress: string, baseUrl: string, name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; content: Array<{ type: string; text: string }> }> {
  const res = await requestFrom(localAddress, `${baseUrl}/mcp`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  });
  if (res.status !== 200) throw new Error(`MCP answered ${res.status}: ${res.text.slice(0, 500)}`);
  const data = res.text.split("\n").find((l) => l.startsWith("data: "));
  const msg = JSON.parse(data ? data.slice(6) : res.text) as { result?: { isError?: boolean; content: Array<{ type: string; text: string }> }; error?: unknown };
  if (!msg.result) throw new Error(`MCP error: ${JSON.stringify(msg.error)}`);
  return msg.result;
}
