/**
 * What A2A is offered and may pay with, in-process against the payment-method registry:
 * A2A pays the HTTP price but is recorded as its own surface; its instruction names the
 * A2A metadata keys (never HTTP headers); XLM, which the a2a-x402 extension cannot
 * carry, is neither offered nor taken there, and an instance that only takes XLM gives
 * A2A no x402 requirement at all (the instruction names the bundle token and the key);
 * a failed payment leaves an a2a-x402 failure receipt; the binding's resources.
 */
import { afterAll, describe, expect, it } from "vitest";
import { Keypair } from "@stellar/stellar-sdk";
import { buildRequirement, priceFor } from "@/lib/access/payment-required";
import { productById } from "@/lib/catalog/lookup";
import { A2A_PRICE_NAME, priceSurfaceOf } from "@/lib/catalog/surfaces";
import { resetEnvForTests } from "@/lib/config/env";
import { authorizePayment } from "@/lib/payments/authorize";
import { failureReceipt } from "@/lib/a2a/x402";
import { restMethods } from "@/lib/a2a/rest";
import { timingRecord } from "@/lib/http/access-render";

const FNG = productById("fng");
const BUNDLE = productById("bundle");
const KEYS = ["PAY_TO_ADDRESS", "FACILITATOR_URL", "FACILITATOR_PRIVATE_KEY", "SOLANA_PAY_TO_ADDRESS", "SOLANA_FEE_PAYER_SECRET", "STELLAR_PAY_TO_ADDRESS"] as const;
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));

function configure(env: Partial<Record<(typeof KEYS)[number], string>>): void {
  for (const k of KEYS) delete process.env[k];
  Object.assign(process.env, env);
  resetEnvForTests();
}

afterAll(() => {
  for (const k of KEYS) {
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  }
  resetEnvForTests();
});

const stellar = Keypair.random().publicKey();
const evm = { PAY_TO_ADDRESS: "0x0000000000000000000000000000000000000001", FACILITATOR_URL: "http://127.0.0.1:9/facilitator" };
const xlmPayment = Buffer.from(JSON.stringify({ x402Version: 1, scheme: "xlm-memo", network: "stellar:pubnet", payload: { quote: "q".repeat(20), envelope_xdr: "e".repeat(20) } })).toString("base64");

describe("A2A prices and surface", () => {
  it("pays the declaration lib/catalog/surfaces.ts names, under its own surface", () => {
    expect(priceSurfaceOf("a2a")).toBe("http");
    expect(A2A_PRICE_NAME).toBe("HTTP price");
    expect(priceFor(FNG, "a2a")).toBe(FNG.httpPrice);
    expect(priceFor(FNG, "mcp")).toBe(FNG.tool!.price);
  });
});

describe("the A2A requirement with EVM and XLM configured", () => {
  it("offers the x402 requirement with A2A's own instruction, and no XLM", async () => {
    configure({ ...evm, STELLAR_PAY_TO_ADDRESS: stellar });
    const q = await buildRequirement(FNG, "a2a", "http://x.test/a2a#fng", "Payment required", { fetchRate: false });
    expect(q.price).toBe(FNG.httpPrice);
    expect(q.x402?.accepts).toHaveLength(1);
    expect(q.xlm).toBeNull();
    expect(q.instruction).toContain('metadata["x402.payment.payload"]');
    expect(q.instruction).toContain('metadata["bundle_token"]');
    expect(q.instruction).toContain('metadata["api_key"]');
    expect(q.instruction).toMatch(/native XLM on stellar:pubnet is accepted over HTTP and MCP only/);
    for (const header of ["PAYMENT-SIGNATURE", "X-PAYMENT", "X-Bundle-Token", "X-Api-Key"]) expect(q.instruction).not.toContain(header);
    // HTTP keeps its own wording.
    const http = await buildRequirement(FNG, "http", "http://x.test/v1/fng", "Payment required", { fetchRate: false });
    expect(http.instruction).toContain("PAYMENT-SIGNATURE");
  });

  it("refuses an XLM payment sent over A2A before verifying anything, naming what works there", async () => {
    configure({ ...evm, STELLAR_PAY_TO_ADDRESS: stellar });
    let method: string | null = null;
    const input = { payload: xlmPayment, product: FNG, surface: "a2a" as const, priceUsd: FNG.httpPrice, resource: "http://x.test/a2a#fng" };
    await expect(authorizePayment(input, (id) => (method = id))).rejects.toMatchObject({ code: "payment_invalid", message: expect.stringMatching(/not taken over A2A/) });
    expect(method).toBe("xlm-memo");
  });
});

describe("the A2A requirement when only XLM is configured", () => {
  it("has no x402 requirement (never a null one to sign) and names the bundle token and the key", async () => {
    configure({ STELLAR_PAY_TO_ADDRESS: stellar });
    const q = await buildRequirement(FNG, "a2a", "http://x.test/a2a#fng", "Payment required", { fetchRate: false });
    expect(q.x402).toBeNull();
    expect(q.xlm).toBeNull();
    expect(q.instruction).toMatch(/^Per-call payment is not available over A2A on this instance \(native XLM on stellar:pubnet is accepted over HTTP and MCP only\)\./);
    expect(q.instruction).toContain('metadata["bundle_token"]');
    expect(q.instruction).toContain('metadata["api_key"]');
    const bundle = await buildRequirement(BUNDLE, "a2a", "http://x.test/a2a#bundle", "Payment required", { fetchRate: false });
    expect(bundle.instruction).toContain(`Buy ${BUNDLE.path} over HTTP or MCP.`);
  });
});

describe("a2a-x402 failure receipts", () => {
  it("name the network and payer the payload was signed for, no transaction and the reason", () => {
    const payload = Buffer.from(
      JSON.stringify({
        x402Version: 2,
        accepted: { scheme: "exact", network: "eip155:8453", amount: "10000", asset: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913", payTo: "0x0000000000000000000000000000000000000001", maxTimeoutSeconds: 120, extra: {} },
        payload: { signature: "0x12", authorization: { from: "0x00000000000000000000000000000000000000b0", to: "0x1", value: "10000", validAfter: "0", validBefore: "9", nonce: "0x01" } },
      }),
    ).toString("base64");
    expect(failureReceipt(payload, "settlement refused")).toEqual({ success: false, errorReason: "settlement refused", transaction: "", network: "eip155:8453", payer: "0x00000000000000000000000000000000000000b0" });
    expect(failureReceipt("not a payment", "unreadable", "eip155:8453")).toEqual({ success: false, errorReason: "unreadable", transaction: "", network: "eip155:8453" });
  });
});

describe("the HTTP+JSON binding's resources", () => {
  it("serve the SDK router's methods per path; anything else is no resource", () => {
    expect(restMethods("/v1/message:send")).toEqual(["POST"]);
    expect(restMethods("/v1/tasks/abc")).toEqual(["GET"]);
    expect(restMethods("/v1/tasks/abc:cancel")).toEqual(["POST"]);
    expect(restMethods("/v1/tasks/abc/pushNotificationConfigs/x")).toEqual(["GET", "DELETE"]);
    expect(restMethods("/v1/nothing")).toBeNull();
    expect(restMethods("/v1/tasks/a/b/c/d")).toBeNull();
  });
});

describe("timing records", () => {
  it("hold the phases that ran, in ms with one decimal", () => {
    expect(timingRecord({ verify: 1.234, handler: 20.06 })).toEqual({ verify_ms: 1.2, handler_ms: 20.1 });
    expect(timingRecord({})).toEqual({});
  });
});
