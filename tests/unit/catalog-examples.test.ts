/**
 * Every product's catalog example (the x402 Bazaar's `info.output.example`) is a real
 * response: it passes the product's output schema, as zod and as the JSON Schema the
 * Bazaar declaration carries, and has exactly the shape the handler returns today when
 * it is called with the declared example parameters against the upstream simulator
 * (same keys at every level, same JSON types; arrays compared by their first entry).
 */
import { afterAll, describe, expect, it } from "vitest";
import Ajv2020 from "ajv/dist/2020.js";
import { z } from "zod";
import { PRODUCTS } from "@/lib/catalog";
import { runProduct } from "@/lib/catalog/run";
import { paramsSchema } from "@/lib/catalog/params";
import { validateOrThrow } from "@/lib/catalog/validate";
import { exampleParams } from "@/lib/access/x402-extensions";
import { closeDb } from "@/lib/db/client";
import { useSimulator } from "../helpers/in-process";

useSimulator({ env: { DATA_DIR: "memory", CACHE_DISABLED: "1" } });
afterAll(async () => closeDb());

type Shape = string | Shape[] | { [k: string]: Shape };

/** The JSON shape of a value: its type, an object's keys with their shapes, an array's first entry. */
function shapeOf(v: unknown): Shape {
  if (v === null) return "null";
  if (Array.isArray(v)) return v.length ? [shapeOf(v[0])] : [];
  if (typeof v === "object") return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)).map(([k, x]) => [k, shapeOf(x)]));
  return typeof v;
}

/** `a` and `b` with an empty array on either side compared as equal (a list can be empty in one answer and not in another). */
function sameShape(a: Shape, b: Shape): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === 0 || b.length === 0 || sameShape(a[0]!, b[0]!);
  if (typeof a === "object" && typeof b === "object" && !Array.isArray(a) && !Array.isArray(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && sameShape(a[k]!, b[k]!));
  }
  return a === b;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });

describe("catalog examples", () => {
  it.each(PRODUCTS.map((p) => [p.id, p] as const))("%s: the example passes the output schema (zod and JSON Schema)", (_id, p) => {
    expect(p.output.safeParse(p.example).success).toBe(true);
    const schema = z.toJSONSchema(p.output, { target: "draft-2020-12", io: "output", unrepresentable: "any" });
    const validate = ajv.compile(schema);
    expect(validate(p.example), JSON.stringify(validate.errors?.slice(0, 3))).toBe(true);
  });

  it.each(PRODUCTS.map((p) => [p.id, p] as const))("%s: the example has the shape of a real call with the declared parameters", async (_id, p) => {
    const query = Object.fromEntries(Object.entries(exampleParams(p, true)).map(([k, v]) => [k, String(v)]));
    const payment = p.kind === "bundle" ? { id: crypto.randomUUID(), payer: null } : undefined;
    const value = await runProduct(p, validateOrThrow(paramsSchema(p.params), query, "query"), payment ? { payment } : {});
    const [expected, actual] = [shapeOf(p.example), shapeOf(value)];
    expect(sameShape(expected, actual), `example: ${JSON.stringify(expected)}\nreal:    ${JSON.stringify(actual)}`).toBe(true);
    // The attestation key and the bundles live in the database: the first of them opens it (migrations included).
  }, 120_000);
});
