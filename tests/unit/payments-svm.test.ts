/**
 * Solana payment configuration and the remote-facilitator path: when Solana is offered,
 * which fee payer the requirement names, how fee payer secrets are read, and a payment
 * verified and settled through a real x402 facilitator over HTTP (FACILITATOR_URL) on a
 * litesvm ledger. The in-process facilitator path runs end to end in
 * tests/integration/payments-solana.test.ts.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { getBase58Decoder } from "@solana/kit";
import { ExactSvmScheme } from "@x402/svm/exact/client";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { resetEnvForTests } from "@/lib/config/env";
import { resetSvmForTests, svmNetwork, svmRequirements } from "@/lib/payments/svm";
import { canonicalSolanaNetwork, parseFeePayerSecret } from "@/lib/payments/svm/config";
import { settleSvm, verifySvm } from "@/lib/payments/svm/facilitator";
import { startSolana, startSvmFacilitator, SOLANA_USDC_MINT, type SolanaLedger, type Wallet } from "../helpers/solana";

const MAINNET = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp";
const KEYS = ["SOLANA_NETWORK", "SOLANA_PAY_TO_ADDRESS", "SOLANA_RPC_URL", "SOLANA_FEE_PAYER_SECRET", "FACILITATOR_URL", "LOG_LEVEL"] as const;
const saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));

function setEnv(values: Partial<Record<(typeof KEYS)[number], string>>): void {
  for (const k of KEYS) delete process.env[k];
  Object.assign(process.env, { LOG_LEVEL: "silent" }, values);
  resetEnvForTests();
  resetSvmForTests();
}

let sol: SolanaLedger;
let payer: Wallet;
let payTo: Wallet;
let fee: Wallet;
beforeAll(async () => {
  sol = await startSolana();
  [payer, payTo, fee] = await Promise.all([sol.wallet(), sol.wallet(), sol.wallet()]);
  sol.fundSol(payer.address);
  sol.fundSol(fee.address);
  await sol.setUsdc(payer.address, 1_000_000n);
  await sol.setUsdc(payTo.address, 0n);
});
afterEach(() => setEnv({}));
afterAll(async () => {
  await sol?.stop();
  for (const k of KEYS) if (saved[k] === undefined) delete process.env[k];
  else process.env[k] = saved[k];
  resetEnvForTests();
  resetSvmForTests();
});

describe("Solana payment configuration", () => {
  it("names the network by its CAIP-2 id (32-character reference)", () => {
    expect(canonicalSolanaNetwork("solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc")).toBe(MAINNET);
    expect(canonicalSolanaNetwork("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1")).toBe("solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1");
    expect(canonicalSolanaNetwork("eip155:8453")).toBe("eip155:8453");
    setEnv({});
    expect(svmNetwork()).toBe(MAINNET);
  });

  it("reads fee payer secrets in base58 and solana-keygen JSON form and refuses broken ones", () => {
    expect(parseFeePayerSecret(fee.secret).address).toBe(fee.address);
    const bytes = parseFeePayerSecret(fee.secret).bytes;
    expect(parseFeePayerSecret(JSON.stringify([...bytes])).address).toBe(fee.address);
    expect(() => parseFeePayerSecret(getBase58Decoder().decode(bytes.subarray(0, 32)))).toThrow(/64 bytes/);
    const mixed = new Uint8Array([...bytes.subarray(0, 32), ...parseFeePayerSecret(payer.secret).bytes.subarray(32)]);
    expect(() => parseFeePayerSecret(getBase58Decoder().decode(mixed))).toThrow(/does not match/);
  });

  it("offers Solana only with a pay-to address and a facilitator (fee payer + RPC, or FACILITATOR_URL)", () => {
    setEnv({ SOLANA_FEE_PAYER_SECRET: fee.secret, SOLANA_RPC_URL: sol.rpcUrl });
    expect(svmRequirements("0.01")).toEqual([]);
    setEnv({ SOLANA_PAY_TO_ADDRESS: payTo.address, SOLANA_FEE_PAYER_SECRET: fee.secret });
    expect(svmRequirements("0.01")).toEqual([]);
    setEnv({ SOLANA_PAY_TO_ADDRESS: payTo.address, SOLANA_RPC_URL: sol.rpcUrl, SOLANA_FEE_PAYER_SECRET: "not-a-key" });
    expect(svmRequirements("0.01")).toEqual([]);
    setEnv({ SOLANA_PAY_TO_ADDRESS: payTo.address, SOLANA_RPC_URL: sol.rpcUrl, SOLANA_FEE_PAYER_SECRET: fee.secret });
    expect(svmRequirements("0.005")).toEqual([
      { scheme: "exact", network: MAINNET, amount: "5000", asset: SOLANA_USDC_MINT, payTo: payTo.address, maxTimeoutSeconds: 60, extra: { feePayer: fee.address } },
    ]);
  });
});

describe("Solana payments through a remote facilitator (FACILITATOR_URL)", () => {
  let remote: { url: string; stop(): Promise<void> };
  beforeAll(async () => {
    remote = await startSvmFacilitator(sol, fee);
  });
  afterAll(async () => remote?.stop());

  it("learns the fee payer from /supported, then verifies and settles through the facilitator", async () => {
    setEnv({ SOLANA_PAY_TO_ADDRESS: payTo.address, FACILITATOR_URL: remote.url });
    // The requirement is built synchronously: the first call starts the /supported fetch.
    expect(svmRequirements("0.01")).toEqual([]);
    await vi.waitFor(() => expect(svmRequirements("0.01")).toHaveLength(1));
    const req = svmRequirements("0.01")[0]!;
    expect(req.extra).toEqual({ feePayer: fee.address });

    const client = new ExactSvmScheme(payer.signer, { rpcUrl: sol.rpcUrl });
    const resource = { url: "http://localhost/v1/fng", description: "", mimeType: "application/json" };
    const wrong = await client.createPaymentPayload(2, { ...req, amount: "9999" });
    const refused = await verifySvm({ ...wrong, resource, accepted: req } as PaymentPayload, req);
    expect(refused).toMatchObject({ isValid: false, invalidReason: expect.stringMatching(/amount_mismatch/) });

    const good = await client.createPaymentPayload(2, req as PaymentRequirements);
    const payload = { ...good, resource, accepted: req } as PaymentPayload;
    expect(await verifySvm(payload, req)).toMatchObject({ isValid: true, payer: payer.address });
    const before = await sol.tokenBalance(payer.address);
    const s = await settleSvm(payload, req);
    expect(s).toMatchObject({ success: true, network: MAINNET, payer: payer.address });
    expect(sol.transaction(s.transaction)).toMatchObject({ err: null });
    expect(before - (await sol.tokenBalance(payer.address))).toBe(10_000n);
    expect(await sol.tokenBalance(payTo.address)).toBe(10_000n);
  });

  it("reports an unreachable facilitator as an outage, not as a refusal", async () => {
    setEnv({ SOLANA_PAY_TO_ADDRESS: payTo.address, FACILITATOR_URL: "http://127.0.0.1:9/" });
    const req = { scheme: "exact", network: MAINNET, amount: "10000", asset: SOLANA_USDC_MINT, payTo: payTo.address, maxTimeoutSeconds: 60, extra: { feePayer: fee.address } } as PaymentRequirements;
    await expect(verifySvm({ x402Version: 2, accepted: req, payload: { transaction: "AA" } } as unknown as PaymentPayload, req)).rejects.toMatchObject({ name: "FacilitatorError" });
  });
});
