/**
 * The SDK's request handler (DefaultRequestHandler: task life cycle, event bus, result
 * manager) around this service's executor and task store, shared by both bindings.
 * Before a message reaches the SDK it is checked (lib/a2a/message.ts) so malformed input
 * is an A2A error rather than a task; answers never carry the credentials sent.
 */
import type { AgentCard, Message, MessageSendParams, Task } from "@a2a-js/sdk";
import { DefaultRequestHandler, type ServerCallContext } from "@a2a-js/sdk/server";
import { agentCard } from "@/lib/discovery/cards";
import { SkillExecutor } from "@/lib/a2a/executor";
import { checkMessage } from "@/lib/a2a/message";
import { BoundedTaskStore, redactTask } from "@/lib/a2a/task-store";

class ServiceRequestHandler extends DefaultRequestHandler {
  override async sendMessage(params: MessageSendParams, context?: ServerCallContext): Promise<Message | Task> {
    checkMessage(params);
    const result = await super.sendMessage(params, context);
    return result.kind === "task" ? redactTask(result) : result;
  }
}

let handler: ServiceRequestHandler | undefined;

/**
 * The process's A2A request handler. Its card only serves capability checks (streaming,
 * push notifications, extensions), which do not depend on the base URL.
 */
export function a2aRequestHandler(): DefaultRequestHandler {
  handler ??= new ServiceRequestHandler(agentCard("http://localhost") as unknown as AgentCard, new BoundedTaskStore(), new SkillExecutor());
  return handler;
}
