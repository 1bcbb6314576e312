/**
 * Query strings → the raw record the catalog's zod schemas validate. A declared
 * parameter given more than once (`tickers=A&tickers=B`) is refused with a spec 2.6
 * 422 naming it: taking the first or the last value silently would serve, and charge
 * for, data the caller may not have meant. Names a route does not declare are ignored
 * as before (cache busters and tracking tags are harmless).
 */
import { ValidationError, type ValidationIssue } from "@/lib/errors";

/** The `loc[0]` of a repeated query parameter's issue. */
const WHERE = "query";

/**
 * The spec 2.6 issue for a parameter sent `values.length` times; `where` is "query" on
 * HTTP and "arguments" for an MCP tool call.
 */
export function repeatedParamIssue(name: string, values: readonly unknown[], where = WHERE): ValidationIssue {
  return {
    loc: [where, name],
    msg: `Give '${name}' once: it was given ${values.length} times`,
    type: "repeated_parameter",
    input: [...values],
    ctx: { count: values.length },
  };
}

/**
 * One value per name from `url`'s query; throws a 422 ValidationError listing every
 * name of `declared` that appears more than once.
 */
export function queryRecord(url: URL, declared: Iterable<string>): Record<string, string> {
  const out: Record<string, string> = {};
  const issues: ValidationIssue[] = [];
  for (const name of declared) {
    const values = url.searchParams.getAll(name);
    if (values.length > 1) issues.push(repeatedParamIssue(name, values));
    if (values.length > 0) out[name] = values[0]!;
  }
  if (issues.length) throw new ValidationError(issues);
  return out;
}
