/**
 * The catalog's shape. One `Product` per sellable thing: an HTTP path and/or an MCP
 * tool, both prices (they differ, spec 4.1 vs 4.5), credit cost, parameters, output
 * schema, cache TTL and the handler. Every surface is generated from these entries.
 */
import type { z } from "zod";
import type { ParamSet, ParamValues } from "@/lib/catalog/params";

/** Decimal USD amount as written in the spec, e.g. "0.005". */
export type UsdPrice = string;

export interface HandlerContext {
  /** Request time; handlers use it instead of Date.now() so responses are consistent. */
  now: Date;
  /** The verified (not yet settled) payment of this call, for products that record it. */
  payment?: { id: string; payer: string | null } | null;
}

export interface ToolDecl {
  /** MCP tool name (spec 4.5). */
  name: string;
  /** Tool price in USD (the tool declaration of spec 4.5). */
  price: UsdPrice;
  /** Short title shown to MCP clients; `toolTitle` appends the price. */
  label: string;
}

/** The MCP tool title: its label and its price, e.g. "Market breadth ($0.10)". */
export function toolTitle(tool: ToolDecl): string {
  return `${tool.label} ($${tool.price})`;
}

export interface Product<P extends ParamSet = ParamSet, O extends z.ZodType = z.ZodType> {
  /** Stable id, also the cache and audit key, e.g. "sentiment-report". */
  id: string;
  /** HTTP path under the base URL, e.g. "/v1/sentiment-report". */
  path: string;
  title: string;
  /** One or two sentences for humans and agents. */
  description: string;
  tags: string[];
  /** "data" products run a handler; "bundle" products sell credits. */
  kind: "data" | "bundle";
  /** Price of the HTTP operation (spec 4.1 "HTTP price"). */
  httpPrice: UsdPrice;
  /** The MCP tool on the same path, if any (spec 4.5). */
  tool: ToolDecl | null;
  /** Credits a call consumes from a bundle (spec 8: 10 credits buy 10 standard calls or 5 premium reports). */
  credits: number;
  /** Bundle products: credits one purchase sells (configurable). */
  creditsSold?: () => number;
  /** Whether the free-tier API key covers this product ("standard endpoints", spec 8). */
  freeTier: boolean;
  params: P;
  output: O;
  /**
   * A real response of this product (a call against the upstream simulator, arrays cut
   * to their first entries): the x402 Bazaar's `info.output.example`. A test checks that
   * it passes `output` and has the shape a call returns today.
   */
  example: z.output<O>;
  /** Seconds a computed response is reused for identical parameters. */
  cacheTtlSeconds: number;
  /** Upstream providers the handler depends on (health, docs). */
  sources: string[];
  handler: (params: ParamValues<P>, ctx: HandlerContext) => Promise<z.input<O>>;
  /**
   * Top-level output fields that are secrets (a bundle's token): the answer kept with a
   * payment for presenting it again holds them sealed (lib/payments/answers.ts).
   */
  secrets?: readonly string[];
  /** Undoes the handler's side effects when the charge fails after it ran. */
  onCommitFailed?: (value: z.output<O>) => Promise<void>;
}

/** Type-preserving identity for catalog entries. */
export function defineProduct<P extends ParamSet, O extends z.ZodType>(p: Product<P, O>): Product<P, O> {
  return p;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyProduct = Product<any, any>;
