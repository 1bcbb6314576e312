/** The A2A pieces that need no server: message checks, credential reading, task redaction, x402 error codes. */
import { describe, expect, it } from "vitest";
import type { Message, Task } from "@a2a-js/sdk";
import { checkMessage, credentialOf, dataOf } from "@/lib/a2a/message";
import { BoundedTaskStore, redactTask } from "@/lib/a2a/task-store";
import { paymentErrorCode } from "@/lib/a2a/x402";
import { a2aSkills } from "@/lib/a2a/skills";
import { PRODUCTS } from "@/lib/catalog";

const msg = (over: Partial<Message> = {}): Message => ({ kind: "message", role: "user", messageId: "m", parts: [], metadata: { skill: "fng" }, ...over });

describe("A2A messages", () => {
  it("accepts a skill with one data part, refuses unknown skills, several data parts and non-object data", () => {
    expect(() => checkMessage({ message: msg({ parts: [{ kind: "data", data: { hours: 5 } }] }) })).not.toThrow();
    expect(() => checkMessage({ message: msg({ metadata: { skill: "nope" } }) })).toThrow(/Unknown skill "nope"/);
    expect(() => checkMessage({ message: msg({ metadata: {} }) })).toThrow(/Name the skill/);
    expect(() => checkMessage({ message: msg({ metadata: {}, taskId: "t" }) })).not.toThrow();
    expect(() => checkMessage({ message: msg({ parts: [{ kind: "data", data: {} }, { kind: "data", data: {} }] }) })).toThrow(/one data part/);
    expect(() => checkMessage({ message: msg({ parts: [{ kind: "data", data: "x" as never }] }) })).toThrow(/JSON object/);
    expect(() => checkMessage({ message: msg({ parts: [{ kind: "video" } as never] }) })).toThrow(/text, data or file/);
    expect(() => checkMessage({ message: null as never })).toThrow(/Message object/);
    expect(() => checkMessage({ message: msg({ metadata: { skill: "fng", api_key: 5 } }) })).toThrow(/api_key/);
  });

  it("reads the credential in the gate's order (payment, bundle, key) and the payload object as base64", () => {
    const payload = { x402Version: 2, payload: { signature: "0x1" } };
    const c = credentialOf(msg({ metadata: { "x402.payment.payload": payload, bundle_token: "echo_bt_x", api_key: "echo_fk_y" } }));
    expect(c).toEqual({ kind: "x402", payload: Buffer.from(JSON.stringify(payload)).toString("base64"), version: 2 });
    expect(credentialOf(msg({ metadata: { bundle_token: "echo_bt_x", api_key: "echo_fk_y" } }))).toEqual({ kind: "bundle", token: "echo_bt_x" });
    expect(credentialOf(msg({ metadata: { api_key: " echo_fk_y " } }))).toEqual({ kind: "api_key", key: "echo_fk_y" });
    expect(credentialOf(msg())).toEqual({ kind: "none" });
    expect(dataOf(msg({ parts: [{ kind: "text", text: "hi" }, { kind: "data", data: { limit: 3 } }] }))).toEqual({ limit: 3 });
  });

  it("has one skill per catalog product plus the two free tools", () => {
    const ids = a2aSkills().map((s) => s.id);
    expect(ids).toEqual(["get_xlm_sentiment", "get_free_api_key", ...PRODUCTS.map((p) => p.id)]);
  });
});

describe("A2A task store", () => {
  const task = (): Task => ({
    kind: "task",
    id: "t1",
    contextId: "c",
    status: { state: "completed" },
    history: [msg({ metadata: { skill: "fng", api_key: "echo_fk_secret", "x402.payment.payload": { s: 1 } } })],
  });

  it("never keeps or returns the credentials a message carried", async () => {
    expect(JSON.stringify(redactTask(task()))).not.toContain("echo_fk_secret");
    const store = new BoundedTaskStore(2, 60_000);
    await store.save(task());
    const loaded = await store.load("t1");
    expect(loaded?.history?.[0]?.metadata).toEqual({ skill: "fng", api_key: "[redacted]", "x402.payment.payload": "[redacted]" });
  });

  it("evicts the oldest task beyond its bound and forgets expired ones", async () => {
    const store = new BoundedTaskStore(2, 60_000);
    for (const id of ["a", "b", "c"]) await store.save({ ...task(), id });
    expect(await store.load("a")).toBeUndefined();
    expect(await store.load("c")).toBeDefined();
    const short = new BoundedTaskStore(10, -1);
    await short.save(task());
    expect(await short.load("t1")).toBeUndefined();
  });
});

describe("a2a-x402 error codes", () => {
  it("maps the gate's refusals to the extension's codes", () => {
    expect(paymentErrorCode("payment_replayed", "")).toBe("DUPLICATE_NONCE");
    expect(paymentErrorCode("settlement_failed", "")).toBe("SETTLEMENT_FAILED");
    expect(paymentErrorCode("payment_invalid", "the payer's USDC balance is below the price (invalid_exact_evm_insufficient_balance)")).toBe("INSUFFICIENT_FUNDS");
    expect(paymentErrorCode("payment_invalid", "The authorization transfers 9999 base units; this call costs exactly 10000.")).toBe("INVALID_AMOUNT");
    expect(paymentErrorCode("payment_invalid", "Wrong network eip155:1; accepted: eip155:8453.")).toBe("NETWORK_MISMATCH");
    expect(paymentErrorCode("payment_invalid", "The authorization expired.")).toBe("EXPIRED_PAYMENT");
    expect(paymentErrorCode("payment_invalid", "garbage")).toBe("INVALID_PAYMENT");
  });
});
