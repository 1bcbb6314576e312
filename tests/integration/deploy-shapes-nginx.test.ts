/**
 * The compose deployment's proxy layer for real: nginx (Debian's nginx-light or nginx;
 * .ci/run installs it when missing) with deploy/nginx.conf, changed only where compose
 * and this machine differ (the upstream's addresses, the listen port), in front of two
 * standalone instances (serve.js, what the container runs) on one PostgreSQL schema and
 * one Redis, each instance on its own upstream simulator. Checks: both instances serve;
 * a free key minted on one works on the other; a paid call's 402 keeps its
 * PAYMENT-REQUIRED header whole; MCP tools/list; Vary: Accept on "/"; per-client limits
 * on the address nginx saw (a forged X-Forwarded-For changes nothing, another client
 * still mints); x402-sized request headers pass, oversized ones get the JSON 431 from
 * nginx (one long line) or from the app (a long header block).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { accessSync, chmodSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startFixture, type Fixture } from "../helpers/fixture";
import { freePort } from "../helpers/service";
import { requestFrom } from "../helpers/http-from";
import { hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL, reachable } from "../helpers/services";
import { PRODUCTS } from "@/lib/catalog";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pg = await hasPostgres();
const redis = await hasRedis();
const require_ = process.env.REQUIRE_SERVICES === "1";
if ((!pg || !redis) && require_) throw new Error("PostgreSQL and Redis are required (REQUIRE_SERVICES=1) but not reachable");

function findNginx(): string | null {
  for (const dir of ["/usr/sbin", "/usr/local/sbin", "/usr/local/nginx/sbin", ...(process.env.PATH ?? "").split(delimiter)]) {
    try {
      accessSync(join(dir, "nginx"), constants.X_OK);
      return join(dir, "nginx");
    } catch {
      // next
    }
  }
  return null;
}
const nginx = findNginx();
if (!nginx && require_) throw new Error("nginx is required (REQUIRE_SERVICES=1) but not installed: apt-get install nginx-light (.ci/run does)");

const MINTS = 5;
const PAY_TO = "0x00000000000000000000000000000000000A11CE";
const STELLAR_PAY_TO = "GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7";

/** deploy/nginx.conf with compose's names swapped for this machine's addresses; each swap must match exactly once. */
function localNginxConf(conf: string, upstreams: number[], port: number): string {
  const swap = (text: string, from: RegExp, to: string) => {
    const hits = text.match(new RegExp(from.source, "gm"))?.length ?? 0;
    if (hits !== 1) throw new Error(`deploy/nginx.conf: expected one ${from} (found ${hits}); update this test with the file`);
    return text.replace(from, to);
  };
  const servers = upstreams.map((p) => `server 127.0.0.1:${p};`).join("\n  ");
  return swap(swap(conf, /^\s*server app:3000;$/m, `  ${servers}`), /^\s*listen 80;$/m, `  listen 127.0.0.1:${port};`);
}

/** A chunked body's data (ASCII bodies: the chunk sizes count characters as bytes). */
/** A chunked body decoded; chunk sizes count bytes, so this works on bytes (a body may hold multi-byte UTF-8). */
function dechunk(body: Buffer): Buffer {
  const out: Buffer[] = [];
  let rest = body;
  for (;;) {
    const eol = rest.indexOf("\r\n");
    const size = parseInt(rest.subarray(0, eol).toString("latin1"), 16);
    if (!(size > 0)) return Buffer.concat(out);
    out.push(rest.subarray(eol + 2, eol + 2 + size));
    rest = rest.subarray(eol + 2 + size + 2);
  }
}

/** One raw HTTP/1.1 request (headers as given), the raw answer. */
function raw(port: number, head: string): Promise<{ status: number; headers: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    const done = () => {
      const bytes = Buffer.concat(chunks);
      const at = bytes.indexOf("\r\n\r\n");
      const headers = (at < 0 ? bytes : bytes.subarray(0, at)).toString("utf8");
      let body: Buffer = at < 0 ? Buffer.alloc(0) : bytes.subarray(at + 4);
      if (/^transfer-encoding: chunked/im.test(headers)) body = dechunk(body);
      resolve({ status: Number(headers.match(/^HTTP\/1\.[01] (\d{3})/)?.[1] ?? 0), headers, body: body.toString("utf8") });
    };
    socket.on("end", done);
    socket.on("error", (err) => (chunks.length ? done() : reject(err)));
    socket.write(`${head}Connection: close\r\n\r\n`);
  });
}

describe.skipIf(!pg || !redis || !nginx)("deploy shape: nginx (deploy/nginx.conf) in front of two standalone instances, PostgreSQL and Redis", () => {
  const apps: Fixture[] = [];
  let proxy: ChildProcess | undefined;
  let proxyLog = "";
  let port = 0;
  let base = "";
  const dir = mkdtempSync(join(tmpdir(), "echo-nginx-"));

  beforeAll(async () => {
    const schema = `nginx_${randomBytes(6).toString("hex")}`;
    const env = {
      DATABASE_URL: `${POSTGRES_URL}?schema=${schema}`,
      DATABASE_POOL_MAX: "3",
      REDIS_URL,
      REDIS_KEY_PREFIX: `test-${randomBytes(6).toString("hex")}`,
      TRUST_PROXY_HOPS: "1",
      // As in deploy/compose.yaml: documents and requirements name the public address.
      PUBLIC_BASE_URL: "http://localhost:8080",
      FREE_KEY_MINTS_PER_HOUR: String(MINTS),
      PAY_TO_ADDRESS: PAY_TO,
      FACILITATOR_URL: "http://127.0.0.1:9/facilitator",
      STELLAR_PAY_TO_ADDRESS: STELLAR_PAY_TO,
      DATA_DIR: undefined,
    };
    // One after the other: the first applies the migrations, the second finds them.
    apps.push(await startFixture({ entry: "standalone", env }));
    apps.push(await startFixture({ entry: "standalone", env, seed: 403 }));

    port = await freePort();
    base = `http://127.0.0.1:${port}`;
    // Readable by nginx's workers, which drop root for an unprivileged user.
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, "default.conf"), localNginxConf(readFileSync(join(root, "deploy/nginx.conf"), "utf8"), apps.map((a) => a.svc.port), port));
    const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((t) => `${t}_temp_path ${join(dir, t)};`).join("\n  ");
    // What the nginx image's main nginx.conf provides around conf.d/default.conf.
    writeFileSync(
      join(dir, "nginx.conf"),
      `daemon off;\nworker_processes 1;\npid ${join(dir, "nginx.pid")};\nerror_log ${join(dir, "error.log")} warn;\nevents { worker_connections 256; }\nhttp {\n  include /etc/nginx/mime.types;\n  access_log off;\n  ${temp}\n  include ${join(dir, "default.conf")};\n}\n`,
    );
    const check = spawnSync(nginx!, ["-t", "-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log")], { encoding: "utf8" });
    expect(check.status, check.stderr).toBe(0);
    proxy = spawn(nginx!, ["-p", dir, "-c", join(dir, "nginx.conf"), "-e", join(dir, "error.log")], { stdio: ["ignore", "pipe", "pipe"] });
    proxy.stdout!.on("data", (d: Buffer) => (proxyLog += d.toString()));
    proxy.stderr!.on("data", (d: Buffer) => (proxyLog += d.toString()));
    for (let i = 0; i < 100 && !(await reachable("127.0.0.1", port)); i++) await new Promise((r) => setTimeout(r, 100));
    expect(await reachable("127.0.0.1", port), `nginx did not start:\n${proxyLog}`).toBe(true);
  }, 900_000);

  afterAll(async () => {
    if (proxy && proxy.exitCode === null) {
      const exited = new Promise((r) => proxy!.once("exit", r));
      proxy.kill("SIGQUIT");
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (proxy.exitCode === null) proxy.kill("SIGKILL");
    }
    for (const a of apps) await a.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("is ready through nginx, and both instances serve: a key minted on one is honoured by the other", async () => {
    expect((await fetch(`${base}/health/ready`)).status).toBe(200);
    const minted = await fetch(`${base}/v1/free-key?email=nginx%40example.com`, { headers: { "X-Forwarded-For": "192.0.2.200" } });
    expect(minted.status, await minted.clone().text()).toBe(200);
    const key = ((await minted.json()) as { api_key: string }).api_key;
    for (const a of apps) a.sim.resetCounts();
    for (let i = 0; i < 6; i++) {
      const r = await fetch(`${base}/v1/fng`, { headers: { "X-Api-Key": key } });
      expect(r.status, await r.clone().text()).toBe(200);
      expect(r.headers.get("x-quota-remaining")).toBe(String(49 - i));
    }
    // Each instance reads the upstream through its own simulator: both were asked.
    for (const a of apps) expect(a.sim.total()).toBeGreaterThan(0);
  });

  it("passes a paid call's 402 with its PAYMENT-REQUIRED header whole", async () => {
    const paid = await fetch(`${base}/v1/sentiment-report`);
    expect(paid.status).toBe(402);
    const header = paid.headers.get("payment-required")!;
    // What an instance answers directly, whole (the header is over 8 kB): the same but for
    // the payment-identifier id each 402 suggests afresh (lib/access/x402-extensions.ts).
    const direct = (await apps[0]!.get("/v1/sentiment-report")).headers.get("payment-required")!;
    expect(header.length).toBe(direct.length);
    const decode = (h: string) => JSON.parse(Buffer.from(h, "base64").toString("utf8"));
    const requirement = decode(header);
    const suggested = requirement.extensions["payment-identifier"].info.id as string;
    expect(suggested).toMatch(/^srv_[A-Za-z0-9_-]{16,}$/);
    const same = decode(direct);
    expect(same.extensions["payment-identifier"].info.id).not.toBe(suggested);
    same.extensions["payment-identifier"].info.id = suggested;
    expect(requirement).toEqual(same);
    expect(requirement.accepts[0]).toMatchObject({ network: "eip155:8453" });
    expect(requirement.accepts[0].payTo.toLowerCase()).toBe(PAY_TO.toLowerCase());
  });

  it("lists every MCP tool through nginx", async () => {
    const client = new Client({ name: "nginx-smoke", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`)));
    try {
      const names = (await client.listTools()).tools.map((t) => t.name);
      for (const p of PRODUCTS) if (p.tool) expect(names).toContain(p.tool.name);
    } finally {
      await client.close();
    }
  });

  it("keeps Vary: Accept on both answers of /", async () => {
    for (const accept of ["application/json", "text/html"]) {
      const r = await fetch(`${base}/`, { headers: { Accept: accept } });
      expect(r.status).toBe(200);
      expect(r.headers.get("vary")?.toLowerCase().split(/\s*,\s*/), accept).toContain("accept");
    }
  });

  it("limits mints per client address nginx saw, across both instances: a forged X-Forwarded-For changes nothing, another client still mints", async () => {
    // From 127.0.0.3 (the address nginx appends), each request claiming another client.
    for (let i = 0; i < MINTS; i++) {
      const r = await requestFrom("127.0.0.3", `${base}/v1/free-key`, { headers: { "X-Forwarded-For": `198.51.100.${i + 1}` } });
      expect(r.status, r.text).toBe(200);
    }
    const refused = await requestFrom("127.0.0.3", `${base}/v1/free-key`, { headers: { "X-Forwarded-For": "198.51.100.99" } });
    expect(refused.status, refused.text).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    const other = await requestFrom("127.0.0.2", `${base}/v1/free-key`);
    expect(other.status, other.text).toBe(200);
  });

  it("lets x402-sized request headers through, and answers oversized ones with the JSON 431 (nginx for a long line, the app for a long block)", async () => {
    // A payment header of 12 KB (a large x402 payload) reaches the app, which judges it.
    const big = await raw(port, `GET /v1/sentiment-report HTTP/1.1\r\nHost: 127.0.0.1\r\nPAYMENT-SIGNATURE: ${"A".repeat(12 * 1024)}\r\n`);
    expect(big.headers).toMatch(/^content-type: application\/json/im);
    expect([400, 402, 422]).toContain(big.status);
    expect(JSON.parse(big.body).error.code).not.toBe("headers_too_large");

    const line = await raw(port, `GET /v1/quote HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"a".repeat(20 * 1024)}\r\n`);
    expect(line.status).toBe(431);
    expect(line.headers).toMatch(/^content-type: application\/json/im);
    expect(JSON.parse(line.body)).toEqual({ error: { code: "headers_too_large", message: expect.stringContaining("header") } });

    const block = await raw(port, `GET /v1/quote HTTP/1.1\r\nHost: 127.0.0.1\r\n${[1, 2, 3].map((i) => `X-Big-${i}: ${"a".repeat(7 * 1024)}\r\n`).join("")}`);
    expect(block.status).toBe(431);
    expect(block.headers).toMatch(/^content-type: application\/json/im);
    expect(JSON.parse(block.body)).toEqual({ error: { code: "headers_too_large", message: expect.stringContaining("16384 bytes") } });
  });
});
