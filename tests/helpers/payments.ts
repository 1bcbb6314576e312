/**
 * Payment helpers for tests: the official clients (v2 `@x402/fetch`, v1 `x402-fetch`)
 * and hand-built EIP-3009 authorizations for the refusal cases (each signed for real
 * with viem; nothing about the signature check is mocked).
 */
import { randomBytes } from "node:crypto";
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from "@/lib/payments/x402/eip3009";
import { concatHex, createWalletClient, encodeFunctionData, http, parseAbi, parseSignature, publicActions, serializeErc6492Signature, type Address, type Hex, type TransactionReceipt } from "viem";
import type { HDAccount, LocalAccount } from "viem/accounts";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { toClientEvmSigner } from "@x402/evm";
import { wrapFetchWithPayment as wrapFetchV1 } from "../clients/v1";
import { BASE_USDC, localBase, WALLET_FACTORY, walletFactoryAbi } from "./chain";

/** The official v2 client paying with `account`; `base` is the fetch it sends with (a test may watch what goes out). */
export function v2Fetch(account: HDAccount, rpcUrl: string, base: typeof fetch = fetch): typeof fetch {
  const wallet = createWalletClient({ account, chain: localBase(rpcUrl), transport: http(rpcUrl, { retryCount: 0 }) }).extend(publicActions);
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: toClientEvmSigner(account, wallet as never) });
  return wrapFetchWithPayment(base, client) as typeof fetch;
}

export function v1Fetch(account: HDAccount, rpcUrl: string, maxValue = 30_000_000n): typeof fetch {
  const wallet = createWalletClient({ account, chain: localBase(rpcUrl), transport: http(rpcUrl, { retryCount: 0 }) }).extend(publicActions);
  return wrapFetchV1(fetch, wallet as never, maxValue) as unknown as typeof fetch;
}

export interface AuthorizationInput {
  /** The paying account when it is not the signer (a contract wallet the signer owns). */
  from?: Address;
  to: Address;
  value: bigint;
  validAfter?: bigint;
  validBefore?: bigint;
  nonce?: Hex;
  verifyingContract?: Address;
  chainId?: number;
}

export async function signAuthorization(account: LocalAccount, a: AuthorizationInput) {
  const now = BigInt(Math.floor(Date.now() / 1000));
  const authorization = {
    from: a.from ?? account.address,
    to: a.to,
    value: a.value,
    validAfter: a.validAfter ?? now - 600n,
    validBefore: a.validBefore ?? now + 600n,
    nonce: a.nonce ?? (`0x${randomBytes(32).toString("hex")}` as Hex),
  };
  const signature = await account.signTypedData({
    domain: { name: "USD Coin", version: "2", chainId: a.chainId ?? 8453, verifyingContract: a.verifyingContract ?? BASE_USDC },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: "TransferWithAuthorization",
    message: authorization,
  });
  return {
    signature,
    authorization: {
      from: authorization.from,
      to: authorization.to,
      value: authorization.value.toString(),
      validAfter: authorization.validAfter.toString(),
      validBefore: authorization.validBefore.toString(),
      nonce: authorization.nonce,
    },
  };
}

const transferWithAuthorizationAbi = parseAbi([
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
]);

/**
 * Uses `signed` (signAuthorization's answer) on chain, sent by `sender` straight to the
 * node at `rpcUrl`: what a payer spending its nonce elsewhere, a front-runner or a dead
 * holder's settlement does. The receipt, once mined.
 */
export async function useAuthorization(rpcUrl: string, sender: LocalAccount, signed: Awaited<ReturnType<typeof signAuthorization>>): Promise<TransactionReceipt> {
  const wallet = createWalletClient({ account: sender, chain: localBase(rpcUrl), transport: http(rpcUrl, { retryCount: 0 }) }).extend(publicActions);
  const a = signed.authorization;
  const sig = parseSignature(signed.signature);
  const hash = await wallet.writeContract({
    address: BASE_USDC,
    abi: transferWithAuthorizationAbi,
    functionName: "transferWithAuthorization",
    args: [a.from, a.to, BigInt(a.value), BigInt(a.validAfter), BigInt(a.validBefore), a.nonce, Number(sig.v ?? 27n + BigInt(sig.yParity)), sig.r, sig.s],
    gas: 200_000n,
  });
  return wallet.waitForTransactionReceipt({ hash });
}

/**
 * An authorization paid by a contract wallet (TestSmartWallet) that `owner` controls: the
 * owner signs the EIP-712 digest, the wallet vouches for it (ERC-1271); the signature is
 * not a plain 65-byte one, so the official x402 scheme settles it. With `undeployed`,
 * the wallet does not exist yet and the signature is ERC-6492-wrapped with the factory
 * call that deploys it.
 */
export async function signWalletAuthorization(owner: LocalAccount, wallet: Address, a: AuthorizationInput, undeployed?: { salt: Hex }) {
  const byOwner = await signAuthorization(owner, { ...a, from: wallet });
  // TestSmartWallet's format: a type byte, then the owner's signature (66 bytes).
  const signed = { ...byOwner, signature: concatHex(["0x01", byOwner.signature]) };
  if (!undeployed) return signed;
  const data = encodeFunctionData({ abi: walletFactoryAbi, functionName: "deploy", args: [owner.address, undeployed.salt] });
  return { ...signed, signature: serializeErc6492Signature({ address: WALLET_FACTORY, data, signature: signed.signature }) };
}

export interface Requirement {
  scheme: string;
  network: string;
  amount: string;
  asset: string;
  payTo: string;
  maxTimeoutSeconds: number;
  extra: Record<string, unknown>;
}

/** v2 PAYMENT-SIGNATURE header value; `id`: an x402 payment-identifier id in its extensions. */
export function v2Header(accepted: Requirement, payload: unknown, resource = "http://localhost/", id?: string): string {
  const extensions = id ? { extensions: { "payment-identifier": { info: { required: false, id } } } } : {};
  return Buffer.from(JSON.stringify({ x402Version: 2, resource: { url: resource, description: "", mimeType: "application/json" }, accepted, payload, ...extensions })).toString("base64");
}

/** A fresh x402 payment-identifier id (what a client puts in every payment it signs). */
export const paymentId = () => `pay_${randomBytes(16).toString("hex")}`;

/** v1 X-PAYMENT header value. */
export function v1Header(payload: unknown, network = "base"): string {
  return Buffer.from(JSON.stringify({ x402Version: 1, scheme: "exact", network, payload })).toString("base64");
}

/** The v2 requirement a 402 response carries in its PAYMENT-REQUIRED header. */
export function requirementFrom(res: Response): { accepts: Requirement[]; error?: string } {
  const h = res.headers.get("payment-required");
  if (!h) throw new Error(`no PAYMENT-REQUIRED header (status ${res.status})`);
  return JSON.parse(Buffer.from(h, "base64").toString("utf8"));
}

export function decodeB64Json<T = Record<string, unknown>>(v: string | null): T {
  if (!v) throw new Error("missing header");
  return JSON.parse(Buffer.from(v, "base64").toString("utf8")) as T;
}

/**
 * Pays one call explicitly: reads the 402's v2 requirement, signs an EIP-3009
 * authorization for exactly that amount and repeats the request with it.
 */
export async function payAndFetch(url: string, account: LocalAccount, init: RequestInit = {}): Promise<Response> {
  const first = await fetch(url, init);
  if (first.status !== 402) return first;
  const req = requirementFrom(first).accepts[0]!;
  const payload = await signAuthorization(account, { to: req.payTo as Address, value: BigInt(req.amount) });
  return fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), "PAYMENT-SIGNATURE": v2Header(req, payload, url) } });
}
