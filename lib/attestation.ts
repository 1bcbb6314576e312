/**
 * Ed25519 attestations for quotes. The signing key is ATTESTATION_PRIVATE_KEY (32-byte
 * seed, hex) when configured; otherwise one is generated on first use and stored in the
 * database (service_secrets), so it survives restarts and every instance signs with the
 * same key. The insert is "first writer wins", then everyone reads the stored value.
 *
 * The signed message is a fixed, line-oriented canonical string (see `canonicalMessage`)
 * so verifiers need no JSON canonicalisation: verify(signature, utf8(message), publicKey).
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from "node:crypto";
import { env } from "@/lib/config/env";
import { serviceSecret } from "@/lib/db/secrets";
import { processState, resetProcessState } from "@/lib/process-state";

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");
const SPKI_ED25519_PREFIX = Buffer.from("302a300506032b6570032100", "hex");
const SECRET_NAME = "attestation_ed25519_seed";

export interface SigningKey {
  privateKey: KeyObject;
  publicKeyHex: string;
  publicKeyBase64: string;
  /** First 16 hex chars of SHA-256(public key): a short, stable key id. */
  keyId: string;
  origin: "configured" | "generated";
}

function fromSeed(seedHex: string, origin: SigningKey["origin"]): SigningKey {
  if (!/^[0-9a-fA-F]{64}$/.test(seedHex)) throw new Error("ATTESTATION_PRIVATE_KEY must be a 32-byte Ed25519 seed in hex (64 characters)");
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, Buffer.from(seedHex, "hex")]), format: "der", type: "pkcs8" });
  const spki = createPublicKey(privateKey).export({ format: "der", type: "spki" });
  const raw = spki.subarray(SPKI_ED25519_PREFIX.length);
  return {
    privateKey,
    publicKeyHex: raw.toString("hex"),
    publicKeyBase64: raw.toString("base64"),
    keyId: createHash("sha256").update(raw).digest("hex").slice(0, 16),
    origin,
  };
}

function newSeedHex(): string {
  const { privateKey } = generateKeyPairSync("ed25519");
  const der = privateKey.export({ format: "der", type: "pkcs8" });
  return der.subarray(PKCS8_ED25519_PREFIX.length).toString("hex");
}

/** The service's signing key (configured, or generated once and persisted). */
export function signingKey(): Promise<SigningKey> {
  return processState("attestation.key", () =>
    (async () => {
      const configured = env().ATTESTATION_PRIVATE_KEY;
      if (configured) return fromSeed(configured.trim(), "configured");
      return fromSeed(await serviceSecret(SECRET_NAME, newSeedHex), "generated");
    })().catch((err: unknown) => {
      resetProcessState("attestation.key");
      throw err;
    }),
  );
}

export interface AttestedFields {
  ticker: string;
  price_usd: string;
  source: string;
  ts: string;
}

/** The exact bytes that are signed (UTF-8 of this string). */
export function canonicalMessage(f: AttestedFields): string {
  return ["echo-x402-attestation/v1", `ticker=${f.ticker}`, `price_usd=${f.price_usd}`, `source=${f.source}`, `ts=${f.ts}`].join("\n");
}

export interface Attestation {
  alg: "Ed25519";
  key_id: string;
  public_key_hex: string;
  public_key_base64: string;
  message: string;
  signature_hex: string;
  signature_base64: string;
}

/** Signs the canonical message of `fields`. */
export async function attest(fields: AttestedFields): Promise<Attestation> {
  const key = await signingKey();
  const message = canonicalMessage(fields);
  const sig = sign(null, Buffer.from(message, "utf8"), key.privateKey);
  return {
    alg: "Ed25519",
    key_id: key.keyId,
    public_key_hex: key.publicKeyHex,
    public_key_base64: key.publicKeyBase64,
    message,
    signature_hex: sig.toString("hex"),
    signature_base64: sig.toString("base64"),
  };
}

/** Verifies an attestation with Node's crypto (tests use an independent library too). */
export function verifyAttestation(message: string, signatureHex: string, publicKeyHex: string): boolean {
  const key = createPublicKey({ key: Buffer.concat([SPKI_ED25519_PREFIX, Buffer.from(publicKeyHex, "hex")]), format: "der", type: "spki" });
  return verify(null, Buffer.from(message, "utf8"), key, Buffer.from(signatureHex, "hex"));
}

/** Public part for service info and the manifest. */
export async function publicAttestationKey(): Promise<{ alg: "Ed25519"; key_id: string; public_key_hex: string; public_key_base64: string; message_format: string }> {
  const k = await signingKey();
  return {
    alg: "Ed25519",
    key_id: k.keyId,
    public_key_hex: k.publicKeyHex,
    public_key_base64: k.publicKeyBase64,
    message_format: "UTF-8 lines: 'echo-x402-attestation/v1', 'ticker=<TICKER>', 'price_usd=<decimal>', 'source=<provider>', 'ts=<ISO 8601>' joined by '\\n'",
  };
}
