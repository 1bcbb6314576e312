/**
 * Entry of the standalone/container deployment: `node serve.js` in the folder that
 * scripts/standalone.mjs assembles (it bundles this file there, next to Next's
 * server.js). Next's standalone server.js creates its HTTP server inside
 * `startServer` with no hook, so Node would answer oversized headers, malformed
 * requests and timeouts with a bare status line; OpenAPI promises the service's JSON
 * error shape. This entry gives every HTTP server created in the process the same
 * `clientError` answers and timeouts as the custom server (lib/server/client-error.ts),
 * then runs Next's server.js unchanged (PORT, HOSTNAME, KEEP_ALIVE_TIMEOUT as documented
 * by Next).
 *
 * Wrapping `http.createServer` rather than re-implementing server.js keeps Next's own
 * start-up (its embedded config, its request handler, its "Ready" line) exactly as
 * Next builds it.
 *
 * The same wrapper puts the fast lane (lib/server/fast-lane.ts) in front of Next's
 * request listener, as the custom server does: the agents' surfaces go straight to the
 * route modules Next loaded, everything else to Next.
 */
import http from "node:http";
import { fileURLToPath } from "node:url";
import { DEFAULT_DATA_DIR } from "@/lib/config/env";
import { claimDataDirAtStart } from "@/lib/db/data-dir-lock";
import { hardenServer } from "@/lib/server/client-error";
import { withFastLane } from "@/lib/server/fast-lane";

// A second server on the same embedded database folder (two containers on one volume)
// stops here with the reason, as `npm start` does (lib/db/data-dir-lock.ts). Read from
// the environment directly: env() would cache the configuration before Next loads it.
claimDataDirAtStart({ DATABASE_URL: process.env.DATABASE_URL, DATA_DIR: process.env.DATA_DIR ?? DEFAULT_DATA_DIR });

const create = http.createServer;
// Next's build folder beside this file (the standalone folder keeps the build's name).
const distDir = fileURLToPath(new URL(`./${process.env.NEXT_DIST_DIR || ".next"}/`, import.meta.url));
http.createServer = function createHardenedServer(this: unknown, ...args: unknown[]) {
  const at = args.findIndex((a) => typeof a === "function");
  if (at >= 0) args[at] = withFastLane(args[at] as http.RequestListener, { distDir, resolveFrom: import.meta.url });
  const server = (create as (...a: unknown[]) => http.Server).apply(this, args);
  hardenServer(server, http.maxHeaderSize);
  return server;
} as typeof http.createServer;

// Loaded at run time from next to this file (the bundle is serve.js in the standalone
// folder); a computed specifier, so the bundler leaves it alone. Next's start-up code
// reads `http.createServer` from the module object, so it gets the function above.
await import(new URL("./server.js", import.meta.url).href);
