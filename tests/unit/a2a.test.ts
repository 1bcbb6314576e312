/** The A2A pieces that need no server: message checks, credential reading, task redaction, x402 error codes. */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Role, Task, TaskState, type Message, type Part } from "@a2a-js/sdk";
import { checkMessage, credentialOf, dataOf } from "@/lib/a2a/message";
import { boundedTask, DatabaseTaskStore, encodedTask, redactTask } from "@/lib/a2a/task-store";
import { resetEnvForTests } from "@/lib/config/env";
import { closeDb, getDbHandle } from "@/lib/db/client";
import { paymentErrorCode } from "@/lib/a2a/x402";
import { a2aSkills } from "@/lib/a2a/skills";
import { PRODUCTS } from "@/lib/catalog";
import { hasPostgres, POSTGRES_URL } from "../helpers/services";

const msg = (over: Partial<Message> = {}): Message => ({ role: Role.ROLE_USER, messageId: "m", contextId: "", taskId: "", parts: [], metadata: { skill: "fng" }, extensions: [], referenceTaskIds: [], ...over });
const data = (value: unknown): Part => ({ content: { $case: "data", value }, metadata: undefined, filename: "", mediaType: "" });
const text = (value: string): Part => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "" });
/** checkMessage on a SendMessageRequest holding `message` (decoded by the SDK's codec, as the bindings hand it over). */
const send = (message: unknown) => checkMessage({ message, tenant: "", configuration: undefined, metadata: undefined } as never);
const STATE = { submitted: TaskState.TASK_STATE_SUBMITTED, completed: TaskState.TASK_STATE_COMPLETED, canceled: TaskState.TASK_STATE_CANCELED, "input-required": TaskState.TASK_STATE_INPUT_REQUIRED } as const;
const st = (state: keyof typeof STATE) => ({ state: STATE[state], message: undefined, timestamp: undefined });

describe("A2A messages", () => {
  it("accepts a skill with one data part, refuses unknown skills, several data parts and non-object data", () => {
    expect(() => send(msg({ parts: [data({ hours: 5 })] }))).not.toThrow();
    expect(() => send(msg({ metadata: { skill: "nope" } }))).toThrow(/Unknown skill "nope"/);
    expect(() => send(msg({ metadata: {} }))).toThrow(/Name the skill/);
    expect(() => send(msg({ metadata: {}, taskId: "t" }))).not.toThrow();
    expect(() => send(msg({ parts: [data({}), data({})] }))).toThrow(/one data part/);
    expect(() => send(msg({ parts: [data("x" as never)] }))).toThrow(/JSON object/);
    expect(() => send(msg({ parts: [{ content: { $case: "video", value: "" } } as never] }))).toThrow(/text, data or file/);
    expect(() => send(null)).toThrow(/Message object/);
    expect(() => send(msg({ metadata: { skill: "fng", api_key: 5 } }))).toThrow(/api_key/);
  });

  it("reads the credential in the gate's order (payment, bundle, key) and the payload object as base64", () => {
    const payload = { x402Version: 2, payload: { signature: "0x1" } };
    const c = credentialOf(msg({ metadata: { "x402.payment.payload": payload, bundle_token: "echo_bt_x", api_key: "echo_fk_y" } }));
    expect(c).toEqual({ kind: "x402", payload: Buffer.from(JSON.stringify(payload)).toString("base64"), version: 2 });
    expect(credentialOf(msg({ metadata: { bundle_token: "echo_bt_x", api_key: "echo_fk_y" } }))).toEqual({ kind: "bundle", token: "echo_bt_x" });
    expect(credentialOf(msg({ metadata: { api_key: " echo_fk_y " } }))).toEqual({ kind: "api_key", key: "echo_fk_y" });
    expect(credentialOf(msg())).toEqual({ kind: "none" });
    expect(dataOf(msg({ parts: [text("hi"), data({ limit: 3 })] }))).toEqual({ limit: 3 });
  });

  it("has one skill per catalog product plus the two free tools", () => {
    const ids = a2aSkills().map((s) => s.id);
    expect(ids).toEqual(["get_xlm_sentiment", "get_free_api_key", ...PRODUCTS.map((p) => p.id)]);
  });
});

describe("A2A task store (the instance's database; here embedded PGlite in memory)", () => {
  const task = (over: Partial<Task> = {}): Task => ({
    id: "t1",
    contextId: "c",
    status: st("input-required"),
    history: [msg({ metadata: { skill: "fng", api_key: "echo_fk_secret", "x402.payment.payload": { s: 1 } } })],
    artifacts: [],
    metadata: undefined,
    ...over,
  });
  /** A request's buffer, as the bindings' Caller carries it. */
  const request = () => ({ user: { pendingTasks: new Map<string, Task>(), readTasks: new Map<string, Task>(), newTasks: new Set<string>() } }) as never;
  beforeAll(() => {
    process.env.DATA_DIR = "memory";
    delete process.env.DATABASE_URL;
    resetEnvForTests();
  });
  afterAll(async () => {
    await closeDb();
    resetEnvForTests();
  });

  it("never keeps or returns the credentials a message carried", async () => {
    expect(JSON.stringify(redactTask(task()))).not.toContain("echo_fk_secret");
    const store = new DatabaseTaskStore();
    await store.save(task());
    const loaded = await store.load("t1");
    expect(loaded?.history?.[0]?.metadata).toEqual({ skill: "fng", api_key: "[redacted]", "x402.payment.payload": "[redacted]" });
    const rows = await (await getDbHandle()).query<{ task: unknown }>("SELECT task FROM a2a_tasks WHERE id = 't1'", []);
    expect(JSON.stringify(rows)).not.toContain("echo_fk_secret");
  });

  it("leaves a task already redacted as it is, and its answer reuses the text the store encoded for its row", async () => {
    const store = new DatabaseTaskStore();
    const clean = redactTask(task());
    expect(redactTask(clean)).toBe(clean);
    const { task: kept, json, exact } = boundedTask(clean);
    expect(kept).toBe(clean);
    expect(exact).toBe(true);
    expect(encodedTask(clean)).toBeUndefined();
    await store.saveFinal(clean, request());
    expect(encodedTask(clean)).toBe(json);
    expect(JSON.parse(json)).toEqual(Task.toJSON(clean));
    // A task the store had to change is another object: its given form has no text to reuse.
    const secret = task({ id: "t2" });
    expect(boundedTask(secret).exact).toBe(false);
    await store.saveFinal(secret, request());
    expect(encodedTask(secret)).toBeUndefined();
    // The SDK's tasks (save), which it changes in place afterwards, never get one.
    const sdk = redactTask(task({ id: "t3" }));
    await store.save(sdk);
    expect(encodedTask(sdk)).toBeUndefined();
  });

  it("keeps a request's writes in its buffer until the flush, then writes them once; another request reads the stored task", async () => {
    const store = new DatabaseTaskStore();
    const ctx = request();
    await store.save(task({ id: "b1", status: st("submitted") }), ctx);
    await store.save(task({ id: "b1", status: st("completed") }), ctx);
    expect((await store.load("b1", ctx))?.status?.state).toBe(STATE["completed"]);
    expect(await store.load("b1")).toBeUndefined();
    await store.flush(ctx);
    expect((await store.load("b1", request()))?.status?.state).toBe(STATE["completed"]);
  });

  it("does not read the database for a task the request creates (its id was just generated)", async () => {
    const store = new DatabaseTaskStore();
    await store.save(task({ id: "n0" }));
    const ctx = request() as { user: { newTasks: Set<string> } };
    ctx.user.newTasks.add("n0");
    expect(await store.load("n0", ctx as never)).toBeUndefined();
    await store.save(task({ id: "n0", status: st("completed") }), ctx as never);
    expect((await store.load("n0", ctx as never))?.status?.state).toBe(STATE["completed"]);
  });

  it("never moves a finished task back (a late write from another instance), but a paid completion replaces a cancel", async () => {
    const store = new DatabaseTaskStore();
    await store.save(task({ id: "f1", status: st("completed") }));
    await store.save(task({ id: "f1", status: st("input-required") }));
    expect((await store.load("f1"))?.status?.state).toBe(STATE["completed"]);
    await store.save(task({ id: "f2", status: st("canceled") }));
    await store.save(task({ id: "f2", status: st("completed") }));
    expect((await store.load("f2"))?.status?.state).toBe(STATE["completed"]);
    await store.save(task({ id: "f2", status: st("canceled") }));
    expect((await store.load("f2"))?.status?.state).toBe(STATE["completed"]);
  });

  it("uses the space of swept tasks again: the embedded database is vacuumed (it runs no autovacuum)", async () => {
    const store = new DatabaseTaskStore();
    const h = await getDbHandle();
    const size = async () => Number((await h.query<{ n: string }>("SELECT pg_relation_size('a2a_tasks')::text AS n", []))[0]!.n);
    const fill = (round: number) => Promise.all(Array.from({ length: 300 }, (_, i) => store.save(task({ id: `v${round}-${i}`, history: [msg({ parts: [text("x".repeat(1800))] })] }))));
    await fill(0);
    const filled = await size();
    await h.query("UPDATE a2a_tasks SET expires_at = now() - interval '1 second'", []);
    expect(await store.sweep()).toBeGreaterThanOrEqual(300);
    await h.vacuum!();
    await fill(1);
    // Without the VACUUM the new rows went to new pages: the table doubled.
    expect(await size()).toBeLessThanOrEqual(filled);
  });

  it("forgets expired tasks, bounds the history and the size, and takes text PostgreSQL's jsonb has no character for", async () => {
    const store = new DatabaseTaskStore();
    await store.save(task({ id: "e1" }));
    await (await getDbHandle()).query("UPDATE a2a_tasks SET expires_at = now() - interval '1 second' WHERE id = 'e1'", []);
    expect(await store.load("e1")).toBeUndefined();
    const many = Array.from({ length: 50 }, (_, i) => msg({ messageId: `m${i}` }));
    await store.save(task({ id: "h1", history: many }));
    expect((await store.load("h1"))?.history?.map((m) => m.messageId)).toEqual(many.slice(-20).map((m) => m.messageId));
    const big = { artifactId: "a", name: "", description: "", parts: [data({ pad: "x".repeat(600_000) })], metadata: undefined, extensions: [] };
    const { task: kept, json } = boundedTask(task({ id: "s1", status: st("completed"), artifacts: [big] }));
    expect(Buffer.byteLength(json)).toBeLessThanOrEqual(512 * 1024);
    expect(kept.artifacts?.[0]?.parts[0]).toMatchObject({ content: { $case: "text", value: expect.stringMatching(/delivered in the answer/) } });
    // Beyond the row bound the sweep keeps the tasks written last.
    for (const id of ["r1", "r2", "r3"]) await store.save(task({ id }));
    // Distinct expiry times (three writes can fall in one millisecond): r3 written last.
    for (const [id, s] of [["r1", 1], ["r2", 2], ["r3", 3]] as const) await (await getDbHandle()).query(`UPDATE a2a_tasks SET expires_at = now() + interval '2 hours' + make_interval(secs => $1) WHERE id = $2`, [s, id]);
    const total = async () => (await (await getDbHandle()).query<{ n: number }>("SELECT count(*)::int AS n FROM a2a_tasks", []))[0]!.n;
    const n = await total();
    expect(await store.sweep(2)).toBe(n - 2);
    expect(await total()).toBe(2);
    expect(await store.load("r3")).toBeDefined();
    expect(await store.load("r1")).toBeUndefined();
    await store.save(task({ id: "n1", history: [msg({ parts: [text("a\u0000b \\u0000")] })] }));
    expect((await store.load("n1"))?.history?.[0]?.parts[0]).toEqual(text("a\uFFFDb \\u0000"));
  });
});

/**
 * A burst of task writes: the group commit writes at most 32 tasks a statement, each task's
 * JSON sent as its UTF-8 bytes. Every task must come back whole, whatever its text, on
 * both databases an instance uses.
 */
describe.each(["embedded PGlite", "PostgreSQL"])("A2A task store under a burst (%s)", (name) => {
  const TEXT = "quote \" backslash \\ tab \t newline \n é 漢字 🦊 \u2028 {\"a\":[1]} ";
  let skip = false;
  beforeAll(async () => {
    await closeDb();
    if (name === "PostgreSQL") {
      skip = !(await hasPostgres());
      process.env.DATABASE_URL = `${POSTGRES_URL}?schema=a2a_burst_${randomBytes(4).toString("hex")}`;
    } else {
      process.env.DATA_DIR = "memory";
      delete process.env.DATABASE_URL;
    }
    resetEnvForTests();
  });
  afterAll(async () => {
    await closeDb();
    delete process.env.DATABASE_URL;
    resetEnvForTests();
  });

  it("writes 70 tasks saved at once (three statements), each whole, and their later writes", async (ctx) => {
    ctx.skip(skip, "PostgreSQL is not reachable on 127.0.0.1:5432");
    const store = new DatabaseTaskStore();
    const tasks: Task[] = Array.from({ length: 70 }, (_, i) => ({
      id: `burst-${i}-${randomBytes(3).toString("hex")}`,
      contextId: "c",
      status: st("input-required"),
      history: [msg({ messageId: `m${i}`, parts: [text(`${TEXT}${i}`.repeat(1 + (i % 7)))] })],
      artifacts: [],
      metadata: { skill: "fng", params: { note: TEXT } },
    }));
    await Promise.all(tasks.map((t) => store.save(t)));
    for (const t of tasks) expect(await store.load(t.id)).toEqual(t);
    // A second burst moves each on (the same statements, now updating the rows).
    const done = tasks.map((t) => ({ ...t, status: st("completed") }));
    await Promise.all(done.map((t) => store.save(t)));
    for (const t of done) expect(await store.load(t.id)).toEqual(t);
  });
});

describe("a2a-x402 error codes", () => {
  it("maps the gate's refusals to the extension's codes", () => {
    expect(paymentErrorCode("payment_replayed", "")).toBe("DUPLICATE_NONCE");
    expect(paymentErrorCode("settlement_failed", "")).toBe("SETTLEMENT_FAILED");
    expect(paymentErrorCode("payment_invalid", "the payer's USDC balance is below the price (invalid_exact_evm_insufficient_balance)")).toBe("INSUFFICIENT_FUNDS");
    expect(paymentErrorCode("payment_invalid", "The authorization transfers 9999 base units; this call costs exactly 10000.")).toBe("INVALID_AMOUNT");
    expect(paymentErrorCode("payment_invalid", "Wrong network eip155:1; accepted: eip155:8453.")).toBe("NETWORK_MISMATCH");
    expect(paymentErrorCode("payment_invalid", "The authorization expired.")).toBe("EXPIRED_PAYMENT");
    expect(paymentErrorCode("payment_invalid", "garbage")).toBe("INVALID_PAYMENT");
  });
});
