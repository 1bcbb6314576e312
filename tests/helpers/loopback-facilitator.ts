/**
 * A real x402 facilitator on loopback, as a hosted one is reached: the official
 * `x402Facilitator` with the EVM exact scheme, settling on the test chain with its own
 * key, behind the facilitator HTTP protocol (`POST /verify`, `POST /settle`,
 * `GET /supported`) that `HTTPFacilitatorClient` speaks, and refusing requests without
 * the expected `Authorization` header (401, as hosted facilitators do).
 *
 * `pendingAnswers`: how many of the next settlements answer `settlement_pending` with the
 * broadcast transaction (x402 2.24+) before the final answer; a settle asked again for a
 * payment it already broadcast answers from that transaction, never sending a second one.
 * `beforeSettle` runs when a settle request arrives, before the facilitator handles it
 * (a test takes the facilitator's own RPC node down there).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createWalletClient, http as viemHttp, publicActions, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { x402Facilitator } from "@x402/core/facilitator";
import { registerExactEvmScheme } from "@x402/evm/exact/facilitator";
import { toFacilitatorEvmSigner } from "@x402/evm";
import { localBase } from "./chain";

export async function loopbackFacilitator(opts: {
  rpcUrl: string;
  privateKey: Hex;
  /** The bearer secret every request must carry, unless `check` decides instead. */
  secret?: string;
  /** Checks a request's credentials: null to accept, else why it is refused (401). */
  check?: (headers: http.IncomingHttpHeaders, method: string, path: string) => string | null;
  network?: string;
}) {
  const account = privateKeyToAccount(opts.privateKey);
  const wallet = createWalletClient({ account, chain: localBase(opts.rpcUrl), transport: viemHttp(opts.rpcUrl, { retryCount: 0 }) }).extend(publicActions);
  const facilitator = new x402Facilitator();
  registerExactEvmScheme(facilitator, { signer: toFacilitatorEvmSigner({ ...wallet, address: account.address } as never), networks: (opts.network ?? "eip155:8453") as `${string}:${string}` });
  const state = { pendingAnswers: 0, lastRefusal: "", calls: { verify: 0, settle: 0, supported: 0, refused: 0 }, beforeSettle: null as null | (() => void), lastPayload: null as null | Record<string, unknown> };
  /** Settlements already broadcast, by the payment's signature: a retry reconciles against them. */
  const broadcast = new Map<string, unknown>();

  const server = http.createServer(async (req, res) => {
    const send = (status: number, body: unknown) => res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    const refusal = opts.check ? opts.check(req.headers, req.method ?? "GET", req.url ?? "/") : req.headers.authorization === `Bearer ${opts.secret}` ? null : "missing or invalid API credentials";
    if (refusal) {
      state.calls.refused++;
      state.lastRefusal = refusal;
      return send(401, { error: "unauthorized", message: refusal });
    }
    try {
      if (req.method === "GET" && req.url === "/supported") {
        state.calls.supported++;
        return send(200, facilitator.getSupported());
      }
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const { paymentPayload, paymentRequirements } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      state.lastPayload = paymentPayload;
      if (req.method === "POST" && req.url === "/verify") {
        state.calls.verify++;
        return send(200, await facilitator.verify(paymentPayload, paymentRequirements));
      }
      if (req.method === "POST" && req.url === "/settle") {
        state.calls.settle++;
        state.beforeSettle?.();
        const key = String(paymentPayload?.payload?.signature);
        let answer = broadcast.get(key) as { success: boolean; transaction: string; network: string } | undefined;
        if (!answer) {
          answer = (await facilitator.settle(paymentPayload, paymentRequirements)) as unknown as typeof answer;
          // Only a broadcast transaction is reconciled against; a refusal is decided afresh.
          if (answer!.transaction) broadcast.set(key, answer);
        }
        if (answer!.success && state.pendingAnswers > 0) {
          state.pendingAnswers--;
          return send(200, { success: false, errorReason: "settlement_pending", transaction: answer!.transaction, network: answer!.network });
        }
        return send(200, answer);
      }
      send(404, { error: "not found" });
    } catch (err) {
      send(500, { error: (err as Error).message });
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    state,
    close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))),
  };
}
