/**
 * Production entry point: `npm start` runs this file (through tsx) after `next build`.
 *
 * Why a custom server instead of `next start`: route handlers cannot see the socket's
 * address, and `next start` fills X-Forwarded-For only when the client did not send
 * one, so a per-IP limit built on it could be bypassed by any caller. Here the socket
 * address (or, with TRUST_PROXY_HOPS > 0, the address our own proxies saw) is written
 * into a header that incoming requests cannot set.
 *
 * It also starts the offline upstream simulator in-process when
 * UPSTREAM_MODE=simulated, and applies database migrations before accepting traffic.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import next from "next";
import { env, resetEnvForTests as rereadEnv } from "@/lib/config/env";
import { CLIENT_IP_HEADER, deriveClientIp } from "@/lib/http/client-ip";
import { log } from "@/lib/log";

const root = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Adds `field` to the response's Vary header just before the head is written. "/" serves
 * the home page or the service-info JSON depending on Accept (the rewrite in
 * next.config.ts), so caches must key on Accept; Next's page renderer replaces the Vary
 * header of every page response, so a `headers()` rule in next.config.ts cannot add it.
 */
function varyOn(res: ServerResponse, field: string): void {
  const writeHead = res.writeHead;
  res.writeHead = function (this: ServerResponse, ...args: Parameters<ServerResponse["writeHead"]>) {
    const current = String(this.getHeader("vary") ?? "");
    const fields = current.split(",").map((f) => f.trim().toLowerCase());
    if (!fields.includes(field.toLowerCase())) this.setHeader("Vary", current ? `${current}, ${field}` : field);
    return writeHead.apply(this, args);
  } as ServerResponse["writeHead"];
}

async function main(): Promise<void> {
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  const cfg = env();

  let closeSim: (() => Promise<void>) | undefined;
  if (cfg.UPSTREAM_MODE === "simulated") {
    const { startSimulator } = await import("@/lib/upstream-sim/server");
    const sim = await startSimulator({ seed: cfg.SIM_SEED });
    // Adapters read their base URLs from the environment at call time.
    for (const [k, v] of Object.entries(sim.env)) process.env[k] = v;
    rereadEnv();
    closeSim = sim.close;
    log.info("simulator.started", { url: sim.url });
  }

  const app = next({ dev: false, dir: root, hostname: cfg.HOST, port: cfg.PORT });
  await app.prepare();
  const handle = app.getRequestHandler();
  const trustedHops = cfg.TRUST_PROXY_HOPS;

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.headers[CLIENT_IP_HEADER] = deriveClientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"], trustedHops);
    if (req.url === "/" || req.url?.startsWith("/?")) varyOn(res, "Accept");
    handle(req, res).catch((err: unknown) => {
      log.error("server.unhandled", { message: (err as Error).message });
      if (!res.headersSent) {
        res.writeHead(500, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ error: { code: "internal_error", message: "Internal error." } }));
      }
    });
  });
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 60_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(cfg.PORT, cfg.HOST, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const localUrl = `http://127.0.0.1:${port}`;

  // Open the database (and apply migrations) through the app itself, so the one
  // database handle lives in the same module graph as the routes that use it.
  const health = await fetch(`${localUrl}/health`, { signal: AbortSignal.timeout(60_000) })
    .then((r) => r.json() as Promise<{ database?: { ok?: boolean; error?: string } }>)
    .catch((err: Error) => ({ database: { ok: false, error: err.message } }));
  if (!health.database?.ok) {
    log.error("server.database_unavailable", { error: health.database?.error });
    server.close();
    await closeSim?.();
    process.exit(1);
  }

  log.notice("server.ready", { url: localUrl, port, mode: cfg.UPSTREAM_MODE, database: cfg.DATABASE_URL ? "postgres" : "pglite" });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.notice("server.stopping", { signal });
    server.close();
    server.closeIdleConnections();
    // The routes' database handle lives on globalThis (lib/db/client.ts); close it so
    // PGlite flushes before exit.
    const db = (globalThis as Record<symbol, Promise<{ close(): Promise<void> }> | undefined>)[Symbol.for("echo.db")];
    await db?.then((h) => h.close()).catch(() => undefined);
    await closeSim?.();
    setTimeout(() => process.exit(0), 200).unref();
  };
  process.on("SIGTERM", () => void shutdown("SIGTERM"));
  process.on("SIGINT", () => void shutdown("SIGINT"));
}

main().catch((err: unknown) => {
  log.error("server.start_failed", { message: (err as Error).message });
  process.exit(1);
});
