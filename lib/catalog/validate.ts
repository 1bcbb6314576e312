/**
 * Validates raw parameters (query string or MCP string arguments) with a product's
 * zod schema and turns failures into spec 2.6 `detail[]` entries.
 */
import type { z } from "zod";
import { ValidationError, type ValidationIssue } from "@/lib/errors";

type ZodIssue = z.core.$ZodIssue & { input?: unknown; params?: { pydantic?: { type: string; msg: string; ctx?: Record<string, unknown> } } };

/** Maps zod issues to spec 2.6 entries, locating them under `where` ("query", "path", "body"...). */
export function toValidationIssues(issues: readonly z.core.$ZodIssue[], where: string): ValidationIssue[] {
  return issues.map((raw) => {
    const issue = raw as ZodIssue;
    const loc = [where, ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))];
    const py = issue.code === "custom" ? issue.params?.pydantic : undefined;
    if (py) {
      return { loc, msg: py.msg, type: py.type, input: issue.input ?? null, ...(py.ctx ? { ctx: py.ctx } : {}) };
    }
    if (issue.code === "invalid_type") {
      const absent = issue.input === undefined;
      return absent
        ? { loc, msg: "Field required", type: "missing", input: null }
        : { loc, msg: `Input should be a valid ${issue.expected}`, type: `${issue.expected}_type`, input: issue.input ?? null };
    }
    if (issue.code === "unrecognized_keys") {
      return { loc, msg: "Extra inputs are not permitted", type: "extra_forbidden", input: issue.keys };
    }
    return { loc, msg: issue.message, type: "value_error", input: issue.input ?? null, ctx: { error: issue.message } };
  });
}

/** Parses `raw` with `schema`; throws a 422 ValidationError on failure. */
export function validateOrThrow<T>(schema: z.ZodType<T>, raw: unknown, where: string): T {
  const parsed = schema.safeParse(raw, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw new ValidationError(toValidationIssues(parsed.error.issues, where));
}

/**
 * Throws a 422 for one parameter, for checks that span several parameters (e.g. an
 * address format that depends on `chain`). `loc` is ["query", name]; the MCP surface
 * reports the same issue under "arguments".
 */
export function invalidParam(name: string, input: unknown, issue: { type: string; msg: string; ctx?: Record<string, unknown> }): never {
  throw new ValidationError([{ loc: ["query", name], msg: issue.msg, type: issue.type, input: input ?? null, ...(issue.ctx ? { ctx: issue.ctx } : {}) }]);
}
