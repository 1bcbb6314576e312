/**
 * /spec.pdf: the API description as a PDF, generated with pdf-lib and the standard PDF
 * fonts (no font files: the text stays extractable), from the same sources as
 * /openapi.json. One section per operation: method, path, prices, accepted
 * credentials, parameters and a response summary (the 200 fields from the output
 * schema, then the error answers). The /mcp operations are read from the OpenAPI
 * document itself, one section per method and path. Kept for the few most recent base
 * URLs (a small LRU), so requests with many different Host headers cannot grow memory.
 */
import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from "pdf-lib";
import type { AnyProduct } from "@/lib/catalog/types";
import type { ParamDoc } from "@/lib/catalog/params";
import { FREE_ENDPOINTS, type FreeEndpoint } from "@/lib/catalog/free";
import { FREE_KEY_PARAMS } from "@/lib/access/free-key";
import { usdLabel } from "@/lib/payments/price";
import { DISCOVERY_DOCUMENTS, docPath } from "@/lib/discovery/documents";
import { freeEndpoint } from "@/lib/catalog/lookup";
import { buildOpenApi, jsonSchemaOf } from "@/lib/discovery/openapi";
import { SERVICE, acceptedCredentials, freeQuota, paidProducts, paramDocs, paymentFacts } from "@/lib/discovery/service";
import { toolList } from "@/lib/discovery/tools";

const PAGE = { w: 595.28, h: 841.89, margin: 50 };
const INK = rgb(0.1, 0.1, 0.12);
const MUTED = rgb(0.35, 0.35, 0.4);

/** Characters the standard fonts (WinAnsi) cannot encode, replaced by readable ASCII. */
const REPLACEMENTS: Record<string, string> = { "→": "->", "←": "<-", "≥": ">=", "≤": "<=", "×": "x", "−": "-", "≈": "~", "∈": "in", "√": "sqrt", "Δ": "delta", "σ": "sigma" };

class Writer {
  private page!: PDFPage;
  private y = 0;
  private readonly charset: Set<number>;

  constructor(
    private readonly doc: PDFDocument,
    private readonly fonts: { regular: PDFFont; bold: PDFFont; mono: PDFFont },
  ) {
    this.charset = new Set(fonts.regular.getCharacterSet());
    this.newPage();
  }

  private newPage(): void {
    this.page = this.doc.addPage([PAGE.w, PAGE.h]);
    this.y = PAGE.h - PAGE.margin;
  }

  private clean(text: string): string {
    let out = "";
    for (const ch of text.replace(/[\r\t]/g, " ")) {
      const r = REPLACEMENTS[ch];
      if (r !== undefined) out += r;
      else out += this.charset.has(ch.codePointAt(0)!) ? ch : "?";
    }
    return out;
  }

  private wrap(text: string, font: PDFFont, size: number, width: number): string[] {
    const lines: string[] = [];
    for (const para of this.clean(text).split("\n")) {
      let line = "";
      for (const word of para.split(/ +/)) {
        const candidate = line ? `${line} ${word}` : word;
        if (font.widthOfTextAtSize(candidate, size) <= width || !line) {
          line = candidate;
          // A single word wider than the line (a long URL) is cut where it overflows.
          while (font.widthOfTextAtSize(line, size) > width && line.length > 1) {
            let cut = line.length - 1;
            while (cut > 1 && font.widthOfTextAtSize(line.slice(0, cut), size) > width) cut--;
            lines.push(line.slice(0, cut));
            line = line.slice(cut);
          }
        } else {
          lines.push(line);
          line = word;
        }
      }
      lines.push(line);
    }
    return lines;
  }

  /** Writes wrapped text; starts a new page when the next line would not fit. */
  text(text: string, o: { size?: number; font?: "regular" | "bold" | "mono"; indent?: number; gap?: number; color?: ReturnType<typeof rgb> } = {}): void {
    const size = o.size ?? 9.5;
    const font = this.fonts[o.font ?? "regular"];
    const indent = o.indent ?? 0;
    const leading = size * 1.35;
    for (const line of this.wrap(text, font, size, PAGE.w - 2 * PAGE.margin - indent)) {
      if (this.y - leading < PAGE.margin + 20) this.newPage();
      this.y -= leading;
      this.page.drawText(line, { x: PAGE.margin + indent, y: this.y, size, font, color: o.color ?? INK });
    }
    this.y -= o.gap ?? 2;
  }

  /** A section heading kept together with at least a few lines of its body. */
  heading(text: string, size = 13): void {
    if (this.y < PAGE.margin + 120) this.newPage();
    this.y -= size * 0.6;
    this.text(text, { size, font: "bold", gap: 4 });
  }

  space(h = 8): void {
    this.y -= h;
  }

  /** "Page n of N" on every page, once everything is written. */
  footers(): void {
    const pages = this.doc.getPages();
    pages.forEach((p, i) => {
      const label = `${SERVICE.title} API ${SERVICE.apiVersion} - page ${i + 1} of ${pages.length}`;
      p.drawText(label, { x: PAGE.margin, y: PAGE.margin - 20, size: 8, font: this.fonts.regular, color: MUTED });
    });
  }
}

function paramLines(w: Writer, params: Array<[string, ParamDoc]>): void {
  if (!params.length) {
    w.text("Parameters: none.", { indent: 10 });
    return;
  }
  w.text("Parameters (query):", { indent: 10, font: "bold" });
  for (const [name, d] of params) {
    const facts = [d.type, d.required ? "required" : "optional"];
    if (d.default !== undefined && d.default !== "") facts.push(`default ${d.default}`);
    if (d.minimum !== undefined) facts.push(`${d.minimum}..${d.maximum}`);
    if (d.enum) facts.push(`one of ${d.enum.join(", ")}`);
    if (d.maxLength !== undefined) facts.push(`max ${d.maxLength} chars`);
    w.text(`${name} (${facts.join(", ")}): ${d.description}`, { indent: 20 });
  }
}

function responseFields(w: Writer, p: AnyProduct): void {
  const schema = jsonSchemaOf(p.output) as { properties?: Record<string, { type?: unknown; description?: string }> };
  w.text("200 response (application/json) fields:", { indent: 10, font: "bold" });
  for (const [name, s] of Object.entries(schema.properties ?? {})) {
    const type = Array.isArray(s.type) ? s.type.join(" | ") : (s.type as string | undefined) ?? "value";
    w.text(`${name} (${type})${s.description ? `: ${s.description}` : ""}`, { indent: 20, size: 8.5 });
  }
}

function productSection(w: Writer, p: AnyProduct): void {
  w.heading(`GET ${p.path}`);
  w.text(p.title, { font: "bold" });
  w.text(p.description);
  w.text(`Price: ${usdLabel(p.httpPrice)} per HTTP call.${p.tool ? ` MCP tool ${p.tool.name}: ${usdLabel(p.tool.price)}.` : " No MCP tool."}`, { indent: 10 });
  w.text(`Accepts: ${acceptedCredentials(p).join(", ")}.${p.kind === "data" ? ` Bundle cost: ${p.credits} credit(s).` : ""}`, { indent: 10 });
  paramLines(w, paramDocs(p.params));
  responseFields(w, p);
  const errors = ["402 payment required (x402 requirement in body and PAYMENT-REQUIRED header; endpoint, price, instruction)"];
  if (paramDocs(p.params).length) errors.push("422 invalid parameter (detail[] with loc, msg, type, input, ctx)");
  if (p.kind === "data" && p.freeTier) errors.push("429 free-tier quota exhausted (Retry-After)");
  errors.push("503 upstream or service unavailable, nothing charged (Retry-After)");
  w.text(`Errors: ${errors.join("; ")}.`, { indent: 10 });
  w.space();
}

function freeSection(w: Writer, e: FreeEndpoint): void {
  w.heading(`GET ${e.path}`);
  w.text(`${e.title}${e.internal ? " (internal)" : ""}`, { font: "bold" });
  w.text(e.description);
  w.text("Price: free.", { indent: 10 });
  paramLines(w, e.path.endsWith("/free-key") ? paramDocs(FREE_KEY_PARAMS) : []);
  w.space();
}

interface OpenApiOperation {
  summary: string;
  description: string;
  parameters?: Array<{ name: string; in: string; required: boolean; description: string }>;
  requestBody?: { content: Record<string, { schema: { properties?: Record<string, { description?: string }> } }> };
  responses: Record<string, { description?: string; $ref?: string }>;
}

type OpenApiDoc = { paths: Record<string, Record<string, OpenApiOperation>>; components: { responses: Record<string, { description: string }> } };

/** A section for an operation read from the OpenAPI document (the /mcp methods, the free-key POST). */
function operationSection(w: Writer, api: OpenApiDoc, method: string, path: string, op: OpenApiOperation, price: string): void {
  w.heading(`${method.toUpperCase()} ${path}`);
  w.text(op.summary, { font: "bold" });
  w.text(op.description.split("\n\n")[0]!);
  w.text(`Price: ${price}`, { indent: 10 });
  w.text("Parameters:", { indent: 10, font: "bold" });
  for (const p of op.parameters ?? []) w.text(`${p.name} (${p.in}, ${p.required ? "required" : "optional"}): ${p.description}`, { indent: 20 });
  const body = op.requestBody ? Object.entries(op.requestBody.content) : [];
  if (body.length) {
    const fields = Object.entries(body[0]![1].schema.properties ?? {});
    w.text(`Body (${body.map(([type]) => type).join(" or ")}): ${fields.map(([name, f]) => `${name}${f.description ? ` - ${f.description}` : ""}`).join("; ") || "none"}`, { indent: 20 });
  }
  const answers = Object.entries(op.responses).map(([status, r]) => {
    const name = r.$ref?.split("/").at(-1);
    const text = r.description ?? (name ? api.components.responses[name]?.description : undefined);
    if (!text) throw new Error(`no wording for response ${r.$ref} of ${method} ${path}`);
    return `${status} ${text.replace(/\.$/, "")}`;
  });
  w.text(`Answers: ${answers.join("; ")}.`, { indent: 10 });
  w.space();
}

async function build(base: string): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`${SERVICE.title} API ${SERVICE.apiVersion}`);
  doc.setSubject(SERVICE.summary);
  doc.setAuthor(SERVICE.title);
  doc.setProducer("pdf-lib");
  doc.setKeywords(["x402", "MCP", "OpenAPI", "XLM", "market data"]);
  const w = new Writer(doc, {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
    mono: await doc.embedFont(StandardFonts.Courier),
  });
  const pay = paymentFacts();

  w.text(`${SERVICE.title} API`, { size: 20, font: "bold", gap: 6 });
  w.text(`API version ${SERVICE.apiVersion} - OpenAPI ${SERVICE.openapiVersion} - MCP server ${SERVICE.mcpServerVersion} (protocol ${SERVICE.mcpProtocolVersion})`, { color: MUTED });
  w.text(`Base URL: ${base}`, { font: "mono", size: 9 });
  w.space();
  w.text(SERVICE.description);

  w.heading("Authentication and payment", 15);
  w.text("No account is needed: payment is the credential. Any one of these satisfies a paid operation:");
  w.text(`- x402 per call: scheme exact, USDC on ${pay.network} (asset ${pay.asset.address}). A call without a credential answers 402 with the requirement; sign it and repeat with PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (v1). Settled only after the call succeeded.`, { indent: 10 });
  w.text("- Prepaid bundle token: header X-Bundle-Token (or Authorization: Bearer); each call consumes its credit cost.", { indent: 10 });
  w.text(`- Free-tier API key: header X-Api-Key (GET ${freeEndpoint("/v1/free-key").path}; ${freeQuota()} calls per UTC day on standard endpoints).`, { indent: 10 });
  w.text(`Each paid operation in ${docPath("/openapi.json")} declares its payment offer under x-payment-info.`);

  w.heading("Paid operations", 15);
  for (const p of paidProducts()) productSection(w, p);

  const api = buildOpenApi(base) as unknown as OpenApiDoc;
  const paths = api.paths;
  w.heading("Free endpoints", 15);
  for (const e of FREE_ENDPOINTS) {
    freeSection(w, e);
    for (const [method, op] of Object.entries(paths[e.path] ?? {})) if (method !== "get") operationSection(w, api, method, e.path, op, "free.");
  }
  w.heading("GET /");
  w.text("Service info as JSON for agents (Accept: application/json); the home page for browsers. Free.");

  w.heading("Discovery documents", 15);
  for (const d of DISCOVERY_DOCUMENTS) {
    w.heading(`GET ${d.path}`, 11);
    w.text(`${d.title} (${d.mediaType}). ${d.description} Free.`);
  }

  w.heading("MCP tool interface", 15);
  w.text(`MCP over ${SERVICE.mcpTransport} at ${base}${SERVICE.mcpPath}, protocol ${SERVICE.mcpProtocolVersion}. Paid tools take payment, bundle_token or api_key as arguments and return the payment requirement as their result when none is valid.`);
  for (const path of [SERVICE.mcpPath, `${SERVICE.mcpPath}/{path}`]) {
    const item = paths[path];
    if (!item) throw new Error(`OpenAPI has no ${path}`);
    for (const [method, op] of Object.entries(item)) operationSection(w, api, method, path, op, "free (paid tools are paid per tools/call).");
  }
  w.heading("MCP tools", 13);
  for (const t of toolList()) {
    w.text(`${t.name} - ${t.free ? "free" : usdLabel(t.price)}${t.path ? ` - GET ${t.path}` : ""}`, { font: "bold", size: 9 });
    w.text(t.description, { indent: 10, size: 8.5 });
  }

  w.footers();
  return doc.save();
}

/** Base URLs whose PDF is kept (one per configured or proxied host in practice). */
export const PDF_CACHE_MAX = 4;

/** Least-recently-used first (a Map iterates in insertion order). */
const cache = new Map<string, Promise<Uint8Array>>();

/** The PDF for the instance at `base`, built once per base URL while it stays among the last PDF_CACHE_MAX used. */
export function specPdf(base: string): Promise<Uint8Array> {
  let p = cache.get(base);
  if (p) {
    cache.delete(base);
  } else {
    p = build(base);
    p.catch(() => cache.delete(base));
  }
  cache.set(base, p);
  while (cache.size > PDF_CACHE_MAX) cache.delete(cache.keys().next().value!);
  return p;
}

/** How many PDFs are held (for the bound's test). */
export function specPdfCacheSize(): number {
  return cache.size;
}
