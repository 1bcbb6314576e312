/**
 * What GET on the A2A URLs answers (a JSON description, like GET /mcp: a person or an
 * agent that opens the card's URL learns how to talk to it) and the OpenAPI operations
 * of those URLs. The HTTP+JSON methods themselves (message:send, tasks/{id}) are A2A's,
 * described by the agent card and the A2A specification rather than by OpenAPI.
 */
import { docUrl } from "@/lib/discovery/documents";
import { SERVICE } from "@/lib/discovery/service";
import { a2aExtensions } from "@/lib/discovery/cards";
import { A2A_JSONRPC_PATH, A2A_LEGACY_VERSION, A2A_REST_PATH, META } from "@/lib/a2a/protocol";
import { a2aSkills } from "@/lib/a2a/skills";
import { A2A_PRICE_NAME } from "@/lib/catalog/surfaces";

/** JSON description of the A2A server at `base`. */
export function a2aDescription(base: string): Record<string, unknown> {
  return {
    name: SERVICE.title,
    protocolVersion: SERVICE.a2aProtocolVersion,
    protocolVersions: [SERVICE.a2aProtocolVersion, A2A_LEGACY_VERSION],
    versionHeader: `A2A-Version: ${SERVICE.a2aProtocolVersion} for A2A ${SERVICE.a2aProtocolVersion}; without it a request is served A2A ${A2A_LEGACY_VERSION}`,
    agentCard: docUrl(base, "/.well-known/agent-card.json"),
    interfaces: [
      {
        transport: "HTTP+JSON",
        url: `${base}${A2A_REST_PATH}`,
        methods: ["POST /v1/message:send", "GET /v1/tasks/{id}", "POST /v1/tasks/{id}:cancel"].map((m) => m.replace(" /", ` ${A2A_REST_PATH}/`)),
        note: `A2A ${SERVICE.a2aProtocolVersion}'s interface URL is ${base}${A2A_REST_PATH}/v1 (the same paths); A2A ${A2A_LEGACY_VERSION}'s is ${base}${A2A_REST_PATH}`,
      },
      { transport: "JSONRPC", url: `${base}${A2A_JSONRPC_PATH}`, methods: ["SendMessage", "GetTask", "CancelTask", "message/send", "tasks/get", "tasks/cancel"] },
    ],
    capabilities: { streaming: false, pushNotifications: false, extensions: a2aExtensions().map((e) => e.uri) },
    message: {
      skill: `message.metadata["${META.skill}"]: one of the skill ids below`,
      parameters: "one data part holding the skill's parameters (as the HTTP query names them)",
      credentials: {
        ...(a2aExtensions().length > 0 ? { x402: `metadata["${META.paymentPayload}"]: the signed x402 PaymentPayload, sent on the task that answered input-required with metadata["${META.paymentRequired}"]` } : {}),
        bundle: `metadata["${META.bundleToken}"]`,
        free_key: `metadata["${META.apiKey}"]`,
      },
      price: `the ${A2A_PRICE_NAME} of the same product`,
    },
    skills: a2aSkills().map((s) => s.id),
  };
}

type Json = Record<string, unknown>;

/** OpenAPI path items of the A2A URLs (merged into /openapi.json). */
export function a2aOpenApiPaths(): Json {
  const description = { description: "JSON description of the A2A server: bindings and their URLs, message conventions, skill ids.", content: { "application/json": { schema: { type: "object" } } } };
  const about = (id: string, where: string) => ({
    operationId: id,
    summary: `A2A server description (${where})`,
    description: `Answers a JSON description of the A2A server. The A2A methods are described by the agent card (/.well-known/agent-card.json): protocol ${SERVICE.a2aProtocolVersion}, HTTP+JSON binding under this URL, JSON-RPC binding, skills, the a2a-x402 extension.`,
    tags: ["a2a"],
    security: [],
    responses: { "200": description },
  });
  return {
    [A2A_REST_PATH]: { get: about("a2aDescription", "HTTP+JSON base URL") },
    [`${A2A_REST_PATH}/v1`]: { get: about("a2aV1Description", "A2A 1.0 HTTP+JSON interface URL") },
    [A2A_JSONRPC_PATH]: {
      get: about("a2aJsonRpcDescription", "JSON-RPC URL"),
      post: {
        operationId: "a2aJsonRpc",
        summary: "A2A JSON-RPC",
        description: `A2A ${SERVICE.a2aProtocolVersion} JSON-RPC 2.0 (SendMessage, GetTask, CancelTask) and A2A ${A2A_LEGACY_VERSION} (message/send, tasks/get, tasks/cancel). Errors are JSON-RPC error objects: -32700 unparsable JSON (HTTP 400), -32600 body over the size limit (HTTP 413), -32602 malformed message or unknown skill.`,
        tags: ["a2a"],
        security: [],
        requestBody: { required: true, description: "JSON-RPC 2.0 request: SendMessage / message/send (params.message: the skill in metadata, its parameters in one data part), GetTask / tasks/get or CancelTask / tasks/cancel.", content: { "application/json": { schema: { type: "object" } } } },
        responses: {
          "200": { description: "JSON-RPC response (result or error object).", content: { "application/json": { schema: { type: "object" } } } },
          "400": { description: "Unparsable JSON (-32700).", content: { "application/json": { schema: { type: "object" } } } },
          "413": { description: "Body too large (-32600).", content: { "application/json": { schema: { type: "object" } } } },
          "503": { description: "The service could not complete the call (-32603); nothing was charged.", content: { "application/json": { schema: { type: "object" } } } },
        },
      },
    },
  };
}
