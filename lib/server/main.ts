/**
 * Production entry point: `npm start` runs this file (through tsx) after `next build`.
 *
 * Why a custom server instead of `next start`: route handlers cannot see the socket's
 * address, and `next start` fills X-Forwarded-For only when the client did not send
 * one, so a per-IP limit built on it could be bypassed by any caller. Here the socket
 * address (or, with TRUST_PROXY_HOPS > 0, the address our own proxies saw) is written
 * into a header stamped with a key only this process knows (lib/http/client-ip.ts), so
 * a caller can neither set nor forge it.
 *
 * It also starts the offline upstream simulator in-process when
 * UPSTREAM_MODE=simulated, and opens the database (applying migrations) before it
 * announces itself ready; a database that is down at start is reported, not fatal.
 */
import { createServer, maxHeaderSize, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import next from "next";
import { env, resetEnvForTests as rereadEnv } from "@/lib/config/env";
import { claimDataDirAtStart } from "@/lib/db/data-dir-lock";
import { clientIpStamper } from "@/lib/http/client-ip";
import { log } from "@/lib/log";
import { peekProcessState } from "@/lib/process-state";
import { toApiError } from "@/lib/errors";
import { hardenServer } from "@/lib/server/client-error";
import { installVaryAccept } from "@/lib/server/vary-accept";
import { startFastLane } from "@/lib/server/fast-lane";

const root = fileURLToPath(new URL("../..", import.meta.url));

async function main(): Promise<void> {
  process.env.NEXT_TELEMETRY_DISABLED = "1";
  const cfg = env();
  // Another server on the same embedded database folder: say so and stop, before anything starts.
  claimDataDirAtStart(cfg);

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

  // Vary: Accept on "/" (instrumentation.ts installs the same hook in every shape; here it
  // is in place before the first request whatever Next's start-up order).
  installVaryAccept();
  const app = next({ dev: false, dir: root, hostname: cfg.HOST, port: cfg.PORT });
  await app.prepare();
  const handle = app.getRequestHandler();
  const stampClientIp = clientIpStamper(cfg.TRUST_PROXY_HOPS);
  // The agents' surfaces straight to their route handlers (lib/server/fast-lane.ts).
  const lane = startFastLane({ distDir: join(root, process.env.NEXT_DIST_DIR || ".next") });

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    stampClientIp(req);
    if (lane?.serve(req, res)) return;
    handle(req, res).catch((err: unknown) => {
      // Last resort (routes answer their own errors): the same 503 as errorResponse.
      const known = toApiError(err, { where: "server" });
      if (!res.headersSent) {
        res.writeHead(known.status, { "Content-Type": "application/json", ...known.httpHeaders() });
        res.end(JSON.stringify(known.httpBody()));
      }
    });
  });
  // Oversized headers, malformed requests and timeouts get the JSON error shape, not Node's bare status line.
  hardenServer(server, maxHeaderSize);

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(cfg.PORT, cfg.HOST, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const localUrl = `http://127.0.0.1:${port}`;

  // Open the database (and apply migrations) through the app itself, so the one
  // database handle lives in the same module graph as the routes that use it.
  const ready = await fetch(`${localUrl}/health/ready`, { signal: AbortSignal.timeout(60_000) })
    .then((r) => r.json() as Promise<{ database?: { ok?: boolean; error?: string } }>)
    .catch((err: Error) => ({ database: { ok: false, error: err.message } }));
  // A database that is down at start is an outage like one later on, not a reason to
  // exit: the server keeps serving what needs no database (discovery, the manifest),
  // answers 503 service_unavailable to calls that do and /health with 503 "down", and
  // opens the database (migrations included) on the first call after it comes back.
  if (!ready.database?.ok) log.error("server.database_unavailable", { error: ready.database?.error });

  log.notice("server.ready", {
    url: localUrl,
    port,
    mode: cfg.UPSTREAM_MODE,
    database: cfg.DATABASE_URL ? "postgres" : "pglite",
    database_ok: Boolean(ready.database?.ok),
  });

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.notice("server.stopping", { signal });
    server.close();
    server.closeIdleConnections();
    // The routes' database handle is process-wide state (lib/db/client.ts); close it so
    // PGlite flushes before exit.
    const db = peekProcessState<Promise<{ close(): Promise<void> }>>("db");
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
