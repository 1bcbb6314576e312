/**
 * A2A behind two instances on one PostgreSQL schema (the documented deployment: replicas
 * behind a load balancer, or serverless): a task lives in the shared database, so the
 * official @a2a-js/sdk client talking to instance A for one message and to instance B for
 * the next continues the same task. input-required on A, the x402 payment on B →
 * completed with the artifact and the settlement receipt, charged once (the same payment
 * sent again on A answers the kept answer and moves nothing); a task created on A is
 * read and canceled on B; the stored rows hold no credential.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message, MessageSendParams, Task } from "@a2a-js/sdk";
import { Client, ClientFactory, ClientFactoryOptions, ServiceParameters, withA2AExtensions } from "@a2a-js/sdk/client";
import { x402Client } from "@x402/core/client";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { toClientEvmSigner } from "@x402/evm";
import { createWalletClient, http, publicActions } from "viem";
import { productById } from "@/lib/catalog/lookup";
import { usdToAtomic } from "@/lib/payments/price";
import { startSimulator, type Simulator } from "@/lib/upstream-sim/server";
import { startService, type Service } from "../helpers/service";
import { localBase, startChain, type Chain } from "../helpers/chain";
import { hasPostgres, hasRedis, POSTGRES_URL, REDIS_URL } from "../helpers/services";
import { openServiceDb, type ServiceDb } from "../helpers/service-db";

const up = (await hasPostgres()) && (await hasRedis());
if (!up && process.env.REQUIRE_SERVICES === "1") throw new Error("PostgreSQL and Redis are required (REQUIRE_SERVICES=1) but not reachable");

type J = Record<string, any>;
const X402 = "https://github.com/google-agentic-commerce/a2a-x402/blob/main/spec/v0.2";
const FNG = productById("fng");
const PRICE_FNG = usdToAtomic(FNG.httpPrice);
const x402Options = { serviceParameters: ServiceParameters.create(withA2AExtensions(X402)) };

function message(opts: { skill?: string; metadata?: J; taskId?: string }): MessageSendParams {
  const m: Message = {
    kind: "message",
    role: "user",
    messageId: randomUUID(),
    parts: [{ kind: "text", text: "please" }],
    metadata: { ...(opts.skill ? { skill: opts.skill } : {}), ...opts.metadata },
    ...(opts.taskId ? { taskId: opts.taskId } : {}),
  };
  return { message: m };
}

async function send(client: Client, params: MessageSendParams): Promise<Task> {
  const r = await client.sendMessage(params, x402Options);
  if (r.kind !== "task") throw new Error(`expected a task, got ${JSON.stringify(r)}`);
  return r;
}

const meta = (t: Task): J => (t.status.message?.metadata ?? {}) as J;
const artifactData = (t: Task): J => (t.artifacts?.[0]?.parts[0] as { kind: "data"; data: J }).data;

describe.skipIf(!up)("A2A across two instances on one PostgreSQL", () => {
  let sim: Simulator;
  let chain: Chain;
  let a: Service;
  let b: Service;
  let db: ServiceDb;
  let signer: x402Client;
  /** The official 0.3 client, one per instance and binding. */
  const clients: Record<"restA" | "restB" | "rpcA" | "rpcB", Client> = {} as never;
  const databaseUrl = `${POSTGRES_URL}?schema=a2a_scale_${randomBytes(5).toString("hex")}`;

  beforeAll(async () => {
    sim = await startSimulator();
    chain = await startChain();
    const payer = chain.accounts[1]!;
    await chain.mintUsdc(payer.address, 10_000_000n);
    const env = {
      ...sim.env,
      DATABASE_URL: databaseUrl,
      REDIS_URL,
      REDIS_KEY_PREFIX: `test-${randomBytes(6).toString("hex")}`,
      PAY_TO_ADDRESS: chain.accounts[2]!.address,
      FACILITATOR_PRIVATE_KEY: chain.privateKey(0),
      SETTLEMENT_RPC_URL: chain.rpcUrl,
      CACHE_DISABLED: "1",
    };
    [a, b] = await Promise.all([startService({ env, timeoutMs: 240_000 }), startService({ env, timeoutMs: 240_000 })]);
    const rpcFirst = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ["JSONRPC"] });
    clients.restA = await new ClientFactory().createFromUrl(a.url);
    clients.restB = await new ClientFactory().createFromUrl(b.url);
    clients.rpcA = await new ClientFactory(rpcFirst).createFromUrl(a.url);
    clients.rpcB = await new ClientFactory(rpcFirst).createFromUrl(b.url);
    const wallet = createWalletClient({ account: payer, chain: localBase(chain.rpcUrl), transport: http(chain.rpcUrl, { retryCount: 0 }) }).extend(publicActions);
    signer = new x402Client();
    registerExactEvmScheme(signer, { signer: toClientEvmSigner(payer, wallet as never) });
    db = await openServiceDb({ DATABASE_URL: databaseUrl });
  }, 300_000);
  afterAll(async () => {
    await db?.close();
    await a?.stop();
    await b?.stop();
    await chain?.stop();
    await sim?.close();
  });

  for (const [created, paid] of [
    ["restA", "restB"],
    ["rpcA", "restB"],
    ["restA", "rpcB"],
  ] as const) {
    it(`input-required on A (${created}), the x402 payment on B (${paid}) → completed with the artifact and the receipt, charged once`, async () => {
      const payer = chain.accounts[1]!.address;
      const first = await send(clients[created], message({ skill: "fng" }));
      expect(first.status.state).toBe("input-required");
      const required = meta(first)["x402.payment.required"];
      expect(required.accepts[0]).toMatchObject({ amount: PRICE_FNG.toString() });
      const before = await chain.usdcBalance(payer);
      const payload = await signer.createPaymentPayload(required);
      const done = await send(clients[paid], message({ taskId: first.id, metadata: { "x402.payment.status": "payment-submitted", "x402.payment.payload": payload } }));
      expect(done.id).toBe(first.id);
      expect(done.status.state, JSON.stringify(done.status)).toBe("completed");
      expect(FNG.output.safeParse(artifactData(done)).success).toBe(true);
      expect(meta(done)["x402.payment.status"]).toBe("payment-completed");
      const receipts = meta(done)["x402.payment.receipts"] as J[];
      expect(receipts).toHaveLength(1);
      expect(receipts[0]).toMatchObject({ success: true, network: "eip155:8453" });
      expect((await chain.publicClient.getTransactionReceipt({ hash: receipts[0]!.transaction })).status).toBe("success");
      expect(before - (await chain.usdcBalance(payer))).toBe(PRICE_FNG);
      // A reads the task B finished: same artifact, same receipts.
      const onA = await clients[created].getTask({ id: first.id, historyLength: 10 });
      expect(onA.status.state).toBe("completed");
      expect(artifactData(onA)).toEqual(artifactData(done));
      expect(meta(onA)["x402.payment.receipts"]).toEqual(receipts);
      // The same payment on a new task on A: the kept answer, nothing more charged.
      const again = await send(clients.restA, message({ skill: "fng", metadata: { "x402.payment.payload": payload } }));
      expect(again.status.state, JSON.stringify(again.status)).toBe("completed");
      expect(artifactData(again)).toEqual(artifactData(done));
      expect(before - (await chain.usdcBalance(payer))).toBe(PRICE_FNG);
      // The stored task holds no signed payment.
      const [row] = await db.query<{ task: unknown; state: string }>("SELECT task, state FROM a2a_tasks WHERE id = $1", [first.id]);
      expect(row!.state).toBe("completed");
      expect(JSON.stringify(row!.task)).not.toContain(payload.payload.signature as string);
    });
  }

  it("a task created on A is canceled on B (HTTP+JSON without a body, and JSON-RPC); A then sees it canceled and takes no payment for it", async () => {
    for (const [created, cancels] of [
      ["restA", "restB"],
      ["rpcA", "rpcB"],
    ] as const) {
      const first = await send(clients[created], message({ skill: "fng" }));
      expect(first.status.state).toBe("input-required");
      expect((await clients[cancels].getTask({ id: first.id })).status.state).toBe("input-required");
      const canceled = await clients[cancels].cancelTask({ id: first.id });
      expect(canceled.status.state).toBe("canceled");
      expect((await clients[created].getTask({ id: first.id })).status.state).toBe("canceled");
      const payer = chain.accounts[1]!.address;
      const before = await chain.usdcBalance(payer);
      const payload = await signer.createPaymentPayload(meta(first)["x402.payment.required"]);
      await expect(clients[created].sendMessage(message({ taskId: first.id, metadata: { "x402.payment.payload": payload } }), x402Options)).rejects.toThrow(/terminal|canceled/i);
      expect(await chain.usdcBalance(payer)).toBe(before);
      // A finished task is not cancelable anywhere.
      await expect(clients[created].cancelTask({ id: first.id })).rejects.toThrow(/cancel/i);
    }
  });

  it("a free key minted on B pays a task created on A; the key is not kept in the shared table", async () => {
    const key = (await (await fetch(`${b.url}/v1/free-key`)).json()).api_key as string;
    const first = await send(clients.rpcA, message({ skill: "fng" }));
    const done = await send(clients.rpcB, message({ taskId: first.id, metadata: { api_key: key } }));
    expect(done.status.state, JSON.stringify(done.status)).toBe("completed");
    expect(meta(done)["echo.access"]).toMatchObject({ credential: "api_key" });
    const rows = await db.query<{ task: unknown }>("SELECT task FROM a2a_tasks");
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(key);
  });
});
