/**
 * Declarative parameters. One `Param` carries both the documentation facts (type,
 * default, bounds, allowed values: used by OpenAPI, MCP input schemas and the pages)
 * and the zod schema that validates the raw string from a query string or an MCP
 * argument. Failures carry pydantic-style `type`/`ctx` so 422 bodies match spec 2.6.
 */
import { z } from "zod";

export interface ParamDoc {
  /** JSON type on the HTTP surface (MCP arguments are always strings). */
  type: "integer" | "string";
  description: string;
  required: boolean;
  default?: string | number;
  minimum?: number;
  maximum?: number;
  enum?: string[];
  pattern?: string;
  maxLength?: number;
  example?: string;
}

export interface Param<T> {
  doc: ParamDoc;
  schema: z.ZodType<T, string | undefined>;
}

/** Issue payload understood by `toValidationIssues`. */
interface PydanticIssue {
  type: string;
  msg: string;
  ctx?: Record<string, unknown>;
}

function reject(ctx: z.RefinementCtx, input: unknown, issue: PydanticIssue): typeof z.NEVER {
  ctx.addIssue({ code: "custom", message: issue.msg, input, params: { pydantic: issue } });
  return z.NEVER;
}

const missing: PydanticIssue = { type: "missing", msg: "Field required" };

/** "'a', 'b' or 'c'" as pydantic writes expected literals. */
export function expectedList(values: string[]): string {
  const quoted = values.map((v) => `'${v}'`);
  return quoted.length <= 1 ? (quoted[0] ?? "") : `${quoted.slice(0, -1).join(", ")} or ${quoted.at(-1)}`;
}

const MAX_RAW = 512;

function rawString(v: string | undefined, ctx: z.RefinementCtx, required: boolean, fallback?: string): string | typeof z.NEVER {
  if (v === undefined || v === "") {
    if (fallback !== undefined) return fallback;
    if (required) return reject(ctx, null, missing);
    return "";
  }
  if (v.length > MAX_RAW) {
    return reject(ctx, v.slice(0, 64) + "…", {
      type: "string_too_long",
      msg: `String should have at most ${MAX_RAW} characters`,
      ctx: { max_length: MAX_RAW },
    });
  }
  return v.trim();
}

/** Integer parameter given as a string (HTTP query or MCP string argument). */
export function intParam(o: { description: string; min: number; max: number; default: number }): Param<number> {
  const schema = z
    .string()
    .optional()
    .transform((v, ctx) => {
      const s = rawString(v, ctx, false, String(o.default));
      if (s === z.NEVER) return z.NEVER;
      if (!/^[+-]?\d+$/.test(s)) {
        return reject(ctx, v, { type: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer" });
      }
      const n = Number(s);
      if (n < o.min) return reject(ctx, v, { type: "greater_than_equal", msg: `Input should be greater than or equal to ${o.min}`, ctx: { ge: o.min } });
      if (n > o.max) return reject(ctx, v, { type: "less_than_equal", msg: `Input should be less than or equal to ${o.max}`, ctx: { le: o.max } });
      return n;
    });
  return {
    doc: { type: "integer", description: o.description, required: false, default: o.default, minimum: o.min, maximum: o.max },
    schema,
  };
}

/** One of a fixed set of values (case-insensitive; normalised to the listed spelling). */
export function enumParam<const V extends string>(o: {
  description: string;
  values: readonly V[];
  default: V;
  /** Extra accepted spellings, e.g. { ethereum: "eth" }. */
  aliases?: Record<string, V>;
}): Param<V> {
  const byLower = new Map<string, V>(o.values.map((v) => [v.toLowerCase(), v]));
  for (const [alias, v] of Object.entries(o.aliases ?? {})) byLower.set(alias.toLowerCase(), v);
  const schema = z
    .string()
    .optional()
    .transform((v, ctx) => {
      const s = rawString(v, ctx, false, o.default);
      if (s === z.NEVER) return z.NEVER;
      const hit = byLower.get(s.toLowerCase());
      if (!hit) {
        const expected = expectedList([...o.values]);
        return reject(ctx, v, { type: "literal_error", msg: `Input should be ${expected}`, ctx: { expected } });
      }
      return hit;
    });
  return {
    doc: { type: "string", description: o.description, required: false, default: o.default, enum: [...o.values] },
    schema,
  };
}

/** Comma-separated list drawn from `allowed`, de-duplicated, at most `maxItems`. */
export function listParam(o: {
  description: string;
  allowed: readonly string[];
  default: readonly string[];
  maxItems: number;
  normalize?: (s: string) => string;
}): Param<string[]> {
  const allowed = new Set(o.allowed);
  const norm = o.normalize ?? ((s: string) => s.toUpperCase());
  const schema = z
    .string()
    .optional()
    .transform((v, ctx) => {
      const s = rawString(v, ctx, false, o.default.join(","));
      if (s === z.NEVER) return z.NEVER;
      const items = [...new Set(s.split(",").map((t) => norm(t.trim())).filter(Boolean))];
      if (items.length === 0) {
        return reject(ctx, v, { type: "too_short", msg: "List should have at least 1 item after validation, not 0", ctx: { field_type: "List", min_length: 1, actual_length: 0 } });
      }
      if (items.length > o.maxItems) {
        return reject(ctx, v, {
          type: "too_long",
          msg: `List should have at most ${o.maxItems} items after validation, not ${items.length}`,
          ctx: { field_type: "List", max_length: o.maxItems, actual_length: items.length },
        });
      }
      const unknown = items.filter((t) => !allowed.has(t));
      if (unknown.length) {
        const error = `unsupported ticker${unknown.length > 1 ? "s" : ""} ${unknown.map((u) => `'${u}'`).join(", ")}; supported: ${[...allowed].join(", ")}`;
        return reject(ctx, v, { type: "value_error", msg: `Value error, ${error}`, ctx: { error } });
      }
      return items;
    });
  return {
    doc: {
      type: "string",
      description: `${o.description} Comma-separated, at most ${o.maxItems}. Supported: ${[...o.allowed].join(", ")}.`,
      required: false,
      default: o.default.join(","),
      example: o.default.join(","),
    },
    schema,
  };
}

/** Free string matching `pattern` (after optional normalisation). */
export function stringParam(o: {
  description: string;
  pattern: RegExp;
  patternText?: string;
  required?: boolean;
  default?: string;
  maxLength?: number;
  example?: string;
  normalize?: (s: string) => string;
}): Param<string> {
  const maxLength = o.maxLength ?? 128;
  const schema = z
    .string()
    .optional()
    .transform((v, ctx) => {
      const s = rawString(v, ctx, o.required ?? false, o.default);
      if (s === z.NEVER) return z.NEVER;
      if (s.length > maxLength) {
        return reject(ctx, v, { type: "string_too_long", msg: `String should have at most ${maxLength} characters`, ctx: { max_length: maxLength } });
      }
      const n = o.normalize ? o.normalize(s) : s;
      if (!o.pattern.test(n)) {
        const pattern = o.patternText ?? o.pattern.source;
        return reject(ctx, v, { type: "string_pattern_mismatch", msg: `String should match pattern '${pattern}'`, ctx: { pattern } });
      }
      return n;
    });
  return {
    doc: {
      type: "string",
      description: o.description,
      required: o.required ?? false,
      ...(o.default !== undefined ? { default: o.default } : {}),
      pattern: o.patternText ?? o.pattern.source,
      maxLength,
      ...(o.example ? { example: o.example } : {}),
    },
    schema,
  };
}

/** Optional e-mail address (pydantic EmailStr-style errors); empty means none. */
export function emailParam(o: { description: string }): Param<string | null> {
  const schema = z
    .string()
    .optional()
    .transform((v, ctx) => {
      const s = rawString(v, ctx, false, "");
      if (s === z.NEVER) return z.NEVER;
      if (s === "") return null;
      const fail = (why: string) => reject(ctx, v, { type: "value_error", msg: `value is not a valid email address: ${why}`, ctx: { reason: why } });
      if (s.length > 254) return fail("The email address is too long.");
      const at = s.lastIndexOf("@");
      if (at < 1) return fail("An email address must have an @-sign.");
      const local = s.slice(0, at);
      const domain = s.slice(at + 1);
      if (local.length > 64 || !/^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+$/.test(local) || local.startsWith(".") || local.endsWith(".") || local.includes("..")) {
        return fail("The part before the @-sign is not valid.");
      }
      if (!/^(?=.{1,253}$)([A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/.test(domain)) {
        return fail("The part after the @-sign is not a valid domain name.");
      }
      return `${local}@${domain.toLowerCase()}`;
    });
  return { doc: { type: "string", description: o.description, required: false, default: "", maxLength: 254, example: "agent@example.com" }, schema };
}

export type ParamSet = Record<string, Param<unknown>>;
export type ParamValues<P extends ParamSet> = { [K in keyof P]: P[K] extends Param<infer T> ? T : never };

/** zod object validating a raw `{name: string | undefined}` record for a ParamSet. */
const built = new WeakMap<ParamSet, z.ZodType>();

/**
 * The validator of a parameter set, built once per set (parameter sets are static catalog
 * objects; zod compiles a fast path for each schema on first use, so rebuilding per call
 * would redo that work on every request).
 */
export function paramsSchema<P extends ParamSet>(params: P): z.ZodType<ParamValues<P>> {
  let schema = built.get(params);
  if (!schema) {
    const shape: Record<string, z.ZodType> = {};
    for (const [k, p] of Object.entries(params)) shape[k] = p.schema;
    schema = z.object(shape);
    built.set(params, schema);
  }
  return schema as unknown as z.ZodType<ParamValues<P>>;
}
