/**
 * The in-process facilitator's own transaction signer against viem's: transactions it
 * signs with libsecp256k1 are byte-for-byte viem's. (Signatures of payments are not
 * recovered here: the token contract checks them in the verification's simulation.)
 * A payment's transfer call is built and encoded once (kept per payload), and a call
 * object built elsewhere is encoded afresh every time.
 */
import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { bytesToHex, encodeFunctionData, hexToBytes, keccak256, parseAbi, serializeTransaction, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { eip3009ABI } from "@x402/evm";
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types";
import { encodedCall, signDigest, transferCall } from "@/lib/payments/x402/evm-local";

const hex32 = () => bytesToHex(randomBytes(32));

describe("signDigest (libsecp256k1) signs transactions exactly as viem does", () => {
  it.each(Array.from({ length: 10 }, (_, i) => i))("EIP-1559 transaction #%d", async (i) => {
    const key = hex32();
    const tx = {
      type: "eip1559",
      chainId: 8453,
      to: privateKeyToAccount(hex32()).address,
      data: bytesToHex(randomBytes(100 + i)),
      gas: 90_000n + BigInt(i),
      nonce: i,
      maxFeePerGas: 2_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
    } as const;
    const ours = serializeTransaction(tx, signDigest(keccak256(serializeTransaction(tx)), hexToBytes(key as Hex)));
    expect(ours).toBe(await privateKeyToAccount(key).signTransaction(tx));
  });
});

describe("a payment's transfer call is built and encoded once", () => {
  it("the same payload gives the same call and the encoding of its arguments; another asset or payload its own; a caller's object is encoded afresh each time", async () => {
    const payer = privateKeyToAccount(hex32());
    const authorization = { from: payer.address, to: "0x00000000000000000000000000000000000A11CE", value: "10000", validAfter: "0", validBefore: "9999999999", nonce: hex32() };
    const payload = { x402Version: 2, payload: { authorization, signature: await payer.signMessage({ message: "x" }) } } as unknown as PaymentPayload;
    const req = { asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913", network: "eip155:8453" } as unknown as PaymentRequirements;
    const call = transferCall(payload, req);
    expect(transferCall(payload, req)).toBe(call);
    expect(call.address).toBe("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913");
    const data = encodedCall(call);
    expect(data).toBe(encodeFunctionData({ abi: eip3009ABI, functionName: "transferWithAuthorization", args: call.args as never }));
    expect(encodedCall(call)).toBe(data);
    const other = transferCall(payload, { ...req, asset: "0x0000000000000000000000000000000000000001" });
    expect(other).not.toBe(call);
    expect(other.address).toBe("0x0000000000000000000000000000000000000001");
    const again = { ...payload, payload: { ...payload.payload } } as PaymentPayload;
    expect(transferCall(again, req)).not.toBe(call);
    // An object built elsewhere (the official scheme's writeContract) may be reused with new arguments.
    const abi = parseAbi(["function f(uint256 x)"]);
    const theirs = { abi, functionName: "f", args: [1n] as bigint[] };
    const first = encodedCall(theirs);
    theirs.args[0] = 2n;
    expect(encodedCall(theirs)).not.toBe(first);
    expect(encodedCall(theirs)).toBe(encodeFunctionData({ abi, functionName: "f", args: [2n] }));
  });
});
