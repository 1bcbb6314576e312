/**
 * FACILITATOR_URL mode: verify and settle go to a remote facilitator over HTTP (a real
 * x402 facilitator settling on the local chain), not to the in-process one; the service
 * holds no facilitator key. Balances move by exactly the price; refusals settle nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWalletClient, http, publicActions } from "viem";
import { x402Facilitator } from "@x402/core/facilitator";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { startChain, localBase, type Chain } from "../helpers/chain";
import { startFixture, type Fixture } from "../helpers/fixture";
import { serveFacilitator } from "../helpers/facilitator-server";
import { requirementFrom, signAuthorization, v2Fetch, v2Header } from "../helpers/payments";

describe("x402 through a remote facilitator (FACILITATOR_URL)", () => {
  let chain: Chain;
  let fx: Fixture;
  let remote: Awaited<ReturnType<typeof serveFacilitator>>;

  beforeAll(async () => {
    chain = await startChain();
    await chain.mintUsdc(chain.accounts[1]!.address, 10_000_000n);
    const operator = chain.accounts[0]!;
    const wallet = createWalletClient({ account: operator, chain: localBase(chain.rpcUrl), transport: http(chain.rpcUrl, { retryCount: 0 }) }).extend(publicActions);
    const facilitator = new x402Facilitator();
    registerExactEvmScheme(facilitator, { signer: toFacilitatorEvmSigner({ ...wallet, address: operator.address } as never), networks: "eip155:8453" });
    remote = await serveFacilitator(facilitator);
    fx = await startFixture({ env: { PAY_TO_ADDRESS: chain.accounts[2]!.address, FACILITATOR_URL: remote.url, CACHE_DISABLED: "1" } });
  }, 180_000);
  afterAll(async () => {
    await fx?.close();
    await remote?.stop();
    await chain?.stop();
  });

  it("settles through the remote facilitator; balances move by exactly the price", async () => {
    const payer = chain.accounts[1]!;
    const payTo = chain.accounts[2]!;
    const before = [await chain.usdcBalance(payer.address), await chain.usdcBalance(payTo.address)];
    const res = await v2Fetch(payer, chain.rpcUrl)(`${fx.svc.url}/v1/fng`);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(remote.calls).toEqual(expect.arrayContaining(["POST /verify", "POST /settle"]));
    const after = [await chain.usdcBalance(payer.address), await chain.usdcBalance(payTo.address)];
    expect(before[0]! - after[0]!).toBe(10_000n);
    expect(after[1]! - before[1]!).toBe(10_000n);
  });

  it("refuses what the remote facilitator refuses, and nothing settles", async () => {
    const payer = chain.accounts[1]!;
    const req = requirementFrom(await fx.get("/v1/fng")).accepts[0]!;
    const forged = await signAuthorization(chain.accounts[3]!, { to: req.payTo as `0x${string}`, value: 10_000n });
    const settles = remote.calls.filter((c) => c === "POST /settle").length;
    const before = await chain.usdcBalance(payer.address);
    const res = await fx.json("/v1/fng", { headers: { "PAYMENT-SIGNATURE": v2Header(req, { ...forged, authorization: { ...forged.authorization, from: payer.address } }) } });
    expect(res.status).toBe(402);
    expect(res.body.code).toBe("payment_invalid");
    expect(remote.calls.filter((c) => c === "POST /settle").length).toBe(settles);
    expect(await chain.usdcBalance(payer.address)).toBe(before);
  });
});
