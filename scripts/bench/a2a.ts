/**
 * A2A figures (issue: A2A with x402): A2A 1.0 `SendMessage` over HTTP+JSON (`POST
 * /a2a/v1/message:send` with `A2A-Version: 1.0`, the card's preferred binding) for the fng skill with a free-tier key in message metadata, against
 * the same product over plain HTTP (GET /v1/fng with X-Api-Key): same service, same
 * concurrency, same load generator, same run, alternating windows (./versus.ts). Both
 * pass the gate (key lookup, quota decrement, receipt) and hit the product's response
 * cache, so the ratio isolates what A2A adds: the SDK's request handler and task life
 * cycle (task store: one row written to the database per message, event bus, result
 * manager) and its proto-JSON codec.
 *
 * Run twice when PostgreSQL is reachable: on the embedded database (the figures
 * `a2a_*`, `http_same_product_*`) and on PostgreSQL (`a2a_postgres_*`,
 * `postgres_http_same_product_*`), the deployment whose instances share their tasks.
 */
import { randomBytes } from "node:crypto";
import { hasPostgres, POSTGRES_URL } from "../../tests/helpers/services";
import type { Target } from "./load";
import { versusHttp, type Versus } from "./versus";

const SKILL = "fng";

/** Throws unless one message:send completed with the artifact (proto JSON, as the SDK's REST client reads it). */
async function sendOnce(t: Target, when: string): Promise<void> {
  const res = await fetch(t.url, { method: "POST", headers: t.headers, body: t.body });
  const body = (await res.json()) as { task?: { status?: { state?: string }; artifacts?: unknown[] } };
  if (body.task?.status?.state !== "TASK_STATE_COMPLETED" || body.task.artifacts?.length !== 1) {
    throw new Error(`message:send ${SKILL} did not complete ${when} (${res.status}): ${JSON.stringify(body).slice(0, 300)}`);
  }
}

const A2A: Omit<Versus, "prefix" | "target"> = {
  path: "/v1/fng",
  build: (url, key) => ({
    url: `${url}/a2a/v1/message:send`,
    method: "POST",
    headers: { "Content-Type": "application/a2a+json", "A2A-Version": "1.0" },
    body: JSON.stringify({ message: { messageId: "bench", role: "ROLE_USER", parts: [{ data: {} }], metadata: { skill: SKILL, api_key: key } } }),
  }),
  check: sendOnce,
};

export async function a2aBench(): Promise<void> {
  await versusHttp({ ...A2A, prefix: "a2a", target: "a2a_message_send" });
  // The same on PostgreSQL, where the task store is the one every instance shares: the
  // task's write runs in PostgreSQL's own process instead of the server's thread.
  if (await hasPostgres()) {
    await versusHttp({
      ...A2A,
      prefix: "a2a_postgres",
      target: "a2a_postgres_message_send",
      baseline: "postgres_http_same_product",
      env: { DATABASE_URL: `${POSTGRES_URL}?schema=bench_a2a_${randomBytes(4).toString("hex")}` },
    });
  }
}
