/**
 * Solana payment configuration: the CAIP-2 network, the fee payer's key, and which
 * facilitator settles (in-process with SOLANA_FEE_PAYER_SECRET + SOLANA_RPC_URL, or the
 * remote FACILITATOR_URL, whose fee payer is read from its /supported answer).
 */
import { createPrivateKey, createPublicKey } from "node:crypto";
import { getBase58Decoder, getBase58Encoder } from "@solana/kit";
import { env } from "@/lib/config/env";
import { log } from "@/lib/log";
import { processState, resetProcessState } from "@/lib/process-state";
import { remoteFacilitatorUrl } from "@/lib/payments/x402/remote";

/**
 * CAIP-2 references are at most 32 characters; for Solana they are the first 32
 * characters of the genesis hash (`solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp` for mainnet,
 * the id @x402/svm and its clients use). A longer reference (e.g. more of the genesis
 * hash) is cut to that length so a mis-typed setting still names the right cluster.
 */
export function canonicalSolanaNetwork(network: string): string {
  const [ns, ref = ""] = network.split(":", 2);
  return ns === "solana" && ref.length > 32 ? `solana:${ref.slice(0, 32)}` : network;
}

/** The Solana network payments are offered on (canonical CAIP-2). */
export function svmNetwork(): string {
  return canonicalSolanaNetwork(env().SOLANA_NETWORK);
}

export interface FeePayerKey {
  /** 64 bytes: 32-byte seed ‖ 32-byte public key (what @solana/kit's createKeyPairSignerFromBytes takes). */
  bytes: Uint8Array;
  address: string;
}

const PKCS8_ED25519 = Buffer.from("302e020100300506032b657004220420", "hex");

/**
 * Parses SOLANA_FEE_PAYER_SECRET: base58 of the 64-byte secret key (Phantom / Solana CLI
 * export) or the JSON byte array of a `solana-keygen` file. Checks that the public half
 * belongs to the seed, synchronously (node:crypto), so a wrong key fails at the first
 * 402 instead of at the first settlement.
 */
export function parseFeePayerSecret(secret: string): FeePayerKey {
  const text = secret.trim();
  let bytes: Uint8Array;
  // Decoder errors can quote the input: replaced by messages that never echo the secret.
  if (text.startsWith("[")) {
    let arr: unknown;
    try {
      arr = JSON.parse(text);
    } catch {
      throw new Error("not valid JSON");
    }
    if (!Array.isArray(arr) || !arr.every((n) => Number.isInteger(n) && n >= 0 && n < 256)) throw new Error("not a JSON byte array");
    bytes = Uint8Array.from(arr as number[]);
  } else {
    try {
      bytes = new Uint8Array(getBase58Encoder().encode(text));
    } catch {
      throw new Error("not base58");
    }
  }
  if (bytes.length !== 64) throw new Error(`a Solana secret key has 64 bytes, this one has ${bytes.length}`);
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, bytes.subarray(0, 32)]), format: "der", type: "pkcs8" });
  const pub = createPublicKey(key).export({ format: "der", type: "spki" }).subarray(-32);
  if (!pub.equals(Buffer.from(bytes.subarray(32)))) throw new Error("the public half of the secret key does not match its seed");
  return { bytes, address: getBase58Decoder().decode(bytes.subarray(32)) };
}

const KEY = "x402.svm.config";
interface State {
  feePayer?: FeePayerKey | null;
  remote?: { feePayer: string | null; fetchedAt: number; pending: Promise<void> | null };
}
function state(): State {
  return processState<State>(KEY, () => ({}));
}

/** The in-process facilitator's fee payer key, or null when it is not configured (or invalid). */
export function localFeePayer(): FeePayerKey | null {
  const s = state();
  if (s.feePayer === undefined) {
    const secret = env().SOLANA_FEE_PAYER_SECRET;
    s.feePayer = null;
    if (secret) {
      try {
        s.feePayer = parseFeePayerSecret(secret);
      } catch (err) {
        log.error("payment.svm_config_invalid", { reason: `SOLANA_FEE_PAYER_SECRET: ${(err as Error).message}; Solana payments are not offered` });
      }
    }
  }
  return s.feePayer;
}

export type SvmMode = "remote" | "local" | null;

/** Who verifies and settles Solana payments: FACILITATOR_URL wins, as for EVM. */
export function svmMode(): SvmMode {
  const cfg = env();
  if (!cfg.SOLANA_PAY_TO_ADDRESS) return null;
  if (remoteFacilitatorUrl()) return "remote";
  if (cfg.SOLANA_RPC_URL && localFeePayer()) return "local";
  return null;
}

const REMOTE_TTL_MS = 10 * 60_000;
const REMOTE_RETRY_MS = 30_000;

/**
 * The remote facilitator's fee payer for our network, from its /supported answer. The
 * requirement is built synchronously, so this returns the cached value and refreshes it
 * in the background; until the first answer arrives Solana is not offered.
 */
export function remoteFeePayer(fetchSupported: () => Promise<{ kinds: Array<{ x402Version: number; scheme: string; network: string; extra?: Record<string, unknown> }> }>): string | null {
  const s = state();
  const r = (s.remote ??= { feePayer: null, fetchedAt: 0, pending: null });
  const age = Date.now() - r.fetchedAt;
  if (!r.pending && age > (r.feePayer ? REMOTE_TTL_MS : REMOTE_RETRY_MS)) {
    const network = svmNetwork();
    r.pending = fetchSupported()
      .then((supported) => {
        const kind = supported.kinds.find((k) => k.x402Version === 2 && k.scheme === "exact" && k.network === network && typeof k.extra?.feePayer === "string");
        r.feePayer = (kind?.extra?.feePayer as string | undefined) ?? null;
        if (!r.feePayer) log.warn("payment.svm_remote_unsupported", { network, reason: "the facilitator does not list exact on this network with a feePayer" });
      })
      .catch((err: Error) => log.warn("payment.svm_remote_supported_failed", { message: err.message }))
      .finally(() => {
        r.fetchedAt = Date.now();
        r.pending = null;
      });
  }
  return r.feePayer;
}

/** The remote facilitator's fee payer as last learned, without asking (null before the first answer). */
export function cachedRemoteFeePayer(): string | null {
  return state().remote?.feePayer ?? null;
}

/** Forget cached keys and answers (tests change the environment between cases). */
export function resetSvmConfigForTests(): void {
  resetProcessState(KEY);
}
