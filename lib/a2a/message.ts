/**
 * Reading an incoming A2A message: which skill, which parameters (the one data part),
 * which credential (metadata). `checkMessage` runs before the SDK creates a task, so a
 * malformed message, an unknown skill or an unusable credential is an A2A error
 * (JSON-RPC -32602 / REST 400), never a task and never a 500.
 */
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import type { Message, SendMessageRequest, Task } from "@a2a-js/sdk";
import { MAX_CREDENTIAL, type Credential } from "@/lib/access/credentials";
import { META } from "@/lib/a2a/protocol";
import { a2aSkill, a2aSkills } from "@/lib/a2a/skills";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);
const PART_KINDS = new Set(["text", "data", "url", "raw"]);

function invalid(message: string): never {
  throw new RequestMalformedError(message);
}

/** The x402 PaymentPayload of the metadata as the gate's base64 form; undefined when absent. */
function paymentPayload(v: unknown): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string" && !isObject(v)) invalid(`metadata["${META.paymentPayload}"] must be an x402 PaymentPayload object (or its base64 encoding).`);
  const encoded = typeof v === "string" ? v.trim() : Buffer.from(JSON.stringify(v)).toString("base64");
  if (!encoded || encoded.length > MAX_CREDENTIAL) invalid(`metadata["${META.paymentPayload}"] must be a PaymentPayload of at most ${MAX_CREDENTIAL} characters once base64-encoded.`);
  return encoded;
}

function token(meta: Json, key: string): string | undefined {
  const v = meta[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string" || !v.trim() || v.length > MAX_CREDENTIAL) invalid(`metadata["${key}"] must be a non-empty string of at most ${MAX_CREDENTIAL} characters.`);
  return v.trim();
}

/** The credential a message carries; payment first, then bundle, then key (as on HTTP and MCP). */
export function credentialOf(message: Message): Credential {
  const meta = isObject(message.metadata) ? message.metadata : {};
  const payload = paymentPayload(meta[META.paymentPayload]);
  if (payload) return { kind: "x402", payload, version: 2 };
  const bundle = token(meta, META.bundleToken);
  if (bundle) return { kind: "bundle", token: bundle };
  const key = token(meta, META.apiKey);
  if (key) return { kind: "api_key", key };
  return { kind: "none" };
}

/** The parameters: the data part's object, or none. */
export function dataOf(message: Message): Json {
  const part = message.parts.find((p) => p.content?.$case === "data");
  const data: unknown = part?.content?.value;
  return isObject(data) ? data : {};
}

/** The skill a message names in its metadata, or undefined. */
export function skillIdOf(message: Message): string | undefined {
  const v = isObject(message.metadata) ? message.metadata[META.skill] : undefined;
  return typeof v === "string" ? v : undefined;
}

/** Throws an A2A invalid-params error unless `params` is a message this agent can act on. */
export function checkMessage(params: SendMessageRequest): void {
  const m: unknown = isObject(params) ? params.message : undefined;
  if (!isObject(m)) invalid("params.message must be a Message object.");
  if (!Array.isArray(m.parts)) invalid("message.parts must be an array of parts.");
  let data = 0;
  for (const [i, p] of (m.parts as unknown[]).entries()) {
    const content = isObject(p) && isObject(p.content) ? p.content : undefined;
    if (!content || typeof content.$case !== "string" || !PART_KINDS.has(content.$case)) invalid(`message.parts[${i}] must be a text, data or file part.`);
    if (content.$case === "data") {
      if (!isObject(content.value)) invalid(`message.parts[${i}].data must be a JSON object of the skill's parameters.`);
      data += 1;
    }
  }
  if (data > 1) invalid("A message carries the skill's parameters in one data part, not several.");
  if (m.metadata !== undefined && m.metadata !== null && !isObject(m.metadata)) invalid("message.metadata must be an object.");
  const message = m as unknown as Message;
  credentialOf(message);
  const skill = skillIdOf(message);
  if (skill !== undefined && !a2aSkill(skill)) invalid(`Unknown skill "${skill}". Skills: ${a2aSkills().map((s) => s.id).join(", ")}.`);
  if (skill === undefined && !message.taskId) {
    invalid(`Name the skill in message.metadata["${META.skill}"] (one of the agent card's skill ids), or continue a task with taskId.`);
  }
}

/** Canonical JSON of a parameter object (keys sorted; numbers and booleans as the query string's text), for comparing. */
function canonical(data: Json): string {
  const keys = Object.keys(data).sort();
  return JSON.stringify(keys.map((k) => [k, typeof data[k] === "number" || typeof data[k] === "boolean" ? String(data[k]) : data[k]]));
}

/**
 * A message continuing `task` (its taskId) may only carry what continues it: a
 * credential, or the same skill and parameters again. A task is one skill call, its
 * skill and parameters fixed by the message that created it (task metadata), and the
 * payment it asked for is priced for exactly that call; a follow-up naming another skill
 * or other parameters is refused with an A2A invalid-params error (JSON-RPC -32602,
 * HTTP+JSON 400) that says to start a new task, rather than silently delivering the
 * task's own skill or re-pricing the task under the client. Unknown tasks are left to
 * the SDK (task not found), as are finished ones (not modifiable).
 */
export function checkFollowUp(message: Message, task: Task | undefined): void {
  if (!task) return;
  const own = typeof task.metadata?.[META.skill] === "string" ? (task.metadata[META.skill] as string) : "";
  const named = skillIdOf(message);
  if (named !== undefined && named !== own) {
    invalid(`Task ${task.id} calls skill "${own}"; this message names "${named}". A task is one skill call: send the message without taskId to start a task for "${named}".`);
  }
  const params = isObject(task.metadata?.params) ? task.metadata.params : {};
  const hasData = message.parts.some((p) => p.content?.$case === "data");
  if (hasData && canonical(dataOf(message)) !== canonical(params)) {
    invalid(`Task ${task.id} calls "${own}" with the parameters of the message that created it; this message carries others. Send it without taskId to start a task with these parameters.`);
  }
}
