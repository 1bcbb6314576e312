/** A Solana key pair made offline, for a service that needs a fee payer but settles nothing in the test. */
import { createPrivateKey, generateKeyPairSync } from "node:crypto";
import { getBase58Decoder } from "@solana/kit";

/** A fee payer key for the in-process Solana facilitator (base58 of seed ‖ public key). */
export function solanaSecret(): { secret: string; address: string } {
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const seed = createPrivateKey(privateKey.export({ format: "pem", type: "pkcs8" })).export({ format: "der", type: "pkcs8" }).subarray(-32);
  const pub = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const b58 = getBase58Decoder();
  return { secret: b58.decode(Buffer.concat([seed, pub])), address: b58.decode(pub) };
}
