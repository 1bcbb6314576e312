/**
 * The settlement sender's gas limits: a fixed-cost call (EIP-3009 with v, r, s) is
 * estimated once and reused; a call carrying a contract wallet's signature bytes is
 * estimated every time, since each wallet's signature check costs differently.
 */
import { describe, expect, it } from "vitest";
import { isFeeRefusal, KeySender } from "@/lib/payments/x402/sender";

const sender = () => new KeySender({} as never, { address: "0x0000000000000000000000000000000000000001", chainId: 8453, timeoutMs: 1000 } as never);
const USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913" as const;
const word = `0x${"11".repeat(32)}`;

describe("KeySender.gasFor", () => {
  it("estimates a fixed-cost call once and reuses the limit (50 % margin)", async () => {
    const s = sender();
    let estimates = 0;
    const estimate = async () => (++estimates, 60_000n);
    const call = { address: USDC, abi: [], functionName: "transferWithAuthorization", args: ["0xa", "0xb", 1n, 0n, 9n, word, 27, word, word] };
    expect(await s.gasFor(call, estimate)).toBe(90_000n);
    expect(await s.gasFor(call, async () => 10n)).toBe(90_000n);
    expect(estimates).toBe(1);
  });

  it("estimates a call with signature bytes every time: a costlier wallet gets its own limit", async () => {
    const s = sender();
    const call = (sig: string) => ({ address: USDC, abi: [], functionName: "transferWithAuthorization", args: ["0xa", "0xb", 1n, 0n, 9n, word, sig] });
    expect(await s.gasFor(call(`0x${"22".repeat(65)}`), async () => 80_000n)).toBe(120_000n);
    expect(await s.gasFor(call(`0x${"33".repeat(400)}`), async () => 300_000n)).toBe(450_000n);
  });
});

describe("isFeeRefusal (a transaction signed ahead is signed again with fresh fees only for these)", () => {
  it("recognizes nodes' answers that the fees are too low", () => {
    for (const m of [
      "Transaction maxFeePerGas (1000) is too low for the next block, which has a baseFeePerGas of 2000",
      "max fee per gas less than block base fee: address 0xabc, maxFeePerGas: 1 baseFee: 2",
      "transaction underpriced",
      "Transaction gas price 1 is too low",
    ])
      expect(isFeeRefusal(m), m).toBe(true);
  });
  it("leaves nonce, funds and revert answers to their own handling", () => {
    for (const m of ["nonce too low", "nonce too high", "Sender doesn't have enough funds to send tx. The max upfront cost is: 1 and the sender's balance is: 0.", "insufficient funds for gas * price + value", "execution reverted"])
      expect(isFeeRefusal(m), m).toBe(false);
  });
});
