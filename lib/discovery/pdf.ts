/**
 * /spec.pdf: the API description as a PDF, generated with pdf-lib from the same sources
 * as /openapi.json. One section per operation: method, path, prices, accepted
 * credentials, parameters and a response summary (the 200 fields from the output
 * schema, then the error answers). The /mcp operations are read from the OpenAPI
 * document itself, one section per method and path. Kept for the few most recent base
 * URLs (a small LRU), so requests with many different Host headers cannot grow memory.
 *
 * Text is set in DejaVu Sans with code in DejaVu Sans Mono, embedded as subsets (font
 * files in lib/discovery/fonts, see its LICENSE), so every reader shows the same glyphs
 * and the text stays extractable. Markdown code spans in the descriptions (`name`) are
 * drawn as code, in the monospaced font on a light background, never as backticks.
 */
import { readFileSync } from "node:fs";
import fontkit from "@pdf-lib/fontkit";
import { PDFDocument, rgb, type PDFFont, type PDFPage } from "pdf-lib";
import type { AnyProduct } from "@/lib/catalog/types";
import type { ParamDoc } from "@/lib/catalog/params";
import { FREE_ENDPOINTS, type FreeEndpoint } from "@/lib/catalog/free";
import { FREE_KEY_PARAMS } from "@/lib/access/free-key";
import { usdLabel } from "@/lib/payments/price";
import { paymentMethodsVersion } from "@/lib/payments/methods/registry";
import { WEB_PAGES } from "@/lib/web/pages";
import { DISCOVERY_DOCUMENTS, docPath } from "@/lib/discovery/documents";
import { freeEndpoint } from "@/lib/catalog/lookup";
import { buildOpenApi, jsonSchemaOf } from "@/lib/discovery/openapi";
import { SERVICE, acceptedCredentials, freeQuota, paidProducts, paramDocs, paymentFacts, x402Phrase } from "@/lib/discovery/service";
import { toolList } from "@/lib/discovery/tools";
import { a2aOpenApiPaths } from "@/lib/a2a/info";
import { A2A_JSONRPC_PATH, A2A_REST_PATH } from "@/lib/a2a/protocol";
import { A2A_PRICE_NAME } from "@/lib/catalog/surfaces";

const PAGE = { w: 595.28, h: 841.89, margin: 50 };
const INK = rgb(0.1, 0.1, 0.12);
const MUTED = rgb(0.35, 0.35, 0.4);
const CODE_BACKGROUND = rgb(0.93, 0.93, 0.95);

/** The font files, read once per process (about 1.8 MB; each PDF embeds only the glyphs it uses). */
type FontName = "regular" | "bold" | "mono";
let fontBytes: Record<FontName, Uint8Array> | undefined;

function fontFiles(): Record<FontName, Uint8Array> {
  fontBytes ??= {
    regular: readFileSync(new URL("./fonts/DejaVuSans.ttf", import.meta.url)),
    bold: readFileSync(new URL("./fonts/DejaVuSans-Bold.ttf", import.meta.url)),
    mono: readFileSync(new URL("./fonts/DejaVuSansMono.ttf", import.meta.url)),
  };
  return fontBytes;
}

/**
 * Subsets only; no ligatures or kerning: the PDF carries no positioning, so widths stay
 * the sum of the characters' advances, and skipping those lookups keeps layout cheap.
 */
const EMBED = { subset: true, features: { liga: false, clig: false, calt: false, kern: false, mark: false, mkmk: false } };

/**
 * fontkit with its parsed fonts kept per file: pdf-lib parses the font bytes again for
 * every document, the costliest step of a build. A parsed font is read-only apart from
 * its glyph caches; each document still makes its own subset.
 */
const parsed = new WeakMap<Uint8Array, ReturnType<typeof fontkit.create>>();
const SHARED_FONTKIT: typeof fontkit = {
  ...fontkit,
  create(buffer: Uint8Array, postscriptName?: string) {
    let font = parsed.get(buffer);
    if (!font) parsed.set(buffer, (font = fontkit.create(buffer, postscriptName)));
    return font;
  },
};

/** A run of text in one font: plain text, or a code span. */
interface Piece {
  text: string;
  code: boolean;
}

/**
 * Splits markdown inline text into plain and code pieces. Code spans are delimited by
 * backtick runs of equal length (CommonMark); a backtick without a partner stays text.
 * Bold markers (`**`) are dropped: the layout carries emphasis itself.
 */
export function inlinePieces(text: string): Piece[] {
  const out: Piece[] = [];
  const plain = (t: string) => t && out.push({ text: t.replace(/\*\*/g, ""), code: false });
  let i = 0;
  let from = 0;
  while (i < text.length) {
    if (text[i] !== "`") {
      i++;
      continue;
    }
    let n = 1;
    while (text[i + n] === "`") n++;
    const fence = "`".repeat(n);
    let close = text.indexOf(fence, i + n);
    while (close !== -1 && text[close + n] === "`") close = text.indexOf(fence, close + n + 1);
    if (close === -1) {
      i += n;
      continue;
    }
    plain(text.slice(from, i));
    const inner = text.slice(i + n, close);
    out.push({ text: inner.length > 1 && inner.startsWith(" ") && inner.endsWith(" ") ? inner.slice(1, -1) : inner, code: true });
    i = close + n;
    from = i;
  }
  plain(text.slice(from));
  return out;
}

class Writer {
  private page!: PDFPage;
  private y = 0;
  private readonly charsets = new Map<PDFFont, Set<number>>();
  /** Advance width per character at size 1: a TrueType font's widthOfTextAtSize runs a full text layout per call. */
  private readonly advances = new Map<PDFFont, Map<string, number>>();

  constructor(
    private readonly doc: PDFDocument,
    private readonly fonts: Record<FontName, PDFFont>,
  ) {
    this.newPage();
  }

  private newPage(): void {
    this.page = this.doc.addPage([PAGE.w, PAGE.h]);
    this.y = PAGE.h - PAGE.margin;
  }

  /** Width of `text` in `font` at `size`: the sum of its characters' advances (what a reader draws: no kerning is written). */
  private width(text: string, font: PDFFont, size: number): number {
    let table = this.advances.get(font);
    if (!table) this.advances.set(font, (table = new Map()));
    let w = 0;
    for (const ch of text) {
      let a = table.get(ch);
      if (a === undefined) table.set(ch, (a = font.widthOfTextAtSize(ch, 1)));
      w += a;
    }
    return w * size;
  }

  /** `text` with characters `font` has no glyph for shown as "?" (instead of an invisible .notdef box). */
  private clean(text: string, font: PDFFont): string {
    let set = this.charsets.get(font);
    if (!set) this.charsets.set(font, (set = new Set(font.getCharacterSet())));
    let out = "";
    for (const ch of text.replace(/[\r\t]/g, " ")) out += set.has(ch.codePointAt(0)!) ? ch : "?";
    return out;
  }

  /** Lines of words; a word is the pieces between two spaces (a code span and the comma after it stay together). */
  private wrap(text: string, base: PDFFont, size: number, width: number): Array<Array<Array<Piece & { font: PDFFont }>>> {
    const lines: Array<Array<Array<Piece & { font: PDFFont }>>> = [];
    const widthOf = (word: Array<Piece & { font: PDFFont }>) => word.reduce((w, p) => w + this.width(p.text, p.font, size), 0);
    const space = this.width(" ", base, size);
    for (const para of text.split("\n")) {
      const words: Array<Array<Piece & { font: PDFFont }>> = [[]];
      for (const piece of inlinePieces(para)) {
        const font = piece.code ? this.fonts.mono : base;
        piece.text.split(/ +/).forEach((part, k) => {
          if (k > 0) words.push([]);
          if (part) words.at(-1)!.push({ text: this.clean(part, font), code: piece.code, font });
        });
      }
      let line: Array<Array<Piece & { font: PDFFont }>> = [];
      let used = 0;
      for (const word of words.filter((w) => w.length)) {
        const w = widthOf(word);
        if (line.length && used + space + w > width) {
          lines.push(line);
          line = [];
          used = 0;
        }
        if (!line.length && w > width) {
          // A single word wider than the line (a long URL) is cut where it overflows.
          for (const chunk of this.cut(word, size, width)) lines.push([chunk]);
          line = [lines.pop()![0]!];
          used = widthOf(line[0]!);
          continue;
        }
        used += (line.length ? space : 0) + w;
        line.push(word);
      }
      lines.push(line);
    }
    return lines;
  }

  /** `word` cut into pieces of at most `width`, character by character. */
  private cut(word: Array<Piece & { font: PDFFont }>, size: number, width: number): Array<Array<Piece & { font: PDFFont }>> {
    const out: Array<Array<Piece & { font: PDFFont }>> = [[]];
    let used = 0;
    for (const p of word) {
      for (const ch of p.text) {
        const w = this.width(ch, p.font, size);
        if (used + w > width && used > 0) {
          out.push([]);
          used = 0;
        }
        const cur = out.at(-1)!;
        const last = cur.at(-1);
        if (last && last.font === p.font && last.code === p.code) last.text += ch;
        else cur.push({ ...p, text: ch });
        used += w;
      }
    }
    return out;
  }

  /** Writes wrapped text with its code spans as code; starts a new page when the next line would not fit. */
  text(text: string, o: { size?: number; font?: FontName; indent?: number; gap?: number; color?: ReturnType<typeof rgb> } = {}): void {
    const size = o.size ?? 9.5;
    const base = this.fonts[o.font ?? "regular"];
    const indent = o.indent ?? 0;
    const leading = size * 1.35;
    const space = this.width(" ", base, size);
    for (const line of this.wrap(text, base, size, PAGE.w - 2 * PAGE.margin - indent)) {
      if (this.y - leading < PAGE.margin + 20) this.newPage();
      this.y -= leading;
      // One drawText per run of one font across words: each call lays its text out with fontkit.
      const runs: Array<Piece & { font: PDFFont; lead: number }> = [];
      line.forEach((word, k) => {
        word.forEach((p, j) => {
          const spaced = k > 0 && j === 0;
          const last = runs.at(-1);
          if (last && last.font === p.font && last.code === p.code) last.text += (spaced ? " " : "") + p.text;
          else runs.push({ ...p, lead: spaced ? space : 0 });
        });
      });
      let x = PAGE.margin + indent;
      for (const r of runs) {
        x += r.lead;
        const w = this.width(r.text, r.font, size);
        if (r.code) this.page.drawRectangle({ x: x - 0.8, y: this.y - size * 0.25, width: w + 1.6, height: size * 1.15, color: CODE_BACKGROUND });
        this.page.drawText(r.text, { x, y: this.y, size, font: r.font, color: o.color ?? INK });
        x += w;
      }
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

/** Shared responses OpenAPI declares on every operation: stated once ("Answers of every operation"), not in each section. */
const EVERY_OPERATION = new Set(["RequestTimeout", "HeadersTooLarge"]);

/** `name` as a markdown code span (drawn in the monospaced face); names never contain backticks. */
function code(name: string): string {
  return `\`${name}\``;
}

/** An operation's responses in status order (the 408 and 431 every operation gets are appended last in OpenAPI). */
function sortedStatuses<T>(responses: Record<string, T>): Array<[string, T]> {
  return Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b));
}

/** The type of a JSON Schema property as a reader expects it ("number | null", not "value"). */
function typeOf(s: { type?: unknown; anyOf?: Array<{ type?: unknown }>; oneOf?: Array<{ type?: unknown }>; enum?: unknown[]; const?: unknown }): string {
  if (Array.isArray(s.type)) return s.type.join(" | ");
  if (typeof s.type === "string") return s.type;
  const variants = s.anyOf ?? s.oneOf;
  if (variants) {
    const types = [...new Set(variants.map((v) => typeOf(v)))];
    return types.join(" | ");
  }
  if (s.enum) return [...new Set(s.enum.map((v) => (v === null ? "null" : typeof v)))].join(" | ");
  if (s.const !== undefined) return s.const === null ? "null" : typeof s.const;
  return "any";
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
    w.text(`${code(name)} (${facts.join(", ")}): ${d.description}`, { indent: 20 });
  }
}

function responseFields(w: Writer, p: AnyProduct): void {
  const schema = jsonSchemaOf(p.output) as { properties?: Record<string, Parameters<typeof typeOf>[0] & { description?: string }> };
  w.text("200 response (application/json) fields:", { indent: 10, font: "bold" });
  for (const [name, s] of Object.entries(schema.properties ?? {})) {
    w.text(`${code(name)} (${typeOf(s)})${s.description ? `: ${s.description}` : ""}`, { indent: 20, size: 8.5 });
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
  const errors = [paymentFacts().x402.length > 0 ? "402 payment required (x402 requirement in body and PAYMENT-REQUIRED header; endpoint, price, instruction)" : "402 payment required (endpoint, price, instruction)"];
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
  requestBody?: { description?: string; content: Record<string, { schema: { properties?: Record<string, { description?: string }> } }> };
  responses: Record<string, { description?: string; $ref?: string }>;
}

type OpenApiDoc = { paths: Record<string, Record<string, OpenApiOperation>>; components: { responses: Record<string, { description: string }> } };

/** A section for an operation read from the OpenAPI document (the /mcp methods, the free-key POST). */
function operationSection(w: Writer, api: OpenApiDoc, method: string, path: string, op: OpenApiOperation, price: string): void {
  w.heading(`${method.toUpperCase()} ${path}`);
  w.text(op.summary, { font: "bold" });
  w.text(op.description.split("\n\n")[0]!);
  w.text(`Price: ${price}`, { indent: 10 });
  const params = op.parameters ?? [];
  const body = op.requestBody ? Object.entries(op.requestBody.content) : [];
  if (!params.length && !body.length) w.text("Parameters: none.", { indent: 10 });
  else w.text("Parameters:", { indent: 10, font: "bold" });
  for (const p of params) w.text(`${code(p.name)} (${p.in}, ${p.required ? "required" : "optional"}): ${p.description}`, { indent: 20 });
  if (body.length) {
    const fields = Object.entries(body[0]![1].schema.properties ?? {});
    // A body without named fields (a JSON-RPC message) is described by the request body's own description.
    const what = fields.map(([name, f]) => `${code(name)}${f.description ? ` - ${f.description}` : ""}`).join("; ") || op.requestBody?.description || "a JSON value";
    w.text(`Body (${body.map(([type]) => type).join(" or ")}): ${what}`, { indent: 20 });
  }
  const own = sortedStatuses(op.responses).filter(([, r]) => !EVERY_OPERATION.has(r.$ref?.split("/").at(-1) ?? ""));
  const answers = own.map(([status, r]) => {
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
  doc.registerFontkit(SHARED_FONTKIT);
  const files = fontFiles();
  const w = new Writer(doc, {
    regular: await doc.embedFont(files.regular, EMBED),
    bold: await doc.embedFont(files.bold, EMBED),
    mono: await doc.embedFont(files.mono, EMBED),
  });
  const pay = paymentFacts();

  w.text(`${SERVICE.title} API`, { size: 20, font: "bold", gap: 6 });
  w.text(`API version ${SERVICE.apiVersion} - OpenAPI ${SERVICE.openapiVersion} - MCP server ${SERVICE.mcpServerVersion} (protocol ${SERVICE.mcpProtocolVersion})`, { color: MUTED });
  w.text(`Base URL: ${base}`, { font: "mono", size: 9 });
  w.space();
  w.text(SERVICE.description);

  w.heading("Authentication and payment", 15);
  w.text("No account is needed: payment is the credential. Any one of these satisfies a paid operation:");
  const x402 = x402Phrase();
  if (x402) w.text(`- x402 per call: scheme exact, ${x402}. A call without a credential answers 402 with the requirement; sign it and repeat with PAYMENT-SIGNATURE (x402 v2) or X-PAYMENT (v1). Settled only after the call succeeded.`, { indent: 10 });
  for (const m of pay.others) w.text(`- Per call, ${m.howTo}`, { indent: 10 });
  w.text("- Prepaid bundle token: header X-Bundle-Token (or Authorization: Bearer); each call consumes its credit cost.", { indent: 10 });
  w.text(`- Free-tier API key: header X-Api-Key (GET ${freeEndpoint("/v1/free-key").path}; ${freeQuota()} calls per UTC day on standard endpoints).`, { indent: 10 });
  w.text(`Each paid operation in ${docPath("/openapi.json")} declares its payment offer under x-payment-info.`);

  const api = buildOpenApi(base) as unknown as OpenApiDoc;
  w.heading("Answers of every operation", 15);
  for (const name of EVERY_OPERATION) {
    const status = Object.entries(api.paths["/openapi.json"]!.get!.responses).find(([, r]) => r.$ref?.endsWith(`/${name}`))?.[0];
    w.text(`- ${status} ${api.components.responses[name]!.description}`, { indent: 10 });
  }
  w.text("- OPTIONS on any path: 204 with Allow naming the methods served; any other method: 405 (code method_not_allowed) with the same Allow. A request line that is not HTTP/1.1: 400 (code bad_request).", { indent: 10 });

  w.heading("Paid operations", 15);
  for (const p of paidProducts()) productSection(w, p);

  const paths = api.paths;
  w.heading("Free endpoints", 15);
  for (const e of FREE_ENDPOINTS) {
    freeSection(w, e);
    for (const [method, op] of Object.entries(paths[e.path] ?? {})) if (method !== "get") operationSection(w, api, method, e.path, op, "free.");
  }
  w.heading("GET /");
  w.text("Service info as JSON for agents (Accept: application/json); the home page for browsers. Free.");

  w.heading("Web pages", 15);
  w.text("HTML pages for people in a browser (agents use the JSON operations above). Each answers GET and HEAD; OPTIONS answers 204 with Allow, any other method 405.");
  for (const page of WEB_PAGES.filter((x) => x.path !== "/")) {
    w.heading(`GET ${page.path}`, 11);
    w.text(`${page.label} (text/html). Free.`);
  }

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
    w.text(`${code(t.name)} - ${t.free ? "free" : usdLabel(t.price)}${t.path ? ` - GET ${t.path}` : ""}`, { font: "bold", size: 9 });
    w.text(t.description, { indent: 10, size: 8.5 });
  }

  w.heading("A2A agent interface", 15);
  w.text(`A2A protocol ${SERVICE.a2aProtocolVersion}: HTTP+JSON binding at ${base}${A2A_REST_PATH}, JSON-RPC at ${base}${A2A_JSONRPC_PATH}; skills, message conventions${paymentFacts().x402.length > 0 ? " and the a2a-x402 extension" : ""} are in the agent card.`);
  for (const path of Object.keys(a2aOpenApiPaths())) {
    for (const [method, op] of Object.entries(paths[path] ?? {})) operationSection(w, api, method, path, op, `free (paid skills are paid per message, at the ${A2A_PRICE_NAME}).`);
  }

  w.footers();
  return doc.save();
}

/** Base URLs whose PDF is kept (one per configured or proxied host in practice). */
export const PDF_CACHE_MAX = 4;

/**
 * Least-recently-used first (a Map iterates in insertion order), keyed by base URL and
 * the payment-method registry's version: the PDF names the accepted methods, and one
 * that turns usable later (Solana through a remote facilitator) must appear in it.
 */
const cache = new Map<string, Promise<Uint8Array>>();

/** The PDF for the instance at `base`, built once per base URL and set of usable payment methods while it stays among the last PDF_CACHE_MAX used. */
export function specPdf(base: string): Promise<Uint8Array> {
  const key = `${paymentMethodsVersion()} ${base}`;
  let p = cache.get(key);
  if (p) {
    cache.delete(key);
  } else {
    p = build(base);
    p.catch(() => cache.delete(key));
  }
  cache.set(key, p);
  while (cache.size > PDF_CACHE_MAX) cache.delete(cache.keys().next().value!);
  return p;
}

/** How many PDFs are held (for the bound's test). */
export function specPdfCacheSize(): number {
  return cache.size;
}
