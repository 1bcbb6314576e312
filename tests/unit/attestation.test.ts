/**
 * Ed25519 attestations verified with an independent implementation (@noble/ed25519),
 * not with the Node crypto code that produced them.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as ed from "@noble/ed25519";
import { createHash } from "node:crypto";
import { resetEnvForTests } from "@/lib/config/env";
import { attest, canonicalMessage, verifyAttestation } from "@/lib/attestation";

// @noble/ed25519 v3 needs a SHA-512 for its synchronous API; give it Node's.
ed.hashes.sha512 = (m: Uint8Array) => new Uint8Array(createHash("sha512").update(m).digest());

const SEED = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"; // RFC 8032 test 1
const RFC_PUB = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";

beforeAll(() => {
  process.env.ATTESTATION_PRIVATE_KEY = SEED;
  resetEnvForTests();
  delete (globalThis as Record<symbol, unknown>)[Symbol.for("echo.attestation.key")];
});
afterAll(() => {
  delete process.env.ATTESTATION_PRIVATE_KEY;
  resetEnvForTests();
  delete (globalThis as Record<symbol, unknown>)[Symbol.for("echo.attestation.key")];
});

describe("attestation", () => {
  const fields = { ticker: "XLM", price_usd: "0.42031286", source: "coingecko", ts: "2026-11-22T08:22:08.680Z" };

  it("derives the RFC 8032 public key from the configured seed", async () => {
    const a = await attest(fields);
    expect(a.public_key_hex).toBe(RFC_PUB);
    expect(Buffer.from(ed.getPublicKey(Buffer.from(SEED, "hex"))).toString("hex")).toBe(RFC_PUB);
  });

  it("signs the canonical message; @noble/ed25519 verifies it", async () => {
    const a = await attest(fields);
    expect(a.message).toBe(canonicalMessage(fields));
    expect(a.message).toBe("echo-x402-attestation/v1\nticker=XLM\nprice_usd=0.42031286\nsource=coingecko\nts=2026-11-22T08:22:08.680Z");
    const ok = ed.verify(Buffer.from(a.signature_hex, "hex"), Buffer.from(a.message, "utf8"), Buffer.from(a.public_key_hex, "hex"));
    expect(ok).toBe(true);
    expect(Buffer.from(a.signature_base64, "base64").toString("hex")).toBe(a.signature_hex);
  });

  it("fails verification when any signed field changes", async () => {
    const a = await attest(fields);
    for (const changed of [{ ...fields, price_usd: "0.42031287" }, { ...fields, ts: "2026-11-22T08:22:09.680Z" }, { ...fields, ticker: "BTC" }]) {
      const msg = canonicalMessage(changed);
      expect(ed.verify(Buffer.from(a.signature_hex, "hex"), Buffer.from(msg, "utf8"), Buffer.from(a.public_key_hex, "hex"))).toBe(false);
      expect(verifyAttestation(msg, a.signature_hex, a.public_key_hex)).toBe(false);
    }
  });
});
