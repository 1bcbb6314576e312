/**
 * An injected test wallet: a minimal EIP-1193 `window.ethereum` installed before the
 * page's scripts run. Accounts and chain id answer in the page; typed-data signatures
 * are made in the test process by a viem local account (or declined with code 4001);
 * every other call (eth_call, eth_blockNumber, ...) is forwarded from the test process
 * to the local Hardhat node, so the page never needs to reach the chain itself.
 * `afterSign` runs in the test between signing and handing the signature to the page:
 * the moment a test changes the chain under a payment the page has already checked.
 */
import type { Page } from "@playwright/test";
import type { Hex } from "viem";
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts";

export interface WalletOptions {
  privateKey: Hex;
  rpcUrl: string;
  /** Chain the wallet starts on (default Base, 8453). */
  chainId?: number;
  /** Decline every signature request, as a person pressing "Reject" would. */
  rejectSignatures?: boolean;
  /** Called with each signed authorization before the page receives the signature. */
  afterSign?: (authorization: SignedAuthorization) => Promise<void>;
  /** More accounts the person can switch to in the wallet (switchAccount). */
  otherKeys?: Hex[];
}

/** The EIP-3009 authorization the wallet signed (as the page sent it for signing). */
export interface SignedAuthorization {
  from: Hex;
  to: Hex;
  value: bigint;
  nonce: Hex;
}

export interface TestWallet {
  /** The account the wallet uses now (switchAccount changes it). */
  account: PrivateKeyAccount;
  /** The person switches the wallet to another of its accounts (it emits accountsChanged). */
  switchAccount(address: string): Promise<void>;
  /** The person switches the wallet to another chain by hand (it emits chainChanged). */
  switchChain(chainId: number): Promise<void>;
  /** Methods the page asked the wallet for, in order. */
  calls: string[];
  signatures: number;
  /** Every authorization signed, in order. */
  signed: SignedAuthorization[];
}

type RpcAnswer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

interface TypedDataJson {
  domain: Record<string, unknown>;
  types: Record<string, Array<{ name: string; type: string }>>;
  primaryType: string;
  message: Record<string, unknown>;
}

/** JSON typed data (numbers as strings) → the values viem's signer expects. */
function revive(td: TypedDataJson) {
  const { EIP712Domain: _domain, ...types } = td.types;
  const message: Record<string, unknown> = { ...td.message };
  for (const f of types[td.primaryType] ?? []) {
    if (/^u?int\d*$/.test(f.type) && message[f.name] !== undefined) message[f.name] = BigInt(message[f.name] as string);
  }
  return { domain: td.domain, types, primaryType: td.primaryType, message };
}

export async function installWallet(page: Page, o: WalletOptions): Promise<TestWallet> {
  const account = privateKeyToAccount(o.privateKey);
  const accounts = [account, ...(o.otherKeys ?? []).map((k) => privateKeyToAccount(k))];
  const wallet: TestWallet = {
    account,
    calls: [],
    signatures: 0,
    signed: [],
    switchAccount: async (address) => {
      const next = accounts.find((a) => a.address.toLowerCase() === address.toLowerCase());
      if (!next) throw new Error(`${address} is not an account of this wallet`);
      wallet.account = next;
      await page.evaluate((a) => (window as unknown as { __e2eSetAccount: (a: string) => void }).__e2eSetAccount(a), next.address);
    },
    switchChain: async (chainId) => {
      await page.evaluate((id) => (window as unknown as { __e2eSetChain: (id: number) => void }).__e2eSetChain(id), chainId);
    },
  };

  await page.exposeFunction("__e2eWalletNode", async (method: string, params: unknown[]): Promise<RpcAnswer> => {
    wallet.calls.push(method);
    if (method === "eth_signTypedData_v4") {
      if (o.rejectSignatures) return { error: { code: 4001, message: "User rejected the request." } };
      const [from, json] = params as [string, string];
      const signer = wallet.account;
      if (from.toLowerCase() !== signer.address.toLowerCase()) return { error: { code: 4100, message: "The requested account is not authorized." } };
      const typed = revive(JSON.parse(json) as TypedDataJson);
      const signature = await signer.signTypedData(typed as Parameters<PrivateKeyAccount["signTypedData"]>[0]);
      wallet.signatures++;
      const m = typed.message as { from: Hex; to: Hex; value: bigint; nonce: Hex };
      const signed: SignedAuthorization = { from: m.from, to: m.to, value: m.value, nonce: m.nonce };
      wallet.signed.push(signed);
      await o.afterSign?.(signed);
      return { result: signature };
    }
    const res = await fetch(o.rpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { code: number; message: string; data?: unknown } };
    return body.error ? { error: body.error } : { result: body.result ?? null };
  });

  await page.addInitScript(
    ({ address, chainId }) => {
      type Listener = (arg: unknown) => void;
      const w = window as unknown as {
        ethereum?: unknown;
        __e2eWalletNode: (method: string, params: unknown[]) => Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }>;
      };
      let chain = chainId;
      let current: string = address;
      const listeners: Record<string, Listener[]> = {};
      const hex = (n: number) => `0x${n.toString(16)}`;
      const emit = (event: string, arg: unknown) => (listeners[event] ?? []).slice().forEach((fn) => fn(arg));
      const fail = (code: number, message: string) => Object.assign(new Error(message), { code });
      const provider = {
        async request({ method, params }: { method: string; params?: unknown[] }): Promise<unknown> {
          switch (method) {
            case "eth_requestAccounts":
            case "eth_accounts":
              return [current];
            case "eth_chainId":
              return hex(chain);
            case "net_version":
              return String(chain);
            case "wallet_requestPermissions":
            case "wallet_getPermissions":
              return [{ parentCapability: "eth_accounts" }];
            case "wallet_revokePermissions":
              return null;
            case "wallet_switchEthereumChain": {
              const id = parseInt((params?.[0] as { chainId: string }).chainId, 16);
              chain = id;
              emit("chainChanged", hex(id));
              return null;
            }
          }
          const answer = await w.__e2eWalletNode(method, params ?? []);
          if (answer.error) throw Object.assign(fail(answer.error.code, answer.error.message), { data: answer.error.data });
          return answer.result;
        },
        on(event: string, fn: Listener) {
          (listeners[event] ??= []).push(fn);
          return provider;
        },
        removeListener(event: string, fn: Listener) {
          listeners[event] = (listeners[event] ?? []).filter((f) => f !== fn);
          return provider;
        },
      };
      w.ethereum = provider;
      const hooks = window as unknown as { __e2eSetAccount: (a: string) => void; __e2eSetChain: (id: number) => void };
      hooks.__e2eSetAccount = (a) => {
        current = a;
        emit("accountsChanged", [a]);
      };
      hooks.__e2eSetChain = (id) => {
        chain = id;
        emit("chainChanged", hex(id));
      };
    },
    { address: account.address, chainId: o.chainId ?? 8453 },
  );
  return wallet;
}
