// GET /v1/attested-quote — price with an Ed25519 attestation (signature, key id, timestamp).
import { CREDIT_COSTS } from "@/lib/catalog/credits";
import { z } from "zod";
import { defineProduct } from "@/lib/catalog/types";
import { enumParam } from "@/lib/catalog/params";
import { attest } from "@/lib/attestation";
import { simplePrice } from "@/lib/market/sources/coingecko";
import { TICKERS, type Ticker } from "@/lib/market/tickers";
import { UnavailableError } from "@/lib/errors";
import { plainDecimal, round } from "@/lib/market/signals/math";

const SYMBOLS = Object.keys(TICKERS).map((t) => t.replace(/-USD$/, "").toLowerCase());
const ALIASES = Object.fromEntries(Object.keys(TICKERS).map((t) => [t, t.replace(/-USD$/, "").toLowerCase()])) as Record<string, string>;

/** A decimal string with up to 8 significant digits and no exponent (the signed form). */
export function priceString(x: number): string {
  return plainDecimal(x, 8);
}

export const attestedQuote = defineProduct({
  id: "attested-quote",
  path: "/v1/attested-quote",
  title: "Attested quote",
  description: "Spot USD price of a ticker signed with the service's Ed25519 key: verify(signature, utf8(message), public key) proves who quoted which price when.",
  tags: ["price", "attestation"],
  kind: "data",
  httpPrice: "0.01",
  tool: { name: "get_attested_quote", price: "0.10", label: "Attested quote, Ed25519-signed" },
  credits: CREDIT_COSTS.standard_call,
  freeTier: true,
  params: {
    ticker: enumParam({ description: "Asset symbol (e.g. xlm, btc) or its <SYMBOL>-USD ticker.", values: SYMBOLS, default: "xlm", aliases: ALIASES }),
  },
  output: z.object({
    ticker: z.string().describe("Upper-case symbol, e.g. XLM"),
    pair: z.string().describe("Quoted pair, e.g. XLM-USD"),
    price_usd: z.number().positive().describe("Price in USD (the attested decimal string is attestation.message's price_usd)"),
    change_24h_pct: z.number().nullable(),
    source: z.literal("coingecko"),
    ts: z.string().describe("Signing time (ISO 8601), part of the signed message"),
    attestation: z.object({
      alg: z.literal("Ed25519"),
      key_id: z.string().describe("First 16 hex chars of SHA-256(public key)"),
      public_key_hex: z.string().describe("32-byte Ed25519 public key, hex (also in / and /v1/manifest)"),
      public_key_base64: z.string(),
      message: z.string().describe("Exact signed text: lines 'echo-x402-attestation/v1', 'ticker=', 'price_usd=', 'source=', 'ts=' joined by \\n"),
      signature_hex: z.string().describe("64-byte Ed25519 signature over UTF-8(message), hex"),
      signature_base64: z.string(),
    }),
  }),
  example: {
    ticker: "XLM",
    pair: "XLM-USD",
    price_usd: 0.4202588,
    change_24h_pct: 5.99,
    source: "coingecko",
    ts: "2026-11-26T19:18:46.231Z",
    attestation: {
      alg: "Ed25519",
      key_id: "af98752fbf082e96",
      public_key_hex: "4480ef28f002f381f377ac8ab04100cbd0cf8bb138532f201b647f6080e299f0",
      public_key_base64: "RIDvKPAC84Hzd6yKsEEAy9DPi7E4Uy8gG2R/YIDimfA=",
      message: "echo-x402-attestation/v1\nticker=XLM\nprice_usd=0.4202588\nsource=coingecko\nts=2026-11-26T19:18:46.231Z",
      signature_hex: "9406bfd57c86f4c4a7d09c9eea2d730efe32e74aec6a9300b5440cc74e242b56c6ae09d9e7b2d6c3d2d3fd799c44cf4350058c6218d0392ceefaed240b291b04",
      signature_base64: "lAa/1XyG9MSn0Jye6i1zDv4y50rsapMAtUQMx04kK1bGrgnZ57LWw9LT/XmcRM9DUAWMYhjQOSzu+u0kCykbBA==",
    },
  },
  cacheTtlSeconds: 5,
  sources: ["coingecko"],
  handler: async ({ ticker }, ctx) => {
    const pair = `${ticker.toUpperCase()}-USD` as Ticker;
    const id = TICKERS[pair];
    const q = (await simplePrice([id]))[id];
    if (!q) throw new UnavailableError(`No ${pair} price is available right now.`, { sources: ["coingecko"] });
    const price = priceString(q.usd);
    const ts = ctx.now.toISOString();
    const attestation = await attest({ ticker: ticker.toUpperCase(), price_usd: price, source: "coingecko", ts });
    return {
      ticker: ticker.toUpperCase(),
      pair,
      price_usd: Number(price),
      change_24h_pct: q.usd24hChangePct === null ? null : round(q.usd24hChangePct, 2),
      source: "coingecko" as const,
      ts,
      attestation,
    };
  },
});
