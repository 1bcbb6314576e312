/**
 * A new message (what an agent sends in its loop: a skill, its parameters, a credential)
 * answered without the SDK's per-message machinery: no event bus, event queue, result
 * manager, per-task lock, or the task cloned on every event (load, save, push-notification
 * snapshot). The message runs through the same executor steps (lib/a2a/executor.ts:
 * openTask, runMessage, so the same call path, gate and outcome rendering), its task is
 * kept through the same task store (the request's buffer, flushed once by the handler:
 * same redaction, bounds and row), and the task answered is the one DefaultRequestHandler
 * (@a2a-js/sdk 1.3) makes of those events for a new task:
 *
 *   history [the message with its new taskId and contextId, the agent's status message],
 *   artifacts [the artifact, when there is data], status the last status, metadata the
 *   created task's; `configuration.historyLength` applied to the answer only.
 *
 * Everything the SDK would do more with a message is left to it (directSendable): a
 * message continuing a task, referencing tasks, without messageId or skill, while the
 * card requires an extension the client did not ask for or offers push notifications.
 * The encoding stays the bindings' (the SDK's codecs), so each binding and version
 * (1.0 HTTP+JSON and JSON-RPC, 0.3 through the SDK's compatibility layer) answers the
 * same bytes either way: tests/unit/a2a-direct.test.ts holds the two side by side.
 */
import { randomUUID } from "node:crypto";
import type { AgentCard, SendMessageRequest, Task } from "@a2a-js/sdk";
import type { ServerCallContext } from "@a2a-js/sdk/server";
import { openTask, runMessage, type MessageContext } from "@/lib/a2a/executor";
import { skillIdOf } from "@/lib/a2a/message";
import { a2aSkill } from "@/lib/a2a/skills";
import { redactTask, type DatabaseTaskStore } from "@/lib/a2a/task-store";

/** Whether the SDK would handle `params` as a plain new task of a known skill (see above); checkMessage has passed. */
export function directSendable(params: SendMessageRequest, card: AgentCard, context: ServerCallContext): boolean {
  const m = params.message;
  if (!m?.messageId || m.taskId || (m.referenceTaskIds?.length ?? 0) > 0) return false;
  const skill = skillIdOf(m);
  if (skill === undefined || !a2aSkill(skill)) return false;
  const caps = card.capabilities;
  // The SDK's push-notification sender sees every event of a task.
  if (caps?.pushNotifications) return false;
  const requested = new Set(context.requestedExtensions ?? []);
  return !(caps?.extensions ?? []).some((e) => e.required && !requested.has(e.uri));
}

/**
 * Runs a message directSendable accepted and answers its task (redacted, historyLength
 * applied), the task itself left in the request's buffer of `tasks` for the handler's flush.
 */
export async function sendDirect(params: SendMessageRequest, card: AgentCard, context: ServerCallContext, tasks: DatabaseTaskStore): Promise<Task> {
  const incoming = params.message!;
  // What the SDK does with the requested extensions: only those the card offers stay.
  if (context.requestedExtensions) {
    const offered = new Set((card.capabilities?.extensions ?? []).map((e) => e.uri));
    context.setRequestedExtensions(context.requestedExtensions.filter((uri) => offered.has(uri)));
  }
  const taskId = randomUUID();
  const contextId = incoming.contextId || randomUUID();
  const rc: MessageContext = { taskId, contextId, userMessage: { ...incoming, contextId, taskId }, task: undefined, context };
  const { skill, data, task } = openTask(rc);
  if (!skill) throw new Error(`task ${taskId} names no known skill`);
  const { artifact, status } = await runMessage(rc, skill, data);
  const done = redactTask({
    ...task,
    status: status.status,
    artifacts: artifact ? [artifact] : [],
    history: status.status?.message ? [...task.history, status.status.message] : task.history,
  });
  await tasks.saveFinal(done, context);
  // The answer's history, as DefaultRequestHandler cuts it; the kept task keeps its own.
  const historyLength = params.configuration?.historyLength;
  return historyLength === undefined ? done : { ...done, history: historyLength <= 0 ? [] : done.history.slice(-historyLength) };
}
