// The security headers and methods of the pages and the API: a nonce CSP on every page
// (no 'unsafe-eval'), nothing may frame /wallet or /pay/* (a page on another origin that
// frames /pay/v1/quote is refused by the browser), nosniff, Referrer-Policy,
// Permissions-Policy, no HSTS over plain http; the agents' JSON documents keep CORS; the
// pages answer OPTIONS with 204 and Allow and other methods with 405, as the API does.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { test, expect } from "./helpers/fixtures";

const PAGES = ["/", "/catalog", "/market", "/free-key", "/wallet", "/usage", "/pay/v1/quote", "/pay/v1/bundle"];

test("every page carries a nonce CSP without unsafe-eval, frame-ancestors 'none', X-Frame-Options DENY, nosniff, Referrer-Policy and Permissions-Policy", async ({ svc }) => {
  const nonces = new Set<string>();
  for (const path of PAGES) {
    const res = await svc.get(path, { Accept: "text/html" });
    expect(res.status, path).toBe(200);
    const csp = res.headers.get("content-security-policy") ?? "";
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce, `${path}: ${csp}`).toBeTruthy();
    nonces.add(nonce!);
    expect(csp).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
    expect(csp).not.toContain("unsafe-eval");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    // The page's scripts carry the nonce Next was handed.
    const html = await res.text();
    expect(html).toContain(`nonce="${nonce}"`);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    expect(res.headers.get("permissions-policy")).toContain("camera=()");
    // Plain http: no HSTS (browsers ignore it there, and it would be a lie).
    expect(res.headers.get("strict-transport-security")).toBeNull();
  }
  // A fresh nonce per response.
  expect(nonces.size).toBe(PAGES.length);
});

test("API answers and documents are nosniff, frame-deny and load nothing; the agents' JSON documents stay readable cross-origin", async ({ svc }) => {
  for (const path of ["/openapi.json", "/.well-known/x402", "/v1/manifest", "/llms.txt", "/v1/quote"]) {
    const res = await svc.get(path, { Origin: "https://agent.example" });
    expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
    expect(res.headers.get("content-security-policy"), path).toContain("default-src 'none'");
    expect(res.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
    expect(res.headers.get("referrer-policy"), path).toBe("strict-origin-when-cross-origin");
  }
  for (const path of ["/openapi.json", "/.well-known/x402", "/.well-known/agent-card.json"]) {
    expect((await svc.get(path, { Origin: "https://agent.example" })).headers.get("access-control-allow-origin"), path).toBe("*");
  }
  // "/" asked for JSON is the agents' service info: the API's policy, not a page's.
  const info = await svc.get("/", { Accept: "application/json" });
  expect(info.headers.get("content-type")).toContain("application/json");
  expect(info.headers.get("content-security-policy")).toContain("default-src 'none'");
});

test("a page on another origin that frames /pay/v1/quote or /wallet is refused by the browser", async ({ context, baseURL }) => {
  const framer = http.createServer((req, res) => {
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<!doctype html><title>framer</title><iframe id="a" src="${baseURL}/pay/v1/quote"></iframe><iframe id="b" src="${baseURL}/wallet"></iframe>`);
  });
  await new Promise<void>((r) => framer.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${(framer.address() as AddressInfo).port}`;
  expect(origin).not.toBe(new URL(baseURL!).origin);
  // Its own page, not the fixture's: the refusal is reported in the framer's console.
  const attacker = await context.newPage();
  const refused: string[] = [];
  attacker.on("console", (m) => {
    if (/frame-ancestors|X-Frame-Options/i.test(m.text())) refused.push(m.text());
  });
  try {
    await attacker.goto(origin);
    await attacker.waitForLoadState("load");
    await expect.poll(() => refused.length).toBeGreaterThanOrEqual(2);
    // Neither frame holds the service's page.
    for (const f of attacker.frames().slice(1)) {
      expect(f.url()).not.toContain(new URL(baseURL!).host);
      expect(await f.locator('[data-testid="paywall"], [data-testid="bundle-offer"]').count().catch(() => 0)).toBe(0);
    }
    expect(refused.join("\n")).toContain("frame-ancestors 'none'");
  } finally {
    await attacker.close();
    await new Promise<void>((r) => framer.close(() => r()));
  }
});

test("OPTIONS on / and every page answers 204 with Allow; POST, PUT, PATCH and DELETE answer 405 with Allow, as on the API", async ({ baseURL }) => {
  for (const path of PAGES) {
    const options = await fetch(`${baseURL}${path}`, { method: "OPTIONS" });
    expect(options.status, `OPTIONS ${path}`).toBe(204);
    expect(options.headers.get("allow"), path).toBe("GET, HEAD, OPTIONS");
    for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
      const res = await fetch(`${baseURL}${path}`, { method, headers: { Accept: "text/html" } });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow"), `${method} ${path}`).toBe("GET, HEAD, OPTIONS");
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe("method_not_allowed");
    }
    expect((await fetch(`${baseURL}${path}`, { method: "HEAD" })).status, `HEAD ${path}`).toBe(200);
  }
  // The API's own answer, for comparison: the same shape.
  const api = await fetch(`${baseURL}/v1/manifest`, { method: "DELETE" });
  expect(api.status).toBe(405);
  expect(api.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
});
