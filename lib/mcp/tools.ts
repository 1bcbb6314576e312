/**
 * The 18 MCP tools (spec 4.5), generated from the catalog: the two free tools
 * (get_xlm_sentiment, get_free_api_key) and one paid tool per catalog product that
 * declares `tool` (name, title, tool price). Descriptions state the price, input
 * schemas come from the products' parameter docs, output schemas from their zod output
 * (for paid tools: that, or the payment requirement, which an isError result carries as
 * structured content).
 * A paid call passes through the same access gate and handler as the HTTP path, at the
 * tool price.
 */
import { z } from "zod";
import type { CallToolResult, ToolAnnotations } from "@modelcontextprotocol/server";
import { productById } from "@/lib/catalog/lookup";
import { freeKeyToolDecl, paidToolProducts, sentimentToolDecl } from "@/lib/mcp/free-tools";
import type { AnyProduct } from "@/lib/catalog/types";
import { toolTitle } from "@/lib/catalog/types";
import { MCP_PAYMENT_META_KEY, credentialFromToolArgs } from "@/lib/access/credentials";
import { callProduct } from "@/lib/access/call";
import { FREE_KEY_PARAMS, mintFreeKey } from "@/lib/access/free-key";
import { xlmSnapshotSchema } from "@/lib/market/xlm/snapshot";
import { freeSnapshot } from "@/lib/catalog/free-snapshot";
import { usdLabel } from "@/lib/payments/price";
import { paymentMethodsVersion } from "@/lib/payments/methods/registry";
import { paymentFacts } from "@/lib/discovery/service";
import { clientIp } from "@/lib/http/client-ip";
import { baseUrl } from "@/lib/http/base-url";
import { inputSchemaFor, parseArguments, type JsonSchema } from "@/lib/mcp/arguments";
import { okResult, paidOutputSchema, renderToolCall, resultForError } from "@/lib/mcp/results";
import { MCP_PATH } from "@/lib/mcp/info";
import { FREE_TOOLS } from "@/lib/catalog/free";

type PaymentFacts = ReturnType<typeof paymentFacts>;

/** What a tool call knows about its transport. */
export interface ToolCallContext {
  /** The HTTP request carrying the call (client IP, base URL). */
  request?: Request;
  /** `params._meta` of the call (x402 MCP binding: `x402/payment`). */
  meta?: Record<string, unknown>;
}

export interface McpToolDef {
  name: string;
  title: string;
  description: string;
  /** Tool price in USD as the catalog writes it; "0" for the free tools. */
  price: string;
  free: boolean;
  /** The HTTP path of the same product (spec 4.5 "Path"), or null. */
  endpoint: string | null;
  product: AnyProduct | null;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema | null;
  annotations: ToolAnnotations;
  call(args: unknown, ctx: ToolCallContext): Promise<CallToolResult>;
}

/** The tool's output schema as JSON Schema (no `$schema`: clients' draft-07 validators reject a 2020-12 meta-schema reference). */
function outputJsonSchema(schema: z.ZodType): JsonSchema {
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io: "output", unrepresentable: "any" }) as JsonSchema;
  delete json.$schema;
  return json;
}

const DATA_ANNOTATIONS = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true } as const;

/** "an x402 payment" when an x402 method is accepted, "a per-call payment" for other methods (XLM with a memo), null for none. */
function paymentNoun(pay: PaymentFacts): string | null {
  return pay.x402.length > 0 ? "an x402 payment" : pay.perCall ? "a per-call payment" : null;
}

/** A paid tool's description: price, and the credentials this instance accepts for it. */
function paidDescription(p: AnyProduct, pay: PaymentFacts): string {
  const tool = p.tool!;
  const price = usdLabel(tool.price);
  const noun = paymentNoun(pay);
  const payment = noun ? `${noun} of exactly ${price} ("payment" argument or _meta["x402/payment"])` : null;
  const how =
    p.kind === "bundle"
      ? payment
        ? `Pay with ${payment}; bundle tokens and free keys cannot buy bundles.`
        : "Bundles are bought with a per-call payment, which this instance does not take; bundle tokens and free keys cannot buy bundles."
      : `Credentials: ${payment ? `${payment}, ` : ""}a prepaid "bundle_token" (${p.credits} credit${p.credits === 1 ? "" : "s"} per call)${p.freeTier ? ', or a free-tier "api_key"' : ""}.`;
  const methods = pay.methods.map((m) => m.label);
  const via = methods.length > 0 ? ` (${methods.join(" or ")})` : "";
  return `${p.description} Price: ${price} per call${via}. ${how} Without a credential the result is the payment requirement; nothing is charged unless the call succeeds. Same data as GET ${p.path}.`;
}

/** Shown to clients after `initialize`: how paying works on this server (the per-call methods from the payment-method registry). */
export function mcpInstructions(): string {
  current();
  return tools!.instructions;
}

function instructionsFor(pay: PaymentFacts): string {
  const noun = paymentNoun(pay);
  const methods = pay.methods.map((m) => m.label).join(" or ");
  return [
    `Crypto market intelligence (XLM focus) for agents. ${FREE_TOOLS.sentiment} and ${FREE_TOOLS.freeKey} are free.`,
    "Every other tool states its price in its description. Call it with one credential:",
    `"api_key" (free tier, from ${FREE_TOOLS.freeKey}; standard tools only), "bundle_token" (prepaid credits from ${productById("bundle").tool!.name})${noun ? "," : "."}`,
    ...(noun ? [`or ${noun} (${methods}) for exactly the tool price: a base64 x402 PaymentPayload in "payment" or the payload object in _meta["x402/payment"].`] : ["This instance takes no per-call payment."]),
    `Without a credential the tool result is the payment requirement (endpoint, price, instruction${pay.x402.length > 0 ? ", x402 accepts[]" : ""}); nothing is charged unless the call succeeds.`,
  ].join(" ");
}

function paidTool(p: AnyProduct, pay: PaymentFacts): McpToolDef {
  const tool = p.tool!;
  const title = toolTitle(tool);
  return {
    name: tool.name,
    title,
    description: paidDescription(p, pay),
    price: tool.price,
    free: false,
    endpoint: p.path,
    product: p,
    inputSchema: inputSchemaFor(p.params, true, { x402: pay.x402.map((m) => m.label), others: pay.others.map((m) => m.label) }),
    outputSchema: paidOutputSchema(outputJsonSchema(p.output)),
    annotations:
      p.kind === "bundle"
        ? { title, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true }
        : { title, ...DATA_ANNOTATIONS },
    call: async (args, ctx) => {
      try {
        const { raw, credentials } = parseArguments(p.params, true, args);
        const result = await callProduct({
          product: p,
          surface: "mcp",
          credential: credentialFromToolArgs(credentials, ctx.meta?.[MCP_PAYMENT_META_KEY]),
          params: raw,
          paramsAt: "arguments",
          resource: `${baseUrl(ctx.request)}${MCP_PATH}#${tool.name}`,
          clientIp: ctx.request ? clientIp(ctx.request) : "unknown",
        });
        return renderToolCall(result, { tool: tool.name });
      } catch (err) {
        return resultForError(err, { tool: tool.name });
      }
    },
  };
}

function sentimentTool(): McpToolDef {
  const decl = sentimentToolDecl();
  return {
    ...decl,
    price: "0",
    free: true,
    product: null,
    inputSchema: inputSchemaFor({}, false),
    outputSchema: outputJsonSchema(xlmSnapshotSchema),
    annotations: { title: decl.title, ...DATA_ANNOTATIONS },
    call: async (args) => {
      try {
        parseArguments({}, false, args);
        return okResult(await freeSnapshot());
      } catch (err) {
        return resultForError(err, { tool: decl.name });
      }
    },
  };
}

function freeKeyTool(): McpToolDef {
  const decl = freeKeyToolDecl();
  return {
    ...decl,
    price: "0",
    free: true,
    product: null,
    inputSchema: inputSchemaFor(FREE_KEY_PARAMS, false),
    outputSchema: null,
    annotations: { title: decl.title, readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    call: async (args, ctx) => {
      try {
        const { raw } = parseArguments(FREE_KEY_PARAMS, false, args);
        const { body } = await mintFreeKey(raw, ctx.request ? clientIp(ctx.request) : "unknown", "arguments");
        return okResult(body);
      } catch (err) {
        return resultForError(err, { tool: decl.name });
      }
    },
  };
}

/** The tool list and instructions for one version of the payment-method registry (they name its methods). */
let tools: { version: string; list: readonly McpToolDef[]; instructions: string } | undefined;

function current(): void {
  const version = paymentMethodsVersion();
  if (tools?.version === version) return;
  const pay = paymentFacts();
  tools = { version, list: [sentimentTool(), freeKeyTool(), ...paidToolProducts().map((p) => paidTool(p, pay))], instructions: instructionsFor(pay) };
}

/**
 * All tools in listing order: the free ones, then the catalog's paid tools in catalog
 * order. Built once per set of usable payment methods, so a method that turns usable
 * later (Solana, once the remote facilitator named its fee payer) shows in the next
 * tools/list. The same array is returned while that set holds (lib/mcp/server.ts keys
 * its registrations on it).
 */
export function mcpTools(): readonly McpToolDef[] {
  current();
  return tools!.list;
}

export function mcpTool(name: string): McpToolDef | undefined {
  return mcpTools().find((t) => t.name === name);
}
