/**
 * The A2A agent: one task per skill call. A new message names the skill and carries its
 * parameters; the task remembers both (task metadata), so the paying message only has
 * to carry the credential. Outcomes become task states the a2a-x402 extension (v0.2,
 * standalone flow) describes:
 * - data → an artifact with the same JSON as the HTTP answer, task `completed`, the
 *   settlement receipt under `x402.payment.receipts` when a payment was settled;
 * - credential needed or refused → `input-required` with the x402 PaymentRequired under
 *   `x402.payment.required` (the same offers as the HTTP 402 at the same price; an
 *   exhausted free key says 429 and when its quota resets). Without any x402 method
 *   there is no x402 metadata, and the text names the bundle token or key that can pay;
 * - bad parameters → `failed` with spec 2.6's `{detail}` as a data part;
 * - any other failure → `failed` with `{error}`; nothing was charged;
 * - the client declines to pay (`payment-rejected`) → `canceled`.
 * A message that carried a payment which was not settled (refused, bad parameters, a
 * failed product or settlement) answers `payment-failed` with an error code and a
 * failure entry in `x402.payment.receipts` (a2a-x402 section 9).
 */
import { randomUUID } from "node:crypto";
import { Role, TaskState, type Artifact, type Message, type Part, type Task, type TaskStatusUpdateEvent } from "@a2a-js/sdk";
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext, type User } from "@a2a-js/sdk/server";
import { callSkill, type SkillOutcome } from "@/lib/a2a/call";
import { credentialOf, dataOf, skillIdOf } from "@/lib/a2a/message";
import { META } from "@/lib/a2a/protocol";
import { a2aSkill, type A2aSkill } from "@/lib/a2a/skills";
import type { TaskBuffer } from "@/lib/a2a/task-store";
import { failureReceipt, paymentErrorCode } from "@/lib/a2a/x402";
import type { CallTiming } from "@/lib/access/call";
import { timingRecord } from "@/lib/http/access-render";

/**
 * The HTTP request behind an A2A call (client IP and base URL for the gate), and where
 * the executor leaves the timing of the message's one gated call for the binding's
 * Server-Timing header.
 */
export class Caller implements User, TaskBuffer {
  timing: CallTiming | undefined;
  /** Tasks this request wrote, kept until the handler flushes them in one write (lib/a2a/task-store.ts). */
  readonly pendingTasks = new Map<string, Task>();
  /** Tasks this request read from the store (each is read once per request). */
  readonly readTasks = new Map<string, Task>();
  /** Tasks this request creates (their ids were generated for it: nothing to read). */
  readonly newTasks = new Set<string>();
  constructor(readonly request: Request) {}
  get isAuthenticated(): boolean {
    return false;
  }
  get userName(): string {
    return "";
  }
}

type Meta = Record<string, unknown>;

interface Update {
  state: TaskState;
  text: string;
  metadata: Meta;
  parts?: Part[];
}

/** A text part (A2A 1.0: the part's content is a oneof). */
export function textPart(text: string): Part {
  return { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" };
}

/** A data part holding `data` (a JSON object). */
export function dataPart(data: Meta): Part {
  return { content: { $case: "data", value: data }, metadata: undefined, filename: "", mediaType: "application/json" };
}

/**
 * What the executor reads of the SDK's RequestContext for one message: the task's ids,
 * the message, the task it continues (none for a new one) and the call context (whose
 * user is the binding's Caller). The direct path (lib/a2a/direct.ts) hands over the same.
 */
export type MessageContext = Pick<RequestContext, "taskId" | "contextId" | "userMessage" | "task" | "context">;

function statusEvent(rc: MessageContext, u: Update): TaskStatusUpdateEvent {
  const message: Message = {
    role: Role.ROLE_AGENT,
    messageId: randomUUID(),
    taskId: rc.taskId,
    contextId: rc.contextId,
    parts: [textPart(u.text), ...(u.parts ?? [])],
    metadata: u.metadata,
    extensions: [],
    referenceTaskIds: [],
  };
  return { taskId: rc.taskId, contextId: rc.contextId, status: { state: u.state, message, timestamp: new Date().toISOString() }, metadata: undefined };
}

/** Receipts of earlier messages of the task (spec: a persistent array for the whole task). */
function priorReceipts(rc: MessageContext): unknown[] {
  const prior = rc.task?.status?.message?.metadata?.[META.paymentReceipts];
  return Array.isArray(prior) ? prior : [];
}

/** What the task needs to know about the message's payment, when it carried one. */
interface Paid {
  payload: string;
}

/**
 * a2a-x402 section 9: a payment that failed sets `payment-failed`, a short error code
 * and a failure entry in the task's receipts (success false, the reason, no transaction).
 */
function paymentFailed(metadata: Meta, rc: MessageContext, paid: Paid, code: string, message: string, fallbackNetwork: string | undefined): void {
  metadata[META.paymentStatus] = "payment-failed";
  metadata[META.paymentError] = code;
  metadata[META.paymentReceipts] = [...priorReceipts(rc), failureReceipt(paid.payload, message, fallbackNetwork)];
}

function errorOf(code: string, message: string, status: number, retryAfterSeconds: number | null = null): Meta {
  return { code, message, status, ...(retryAfterSeconds !== null ? { retry_after_seconds: retryAfterSeconds } : {}) };
}

function updateFor(outcome: SkillOutcome, paid: Paid | null, rc: MessageContext): Update {
  switch (outcome.kind) {
    case "ok": {
      const metadata: Meta = { [META.access]: outcome.access };
      if (outcome.settlement) {
        metadata[META.paymentStatus] = "payment-completed";
        metadata[META.paymentReceipts] = [...priorReceipts(rc), outcome.settlement];
      }
      return { state: TaskState.TASK_STATE_COMPLETED, text: "Done: the result is the artifact.", metadata };
    }
    case "payment_required": {
      const q = outcome.requirement;
      const metadata: Meta = { [META.error]: errorOf(outcome.code, outcome.message, outcome.status, outcome.retryAfterSeconds) };
      // Without an x402 method the a2a-x402 flow cannot start: no x402 keys at all (never
      // a null requirement), and the text says which credential still works.
      if (outcome.required) {
        metadata[META.paymentStatus] = "payment-required";
        metadata[META.paymentRequired] = outcome.required;
      }
      if (paid) paymentFailed(metadata, rc, paid, paymentErrorCode(outcome.code, outcome.message), outcome.message, outcome.required?.accepts[0]?.network);
      const retry = outcome.retryAfterSeconds !== null ? ` The key's quota resets in ${outcome.retryAfterSeconds} s.` : "";
      // Something on this task can still pay (a payment, a bundle, a key): wait for it; otherwise the task ends.
      const payable = outcome.required !== null || q.alternatives.bundle !== null || q.alternatives.free_key !== null;
      return { state: payable ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_FAILED, text: `${outcome.message}${retry} ${q.instruction}`, metadata };
    }
    case "invalid": {
      const message = outcome.detail[0]?.msg ?? "Invalid parameters.";
      const metadata: Meta = { [META.error]: errorOf("validation_error", message, 422) };
      // The payment was neither verified nor settled: it can still pay a valid request.
      if (paid) paymentFailed(metadata, rc, paid, "INVALID_REQUEST", `Invalid parameters (${message}); the payment was not used and can pay a valid request.`, undefined);
      return {
        state: TaskState.TASK_STATE_FAILED,
        text: `Invalid parameters: ${outcome.detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; ")}. Nothing was charged.`,
        parts: [dataPart({ detail: outcome.detail })],
        metadata,
      };
    }
    case "error": {
      const error = { code: outcome.code, message: outcome.message, status: outcome.status, ...outcome.extra };
      const metadata: Meta = { [META.error]: error };
      // The gate keeps a payment whose settlement outcome is unknown; the same payload sent
      // again on this task resolves it, so the task waits for it instead of ending.
      const pending = paid !== null && outcome.code === "settlement_pending";
      if (paid) paymentFailed(metadata, rc, paid, paymentErrorCode(outcome.code, outcome.message), outcome.message, undefined);
      return { state: pending ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_FAILED, text: outcome.message, parts: [dataPart({ error })], metadata };
    }
  }
}

function callerOf(rc: MessageContext): Caller {
  const user = rc.context?.user;
  if (!(user instanceof Caller)) throw new Error("A2A call without its HTTP request");
  return user;
}

/** The task a message works on: its skill and parameters (a new task's from the message, a follow-up's from the task), and the task as the SDK's first event of the call. */
export function openTask(rc: MessageContext): { skill: A2aSkill | undefined; data: Meta; task: Task } {
  const message = rc.userMessage;
  const existing = rc.task;
  const skillId = existing ? String(existing.metadata?.[META.skill] ?? "") : (skillIdOf(message) ?? "");
  const data = existing ? ((existing.metadata?.params as Meta | undefined) ?? {}) : dataOf(message);
  const task: Task = existing ?? {
    id: rc.taskId,
    contextId: rc.contextId,
    status: { state: TaskState.TASK_STATE_SUBMITTED, message: undefined, timestamp: new Date().toISOString() },
    artifacts: [],
    history: [message],
    metadata: { [META.skill]: skillId, params: data },
  };
  return { skill: a2aSkill(skillId), data, task };
}

/** What one message did to its task: the artifact when the skill returned data, and the task's new status. */
export interface MessageResult {
  artifact: Artifact | undefined;
  status: TaskStatusUpdateEvent;
}

/**
 * Runs the message's skill through lib/a2a/call.ts (or takes the client's refusal to
 * pay) and says what it did to the task. Never throws for an outcome of the call: every
 * refusal and failure is a task state.
 */
export async function runMessage(rc: MessageContext, skill: A2aSkill, data: Meta): Promise<MessageResult> {
  const message = rc.userMessage;
  // a2a-x402 5.4: the client declines every requirement. The task ends, canceled by the
  // client's choice; its receipts so far stay on the final message (section 7).
  if (message.metadata?.[META.paymentStatus] === "payment-rejected") {
    const metadata: Meta = { [META.paymentStatus]: "payment-rejected", [META.paymentReceipts]: priorReceipts(rc) };
    return { artifact: undefined, status: statusEvent(rc, { state: TaskState.TASK_STATE_CANCELED, text: "Payment rejected by the client; nothing was charged.", metadata }) };
  }
  const credential = credentialOf(message);
  const caller = callerOf(rc);
  const outcome = await callSkill(skill, data, credential, caller.request);
  caller.timing = outcome.timing;
  let artifact: Artifact | undefined;
  if (outcome.kind === "ok") {
    const value = outcome.value;
    const result = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Meta) : { value };
    artifact = { artifactId: randomUUID(), name: skill.id, description: "", parts: [dataPart(result)], metadata: undefined, extensions: [] };
  }
  const update = updateFor(outcome, credential.kind === "x402" ? { payload: credential.payload } : null, rc);
  if (outcome.timing) update.metadata[META.timing] = timingRecord(outcome.timing);
  return { artifact, status: statusEvent(rc, update) };
}

/** Runs each message's skill (runMessage) and publishes the task's events. */
export class SkillExecutor implements AgentExecutor {
  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { skill, data, task } = openTask(rc);
    // Without a task the SDK generated this id for the message: the store has nothing to read for it.
    if (!rc.task) callerOf(rc).newTasks.add(rc.taskId);
    // The SDK wants a task (or message) as the first event of every call, a follow-up's included.
    bus.publish(AgentEvent.task(task));
    if (!skill) throw new Error(`task ${rc.taskId} names no known skill`);
    const { artifact, status } = await runMessage(rc, skill, data);
    if (artifact) bus.publish(AgentEvent.artifactUpdate({ taskId: rc.taskId, contextId: rc.contextId, artifact, append: false, lastChunk: true, metadata: undefined }));
    bus.publish(AgentEvent.statusUpdate(status));
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish(AgentEvent.statusUpdate({ taskId, contextId: "", status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() }, metadata: undefined }));
    bus.finished();
  }
}
