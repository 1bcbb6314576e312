/**
 * Where A2A tasks live between a payment requirement and the paying message: the
 * database the instance already uses (PostgreSQL when DATABASE_URL is set, embedded PGlite
 * otherwise), table a2a_tasks, so a task created on one instance is continued, paid or
 * canceled on any other. The durable facts of a payment (its row, nonce lock, receipt)
 * are in the payments tables like every other call's; a task is the A2A view of one call.
 *
 * - No secret is stored: the credentials a client sent in message metadata (bundle token,
 *   API key, signed payment) are redacted before a task is kept, so neither tasks/get nor
 *   a later answer ever shows one back.
 * - Expiry: an hour after the task's last write (A2A_TASK_TTL_MS); expired rows are
 *   never read and are swept by each instance every minute, which also deletes the
 *   tasks beyond A2A_TASK_MAX_ROWS (those closest to expiry first).
 * - Bounded size: the last A2A_TASK_MAX_HISTORY messages are kept, and a task whose JSON
 *   is still over A2A_TASK_MAX_BYTES keeps its artifacts as a note (the answer that
 *   created them carried them in full).
 * - A finished task (completed, failed, canceled, rejected) is never overwritten, so a
 *   late write from another instance cannot move it back; the one exception is a paid
 *   call that completed while another instance canceled the waiting task: the call ran
 *   and was charged, so the task says completed.
 * - One write per request, and no read for a new task: the SDK loads a task before it
 *   saves its creation (a new task's id was just generated, so that read is skipped) and
 *   saves it on every event of a message (created, artifact, status), up to four times. Within a request those saves stay in the
 *   request's own buffer (the Caller, one per HTTP request) and reads there see them;
 *   the handler flushes the buffer once the message is answered (lib/a2a/handler.ts).
 *   Flushes from concurrent requests share one INSERT … ON CONFLICT statement (group
 *   commit, lib/db/group-commit.ts).
 */
import { Task, TaskState, type ListTasksRequest, type ListTasksResponse, type Message } from "@a2a-js/sdk";
import { UnsupportedOperationError } from "@a2a-js/sdk/errors";
import type { ServerCallContext, TaskStore } from "@a2a-js/sdk/server";
import { META } from "@/lib/a2a/protocol";
import { getDbHandle } from "@/lib/db/client";
import { groupCommit } from "@/lib/db/group-commit";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";

const SECRET_KEYS = [META.bundleToken, META.apiKey, META.paymentPayload];
const REDACTED = "[redacted]";

/** How long a task is kept after its last write. */
export const A2A_TASK_TTL_MS = 60 * 60 * 1000;
/** Messages of a task's history kept (the newest). */
export const A2A_TASK_MAX_HISTORY = 20;
/**
 * Most tasks kept at once, across every instance: beyond it the sweep deletes those
 * closest to expiry first (a task costs the client nothing to create, so their number
 * needs a bound besides the hour).
 */
export const A2A_TASK_MAX_ROWS = 100_000;
/** Largest task JSON kept whole (the request bodies are at most 64 KiB each). */
export const A2A_TASK_MAX_BYTES = 512 * 1024;
/** The `state` column: the task state's short name (the terminal ones are named in UPSERT's guard). */
const STATE_NAME: Record<number, string> = {
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
};
const TERMINAL = new Set([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

function redact(m: Message): Message {
  const meta = m.metadata;
  if (!meta || !SECRET_KEYS.some((k) => meta[k] !== undefined && meta[k] !== null && meta[k] !== REDACTED)) return m;
  const clean: Record<string, unknown> = { ...meta };
  for (const k of SECRET_KEYS) if (clean[k] !== undefined && clean[k] !== null) clean[k] = REDACTED;
  return { ...m, metadata: clean };
}

/** The task without the credentials its messages carried (the task itself when it carried none). */
export function redactTask(task: Task): Task {
  const message = task.status?.message;
  const clean = message && redact(message);
  let changed = clean !== message;
  const history = task.history.map((m) => {
    const r = redact(m);
    changed ||= r !== m;
    return r;
  });
  if (!changed) return task;
  return { ...task, history, status: clean !== message ? { ...task.status!, message: clean } : task.status };
}

/**
 * The proto JSON text of the tasks saved final (saveFinal: the direct path's, never changed
 * afterwards) whose row holds them exactly as they are (nothing redacted, cut or bounded, no
 * character replaced): the row's write and the answer that carries the same task reuse it
 * instead of encoding it again (lib/a2a/rest.ts). The SDK's tasks, which it changes in
 * place, never get one.
 */
function encodings(): WeakMap<Task, string> {
  // Process-wide: the route bundle answering a message may hold another copy of this module than the handler's store.
  return processState("a2a.tasks.encoded", () => new WeakMap<Task, string>());
}

/** The proto JSON text of `task` if the store encoded this very object (see above). */
export function encodedTask(task: Task): string | undefined {
  return encodings().get(task);
}

/**
 * The task's A2A 1.0 proto JSON (the wire form, stable across SDK versions), as
 * PostgreSQL's jsonb takes it (the column was jsonb before, and an instance not yet
 * updated may still read it so): jsonb has no NUL character, so each `\u0000` escape (one
 * preceded by an even run of backslashes, i.e. not itself escaped text) becomes U+FFFD.
 */
function toJson(task: Task): string {
  return forJsonb(JSON.stringify(Task.toJSON(task)));
}

function forJsonb(json: string): string {
  return json.includes("\\u0000") ? json.replace(/(?<!\\)((?:\\\\)*)\\u0000/g, "$1\\ufffd") : json;
}

/**
 * The task as it is kept: redacted, its history cut to the newest messages, its size
 * bounded. `exact`: `json` is the given task's own proto JSON text (it was kept as it is).
 */
export function boundedTask(task: Task, maxBytes = A2A_TASK_MAX_BYTES): { task: Task; json: string; exact: boolean } {
  let kept = redactTask(task);
  if (kept.history.length > A2A_TASK_MAX_HISTORY) kept = { ...kept, history: kept.history.slice(-A2A_TASK_MAX_HISTORY) };
  const wire = JSON.stringify(Task.toJSON(kept));
  let json = forJsonb(wire);
  if (Buffer.byteLength(json) > maxBytes && kept.artifacts.length) {
    const text = `The artifact was over ${maxBytes} bytes: it was delivered in the answer that completed the task and is not kept.`;
    const note = (a: Task["artifacts"][number]) => ({ ...a, parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "" }] });
    kept = { ...kept, artifacts: kept.artifacts.map(note) };
    json = toJson(kept);
  }
  if (Buffer.byteLength(json) > maxBytes) {
    // Only metadata can still be this large (the parameters of the creating message); keep the status alone.
    kept = { ...kept, history: [], artifacts: kept.artifacts.map((a) => ({ ...a, parts: [] })) };
    json = toJson(kept);
  }
  // Kept as it was given: a redacted, cut or bounded task is another object.
  return { task: kept, json, exact: kept === task && json === wire };
}

/** Where one request keeps the tasks it wrote until its flush (the binding's Caller implements it). */
export interface TaskBuffer {
  readonly pendingTasks: Map<string, Task>;
  readonly readTasks: Map<string, Task>;
  /**
   * Ids of tasks this request creates (ids the SDK just generated): no row can hold them
   * yet, so the SDK's load of a new task before its first save reads nothing instead of
   * the database.
   */
  readonly newTasks: Set<string>;
}

function bufferOf(context: ServerCallContext | undefined): TaskBuffer | undefined {
  const user = context?.user as Partial<TaskBuffer> | undefined;
  return user?.pendingTasks instanceof Map ? (user as TaskBuffer) : undefined;
}

interface Row {
  id: string;
  state: string;
  json: string;
}

/**
 * Most tasks written by one statement (a batch of the group commit): under load about
 * 18 rows go together on this machine.
 */
const TASK_BATCH = 32;

/**
 * One statement for `n` tasks, a VALUES row of three parameters each. The task column is
 * text: it is only ever read whole by its id, so PostgreSQL need not parse it (jsonb
 * would parse every task into its binary form on each write, the largest share of the
 * write's cost on the embedded database; migration 20261127033624_a2a_task_text).
 *
 * The task's JSON is sent as its UTF-8 bytes (a binary parameter, which for text is the
 * text itself): as a text parameter it was measured in JavaScript twice by PGlite's
 * protocol writer, and in a text[] parameter also escaped quote by quote and parsed back
 * by PostgreSQL, which took about half of a 1.7 KB task's write (140 -> 75 µs a row on
 * the embedded database).
 */
function upsertSql(n: number): string {
  const rows = Array.from({ length: n }, (_, i) => `($${3 * i + 2}::text, $${3 * i + 3}::text, $${3 * i + 4}::text)`).join(", ");
  return `INSERT INTO a2a_tasks (id, state, task, expires_at, updated_at)
SELECT r.id, r.state, r.task, now() + make_interval(secs => $1::double precision / 1000), now()
FROM (VALUES ${rows}) AS r(id, state, task)
ON CONFLICT (id) DO UPDATE SET state = EXCLUDED.state, task = EXCLUDED.task, expires_at = EXCLUDED.expires_at, updated_at = now()
WHERE a2a_tasks.state NOT IN ('completed', 'failed', 'canceled', 'rejected')
   OR (a2a_tasks.state = 'canceled' AND EXCLUDED.state = 'completed')`;
}
const UPSERTS: string[] = Array.from({ length: TASK_BATCH + 1 }, (_, n) => (n ? upsertSql(n) : ""));

async function writeRows(rows: Row[]): Promise<void> {
  // One row per task: the last write of a task in the batch wins, as it would one by one.
  const last = new Map<string, Row>();
  for (const r of rows) last.set(r.id, r);
  const kept = [...last.values()];
  const h = await getDbHandle();
  for (let at = 0; at < kept.length; at += TASK_BATCH) {
    const part = kept.slice(at, at + TASK_BATCH);
    const params: unknown[] = [A2A_TASK_TTL_MS];
    for (const r of part) params.push(r.id, r.state, Buffer.from(r.json));
    await h.query(UPSERTS[part.length]!, params, { name: `a2a_task_upsert_v4_${part.length}` });
  }
}

const SWEEP_EVERY_MS = 60_000;

/** A TaskStore over the a2a_tasks table. */
export class DatabaseTaskStore implements TaskStore {
  private readonly write = groupCommit<Row, void>(async (rows) => {
    await writeRows(rows);
    return rows.map(() => undefined);
  }, TASK_BATCH);
  private lastSweep = 0;

  async load(taskId: string, context?: ServerCallContext): Promise<Task | undefined> {
    const buffer = bufferOf(context);
    const held = buffer?.pendingTasks.get(taskId) ?? buffer?.readTasks.get(taskId);
    if (held) return structuredClone(held);
    if (buffer?.newTasks.has(taskId)) return undefined;
    const task = await this.read(taskId);
    if (task && buffer) buffer.readTasks.set(taskId, structuredClone(task));
    return task;
  }

  /** The stored task, or undefined when there is none or it expired. */
  async read(taskId: string): Promise<Task | undefined> {
    const h = await getDbHandle();
    const rows = await h.query<{ task: unknown }>("SELECT task FROM a2a_tasks WHERE id = $1 AND expires_at > now()", [taskId], { name: "a2a_task_load" });
    const t = rows[0]?.task;
    if (t === undefined) return undefined;
    const raw = (typeof t === "string" ? JSON.parse(t) : t) as { status?: { state?: unknown } };
    // A row written by the 0.3-only version of this service (0.3 JSON, "input-required") is not a task this version can continue.
    if (typeof raw.status?.state !== "string" || !raw.status.state.startsWith("TASK_STATE_")) return undefined;
    return Task.fromJSON(raw);
  }

  /**
   * ListTasks (A2A 1.0) is not offered: tasks have no owner here (a task id is the only
   * key to a task, like a receipt id), so a list would show every client's tasks.
   */
  async list(_params: ListTasksRequest, _context?: ServerCallContext): Promise<ListTasksResponse> {
    throw new UnsupportedOperationError("ListTasks is not offered: read a task by its id (GetTask).");
  }

  async save(task: Task, context?: ServerCallContext): Promise<void> {
    const buffer = bufferOf(context);
    if (buffer) {
      buffer.pendingTasks.set(task.id, structuredClone(redactTask(task)));
      return;
    }
    await this.put(task);
  }

  /**
   * Like save, for a redacted task its caller never changes afterwards (the direct path's,
   * lib/a2a/direct.ts): buffered as it is. The SDK changes the tasks it saves in place,
   * hence save's copy.
   */
  async saveFinal(task: Task, context: ServerCallContext): Promise<void> {
    const { json, exact } = boundedTask(task);
    if (exact) encodings().set(task, json);
    const buffer = bufferOf(context);
    if (buffer) buffer.pendingTasks.set(task.id, task);
    else await this.put(task);
  }

  /** Writes what the request of `context` holds (one statement for all of it, shared with concurrent flushes) and empties it. */
  async flush(context: ServerCallContext | undefined): Promise<void> {
    const buffer = bufferOf(context);
    if (!buffer) return;
    const tasks = [...buffer.pendingTasks.values()];
    buffer.pendingTasks.clear();
    await Promise.all(tasks.map((t) => this.put(t)));
  }

  private async put(task: Task): Promise<void> {
    const json = encodedTask(task) ?? boundedTask(task).json;
    await this.write({ id: task.id, state: stateName(task.status?.state), json });
    this.maybeSweep();
  }

  /** Deletes expired tasks, at most once a minute per instance, off the request's path. */
  private maybeSweep(): void {
    const now = Date.now();
    if (now - this.lastSweep < SWEEP_EVERY_MS) return;
    this.lastSweep = now;
    void this.sweep().catch((err: unknown) => log.warn("a2a.task_sweep_failed", { message: (err as Error)?.message }));
  }

  /** Deletes the expired tasks and, beyond `maxRows`, those closest to expiry; answers how many went. */
  async sweep(maxRows = A2A_TASK_MAX_ROWS): Promise<number> {
    const h = await getDbHandle();
    const expired = await h.query<{ n: number }>("WITH d AS (DELETE FROM a2a_tasks WHERE expires_at <= now() RETURNING 1) SELECT count(*)::int AS n FROM d", []);
    const over = await h.query<{ n: number }>(
      "WITH d AS (DELETE FROM a2a_tasks WHERE expires_at <= (SELECT expires_at FROM a2a_tasks ORDER BY expires_at DESC OFFSET $1 LIMIT 1) RETURNING 1) SELECT count(*)::int AS n FROM d",
      [maxRows],
    );
    return (expired[0]?.n ?? 0) + (over[0]?.n ?? 0);
  }
}

/** Whether `state` is final (the SDK refuses to continue such a task). */
export function isTerminal(state: TaskState | undefined): boolean {
  return state !== undefined && TERMINAL.has(state);
}

/** The `state` column's name of `state`. */
export function stateName(state: TaskState | undefined): string {
  return (state !== undefined && STATE_NAME[state]) || "unspecified";
}

/** The process's task store (both bindings share it). */
export function a2aTaskStore(): DatabaseTaskStore {
  return processState("a2a.tasks", () => new DatabaseTaskStore());
}
