/**
 * A2A behind two instances on one PostgreSQL schema (the documented deployment: replicas
 * behind a load balancer, or serverless): a task lives in the shared database, so the
 * official @a2a-js/sdk client talking to instance A for one message and to instance B for
 * the next continues the same task. input-required on A, the x402 payment on B →
 * completed with the artifact and the settlement receipt, charged once (the same payment
 * sent again on A answers the kept answer and moves nothing); a task created on A is
 * read and canceled on B; the stored rows hold no credential. Each runs with the official
 * 0.3 client (@a2a-js/sdk 0.3.14, served through the SDK's 0.3 compatibility layer) and
 * the official 1.x client (@a2a-js/sdk 1.3, its own 0.3 compatibility off: A2A 1.0), over
 * both bindings.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Message, MessageSendParams, Task } from "@a2a-js/sdk-v03";
import { Client, ClientFactory, ClientFactoryOptions, ServiceParameters, withA2AExtensions } from "@a2a-js/sdk-v03/client";
import { Role as RoleV1, TaskState as TaskStateV1 } from "@a2a-js/sdk";
import * as v1 from "@a2a-js/sdk/client";
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

/** A task as both client families see it, in the 0.3 spelling: state "input-required", the status message's metadata, the first artifact's data. */
interface Seen {
  id: string;
  state: string;
  meta: J;
  data: J | undefined;
}

/** The calls the test makes, over one official client (0.3 or 1.x) bound to one instance and binding. */
interface Agent {
  send(opts: { skill?: string; metadata?: J; taskId?: string }): Promise<Seen>;
  get(id: string): Promise<Seen>;
  cancel(id: string): Promise<Seen>;
}

function v03(client: Client): Agent {
  const seen = (t: Task): Seen => ({
    id: t.id,
    state: t.status.state,
    meta: (t.status.message?.metadata ?? {}) as J,
    data: (t.artifacts?.[0]?.parts[0] as { data?: J } | undefined)?.data,
  });
  return {
    async send(opts) {
      const m: Message = {
        kind: "message",
        role: "user",
        messageId: randomUUID(),
        parts: [{ kind: "text", text: "please" }],
        metadata: { ...(opts.skill ? { skill: opts.skill } : {}), ...opts.metadata },
        ...(opts.taskId ? { taskId: opts.taskId } : {}),
      };
      const r = await client.sendMessage({ message: m } as MessageSendParams, x402Options);
      if (r.kind !== "task") throw new Error(`expected a task, got ${JSON.stringify(r)}`);
      return seen(r);
    },
    get: async (id) => seen(await client.getTask({ id, historyLength: 10 })),
    cancel: async (id) => seen(await client.cancelTask({ id })),
  };
}

function v10(client: v1.Client): Agent {
  const seen = (t: J): Seen => ({
    id: t.id,
    state: (TaskStateV1[t.status.state as number] ?? String(t.status.state)).replace(/^TASK_STATE_/, "").toLowerCase().replace(/_/g, "-"),
    meta: (t.status.message?.metadata ?? {}) as J,
    data: t.artifacts?.[0]?.parts[0]?.content?.$case === "data" ? (t.artifacts[0].parts[0].content.value as J) : undefined,
  });
  const options = { serviceParameters: v1.ServiceParameters.create(v1.withA2AExtensions(X402)) };
  return {
    async send(opts) {
      const message = {
        messageId: randomUUID(),
        contextId: "",
        taskId: opts.taskId ?? "",
        role: RoleV1.ROLE_USER,
        parts: [{ content: { $case: "text" as const, value: "please" }, metadata: undefined, filename: "", mediaType: "" }],
        metadata: { ...(opts.skill ? { skill: opts.skill } : {}), ...opts.metadata },
        extensions: [],
        referenceTaskIds: [],
      };
      const r = (await client.sendMessage({ tenant: "", message, configuration: undefined, metadata: undefined } as never, options)) as J;
      if (!r.status) throw new Error(`expected a task, got ${JSON.stringify(r)}`);
      return seen(r);
    },
    get: async (id) => seen((await client.getTask({ tenant: "", id, historyLength: 10 } as never)) as J),
    cancel: async (id) => seen((await client.cancelTask({ tenant: "", id, metadata: undefined } as never)) as J),
  };
}

describe.skipIf(!up)("A2A across two instances on one PostgreSQL", () => {
  let sim: Simulator;
  let chain: Chain;
  let a: Service;
  let b: Service;
  let db: ServiceDb;
  let signer: x402Client;
  /** Per client family ("0.3", "1.x"): one agent per instance and binding. */
  const agents: Record<string, Record<"restA" | "restB" | "rpcA" | "rpcB", Agent>> = {};
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
      FREE_KEY_MINTS_PER_HOUR: "100",
    };
    [a, b] = await Promise.all([startService({ env, timeoutMs: 240_000 }), startService({ env, timeoutMs: 240_000 })]);
    const rpcFirst = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: ["JSONRPC"] });
    agents["0.3"] = {
      restA: v03(await new ClientFactory().createFromUrl(a.url)),
      restB: v03(await new ClientFactory().createFromUrl(b.url)),
      rpcA: v03(await new ClientFactory(rpcFirst).createFromUrl(a.url)),
      rpcB: v03(await new ClientFactory(rpcFirst).createFromUrl(b.url)),
    };
    // The 1.x client with its v0.3 compatibility off: it can only speak A2A 1.0, so every case below is served 1.0.
    const v1Options = (preferred: "JSONRPC" | "HTTP+JSON") =>
      v1.ClientFactoryOptions.createFrom(v1.ClientFactoryOptions.default, {
        transports: [new v1.JsonRpcTransportFactory(), new v1.RestTransportFactory()],
        cardResolver: new v1.DefaultAgentCardResolver(),
        preferredTransports: [preferred],
      });
    const rpcFirstV1 = v1Options("JSONRPC");
    const restFirstV1 = v1Options("HTTP+JSON");
    agents["1.x"] = {
      restA: v10(await new v1.ClientFactory(restFirstV1).createFromUrl(a.url)),
      restB: v10(await new v1.ClientFactory(restFirstV1).createFromUrl(b.url)),
      rpcA: v10(await new v1.ClientFactory(rpcFirstV1).createFromUrl(a.url)),
      rpcB: v10(await new v1.ClientFactory(rpcFirstV1).createFromUrl(b.url)),
    };
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

  for (const family of ["0.3", "1.x"]) {
    for (const [created, paid] of [
      ["restA", "restB"],
      ["rpcA", "restB"],
      ["restA", "rpcB"],
    ] as const) {
      it(`${family} client: input-required on A (${created}), the x402 payment on B (${paid}) → completed with the artifact and the receipt, charged once`, async () => {
        const c = agents[family]!;
        const payer = chain.accounts[1]!.address;
        const first = await c[created].send({ skill: "fng" });
        expect(first.state).toBe("input-required");
        const required = first.meta["x402.payment.required"];
        expect(required.accepts[0]).toMatchObject({ amount: PRICE_FNG.toString() });
        const before = await chain.usdcBalance(payer);
        const payload = await signer.createPaymentPayload(required);
        const done = await c[paid].send({ taskId: first.id, metadata: { "x402.payment.status": "payment-submitted", "x402.payment.payload": payload } });
        expect(done.id).toBe(first.id);
        expect(done.state, JSON.stringify(done.meta)).toBe("completed");
        expect(FNG.output.safeParse(done.data).success).toBe(true);
        expect(done.meta["x402.payment.status"]).toBe("payment-completed");
        const receipts = done.meta["x402.payment.receipts"] as J[];
        expect(receipts).toHaveLength(1);
        expect(receipts[0]).toMatchObject({ success: true, network: "eip155:8453" });
        expect((await chain.publicClient.getTransactionReceipt({ hash: receipts[0]!.transaction })).status).toBe("success");
        expect(before - (await chain.usdcBalance(payer))).toBe(PRICE_FNG);
        // A reads the task B finished: same artifact, same receipts.
        const onA = await c[created].get(first.id);
        expect(onA.state).toBe("completed");
        expect(onA.data).toEqual(done.data);
        expect(onA.meta["x402.payment.receipts"]).toEqual(receipts);
        // The same payment on a new task on A: the kept answer, nothing more charged.
        const again = await c.restA.send({ skill: "fng", metadata: { "x402.payment.payload": payload } });
        expect(again.state, JSON.stringify(again.meta)).toBe("completed");
        expect(again.data).toEqual(done.data);
        expect(before - (await chain.usdcBalance(payer))).toBe(PRICE_FNG);
        // The stored task holds no signed payment.
        const [row] = await db.query<{ task: unknown; state: string }>("SELECT task, state FROM a2a_tasks WHERE id = $1", [first.id]);
        expect(row!.state).toBe("completed");
        expect(JSON.stringify(row!.task)).not.toContain(payload.payload.signature as string);
      });
    }

    it(`${family} client: a task created on A is canceled on B (HTTP+JSON and JSON-RPC); A then sees it canceled and takes no payment for it`, async () => {
      const c = agents[family]!;
      for (const [created, cancels] of [
        ["restA", "restB"],
        ["rpcA", "rpcB"],
      ] as const) {
        const first = await c[created].send({ skill: "fng" });
        expect(first.state).toBe("input-required");
        expect((await c[cancels].get(first.id)).state).toBe("input-required");
        const canceled = await c[cancels].cancel(first.id);
        expect(canceled.state).toBe("canceled");
        expect((await c[created].get(first.id)).state).toBe("canceled");
        const payer = chain.accounts[1]!.address;
        const before = await chain.usdcBalance(payer);
        const payload = await signer.createPaymentPayload(first.meta["x402.payment.required"]);
        await expect(c[created].send({ taskId: first.id, metadata: { "x402.payment.payload": payload } })).rejects.toThrow(/terminal|canceled/i);
        expect(await chain.usdcBalance(payer)).toBe(before);
        // A finished task is not cancelable anywhere.
        await expect(c[created].cancel(first.id)).rejects.toThrow(/cancel/i);
      }
    });

    it(`${family} client: a free key minted on B pays a task created on A; the key is not kept in the shared table`, async () => {
      const c = agents[family]!;
      const key = (await (await fetch(`${b.url}/v1/free-key`)).json()).api_key as string;
      const first = await c.rpcA.send({ skill: "fng" });
      const done = await c.rpcB.send({ taskId: first.id, metadata: { api_key: key } });
      expect(done.state, JSON.stringify(done.meta)).toBe("completed");
      expect(done.meta["echo.access"]).toMatchObject({ credential: "api_key" });
      const rows = await db.query<{ task: unknown }>("SELECT task FROM a2a_tasks");
      expect(rows.length).toBeGreaterThan(0);
      expect(JSON.stringify(rows)).not.toContain(key);
    });
  }
});
