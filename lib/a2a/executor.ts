/**
 * The A2A agent: one task per skill call. A new message names the skill and carries its
 * parameters; the task remembers both (task metadata), so the paying message only has
 * to carry the credential. Outcomes become task states the a2a-x402 extension (v0.2,
 * standalone flow) describes:
 * - data → an artifact with the same JSON as the HTTP answer, task `completed`, the
 *   settlement receipt under `x402.payment.receipts` when a payment was settled;
 * - credential needed or refused → `input-required` with the x402 PaymentRequired under
 *   `x402.payment.required` (the same offers as the HTTP 402 at the same price);
 * - bad parameters → `failed` with spec 2.6's `{detail}` as a data part;
 * - any other failure → `failed` with `{error}`; nothing was charged.
 */
import { randomUUID } from "node:crypto";
import type { Message, Part, TaskState, TaskStatusUpdateEvent } from "@a2a-js/sdk";
import type { AgentExecutor, ExecutionEventBus, RequestContext, User } from "@a2a-js/sdk/server";
import { callSkill, type SkillOutcome } from "@/lib/a2a/call";
import { credentialOf, dataOf, skillIdOf } from "@/lib/a2a/message";
import { META } from "@/lib/a2a/protocol";
import { a2aSkill } from "@/lib/a2a/skills";
import { paymentErrorCode } from "@/lib/a2a/x402";

/** The HTTP request behind an A2A call (client IP and base URL for the gate). */
export class Caller implements User {
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

function statusEvent(rc: RequestContext, u: Update): TaskStatusUpdateEvent {
  const message: Message = {
    kind: "message",
    role: "agent",
    messageId: randomUUID(),
    taskId: rc.taskId,
    contextId: rc.contextId,
    parts: [{ kind: "text", text: u.text }, ...(u.parts ?? [])],
    metadata: u.metadata,
  };
  return { kind: "status-update", taskId: rc.taskId, contextId: rc.contextId, status: { state: u.state, message, timestamp: new Date().toISOString() }, final: true };
}

/** Receipts of earlier messages of the task (spec: a persistent array for the whole task). */
function priorReceipts(rc: RequestContext): unknown[] {
  const prior = rc.task?.status.message?.metadata?.[META.paymentReceipts];
  return Array.isArray(prior) ? prior : [];
}

function updateFor(outcome: SkillOutcome, paid: boolean, rc: RequestContext): Update {
  switch (outcome.kind) {
    case "ok": {
      const metadata: Meta = { [META.access]: outcome.access };
      if (outcome.settlement) {
        metadata[META.paymentStatus] = "payment-completed";
        metadata[META.paymentReceipts] = [...priorReceipts(rc), outcome.settlement];
      }
      return { state: "completed", text: "Done: the result is the artifact.", metadata };
    }
    case "payment_required": {
      const metadata: Meta = {
        [META.paymentStatus]: paid ? "payment-failed" : "payment-required",
        [META.paymentRequired]: outcome.required,
        [META.error]: { code: outcome.code, message: outcome.message, status: 402 },
      };
      if (paid) metadata[META.paymentError] = paymentErrorCode(outcome.code, outcome.message);
      return { state: "input-required", text: `${outcome.message} ${outcome.requirement.instruction}`, metadata };
    }
    case "invalid":
      return {
        state: "failed",
        text: `Invalid parameters: ${outcome.detail.map((d) => `${d.loc.join(".")}: ${d.msg}`).join("; ")}. Nothing was charged.`,
        parts: [{ kind: "data", data: { detail: outcome.detail } }],
        metadata: { [META.error]: { code: "validation_error", message: outcome.detail[0]?.msg ?? "Invalid parameters.", status: 422 } },
      };
    case "error": {
      const error = { code: outcome.code, message: outcome.message, status: outcome.status, ...outcome.extra };
      const metadata: Meta = { [META.error]: error };
      // The gate keeps a payment whose settlement outcome is unknown; the same payload sent
      // again on this task resolves it, so the task waits for it instead of ending.
      const pending = paid && outcome.code === "settlement_pending";
      if (paid) {
        metadata[META.paymentStatus] = "payment-failed";
        metadata[META.paymentError] = paymentErrorCode(outcome.code, outcome.message);
      }
      return { state: pending ? "input-required" : "failed", text: outcome.message, parts: [{ kind: "data", data: { error } }], metadata };
    }
  }
}

function callerRequest(rc: RequestContext): Request {
  const user = rc.context?.user;
  if (!(user instanceof Caller)) throw new Error("A2A call without its HTTP request");
  return user.request;
}

/** Runs each message's skill through lib/a2a/call.ts and publishes the task's events. */
export class SkillExecutor implements AgentExecutor {
  async execute(rc: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const message = rc.userMessage;
    const existing = rc.task;
    const skillId = existing ? String(existing.metadata?.[META.skill] ?? "") : (skillIdOf(message) ?? "");
    const data = existing ? ((existing.metadata?.params as Meta | undefined) ?? {}) : dataOf(message);
    const skill = a2aSkill(skillId);
    if (!existing) {
      bus.publish({ kind: "task", id: rc.taskId, contextId: rc.contextId, status: { state: "submitted", timestamp: new Date().toISOString() }, history: [message], metadata: { [META.skill]: skillId, params: data } });
    }
    if (!skill) throw new Error(`task ${rc.taskId} names no known skill`);
    if (message.metadata?.[META.paymentStatus] === "payment-rejected") {
      bus.publish(statusEvent(rc, { state: "canceled", text: "Payment rejected by the client; nothing was charged.", metadata: { [META.paymentStatus]: "payment-rejected" } }));
      bus.finished();
      return;
    }
    const credential = credentialOf(message);
    const outcome = await callSkill(skill, data, credential, callerRequest(rc));
    if (outcome.kind === "ok") {
      const value = outcome.value;
      const data = typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Meta) : { value };
      bus.publish({ kind: "artifact-update", taskId: rc.taskId, contextId: rc.contextId, artifact: { artifactId: randomUUID(), name: skill.id, parts: [{ kind: "data", data }] }, lastChunk: true });
    }
    bus.publish(statusEvent(rc, updateFor(outcome, credential.kind === "x402", rc)));
    bus.finished();
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    bus.publish({ kind: "status-update", taskId, contextId: "", status: { state: "canceled", timestamp: new Date().toISOString() }, final: true });
    bus.finished();
  }
}
