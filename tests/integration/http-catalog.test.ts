/**
 * Every catalog product over real HTTP against the built service and the upstream
 * simulator: 200 with an output that matches the catalog's schema, spec 2.6 422s for
 * bad parameters, 503 + Retry-After when its upstreams fail or answer garbage, JSON
 * 404/405 for what is not served, and one upstream request per resource under load.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PRODUCTS } from "@/lib/catalog";
import type { AnyProduct } from "@/lib/catalog/types";
import type { ParamDoc } from "@/lib/catalog/params";
import { startFixture, type Fixture } from "../helpers/fixture";
import { startChain, type Chain } from "../helpers/chain";
import { payAndFetch } from "../helpers/payments";
import { SUPPORTED_TICKERS } from "@/lib/market/tickers";
import { MAX_TICKERS } from "@/lib/catalog/products/markets/params";

const DATA = PRODUCTS.filter((p) => p.kind === "data");

/**
 * A paying service: the suite buys one enterprise bundle with a real x402 payment on
 * the local chain and calls every product with it.
 */
async function payingFixture(chain: Chain, env: Record<string, string> = {}): Promise<{ fx: Fixture; auth: Record<string, string> }> {
  const fx = await startFixture({
    env: { PAY_TO_ADDRESS: chain.accounts[2]!.address, FACILITATOR_PRIVATE_KEY: chain.privateKey(0), SETTLEMENT_RPC_URL: chain.rpcUrl, ...env },
  });
  const res = await payAndFetch(`${fx.svc.url}/v1/bundle/enterprise`, chain.accounts[1]!);
  if (res.status !== 200) throw new Error(`bundle purchase failed: ${res.status} ${await res.text()}`);
  return { fx, auth: { "X-Bundle-Token": (await res.json()).bundle_token } };
}

let chain: Chain;
beforeAll(async () => {
  chain = await startChain();
  await chain.mintUsdc(chain.accounts[1]!.address, 1_000_000_000n);
}, 120_000);
afterAll(async () => chain?.stop());

/** Query with the example value of every required parameter. */
export function exampleQuery(p: AnyProduct): string {
  const q = new URLSearchParams();
  for (const [name, param] of Object.entries(p.params) as Array<[string, { doc: ParamDoc }]>) {
    if (param.doc.required) {
      if (!param.doc.example) throw new Error(`${p.id}.${name} is required but has no example`);
      q.set(name, param.doc.example);
    }
  }
  const s = q.toString();
  return s ? `?${s}` : "";
}

function expectSpec26(body: unknown): void {
  expect(body).toMatchObject({ detail: expect.any(Array) });
  const detail = (body as { detail: Array<Record<string, unknown>> }).detail;
  expect(detail.length).toBeGreaterThan(0);
  for (const d of detail) {
    expect(Object.keys(d).every((k) => ["loc", "msg", "type", "input", "ctx"].includes(k))).toBe(true);
    expect(Array.isArray(d.loc)).toBe(true);
    expect(typeof d.msg).toBe("string");
    expect(typeof d.type).toBe("string");
    if ("ctx" in d) expect(typeof d.ctx).toBe("object");
  }
}

describe("catalog over HTTP (cached service)", () => {
  let fx: Fixture;
  let auth: Record<string, string>;
  beforeAll(async () => {
    ({ fx, auth } = await payingFixture(chain));
  });
  afterAll(async () => fx?.close());

  it("has data products", () => {
    expect(DATA.length).toBeGreaterThan(0);
  });

  for (const p of DATA) {
    it(`GET ${p.path} answers 402 without credentials and 200 with the catalog's output schema when paid`, async () => {
      const unpaid = await fx.json(p.path + exampleQuery(p));
      expect(unpaid.status).toBe(402);
      expect(unpaid.body.endpoint).toBe(p.path);
      const { status, body, headers } = await fx.json(p.path + exampleQuery(p), { headers: auth });
      expect(status, JSON.stringify(body).slice(0, 500)).toBe(200);
      expect(headers.get("content-type")).toMatch(/^application\/json/);
      const parsed = p.output.safeParse(body);
      expect(parsed.success, parsed.success ? "" : JSON.stringify(parsed.error.issues.slice(0, 3))).toBe(true);
    });

    for (const [name, param] of Object.entries(p.params) as Array<[string, { doc: ParamDoc }]>) {
      const bad: Array<[string, string]> = [];
      if (param.doc.type === "integer") {
        bad.push(["abc", "int_parsing"], ["1.5", "int_parsing"]);
        if (param.doc.minimum !== undefined) bad.push([String(param.doc.minimum - 1), "greater_than_equal"]);
        if (param.doc.maximum !== undefined) bad.push([String(param.doc.maximum + 1), "less_than_equal"]);
      } else if (param.doc.enum) {
        bad.push(["definitely-not-a-value", "literal_error"]);
      } else if (param.doc.pattern) {
        bad.push(["!!", "string_pattern_mismatch"]);
      }
      for (const [value, type] of bad) {
        it(`GET ${p.path}?${name}=${value} answers 422 (${type})`, async () => {
          const q = new URLSearchParams(exampleQuery(p).slice(1));
          q.set(name, value);
          const { status, body } = await fx.json(`${p.path}?${q}`);
          expect(status).toBe(422);
          expectSpec26(body);
          expect(body.detail[0]).toMatchObject({ loc: ["query", name], type, input: value });
        });
      }
      if (param.doc.required) {
        it(`GET ${p.path} without ${name} answers 422 (missing)`, async () => {
          const { status, body } = await fx.json(p.path);
          expect(status).toBe(422);
          expectSpec26(body);
          expect(body.detail).toContainEqual({ loc: ["query", name], msg: "Field required", type: "missing", input: null });
        });
      }
    }
  }

  for (const p of PRODUCTS.filter((x) => x.path === "/v1/screen" || x.path === "/v1/multi-asset")) {
    const supported = SUPPORTED_TICKERS.join(", ");
    const tooMany = SUPPORTED_TICKERS.slice(0, MAX_TICKERS + 1).join(",");
    const cases: Array<[string, string, Record<string, unknown>]> = [
      [
        "an unknown ticker",
        "XLM-USD,FOO-USD",
        {
          loc: ["query", "tickers"],
          msg: `Value error, unsupported ticker 'FOO-USD'; supported: ${supported}`,
          type: "value_error",
          input: "XLM-USD,FOO-USD",
          ctx: { error: `unsupported ticker 'FOO-USD'; supported: ${supported}` },
        },
      ],
      [
        `${MAX_TICKERS + 1} tickers`,
        tooMany,
        {
          loc: ["query", "tickers"],
          msg: `List should have at most ${MAX_TICKERS} items after validation, not ${MAX_TICKERS + 1}`,
          type: "too_long",
          input: tooMany,
          ctx: { field_type: "List", max_length: MAX_TICKERS, actual_length: MAX_TICKERS + 1 },
        },
      ],
    ];
    for (const [what, tickers, detail] of cases) {
      it(`GET ${p.path} with ${what} answers 422 with exactly the spec 2.6 body, charging nothing`, async () => {
        const before = (await fx.json("/v1/usage", { headers: auth })).body.credits_remaining;
        const { status, body, headers } = await fx.json(`${p.path}?${new URLSearchParams({ tickers })}`, { headers: auth });
        expect(status).toBe(422);
        expect(headers.get("content-type")).toMatch(/^application\/json/);
        expect(body).toEqual({ detail: [detail] });
        expect(headers.get("x-receipt-id")).toBeNull();
        expect((await fx.json("/v1/usage", { headers: auth })).body.credits_remaining).toBe(before);
      });
    }
  }

  it("answers JSON 404 for an unknown /v1 path and 405 for another method", async () => {
    const nf = await fx.json("/v1/does-not-exist");
    expect(nf.status).toBe(404);
    expect(nf.body.error.code).toBe("not_found");
    const na = await fx.json(DATA[0]!.path, { method: "POST" });
    expect(na.status).toBe(405);
    expect(na.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  it("serves /health with database and upstream status", async () => {
    const { status, body } = await fx.json("/health");
    expect(status).toBe(200);
    expect(body.status).toBe("ok");
    expect(body.database).toMatchObject({ ok: true, mode: "pglite" });
    expect(typeof body.upstreams).toBe("object");
    // Every provider a product reads from is probed and up (tests/integration/health.test.ts covers failures).
    for (const name of new Set(DATA.flatMap((p) => p.sources))) {
      // Etherscan without a key is listed as not_configured (eth-gas then uses eth-rpc).
      expect(["ok", "not_configured"], name).toContain(body.upstreams[name]?.status);
    }
  });

  it("serves /v1/manifest with every paid endpoint and its live price", async () => {
    const { status, body } = await fx.json("/v1/manifest");
    expect(status).toBe(200);
    const paths = body.endpoints.map((e: { path: string }) => e.path);
    for (const p of PRODUCTS) expect(paths).toContain(p.path);
    for (const e of body.endpoints) {
      const p = PRODUCTS.find((x) => x.path === e.path)!;
      expect(Number(e.price_usd)).toBeCloseTo(Number(p.httpPrice), 9);
      expect(e.network).toBe("eip155:8453");
    }
    expect(body.attestation_public_key.public_key_hex).toMatch(/^[0-9a-f]{64}$/);
  });

  it("serves service info JSON at / to agents and HTML to browsers", async () => {
    const json = await fx.json("/", { headers: { Accept: "application/json" } });
    expect(json.status).toBe(200);
    expect(json.body.name).toBe("echo-x402-sentiment");
    const html = await fx.get("/", { headers: { Accept: "text/html" } });
    expect(html.headers.get("content-type")).toMatch(/text\/html/);
  });
});

describe("upstream failures over HTTP (caches disabled)", () => {
  let fx: Fixture;
  let auth: Record<string, string>;
  const credits = async () => (await fx.json("/v1/usage", { headers: auth })).body.credits_remaining as number;
  beforeAll(async () => {
    ({ fx, auth } = await payingFixture(chain, { CACHE_DISABLED: "1", UPSTREAM_TIMEOUT_MS: "1500" }));
  });
  afterAll(async () => fx?.close());

  for (const p of DATA) {
    for (const mode of ["error", "malformed", "not_json"] as const) {
      it(`GET ${p.path} answers 503 with Retry-After when every upstream ${mode === "error" ? "fails" : `answers ${mode}`}`, async () => {
        const before = await credits();
        for (const s of p.sources) fx.sim.setFault(s, mode === "error" ? { mode, status: 502 } : { mode });
        try {
          const { status, body, headers } = await fx.json(p.path + exampleQuery(p), { headers: auth });
          expect(status, JSON.stringify(body).slice(0, 300)).toBe(503);
          expect(body.error.code).toBe("upstream_unavailable");
          expect(Number(headers.get("retry-after"))).toBeGreaterThan(0);
        } finally {
          fx.sim.clearFaults();
        }
        expect(await credits()).toBe(before);
      });
    }
  }
});

describe("cold-cache fan-in", () => {
  let fx: Fixture;
  let auth: Record<string, string>;
  beforeAll(async () => {
    ({ fx, auth } = await payingFixture(chain));
  });
  afterAll(async () => fx?.close());

  it("200 concurrent requests for one product cause one request per upstream resource", async () => {
    const target = PRODUCTS.find((p) => p.id === "sentiment") ?? DATA[0]!;
    fx.sim.resetCounts();
    const results = await Promise.all(Array.from({ length: 200 }, () => fx.get(target.path + exampleQuery(target), { headers: auth }).then((r) => r.status)));
    expect(results.every((s) => s === 200)).toBe(true);
    const counts = fx.sim.counts();
    expect(Object.keys(counts).length).toBeGreaterThan(0);
    for (const [resource, n] of Object.entries(counts)) expect(n, resource).toBe(1);
  });
});
