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
import { processState } from "@/lib/process-state";

class ServiceRequestHandler extends DefaultRequestHandler {
  override async sendMessage(params: MessageSendParams, context?: ServerCallContext): Promise<Message | Task> {
    checkMessage(params);
    const result = await super.sendMessage(params, context);
    return result.kind === "task" ? redactTask(result) : result;
  }
}

/**
 * The process's A2A request handler, one for both bindings: Next bundles each route
 * separately, so a module-level value would give the JSON-RPC and the HTTP+JSON route
 * a task store each, and a task created on one binding could not be continued on the
 * other. It lives in process state instead (lib/process-state.ts). Its card only
 * serves capability checks (streaming, push notifications, extensions), which do not
 * depend on the base URL.
 */
export function a2aRequestHandler(): DefaultRequestHandler {
  return processState("a2a.handler", () => new ServiceRequestHandler(agentCard("http://localhost") as unknown as AgentCard, new BoundedTaskStore(), new SkillExecutor()));
}
