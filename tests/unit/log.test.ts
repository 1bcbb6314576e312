/**
 * Log redaction: credentials never reach a log line, by field name or by value shape,
 * while the record ids customers are told to quote (payment id, receipt id) stay
 * readable. The real `log` writes a real line; the test reads what it wrote.
 */
import { randomBytes } from "node:crypto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { log, redactFields } from "@/lib/log";

const apiKey = `echo_fk_${randomBytes(32).toString("base64url")}`;
const bundleToken = `echo_bt_${randomBytes(32).toString("base64url")}`;
const signature = `0x${randomBytes(65).toString("hex")}`;
const x402Payload = Buffer.from(JSON.stringify({ x402Version: 2, payload: { signature, authorization: { from: "0xabc", value: "10000" } } })).toString("base64");
const privateKey = `0x${randomBytes(32).toString("hex")}`;
const paymentId = "6f1c2d9e-3b7a-4c1e-9a55-0d2f8e7b4c31";
const receiptId = "0b8e4f2a-91d3-4e6b-a7c5-3f9d1e2b6a70";

const SECRETS = [apiKey, bundleToken, signature, x402Payload, privateKey, "hunter2-admin"];

function captured(fn: () => void): string {
  const lines: string[] = [];
  const capture = (chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  };
  const out = vi.spyOn(process.stdout, "write").mockImplementation(capture);
  const err = vi.spyOn(process.stderr, "write").mockImplementation(capture);
  try {
    fn();
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  return lines.join("");
}

afterEach(() => vi.restoreAllMocks());

describe("log redaction", () => {
  it("keeps paymentId and receiptId readable in payment.settle_error (the ids customers quote)", () => {
    const line = captured(() => log.error("payment.settle_error", { paymentId, receiptId, network: "eip155:8453", message: "timeout after 10000 ms" }));
    const parsed = JSON.parse(line);
    expect(parsed).toMatchObject({ level: "error", event: "payment.settle_error", paymentId, receiptId, network: "eip155:8453" });
  });

  it("keeps the snake_case and other ledger ids too", () => {
    const ids = { payment_id: paymentId, receipt_id: receiptId, bundleId: "b-1", bundle_id: "b-2", apiKeyId: "k-1", api_key_id: "k-2", keyId: "k-3" };
    expect(redactFields(ids)).toEqual(ids);
  });

  it("redacts secret-named fields: tokens, keys, signatures, payment payloads, authorization, passwords", () => {
    const fields = {
      api_key: apiKey,
      apiKey,
      bundle_token: bundleToken,
      token: bundleToken,
      signature,
      payment: x402Payload,
      paymentPayload: x402Payload,
      "x-payment": x402Payload,
      authorization: "Bearer hunter2-admin",
      privateKey,
      FACILITATOR_PRIVATE_KEY: privateKey,
      secret: "hunter2-admin",
      password: "hunter2-admin",
    };
    const line = captured(() => log.warn("credential.seen", fields));
    const parsed = JSON.parse(line);
    for (const k of Object.keys(fields)) expect(parsed[k], k).toBe("[redacted]");
    for (const s of SECRETS) expect(line).not.toContain(s);
  });

  it("redacts credential-shaped text inside innocent fields, also nested", () => {
    const fields = {
      message: `refused header ${x402Payload} from key ${apiKey} with signature ${signature}`,
      context: { request: { headers: { "x-bundle-token": bundleToken }, note: `token ${bundleToken}` }, list: [apiKey] },
      url: `https://api.etherscan.io/v2/api?module=gastracker&apikey=ABCDEF123&chainid=1`,
      error: new Error(`bad key ${apiKey}`),
    };
    const line = captured(() => log.info("upstream.failed", fields));
    for (const s of [apiKey, bundleToken, signature, x402Payload, "ABCDEF123"]) expect(line).not.toContain(s);
    const parsed = JSON.parse(line);
    expect(parsed.message).toBe("refused header [redacted] from key [redacted] with signature [redacted]");
    expect(parsed.context.request.headers["x-bundle-token"]).toBe("[redacted]");
    expect(parsed.context.request.note).toBe("token [redacted]");
    expect(parsed.context.list).toEqual(["[redacted]"]);
    expect(parsed.url).toBe("https://api.etherscan.io/v2/api?module=gastracker&apikey=[redacted]&chainid=1");
    expect(parsed.error).toBe("bad key [redacted]");
  });

  it("does not let an allow-listed id field smuggle a credential", () => {
    const parsed = JSON.parse(captured(() => log.error("payment.settle_error", { paymentId: apiKey })));
    expect(parsed.paymentId).toBe("[redacted]");
  });

  it("leaves ordinary values alone (transaction hashes, addresses, numbers)", () => {
    const tx = `0x${"ab".repeat(32)}`;
    const fields = { txHash: tx, payer: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", ms: 12, ok: true, product: "fng" };
    expect(redactFields(fields)).toEqual(fields);
  });
});
