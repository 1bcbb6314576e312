/**
 * The SDK's request handler (DefaultRequestHandler: task life cycle, event bus, result
 * manager) around this service's executor and task store, shared by both bindings.
 * Before a message reaches the SDK it is checked (lib/a2a/message.ts) so malformed input
 * is an A2A error rather than a task; answers never carry the credentials sent. A new
 * message of a skill skips the SDK's per-message machinery (lib/a2a/direct.ts) and gets
 * the task the SDK would have answered.
 */
import { AgentCard, TaskState, type CancelTaskRequest, type Message, type SendMessageRequest, type Task } from "@a2a-js/sdk";
import { JsonRpcRequestMalformedError, TaskNotCancelableError } from "@a2a-js/sdk/errors";
import { DefaultRequestHandler, type AgentExecutor, type ServerCallContext } from "@a2a-js/sdk/server";
import { agentCardV1, isA2aV1 } from "@/lib/discovery/cards";
import { SkillExecutor } from "@/lib/a2a/executor";
import { directSendable, sendDirect } from "@/lib/a2a/direct";
import { checkFollowUp, checkMessage } from "@/lib/a2a/message";
import { a2aTaskStore, isTerminal, redactTask, stateName, type DatabaseTaskStore } from "@/lib/a2a/task-store";
import { log } from "@/lib/log";
import { processState } from "@/lib/process-state";
import { paymentMethodsVersion } from "@/lib/payments/methods/registry";

class ServiceRequestHandler extends DefaultRequestHandler {
  constructor(
    card: AgentCard,
    private readonly tasks: DatabaseTaskStore,
    executor: AgentExecutor,
    /** Whether a new message may take the direct path (lib/a2a/direct.ts); off, every message goes through the SDK. */
    private readonly direct: boolean,
  ) {
    super(card, tasks, executor);
  }

  /**
   * Always answered when the task has finished: `configuration.returnImmediately: true`
   * (0.3: `blocking: false`) would
   * return the submitted task and go on in the background, where a paid call would settle
   * the payment and keep its result (a bundle token shown once) only in a task written
   * after the answer, and be frozen mid-settlement on a serverless platform. Every skill
   * finishes within the request (a product call, at most a settlement), so the client
   * just gets the final task at once.
   *
   * The task's writes of the request are flushed once it is answered (one write). A task
   * that could not be stored is still answered when it is finished (the answer holds the
   * whole result, and a payment is already settled or released); one that waits for
   * more (input-required) is an error, since no instance could continue it.
   */
  override async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    checkMessage(params);
    const message = params.message!;
    if (message.taskId) {
      const task = await this.tasks.load(message.taskId, context);
      // A finished task takes no message. 1.0: the SDK's UnsupportedOperationError; a 0.3
      // client gets what 0.3 servers answer (-32600 invalid request with the reason), since
      // the compatibility layer would turn the 1.0 error into a bare "not supported".
      if (task && isTerminal(task.status?.state) && !isA2aV1(context.requestedVersion)) {
        throw new JsonRpcRequestMalformedError({ message: `Task ${task.id} is in a terminal state (${stateName(task.status?.state)}) and cannot be modified.`, envelopeCode: -32600 });
      }
      checkFollowUp(message, task);
    }
    if (params.configuration?.returnImmediately) params = { ...params, configuration: { ...params.configuration, returnImmediately: false } };
    let result: Message | Task;
    try {
      const card = currentCard();
      result = this.direct && directSendable(params, card, context) ? await sendDirect(params, card, context, this.tasks) : await super.sendMessage(params, context);
    } catch (err) {
      await this.flush(context).catch((e: unknown) => log.error("a2a.task_store_failed", { message: (e as Error)?.message }));
      throw err;
    }
    try {
      await this.flush(context);
    } catch (err) {
      log.error("a2a.task_store_failed", { message: (err as Error)?.message, task: isTask(result) ? result.id : undefined });
      if (isTask(result) && !isTerminal(result.status?.state)) {
        throw new Error("The task could not be stored, so it cannot be continued: send the message again (a payment already sent is answered with the answer it got).");
      }
    }
    return isTask(result) ? redactTask(result) : result;
  }

  /**
   * Cancels a task wherever it was created. The answer is the task as stored after the
   * write: a task another instance finished meanwhile is not cancelable (the stored
   * task never goes back from a final state).
   */
  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    // A canceled task is final like the others: canceling it again is refused, as before
    // the 1.x SDK (which answers it unchanged). Read once: the SDK's own load hits the request's buffer.
    const before = await this.tasks.load(params.id, context);
    if (before && isTerminal(before.status?.state)) throw new TaskNotCancelableError(`Task ${params.id} is not cancelable: it has already finished.`);
    await super.cancelTask(params, context);
    await this.flush(context);
    const stored = await this.tasks.read(params.id);
    if (!stored || stored.status?.state !== TaskState.TASK_STATE_CANCELED) throw new TaskNotCancelableError(`Task ${params.id} is not cancelable: it has already finished.`);
    return stored;
  }

  private async flush(context: ServerCallContext | undefined): Promise<void> {
    await this.tasks.flush(context);
  }

  /**
   * The SDK reads the card to decide which requested extensions are active; it follows
   * the payment-method registry (the a2a-x402 extension exists only while an x402
   * method is accepted), so it is read now rather than frozen at construction.
   */
  override async getAgentCard(): Promise<AgentCard> {
    return currentCard();
  }
}

function isTask(r: Message | Task): r is Task {
  return "status" in r && "id" in r;
}

/**
 * The card the handler checks capabilities and versions against (the 1.0 card: its
 * interfaces name both 1.0 and 0.3 per binding), rebuilt when the usable payment methods change.
 */
export function currentCard(): AgentCard {
  const held = processState<{ version: string | null; card: AgentCard | null }>("a2a.card.v1", () => ({ version: null, card: null }));
  const version = paymentMethodsVersion();
  if (held.version !== version || !held.card) {
    // Capability checks (streaming, push notifications, extensions) and versions do not depend on the base URL.
    held.card = AgentCard.fromJSON(agentCardV1("http://localhost"));
    held.version = version;
  }
  return held.card;
}

/**
 * The process's A2A request handler, held as process-wide state: both bindings (each a
 * route bundle with its own copy of this module) share it, its event buses and its
 * task store's group commit. Tasks themselves are in the database, shared by every
 * instance (lib/a2a/task-store.ts).
 */
export function a2aRequestHandler(): DefaultRequestHandler {
  return processState("a2a.handler", () => new ServiceRequestHandler(currentCard(), a2aTaskStore(), new SkillExecutor(), true));
}

/**
 * The same handler with every message going through the SDK's DefaultRequestHandler (no
 * direct path): what the direct path's answers are held to (tests/unit/a2a-direct.test.ts).
 */
export function a2aSdkRequestHandler(): DefaultRequestHandler {
  return processState("a2a.handler.sdk", () => new ServiceRequestHandler(currentCard(), a2aTaskStore(), new SkillExecutor(), false));
}
