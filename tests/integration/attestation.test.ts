/**
 * Attested quotes over HTTP: the signature verifies with an independent Ed25519
 * implementation against the key published in / and /v1/manifest, and a key generated
 * by the service survives a restart (it is stored in the database).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ed from "@noble/ed25519";
import { startSimulator, type Simulator } from "@/lib/upstream-sim/server";
import { startService } from "../helpers/service";

ed.hashes.sha512 = (m: Uint8Array) => new Uint8Array(createHash("sha512").update(m).digest());

describe("attested quote", () => {
  let sim: Simulator;
  const dataDir = mkdtempSync(join(tmpdir(), "echo-attest-"));
  beforeAll(async () => {
    sim = await startSimulator();
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("signs quotes verifiably with a generated key that survives a restart", async () => {
    const env = { ...sim.env, DATA_DIR: dataDir };
    const first = await startService({ env });
    let published: string;
    try {
      const manifest = await (await fetch(`${first.url}/v1/manifest`)).json();
      published = manifest.attestation_public_key.public_key_hex;
      expect(published).toMatch(/^[0-9a-f]{64}$/);
      const info = await (await fetch(`${first.url}/`, { headers: { Accept: "application/json" } })).json();
      expect(info.attestation_public_key.public_key_hex).toBe(published);

      const key = (await (await fetch(`${first.url}/v1/free-key`)).json()).api_key;
      for (const ticker of ["xlm", "BTC-USD", "eth"]) {
        const res = await fetch(`${first.url}/v1/attested-quote?ticker=${ticker}`, { headers: { "X-Api-Key": key } });
        expect(res.status).toBe(200);
        const q = await res.json();
        expect(q.attestation.public_key_hex).toBe(published);
        expect(q.attestation.message).toBe(`echo-x402-attestation/v1\nticker=${q.ticker}\nprice_usd=${q.attestation.message.match(/price_usd=(.*)/)[1]}\nsource=coingecko\nts=${q.ts}`);
        expect(Number(q.attestation.message.match(/price_usd=(.*)/)[1])).toBe(q.price_usd);
        expect(ed.verify(Buffer.from(q.attestation.signature_hex, "hex"), Buffer.from(q.attestation.message, "utf8"), Buffer.from(published, "hex"))).toBe(true);
      }
    } finally {
      await first.stop();
    }
    const second = await startService({ env });
    try {
      const manifest = await (await fetch(`${second.url}/v1/manifest`)).json();
      expect(manifest.attestation_public_key.public_key_hex).toBe(published);
    } finally {
      await second.stop();
    }
  });

  it("answers 422 for an unknown ticker", async () => {
    const svc = await startService({ env: sim.env });
    try {
      const res = await fetch(`${svc.url}/v1/attested-quote?ticker=nope`);
      expect(res.status).toBe(422);
      const body = await res.json();
      expect(body.detail[0]).toMatchObject({ loc: ["query", "ticker"], type: "literal_error", input: "nope" });
    } finally {
      await svc.stop();
    }
  });
});
