/**
 * OpenTelemetry traces from the built service to a loopback OTLP/HTTP receiver, in the
 * three ways it is run: `npm start`'s server (lib/server/main.ts), plain `next start` and
 * the standalone folder's serve.js. A call that carries a W3C `traceparent` continues
 * that trace: Next's request span, under it the call's span with the product, surface,
 * credential kind and outcome, and under that one span per phase the Server-Timing header
 * measures (verify, handler, settle). A paid call's spans name the payment method and the
 * settlement mode; no attribute anywhere carries a key, a token, a payment payload, a
 * signature or the payer. Without an endpoint, no module of the OpenTelemetry SDK is
 * loaded at all.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startFixture, type Fixture } from "../helpers/fixture";
import { startPaidFixture, type PaidFixture } from "../helpers/paid-fixture";
import { v2Fetch } from "../helpers/payments";

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, string | number | boolean>;
  service: string;
}

/** A loopback OTLP/HTTP (JSON) trace receiver that keeps every span it gets. */
async function otlpReceiver(): Promise<{ url: string; spans: Span[]; close(): Promise<void> }> {
  const spans: Span[] = [];
  const value = (v: OtlpValue) => v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue ?? ""));
  const attrs = (list: Array<{ key: string; value: OtlpValue }> = []) => Object.fromEntries(list.map((a) => [a.key, value(a.value)]));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      if (req.url === "/v1/traces" && /json/.test(req.headers["content-type"] ?? "")) {
        const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
          resourceSpans: Array<{ resource: { attributes: Array<{ key: string; value: OtlpValue }> }; scopeSpans: Array<{ spans: Array<Omit<Span, "attributes" | "service"> & { attributes?: Array<{ key: string; value: OtlpValue }> }> }> }>;
        };
        for (const rs of body.resourceSpans) {
          const service = String(attrs(rs.resource.attributes)["service.name"]);
          for (const ss of rs.scopeSpans) for (const s of ss.spans) spans.push({ traceId: s.traceId, spanId: s.spanId, parentSpanId: s.parentSpanId || undefined, name: s.name, attributes: attrs(s.attributes), service });
        }
      }
      res.writeHead(200, { "Content-Type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, spans, close: () => new Promise((r) => server.close(() => r())) };
}

const OTEL = (url: string) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_BSP_SCHEDULE_DELAY: "100", OTEL_SERVICE_NAME: "echo-test" });

/** A new W3C trace context: the trace id the service must continue, and the header. */
function traceparent(): { traceId: string; header: string } {
  const traceId = randomBytes(16).toString("hex");
  return { traceId, header: `00-${traceId}-${randomBytes(8).toString("hex")}-01` };
}

/** The spans of `traceId` once the call's span and its phases have arrived. */
async function traceOf(spans: Span[], traceId: string, callName: string): Promise<Span[]> {
  return vi.waitFor(
    () => {
      const mine = spans.filter((s) => s.traceId === traceId);
      const phases = (call: Span) => mine.filter((s) => s.parentSpanId === call.spanId).map((s) => s.name).sort();
      expect(mine.filter((s) => s.name === callName).map(phases)).toContainEqual(["handler", "settle", "verify"]);
      return mine;
    },
    { timeout: 15_000, interval: 100 },
  );
}

/** Checks the shape every traced call has: Next's request span continues the caller's trace, the call span hangs under it, the phases under that. */
function expectCallTree(trace: Span[], callName: string): Span {
  const call = trace.find((s) => s.name === callName && trace.some((p) => p.parentSpanId === s.spanId && p.name === "settle"))!;
  const byId = new Map(trace.map((s) => [s.spanId, s]));
  // Walk up from the call span: it ends at Next's request span, whose parent is the caller's (not exported) span.
  let top = call;
  while (top.parentSpanId && byId.has(top.parentSpanId)) top = byId.get(top.parentSpanId)!;
  expect(top).not.toBe(call);
  expect(top.parentSpanId).toBeDefined();
  expect(top.service).toBe("echo-test");
  for (const s of trace) expect(s.service).toBe("echo-test");
  return call;
}

/** No attribute value contains any of `secrets`. */
function expectNoSecrets(spans: Span[], secrets: string[]): void {
  for (const s of spans) for (const [k, v] of Object.entries(s.attributes)) for (const secret of secrets) expect(String(v).toLowerCase(), `${s.name}.${k}`).not.toContain(secret.toLowerCase());
}

async function freeKeyCallTraced(fx: Fixture, spans: Span[]): Promise<void> {
  const key = (await (await fx.get("/v1/free-key")).json()).api_key as string;
  const { traceId, header } = traceparent();
  const res = await fx.get("/v1/fng", { headers: { "X-Api-Key": key, traceparent: header } });
  expect(res.status).toBe(200);
  const trace = await traceOf(spans, traceId, "call fng");
  const call = expectCallTree(trace, "call fng");
  expect(call.attributes).toMatchObject({ "echo.product": "fng", "echo.surface": "http", "echo.credential": "api_key", "echo.outcome": "ok", "echo.charged": true });
  expectNoSecrets(trace, [key]);
}

describe.each([
  ["npm start (lib/server/main.ts)", "server"],
  ["next start", "next-start"],
  ["standalone serve.js", "standalone"],
] as const)("traces under %s", (_name, entry) => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let fx: Fixture;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    fx = await startFixture({ entry, env: { ...OTEL(receiver.url), CACHE_DISABLED: "1" } });
  }, 240_000);
  afterAll(async () => {
    await fx?.close();
    await receiver?.close();
  });

  it("a free-key call continues the caller's trace with its call span and the verify/handler/settle spans, and no key in any attribute", async () => {
    await freeKeyCallTraced(fx, receiver.spans);
  });
});

describe("traces of a paid call", () => {
  let receiver: Awaited<ReturnType<typeof otlpReceiver>>;
  let paid: PaidFixture;
  beforeAll(async () => {
    receiver = await otlpReceiver();
    paid = await startPaidFixture(OTEL(receiver.url));
  }, 240_000);
  afterAll(async () => {
    await paid?.fx.close();
    await paid?.chain.stop();
    await receiver?.close();
  });

  it("name the payment method and settlement mode, and carry no payment payload, signature or payer", async () => {
    const { traceId, header } = traceparent();
    // What the official client sends: its PAYMENT-SIGNATURE must not reach any span.
    const sent: string[] = [];
    const watching: typeof fetch = (input, init) => {
      const h = new Headers(input instanceof Request ? input.headers : init?.headers);
      const p = h.get("payment-signature");
      if (p) sent.push(p);
      return fetch(input, init);
    };
    const res = await v2Fetch(paid.payer, paid.chain.rpcUrl, watching)(`${paid.fx.svc.url}/v1/fng`, { headers: { traceparent: header } });
    expect(res.status).toBe(200);
    expect(sent).toHaveLength(1);
    const trace = await traceOf(receiver.spans, traceId, "call fng");
    expectCallTree(trace, "call fng");
    const calls = trace.filter((s) => s.name === "call fng");
    // The unpaid first request (402) and the paid one, both in the caller's trace.
    expect(calls.map((c) => c.attributes["echo.outcome"]).sort()).toEqual(["ok", "refused"]);
    const ok = calls.find((c) => c.attributes["echo.outcome"] === "ok")!;
    expect(ok.attributes).toMatchObject({ "echo.credential": "x402", "echo.payment.method": "evm-exact", "echo.payment.settlement": "confirmed" });
    const refused = calls.find((c) => c.attributes["echo.outcome"] === "refused")!;
    expect(refused.attributes).toMatchObject({ "echo.credential": "none", "echo.error.code": "payment_required", "echo.status": 402 });
    const payload = JSON.parse(Buffer.from(sent[0]!, "base64").toString("utf8")) as { payload: { signature: string; authorization: { nonce: string } } };
    const receipt = JSON.parse(Buffer.from(res.headers.get("payment-response")!, "base64").toString("utf8")) as { transaction: string };
    expectNoSecrets(trace, [sent[0]!.slice(0, 40), payload.payload.signature, payload.payload.authorization.nonce, paid.payer.address.slice(2), receipt.transaction]);
  });
});

describe("without an OTLP endpoint", () => {
  /** The SDK's packages as a process requires them (Next's externals may carry a hash suffix). */
  const SDK = /@opentelemetry\/(sdk-|exporter-|otlp-|resources|context-async-hooks)/;

  /** The @opentelemetry modules a service required by the time a free-key call was answered. */
  async function loadedBy(env: Record<string, string | undefined>): Promise<string[]> {
    // A preload that notes every @opentelemetry module the process requires (Next loads
    // its externals, the SDK among them, with require).
    const dir = mkdtempSync(join(tmpdir(), "echo-loads-"));
    const log = join(dir, "loads.txt");
    const preload = join(dir, "note-loads.cjs");
    writeFileSync(
      preload,
      `const Module = require("node:module"); const fs = require("node:fs"); const load = Module._load;
       Module._load = function (request, ...rest) { if (request.includes("@opentelemetry/")) fs.appendFileSync(${JSON.stringify(log)}, request + "\\n"); return load.call(this, request, ...rest); };`,
    );
    writeFileSync(log, "");
    const fx = await startFixture({ nodeArgs: ["--require", preload], env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: undefined, CACHE_DISABLED: "1", ...env } });
    try {
      const key = (await (await fx.get("/v1/free-key")).json()).api_key as string;
      expect((await fx.get("/v1/fng", { headers: { "X-Api-Key": key } })).status).toBe(200);
      return readFileSync(log, "utf8").split("\n").filter(Boolean);
    } finally {
      await fx.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }

  it("loads no module of the OpenTelemetry SDK or exporter, at start or on a call", async () => {
    const off = await loadedBy({ OTEL_EXPORTER_OTLP_ENDPOINT: undefined });
    expect(off.filter((r) => SDK.test(r))).toEqual([]);
  }, 120_000);

  it("(the same check sees the SDK when an endpoint is set; nothing listens there, spans are dropped)", async () => {
    const on = await loadedBy({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" });
    expect(on.filter((r) => SDK.test(r)).length).toBeGreaterThan(0);
  }, 120_000);
});
