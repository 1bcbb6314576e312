/**
 * A loopback stand-in for Upstash's REST Redis over a real Redis: POST / with a JSON
 * command array (Authorization: Bearer <token>), answered `{result}` or `{error}` with
 * status 400, and POST /pipeline with an array of them (one answer each), strings base64-encoded when the client sends `Upstash-Encoding: base64`
 * (what @upstash/redis does by default). Commands run on the real Redis through ioredis;
 * only the Upstash-only `#!lua flags=` shebang is stripped (with the script's SHA mapped),
 * as lib/limits/redis.ts does for a plain Redis.
 */
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Redis } from "ioredis";

export interface RestShim {
  url: string;
  token: string;
  /** Commands received, e.g. ["EVALSHA", ...]: proves the traffic went over REST. */
  commands: string[];
  close(): Promise<void>;
}

const sha1 = (s: string) => createHash("sha1").update(s).digest("hex");

function encode(v: unknown): unknown {
  if (typeof v === "string") return v === "OK" ? v : Buffer.from(v).toString("base64");
  if (Array.isArray(v)) return v.map(encode);
  return v;
}

export async function startUpstashRestShim(redisUrl: string, token: string): Promise<RestShim> {
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
  const shas = new Map<string, string>();
  const commands: string[] = [];
  const run = async (command: Array<string | number>, base64: boolean): Promise<{ result: unknown } | { error: string }> => {
    let [cmd, ...args] = command as [string, ...Array<string | number>];
    cmd = String(cmd).toUpperCase();
    commands.push(cmd);
    if (cmd === "EVAL") {
      const script = String(args[0]);
      const stripped = script.replace(/^#!lua[^\n]*\n/, "");
      shas.set(sha1(script), sha1(stripped));
      args = [stripped, ...args.slice(1)];
    } else if (cmd === "EVALSHA") {
      args = [shas.get(String(args[0])) ?? String(args[0]), ...args.slice(1)];
    }
    try {
      const result = await redis.call(cmd, ...args.map(String));
      return { result: base64 ? encode(result) : result };
    } catch (err) {
      return { error: (err as Error).message };
    }
  };
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "Content-Type": "application/json" });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`) return reply(401, { error: "Unauthorized" });
    const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Array<string | number> | Array<Array<string | number>>;
    const base64 = req.headers["upstash-encoding"] === "base64";
    if (req.method === "POST" && req.url === "/") {
      const r = await run(body as Array<string | number>, base64);
      return reply("error" in r ? 400 : 200, r);
    }
    // @upstash/redis batches concurrent commands (auto-pipelining): one answer each.
    if (req.method === "POST" && req.url === "/pipeline") {
      // Issued together, so ioredis pipelines them to Redis in order.
      return reply(200, await Promise.all((body as Array<Array<string | number>>).map((command) => run(command, base64))));
    }
    reply(404, { error: `${req.url} is not served by this shim` });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    token,
    commands,
    close: async () => {
      await new Promise((r) => server.close(r));
      redis.disconnect();
    },
  };
}
