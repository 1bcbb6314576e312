/**
 * Where A2A tasks live between a payment requirement and the paying message. In process
 * memory, bounded (oldest evicted first) and expiring, because a task only has to
 * outlive one payment round trip: the durable facts (the payment, its nonce lock, the
 * receipt) are in the database like every other call's. Credentials the client sent in
 * message metadata are redacted before a task is stored, so neither tasks/get nor a later
 * answer ever shows a bundle token, an API key or a signed payment back.
 */
import type { Message, Task } from "@a2a-js/sdk";
import type { TaskStore } from "@a2a-js/sdk/server";
import { META } from "@/lib/a2a/protocol";

const SECRET_KEYS = [META.bundleToken, META.apiKey, META.paymentPayload];
const REDACTED = "[redacted]";

function redact(m: Message): Message {
  const meta = m.metadata;
  if (!meta || !SECRET_KEYS.some((k) => meta[k] !== undefined && meta[k] !== null)) return m;
  const clean: Record<string, unknown> = { ...meta };
  for (const k of SECRET_KEYS) if (clean[k] !== undefined && clean[k] !== null) clean[k] = REDACTED;
  return { ...m, metadata: clean };
}

/** The task without the credentials its messages carried. */
export function redactTask(task: Task): Task {
  return { ...task, history: task.history?.map(redact), status: { ...task.status, ...(task.status.message ? { message: redact(task.status.message) } : {}) } };
}

/** A TaskStore holding at most `max` tasks for `ttlMs` each. */
export class BoundedTaskStore implements TaskStore {
  private readonly tasks = new Map<string, { task: Task; expires: number }>();
  constructor(
    private readonly max = 10_000,
    private readonly ttlMs = 60 * 60 * 1000,
  ) {}

  async load(taskId: string): Promise<Task | undefined> {
    const hit = this.tasks.get(taskId);
    if (!hit) return undefined;
    if (hit.expires <= Date.now()) {
      this.tasks.delete(taskId);
      return undefined;
    }
    return structuredClone(hit.task);
  }

  async save(task: Task): Promise<void> {
    this.tasks.delete(task.id);
    this.tasks.set(task.id, { task: structuredClone(redactTask(task)), expires: Date.now() + this.ttlMs });
    while (this.tasks.size > this.max) {
      const oldest = this.tasks.keys().next().value;
      if (oldest === undefined) break;
      this.tasks.delete(oldest);
    }
  }
}
