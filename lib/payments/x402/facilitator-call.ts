/**
 * One way to ask any x402 facilitator (in-process or remote, EVM or Solana): a timeout on
 * every call, the answer checked with zod before it is trusted, and a remote client's
 * VerifyError / SettleError (4xx answers that still carry a verdict) read as answers,
 * not outages. Anything else is a FacilitatorError: nothing was decided.
 */
import { z } from "zod";
import type { FacilitatorClient } from "@x402/core/server";
import { env } from "@/lib/config/env";
import { log } from "@/lib/log";
import { brand } from "@/lib/errors/brand";

export class FacilitatorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FacilitatorError";
  }
}
brand(FacilitatorError, "FacilitatorError");

export const VerifyAnswer = z
  .object({ isValid: z.boolean(), invalidReason: z.string().optional(), invalidMessage: z.string().optional(), payer: z.string().optional() })
  .passthrough();

export const SettleAnswer = z
  .object({
    success: z.boolean(),
    errorReason: z.string().optional(),
    errorMessage: z.string().optional(),
    payer: z.string().optional(),
    transaction: z.string(),
    network: z.string(),
  })
  .passthrough();

export type CheckedVerify = z.infer<typeof VerifyAnswer>;
export type CheckedSettle = z.infer<typeof SettleAnswer>;

async function timed<T>(what: string, p: Promise<T>): Promise<T> {
  const ms = env().PAYMENT_TIMEOUT_MS;
  let t: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<never>((_, reject) => {
        t = setTimeout(() => reject(new FacilitatorError(`${what} timed out after ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(t);
  }
}

// Duck-typed: the error class may come from another module graph.
function verdictOf(err: unknown, network: string): unknown {
  const e = err as { name?: string; invalidReason?: string; invalidMessage?: string; payer?: string; errorReason?: string; errorMessage?: string; transaction?: string; network?: string };
  if (e?.name === "VerifyError") return { isValid: false, invalidReason: e.invalidReason, invalidMessage: e.invalidMessage, payer: e.payer };
  if (e?.name === "SettleError") return { success: false, errorReason: e.errorReason, errorMessage: e.errorMessage, payer: e.payer, transaction: e.transaction ?? "", network: e.network ?? network };
  return undefined;
}

/** Runs `run` on the facilitator and returns its checked answer. */
export async function askFacilitator<T>(
  what: "verify" | "settle",
  schema: z.ZodType<T>,
  client: FacilitatorClient | Promise<FacilitatorClient>,
  run: (f: FacilitatorClient) => Promise<unknown>,
  network: string,
): Promise<T> {
  let raw: unknown;
  try {
    raw = await timed(what, Promise.resolve(client).then(run));
  } catch (err) {
    raw = verdictOf(err, network);
    if (raw === undefined) {
      if (err instanceof FacilitatorError) throw err;
      const message = String((err as Error)?.message ?? err);
      const refused = /\((401|403)\)/.exec(message);
      if (refused) {
        // Our credentials, not the payment: the operator has to act, the payer only retries later.
        log.error("facilitator.auth_refused", { operation: what, network, status: Number(refused[1]), hint: "check FACILITATOR_AUTH_HEADERS" });
        throw new FacilitatorError(`the payment facilitator refused this service's credentials (HTTP ${refused[1]})`);
      }
      throw new FacilitatorError(`${what} failed: ${message}`);
    }
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new FacilitatorError(`facilitator ${what} answer has an unexpected format`);
  return parsed.data;
}
