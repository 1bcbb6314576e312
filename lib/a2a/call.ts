/**
 * The one place A2A reaches the service's call path: validate → gate → run → commit or
 * release, exactly as HTTP and MCP do. Calls are recorded as surface "a2a" and pay the
 * price the catalog names for A2A (lib/catalog/surfaces.ts). Everything else in lib/a2a
 * speaks in `SkillOutcome`s, so
 * re-pointing A2A at another call path means changing this file only.
 *
 * Free skills run the free MCP tools' own implementation (shared snapshot cache, the
 * per-IP mint limit of free keys), so each free thing exists once.
 */
import type { Credential } from "@/lib/access/credentials";
import { callProduct, type CallTiming } from "@/lib/access/call";
import type { Refused } from "@/lib/access/outcome";
import { PaymentRequiredError, type Requirement } from "@/lib/access/payment-required";
import { toApiError, ValidationError, type ValidationIssue } from "@/lib/errors";
import { baseUrl } from "@/lib/http/base-url";
import { clientIp } from "@/lib/http/client-ip";
import { parseArguments } from "@/lib/mcp/arguments";
import { accessMeta } from "@/lib/mcp/results";
import { mcpTool } from "@/lib/mcp/tools";
import { A2A_REST_PATH } from "@/lib/a2a/protocol";
import type { A2aSkill } from "@/lib/a2a/skills";

/** What a skill call ended with, in the terms the A2A task needs; `timing` when the gate ran (Server-Timing). */
export type SkillOutcome = (
  | { kind: "ok"; value: unknown; access: Record<string, unknown> | null; settlement: Record<string, unknown> | null }
  | {
      kind: "payment_required";
      code: string;
      message: string;
      /** 402, or 429 for an exhausted free key (which can still pay). */
      status: number;
      retryAfterSeconds: number | null;
      /** The x402 PaymentRequired; null when no x402 method is accepted (then only a bundle or key can pay). */
      required: Requirement["x402"];
      requirement: Requirement;
    }
  | { kind: "invalid"; detail: ValidationIssue[] }
  | { kind: "error"; code: string; status: number; message: string; extra: Record<string, unknown> }
) & { timing?: CallTiming };

/** Where a data part's parameters are reported in spec 2.6 `loc`. */
const WHERE = "data";

/** A data part may carry numbers and booleans where the query string has their text. */
function asArguments(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) out[k] = typeof v === "number" || typeof v === "boolean" ? String(v) : v;
  return out;
}

/** MCP and the products' cross-field checks locate issues under "arguments" / "query"; A2A reads them under "data". */
function relocate(detail: ValidationIssue[]): ValidationIssue[] {
  return detail.map((d) => (d.loc[0] === "arguments" || d.loc[0] === "query" ? { ...d, loc: [WHERE, ...d.loc.slice(1)] } : d));
}

/** A refusal as the task needs it: the x402 PaymentRequired (null when no x402 method is accepted) with the reason. */
function refused(r: Refused): SkillOutcome {
  const required = r.requirement.x402 ? { ...r.requirement.x402, error: r.message } : null;
  return { kind: "payment_required", code: r.code, message: r.message, status: r.status, retryAfterSeconds: r.retryAfterSeconds, required, requirement: r.requirement };
}

function failure(err: unknown, context: Record<string, unknown>): SkillOutcome {
  if (err instanceof PaymentRequiredError) return refused(err.refusal);
  if (err instanceof ValidationError) return { kind: "invalid", detail: relocate(err.detail) };
  const known = toApiError(err, { surface: "a2a", ...context });
  return { kind: "error", code: known.code, status: known.status, message: known.message, extra: known.extra };
}

async function callFree(tool: string, data: Record<string, unknown>, request: Request): Promise<SkillOutcome> {
  const def = mcpTool(tool);
  if (!def) throw new Error(`free skill ${tool} has no MCP tool`);
  const result = await def.call(asArguments(data), { request });
  const text = (result.content[0] as { text?: string } | undefined)?.text ?? "null";
  if (!result.isError) return { kind: "ok", value: result.structuredContent ?? JSON.parse(text), access: null, settlement: null };
  const body = JSON.parse(text) as { detail?: ValidationIssue[]; error?: { code: string; message: string; status: number } & Record<string, unknown> };
  if (body.detail) return { kind: "invalid", detail: relocate(body.detail) };
  const { code = "service_unavailable", message = "", status = 503, ...extra } = body.error ?? {};
  return { kind: "error", code, status, message, extra };
}

/**
 * Runs `skill` with the parameters of the message's data part and the credential of its
 * metadata. Never throws: every failure is an outcome (unexpected ones are logged as
 * 503 service_unavailable by toApiError, and nothing is charged).
 */
export async function callSkill(skill: A2aSkill, data: Record<string, unknown>, credential: Credential, request: Request): Promise<SkillOutcome> {
  try {
    if (skill.free) return await callFree(skill.tool, data, request);
    const product = skill.product;
    const { raw } = parseArguments(product.params, false, asArguments(data));
    const result = await callProduct({
      product,
      surface: "a2a",
      credential,
      params: raw,
      paramsAt: WHERE,
      resource: `${baseUrl(request)}${A2A_REST_PATH}#${skill.id}`,
      clientIp: clientIp(request),
    });
    const timing = result.timing;
    if (result.kind === "refused") return { ...refused(result.refusal), timing };
    if (result.kind === "failed") return { ...failure(result.error, { skill: skill.id }), timing };
    const meta = accessMeta(result.outcome);
    return { kind: "ok", value: result.value, access: meta["echo/access"] as Record<string, unknown>, settlement: (result.outcome.payment as Record<string, unknown> | null) ?? null, timing };
  } catch (err) {
    return failure(err, { skill: skill.id });
  }
}
