/**
 * GET /metrics on the built service settling real x402 payments on the local chain:
 * refused without the admin credential; with it, Prometheus text in which known calls
 * show up exactly, as differences between two scrapes: a free-key call over HTTP and
 * over MCP, a bundle bought with an x402 payment and then used, a per-call x402 payment
 * made by the official client, a refused payment, an upstream failure (the simulator's
 * fault switch: the call fails, nothing is charged), and a rate-limit refusal. With
 * PostgreSQL, the scrape also reads the pool and the payments in flight from the shared
 * database (a delivered optimistic payment written straight into its table).
 *
 * The compose deployment's Prometheus and Grafana, as far as this machine allows (no
 * Docker daemon): the compose file parses and hands Prometheus the admin credential as a
 * secret, the Prometheus job scrapes every app replica's /metrics with it (followed here
 * against the live service), and each dashboard query names metrics the live /metrics
 * declares, while every echo_* metric appears on the dashboard.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Address } from "viem";
import { productByPath } from "@/lib/catalog";
import { startPaidFixture, type PaidFixture } from "../helpers/paid-fixture";
import { payAndFetch, requirementFrom, signAuthorization, v2Fetch, v2Header } from "../helpers/payments";
import { openServiceDb, type ServiceDb } from "../helpers/service-db";
import { hasPostgres, POSTGRES_URL } from "../helpers/services";

const pg = await hasPostgres();
if (!pg && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL is required (REQUIRE_SERVICES=1) but not reachable");

const ADMIN = `admin-${randomBytes(12).toString("hex")}`;
const AUTH = { Authorization: `Bearer ${ADMIN}` };
const FNG = productByPath("/v1/fng")!;

type Labels = Record<string, string>;
interface Sample {
  name: string;
  labels: Labels;
  value: number;
}

/** Parses the Prometheus text format (one sample per line; comments skipped). */
function parse(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/);
    if (!m) throw new Error(`not a sample line: ${line}`);
    const labels: Labels = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!;
    out.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return out;
}

/** The sum of the samples named `name` whose labels include `labels`. */
function total(samples: Sample[], name: string, labels: Labels = {}): number {
  return samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v)).reduce((n, s) => n + s.value, 0);
}

let paid: PaidFixture;
let db: ServiceDb | undefined;
const dbEnv: Record<string, string> = pg ? { DATABASE_URL: `${POSTGRES_URL}?schema=metrics_${randomBytes(6).toString("hex")}` } : {};

async function scrape(): Promise<Sample[]> {
  const res = await paid.fx.get("/metrics", { headers: AUTH });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
  return parse(await res.text());
}

beforeAll(async () => {
  paid = await startPaidFixture({ ADMIN_TOKEN: ADMIN, SAMPLE_LIMIT_PER_HOUR: "2", ...dbEnv });
  if (pg) db = await openServiceDb(dbEnv);
}, 180_000);
afterAll(async () => {
  await db?.close();
  await paid?.fx.close();
  await paid?.chain.stop();
});

describe("/metrics", () => {
  it("is refused without the admin credential, as the ledger report is (404, nothing shown)", async () => {
    for (const headers of [{}, { Authorization: "Bearer wrong-admin-token-000" }, { Authorization: ADMIN }] as Array<Record<string, string>>) {
      const res = await paid.fx.get("/metrics", { headers });
      expect(res.status).toBe(404);
      expect(await res.text()).not.toMatch(/echo_|process_/);
    }
  });

  it("counts exactly the calls, payments, upstream requests and refusals that were made", async () => {
    const { fx, chain, payer, payTo } = paid;
    const before = await scrape();

    // A free key over HTTP and over MCP.
    const key = (await (await fx.get("/v1/free-key")).json()).api_key as string;
    expect((await fx.get("/v1/fng", { headers: { "X-Api-Key": key } })).status).toBe(200);
    const mcp = new Client({ name: "metrics-test", version: "1.0.0" });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${fx.svc.url}/mcp`)));
    expect((await mcp.callTool({ name: FNG.tool!.name, arguments: { api_key: key } })).isError).toBeFalsy();
    await mcp.close();

    // A bundle bought with an x402 payment, then used.
    const bought = await payAndFetch(`${fx.svc.url}/v1/bundle`, payer);
    expect(bought.status).toBe(200);
    const token = (await bought.json()).bundle_token as string;
    expect((await fx.get("/v1/fng", { headers: { "X-Bundle-Token": token } })).status).toBe(200);

    // A per-call payment by the official v2 client (it echoes the requirement's extensions).
    const paidCall = await v2Fetch(payer, chain.rpcUrl)(`${fx.svc.url}/v1/fng`);
    expect(paidCall.status).toBe(200);

    // A refused payment: one base unit short.
    const required = requirementFrom(await fx.get("/v1/fng")).accepts[0]!;
    const short = await signAuthorization(payer, { to: payTo.address as Address, value: BigInt(required.amount) - 1n });
    expect((await fx.get("/v1/fng", { headers: { "PAYMENT-SIGNATURE": v2Header(required, short) } })).status).toBe(402);

    // An upstream failure: alternative.me answers 500; the call fails and nothing is charged.
    fx.sim.setFault("alternative", { mode: "error", status: 500 });
    fx.sim.resetCounts();
    const failed = await fx.get("/v1/fng", { headers: { "X-Api-Key": key } });
    const upstreamTries = fx.sim.total("alternative");
    fx.sim.clearFaults();
    expect(failed.status).toBe(503);

    // The keyless sample allows 2 per hour here: the third is refused.
    const samples = [];
    for (let i = 0; i < 3; i++) samples.push((await fx.get("/v1/sample")).status);
    expect(samples).toEqual([200, 200, 429]);

    const after = await scrape();
    const delta = (name: string, labels: Labels = {}) => total(after, name, labels) - total(before, name, labels);

    expect(delta("echo_calls_total", { product: "fng", surface: "http", credential: "api_key", outcome: "ok" })).toBe(1);
    expect(delta("echo_calls_total", { product: "fng", surface: "mcp", credential: "api_key", outcome: "ok" })).toBe(1);
    expect(delta("echo_calls_total", { product: "fng", surface: "http", credential: "api_key", outcome: "error" })).toBe(1);
    expect(delta("echo_calls_total", { product: "bundle", surface: "http", credential: "x402", outcome: "ok" })).toBe(1);
    expect(delta("echo_calls_total", { product: "fng", surface: "http", credential: "bundle", outcome: "ok" })).toBe(1);
    expect(delta("echo_calls_total", { product: "fng", surface: "http", credential: "x402", outcome: "ok" })).toBe(1);
    expect(delta("echo_calls_total", { product: "fng", surface: "http", credential: "x402", outcome: "refused" })).toBe(1);
    // The 402s without a credential (the official client's first request, payAndFetch's and ours) are calls too.
    expect(delta("echo_calls_total", { credential: "none", outcome: "refused" })).toBe(3);
    expect(delta("echo_calls_total")).toBe(10);
    expect(delta("echo_call_duration_seconds_count", { product: "fng", surface: "http" })).toBe(7);

    expect(delta("echo_payments_total", { method: "evm-exact", mode: "confirmed", outcome: "settled" })).toBe(2);
    expect(delta("echo_payments_total", { method: "evm-exact", mode: "none", outcome: "refused" })).toBe(1);
    expect(delta("echo_payments_total")).toBe(3);
    expect(delta("echo_settlement_duration_seconds_count", { method: "evm-exact", mode: "confirmed" })).toBe(2);
    expect(delta("echo_settlement_duration_seconds_sum")).toBeGreaterThan(0);

    expect(upstreamTries).toBeGreaterThan(0);
    expect(delta("echo_upstream_requests_total", { provider: "alternative", outcome: "error" })).toBe(upstreamTries);
    expect(delta("echo_upstream_errors_total", { provider: "alternative", kind: "http" })).toBe(upstreamTries);
    expect(delta("echo_upstream_errors_total")).toBe(upstreamTries);
    expect(delta("echo_upstream_request_duration_seconds_count", { provider: "alternative" })).toBe(delta("echo_upstream_requests_total", { provider: "alternative" }));

    expect(delta("echo_rate_limit_refusals_total", { policy: "sample" })).toBe(1);
    expect(delta("echo_rate_limit_refusals_total")).toBe(1);

    // Nothing is left in flight, and Node's own process metrics come along.
    expect(total(after, "echo_ledger_read_ok")).toBe(1);
    expect(total(after, "echo_payments_unfinished")).toBe(0);
    expect(total(after, "echo_optimistic_in_flight_usd")).toBe(0);
    expect(after.some((s) => s.name === "process_resident_memory_bytes")).toBe(true);
  });

  it.runIf(pg)("reads the pool and the payments in flight from the shared database at scrape time", async () => {
    const before = await scrape();
    expect(total(before, "echo_db_pool_connections", { state: "max" })).toBe(10);
    expect(total(before, "echo_db_pool_connections", { state: "total" })).toBeGreaterThan(0);
    // A delivered optimistic payment whose transfer is not confirmed yet, and one pending.
    const row = (status: string, atomic: bigint) =>
      db!.query(
        `INSERT INTO payments (id, scheme, network, reference, payer, amount_atomic, asset, pay_to, product, surface, status, optimistic, created_at, updated_at)
         VALUES ($1, 'exact', 'eip155:8453', $2, '0x0000000000000000000000000000000000000001', $3, 'usdc', '0x0000000000000000000000000000000000000002', 'fng', 'http', $4, true, now(), now())`,
        [randomUUID(), randomUUID(), atomic.toString(), status],
      );
    await row("broadcast", 250_000n);
    await row("pending", 10_000n);
    const after = await scrape();
    expect(total(after, "echo_payments_unfinished", { status: "broadcast" })).toBe(1);
    expect(total(after, "echo_payments_unfinished", { status: "pending" })).toBe(1);
    expect(total(after, "echo_optimistic_in_flight_usd")).toBe(0.25);
    await db!.query(`DELETE FROM payments WHERE status IN ('broadcast', 'pending') AND product = 'fng' AND surface = 'http' AND payer = '0x0000000000000000000000000000000000000001'`);
  });
});

describe("deploy: Prometheus and Grafana over /metrics", () => {
  const deploy = (p: string) => new URL(`../../deploy/${p}`, import.meta.url);
  const compose = parseYaml(readFileSync(deploy("compose.yaml"), "utf8")) as {
    services: Record<string, { image?: string; environment?: Record<string, string>; volumes?: string[]; secrets?: string[]; depends_on?: unknown }>;
    secrets: Record<string, { environment?: string }>;
  };
  const prometheus = parseYaml(readFileSync(deploy("prometheus.yml"), "utf8")) as {
    scrape_configs: Array<{ job_name: string; metrics_path: string; scheme: string; authorization: { type: string; credentials_file: string }; dns_sd_configs: Array<{ names: string[]; type: string; port: number }> }>;
  };
  const job = prometheus.scrape_configs.find((j) => j.job_name === "echo")!;

  /** Metric families the live /metrics declares (`# TYPE name kind`). */
  async function families(): Promise<Map<string, string>> {
    const text = await (await paid.fx.get("/metrics", { headers: AUTH })).text();
    return new Map([...text.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map((m) => [m[1]!, m[2]!]));
  }

  it("compose runs Prometheus with the app's admin credential as a secret, and Grafana with the dashboard", () => {
    const app = compose.services.app!;
    expect(app.environment!.ADMIN_TOKEN).toMatch(/^\$\{ADMIN_TOKEN:\?.+\}$/);
    expect(compose.secrets.admin_token).toEqual({ environment: "ADMIN_TOKEN" });
    const prom = compose.services.prometheus!;
    expect(prom.image).toMatch(/^prom\/prometheus:v\d+\.\d+\.\d+$/);
    expect(prom.secrets).toEqual(["admin_token"]);
    expect(prom.volumes).toContain("./prometheus.yml:/etc/prometheus/prometheus.yml:ro");
    const grafana = compose.services.grafana!;
    expect(grafana.volumes).toEqual(["./grafana/provisioning:/etc/grafana/provisioning:ro", "./grafana/dashboards:/var/lib/grafana/dashboards:ro"]);
    const provider = parseYaml(readFileSync(deploy("grafana/provisioning/dashboards/echo.yaml"), "utf8")) as { providers: Array<{ options: { path: string } }> };
    expect(provider.providers[0]!.options.path).toBe("/var/lib/grafana/dashboards");
  });

  it("the Prometheus job scrapes each app replica's /metrics with the secret compose mounts, as this scrape does", async () => {
    expect(job.dns_sd_configs).toEqual([expect.objectContaining({ names: ["app"], type: "A", port: 3000 })]);
    expect(readFileSync(new URL("../../Dockerfile", import.meta.url), "utf8")).toMatch(/^EXPOSE 3000$/m);
    // Compose mounts the secret `admin_token` at /run/secrets/admin_token.
    expect(job.authorization).toEqual({ type: "Bearer", credentials_file: "/run/secrets/admin_token" });
    const dir = mkdtempSync(join(tmpdir(), "echo-secret-"));
    try {
      const file = join(dir, "admin_token");
      writeFileSync(file, ADMIN);
      const url = `${paid.fx.svc.url}${job.metrics_path}`;
      expect(new URL(url).protocol).toBe(`${job.scheme}:`);
      const res = await fetch(url, { headers: { Authorization: `${job.authorization.type} ${readFileSync(file, "utf8").trim()}` } });
      expect(res.status).toBe(200);
      expect(await res.text()).toMatch(/^# TYPE echo_calls_total counter$/m);
      expect((await fetch(url)).status).toBe(404);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("every dashboard query names metrics the live /metrics declares, and every echo_* metric is on the dashboard", async () => {
    const dashboard = JSON.parse(readFileSync(deploy("grafana/dashboards/echo.json"), "utf8")) as { panels: Array<{ type: string; datasource?: { uid: string }; targets?: Array<{ expr: string; datasource: { uid: string } }> }> };
    const datasource = parseYaml(readFileSync(deploy("grafana/provisioning/datasources/prometheus.yaml"), "utf8")) as { datasources: Array<{ uid: string; url: string }> };
    expect(datasource.datasources[0]!.url).toBe("http://prometheus:9090");
    const live = await families();
    const used = new Set<string>();
    const queries = dashboard.panels.filter((p) => p.type !== "row").flatMap((p) => p.targets!);
    expect(queries.length).toBeGreaterThan(15);
    for (const q of queries) {
      expect(q.datasource.uid).toBe(datasource.datasources[0]!.uid);
      const names = [...q.expr.matchAll(/\b((?:echo|process|nodejs)_[a-z0-9_]+)\b/g)].map((m) => m[1]!);
      expect(names.length, q.expr).toBeGreaterThan(0);
      for (const name of names) {
        // A histogram's series are its family name plus _bucket, _sum or _count.
        const family = live.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "");
        expect(live.has(family), `${name} (in ${q.expr})`).toBe(true);
        if (family !== name) expect(live.get(family)).toBe("histogram");
        used.add(family);
      }
    }
    for (const name of live.keys()) if (name.startsWith("echo_")) expect(used, `${name} is not on the dashboard`).toContain(name);
  });
});
