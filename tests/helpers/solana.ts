/**
 * A local Solana cluster for payment tests: a loopback JSON-RPC server in the test
 * process backed by a `litesvm` ledger (the real SPL Token, Associated Token Account and
 * Compute Budget programs run in-process). USDC is an SPL mint written at the real
 * mainnet USDC address (6 decimals), so the default configuration works unchanged.
 * Signatures are checked by litesvm on every sent transaction; instruction execution is
 * real. Only the RPC methods the x402 SVM client and facilitator call are served;
 * anything else answers "method not found", which a test would notice.
 */
import { serveFacilitator } from "./facilitator-server";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { randomBytes } from "node:crypto";
import { FailedTransactionMetadata, LiteSVM } from "litesvm";
import {
  address,
  createKeyPairSignerFromPrivateKeyBytes,
  getAddressEncoder,
  getBase58Decoder,
  getBase64Encoder,
  getProgramDerivedAddress,
  getTransactionDecoder,
  type Address,
  type KeyPairSigner,
  type Transaction,
} from "@solana/kit";

export const SOLANA_USDC_MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const TOKEN_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA";
const ATA_PROGRAM = "ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL";
const SYSTEM_PROGRAM = "11111111111111111111111111111111";
const MINT_SIZE = 82;
const TOKEN_ACCOUNT_SIZE = 165;
const SOL = 1_000_000_000n;

const enc = getAddressEncoder();

export interface Wallet {
  signer: KeyPairSigner;
  address: string;
  /** Base58 64-byte secret key (seed ‖ public key), the Solana CLI / Phantom export format. */
  secret: string;
}

export interface SolanaLedger {
  rpcUrl: string;
  mint: string;
  /** A new key pair (nothing on the ledger yet). */
  wallet(): Promise<Wallet>;
  /** Gives `owner` SOL for fees and rent. */
  fundSol(owner: string, lamports?: bigint): void;
  /** Creates (or overwrites) `owner`'s USDC associated token account with `amount` base units. */
  setUsdc(owner: string, amount: bigint): Promise<void>;
  /** `owner`'s USDC balance in base units (0 when the token account does not exist). */
  tokenBalance(owner: string): Promise<bigint>;
  /** `owner`'s SOL balance in lamports. */
  solBalance(owner: string): bigint;
  /** Status of a transaction sent through the RPC (null when it was never sent). */
  transaction(signature: string): { err: unknown } | null;
  /** How often each RPC method was called. */
  calls: Map<string, number>;
  /**
   * The next sendTransaction's connection is cut before the answer (a node that went away
   * mid-request): after executing the transaction (`executed`), or before it reached the ledger.
   */
  loseNextSendAnswer(executed: boolean): void;
  /**
   * Runs `fn` once, for the next sendTransaction that passed its preflight, just before the
   * ledger executes it: the cluster's state moving in between (a payer spending its funds
   * in the same slot), which no check before sending can see.
   */
  beforeNextExecution(fn: () => Promise<void> | void): void;
  /** While down, every request's connection is cut unanswered (an RPC node that is unreachable). */
  setDown(down: boolean): void;
  /** How many transactions reached the ledger (executed, successfully or not: each cost its fee payer the fee). */
  executed(): number;
  stop(): Promise<void>;
}

export async function ataOf(owner: string, mint = SOLANA_USDC_MINT): Promise<string> {
  const [pda] = await getProgramDerivedAddress({
    programAddress: address(ATA_PROGRAM),
    seeds: [enc.encode(address(owner)), enc.encode(address(TOKEN_PROGRAM)), enc.encode(address(mint))],
  });
  return pda;
}

/** SPL Mint layout: mint authority (COption<Pubkey>), supply, decimals, initialized, freeze authority. */
function mintData(supply: bigint, decimals: number, authority: string): Uint8Array {
  const b = Buffer.alloc(MINT_SIZE);
  b.writeUInt32LE(1, 0);
  Buffer.from(enc.encode(address(authority))).copy(b, 4);
  b.writeBigUInt64LE(supply, 36);
  b.writeUInt8(decimals, 44);
  b.writeUInt8(1, 45);
  b.writeUInt32LE(0, 46); // no freeze authority
  return new Uint8Array(b);
}

/** SPL Account layout: mint, owner, amount, delegate, state (1 = initialized), is_native, delegated amount, close authority. */
function tokenAccountData(mint: string, owner: string, amount: bigint): Uint8Array {
  const b = Buffer.alloc(TOKEN_ACCOUNT_SIZE);
  Buffer.from(enc.encode(address(mint))).copy(b, 0);
  Buffer.from(enc.encode(address(owner))).copy(b, 32);
  b.writeBigUInt64LE(amount, 64);
  b.writeUInt8(1, 108);
  return new Uint8Array(b);
}

/** The RPC's spelling of a litesvm transaction error (close enough for clients that only test for null). */
function rpcError(err: unknown): unknown {
  if (typeof err === "number") return `TransactionError#${err}`;
  if (err && typeof err === "object" && "index" in err) {
    const inner = (err as { err?: () => unknown }).err?.();
    return { InstructionError: [(err as { index: number }).index, inner && typeof inner === "object" ? String(inner) : inner] };
  }
  return String(err);
}

type Json = Record<string, unknown> | unknown[] | string | number | boolean | null;

class RpcError extends Error {
  constructor(public code: number, message: string) {
    super(message);
  }
}

export async function startSolana(opts: { mint?: string } = {}): Promise<SolanaLedger> {
  const mint = opts.mint ?? SOLANA_USDC_MINT;
  const svm = new LiteSVM();
  const calls = new Map<string, number>();
  const statuses = new Map<string, { slot: number; err: unknown }>();
  const mintAuthority = (await createKeyPairSignerFromPrivateKeyBytes(new Uint8Array(randomBytes(32)))).address;
  const asAddr = (a: string) => address(a) as never;
  const slot = () => Number(svm.getClock().slot);

  svm.setAccount({
    address: asAddr(mint),
    data: mintData(10n ** 15n, 6, mintAuthority),
    executable: false,
    lamports: svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE)) as never,
    programAddress: asAddr(TOKEN_PROGRAM),
    space: BigInt(MINT_SIZE),
  } as never);

  const decodeTx = (b64: unknown): Transaction => {
    if (typeof b64 !== "string") throw new RpcError(-32602, "transaction must be a base64 string");
    try {
      return getTransactionDecoder().decode(getBase64Encoder().encode(b64)) as Transaction;
    } catch (err) {
      throw new RpcError(-32602, `invalid transaction: ${(err as Error).message}`);
    }
  };
  const firstSignature = (tx: Transaction): string => {
    const sig = Object.values(tx.signatures)[0];
    if (!sig) throw new RpcError(-32602, "transaction has no signatures");
    return getBase58Decoder().decode(sig);
  };
  const accountValue = (addr: string) => {
    const a = svm.getAccount(asAddr(addr));
    if (!a.exists) return null;
    return {
      data: [Buffer.from(a.data).toString("base64"), "base64"],
      executable: a.executable,
      lamports: Number(a.lamports),
      owner: a.programAddress,
      rentEpoch: 0,
      space: a.data.length,
    };
  };
  const ctx = () => ({ context: { slot: slot() } });

  let loseSendAnswer: "none" | "after" | "before" = "none";
  let down = false;
  let executed = 0;
  let beforeExecution: (() => Promise<void> | void) | null = null;
  class LostAnswer extends Error {}
  const methods: Record<string, (params: unknown[]) => Json | Promise<Json>> = {
    getHealth: () => "ok",
    getSlot: () => slot(),
    getBlockHeight: () => slot(),
    isBlockhashValid: (p) => ({ ...ctx(), value: String(p[0]) === svm.latestBlockhash() }),
    getLatestBlockhash: () => ({ ...ctx(), value: { blockhash: svm.latestBlockhash(), lastValidBlockHeight: slot() + 150 } }),
    getMinimumBalanceForRentExemption: (p) => Number(svm.minimumBalanceForRentExemption(BigInt(Number(p[0] ?? 0)))),
    getFeeForMessage: () => ({ ...ctx(), value: 5000 }),
    getBalance: (p) => ({ ...ctx(), value: Number(svm.getBalance(asAddr(String(p[0]))) ?? 0n) }),
    getAccountInfo: (p) => {
      const cfg = (p[1] ?? {}) as { encoding?: string };
      if (cfg.encoding && cfg.encoding !== "base64") throw new RpcError(-32602, `encoding ${cfg.encoding} is not served by the test RPC`);
      return { ...ctx(), value: accountValue(String(p[0])) };
    },
    getMultipleAccounts: (p) => ({ ...ctx(), value: (p[0] as string[]).map(accountValue) }),
    getTokenAccountBalance: (p) => {
      const a = svm.getAccount(asAddr(String(p[0])));
      if (!a.exists || a.data.length !== TOKEN_ACCOUNT_SIZE) throw new RpcError(-32602, "Invalid param: not a Token account");
      const amount = Buffer.from(a.data).readBigUInt64LE(64);
      return { ...ctx(), value: { amount: amount.toString(), decimals: 6, uiAmount: Number(amount) / 1e6, uiAmountString: (Number(amount) / 1e6).toString() } };
    },
    simulateTransaction: (p) => {
      const cfg = (p[1] ?? {}) as { sigVerify?: boolean; encoding?: string };
      if (cfg.encoding && cfg.encoding !== "base64") throw new RpcError(-32602, "only base64 transactions are served by the test RPC");
      const tx = decodeTx(p[0]);
      // Like a real node: signatures are checked only when the caller asks (the x402
      // facilitator simulates before it adds the fee payer's signature).
      svm.withSigverify(cfg.sigVerify === true);
      try {
        const r = svm.simulateTransaction(tx as never);
        const meta = r.meta();
        return {
          ...ctx(),
          value: {
            err: r instanceof FailedTransactionMetadata ? rpcError(r.err()) : null,
            logs: meta.logs(),
            accounts: null,
            unitsConsumed: Number(meta.computeUnitsConsumed()),
            returnData: null,
            innerInstructions: null,
          },
        };
      } finally {
        svm.withSigverify(true);
      }
    },
    sendTransaction: async (p) => {
      const cfg = (p[1] ?? {}) as { encoding?: string; skipPreflight?: boolean };
      if (cfg.encoding && cfg.encoding !== "base64") throw new RpcError(-32602, "only base64 transactions are served by the test RPC");
      const tx = decodeTx(p[0]);
      const signature = firstSignature(tx);
      if (loseSendAnswer === "before") {
        loseSendAnswer = "none";
        throw new LostAnswer();
      }
      // Like a real node: unless told to skip it, the transaction is simulated first
      // (signatures checked) and refused, never forwarded, when that fails.
      if (cfg.skipPreflight !== true) {
        const sim = svm.simulateTransaction(tx as never);
        if (sim instanceof FailedTransactionMetadata) {
          const err: unknown = sim.err();
          throw new RpcError(-32002, typeof err === "number" ? `Transaction rejected: ${rpcError(err)}` : `Transaction simulation failed: ${JSON.stringify(rpcError(err))}`);
        }
      }
      const hook = beforeExecution;
      beforeExecution = null;
      if (hook) await hook();
      const r = svm.sendTransaction(tx as never);
      if (r instanceof FailedTransactionMetadata) {
        const err: unknown = r.err();
        // Rejected before execution (bad signature, unknown blockhash, replay): the node
        // refuses it, as a real RPC does for a transaction that cannot land.
        if (typeof err === "number") throw new RpcError(-32002, `Transaction rejected: ${rpcError(err)}`);
        executed++;
        statuses.set(signature, { slot: slot(), err: rpcError(err) });
        return signature;
      }
      executed++;
      statuses.set(signature, { slot: slot(), err: null });
      if (loseSendAnswer === "after") {
        loseSendAnswer = "none";
        throw new LostAnswer();
      }
      return signature;
    },
    getSignatureStatuses: (p) => ({
      ...ctx(),
      value: (p[0] as string[]).map((sig) => {
        const s = statuses.get(sig);
        if (!s) return null;
        return { slot: s.slot, confirmations: null, err: s.err, confirmationStatus: "finalized", status: s.err ? { Err: s.err } : { Ok: null } };
      }),
    }),
  };

  const handle = async (req: { id?: unknown; method?: unknown; params?: unknown }) => {
    const id = req.id ?? null;
    const method = String(req.method);
    calls.set(method, (calls.get(method) ?? 0) + 1);
    const fn = methods[method];
    if (!fn) return { jsonrpc: "2.0", id, error: { code: -32601, message: `Method not found: ${method}` } };
    try {
      return { jsonrpc: "2.0", id, result: await fn(Array.isArray(req.params) ? req.params : []) };
    } catch (err) {
      if (err instanceof LostAnswer) throw err;
      const code = err instanceof RpcError ? err.code : -32603;
      return { jsonrpc: "2.0", id, error: { code, message: (err as Error).message } };
    }
  };

  const server = http.createServer((req, res) => {
    if (down) {
      req.socket.destroy();
      return;
    }
    let body = "";
    req.on("data", (d: Buffer) => (body += d.toString()));
    req.on("end", async () => {
      let out: unknown;
      try {
        const parsed = JSON.parse(body) as unknown;
        out = Array.isArray(parsed) ? await Promise.all(parsed.map((r) => handle(r as never))) : await handle(parsed as never);
      } catch (err) {
        if (err instanceof LostAnswer) {
          req.socket.destroy();
          return;
        }
        out = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } };
      }
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(out));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  const fundSol = (owner: string, lamports = 10n * SOL) => {
    svm.setAccount({ address: asAddr(owner), data: new Uint8Array(), executable: false, lamports: lamports as never, programAddress: asAddr(SYSTEM_PROGRAM), space: 0n } as never);
  };

  return {
    rpcUrl: `http://127.0.0.1:${port}`,
    mint,
    calls,
    wallet: async () => {
      const seed = new Uint8Array(randomBytes(32));
      const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
      const secret = getBase58Decoder().decode(new Uint8Array([...seed, ...enc.encode(signer.address)]));
      return { signer, address: signer.address, secret };
    },
    fundSol,
    loseNextSendAnswer: (afterExecution) => {
      loseSendAnswer = afterExecution ? "after" : "before";
    },
    beforeNextExecution: (fn) => {
      beforeExecution = fn;
    },
    setDown: (v) => {
      down = v;
    },
    executed: () => executed,
    setUsdc: async (owner, amount) => {
      svm.setAccount({
        address: asAddr(await ataOf(owner, mint)),
        data: tokenAccountData(mint, owner, amount),
        executable: false,
        lamports: svm.minimumBalanceForRentExemption(BigInt(TOKEN_ACCOUNT_SIZE)) as never,
        programAddress: asAddr(TOKEN_PROGRAM),
        space: BigInt(TOKEN_ACCOUNT_SIZE),
      } as never);
    },
    tokenBalance: async (owner) => {
      const a = svm.getAccount(asAddr(await ataOf(owner, mint)));
      if (!a.exists) return 0n;
      return Buffer.from(a.data).readBigUInt64LE(64);
    },
    solBalance: (owner) => BigInt(svm.getBalance(asAddr(owner)) ?? 0n),
    transaction: (signature) => statuses.get(signature) ?? null,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export type { Address };

/**
 * A remote x402 facilitator over HTTP (GET /supported, POST /verify, POST /settle) in
 * the test process: @x402/core's x402Facilitator with @x402/svm's exact scheme, settling
 * on `ledger` with `feePayer`. Stands in for FACILITATOR_URL.
 */
export async function startSvmFacilitator(ledger: SolanaLedger, feePayer: Wallet, network = "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp"): Promise<{ url: string; stop(): Promise<void> }> {
  const { x402Facilitator } = await import("@x402/core/facilitator");
  const { registerExactSvmScheme } = await import("@x402/svm/exact/facilitator");
  const { toFacilitatorSvmSigner } = await import("@x402/svm");
  const facilitator = new x402Facilitator();
  registerExactSvmScheme(facilitator, { signer: toFacilitatorSvmSigner(feePayer.signer, { defaultRpcUrl: ledger.rpcUrl }), networks: network as `${string}:${string}` });
  return serveFacilitator(facilitator);
}
