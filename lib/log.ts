/**
 * Structured JSON-line logging. Callers pass fields, never raw credentials; as a second
 * line of defence every line is redacted before it is written:
 * - by name: a field whose name looks like a secret (token, key, signature, payment
 *   payload, authorization…) is replaced, at any depth, except the record ids in
 *   NOT_SECRET, which customers are told to quote (a settlement failure names the
 *   payment id) and which grant nothing;
 * - by shape: credential-looking text inside any string (our key and token formats,
 *   base64 JSON such as an x402 payload, a 65-byte signature, `apikey=` in a URL) is
 *   replaced, so an error message that quotes a header or a URL does not leak it.
 */
// "notice" (life-cycle lines such as server.ready) prints at every level but silent.
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40, notice: 50, silent: 100 } as const;
type Level = Exclude<keyof typeof LEVELS, "silent">;

const SECRET_NAME = /token|key|secret|payment|signature|authorization|password|cookie|credential|mnemonic|seed|payload/i;
/** Database ids of ledger rows: public references, not credentials. */
const NOT_SECRET = new Set(["paymentId", "payment_id", "receiptId", "receipt_id", "bundleId", "bundle_id", "apiKeyId", "api_key_id", "keyId", "key_id"]);
const REDACTED = "[redacted]";
const SECRET_SHAPES: Array<[RegExp, string]> = [
  [/echo_(?:fk|bt)_[A-Za-z0-9_-]+/g, REDACTED], // free keys and bundle tokens (lib/access/secrets.ts)
  [/eyJ[A-Za-z0-9+/_=-]{16,}/g, REDACTED], // base64 of a JSON object: x402 payloads, JWTs
  [/0x[0-9a-fA-F]{130,}/g, REDACTED], // ECDSA signatures (65 bytes) and longer blobs
  [/([?&](?:api_?key|key|token|secret|signature)=)[^&\s"']+/gi, `$1${REDACTED}`], // credentials in URLs
];
const MAX_DEPTH = 6;

function redactString(s: string): string {
  let out = s;
  for (const [re, replacement] of SECRET_SHAPES) out = out.replace(re, replacement);
  return out;
}

function redactValue(v: unknown, depth: number): unknown {
  if (typeof v === "string") return redactString(v);
  if (v === null || typeof v !== "object") return v;
  if (depth >= MAX_DEPTH) return REDACTED;
  if (Array.isArray(v)) return v.map((x) => redactValue(x, depth + 1));
  if (v instanceof Error) return redactString(v.message);
  return redactFields(v as Record<string, unknown>, depth + 1);
}

/** The fields as they will be logged: secret-named fields and secret-shaped text replaced. */
export function redactFields(fields: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const safe: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    safe[k] = SECRET_NAME.test(k) && !NOT_SECRET.has(k) ? REDACTED : redactValue(v, depth);
  }
  return safe;
}

function threshold(): number {
  const raw = (process.env.LOG_LEVEL ?? "info") as keyof typeof LEVELS;
  return LEVELS[raw] ?? LEVELS.info;
}

function write(level: Level, event: string, fields?: Record<string, unknown>): void {
  if (LEVELS[level] < threshold()) return;
  const line = JSON.stringify({ ts: new Date().toISOString(), level, event, ...redactFields(fields ?? {}) });
  (level === "error" || level === "warn" ? process.stderr : process.stdout).write(line + "\n");
}

export const log = {
  debug: (event: string, fields?: Record<string, unknown>) => write("debug", event, fields),
  info: (event: string, fields?: Record<string, unknown>) => write("info", event, fields),
  warn: (event: string, fields?: Record<string, unknown>) => write("warn", event, fields),
  error: (event: string, fields?: Record<string, unknown>) => write("error", event, fields),
  notice: (event: string, fields?: Record<string, unknown>) => write("notice", event, fields),
};
