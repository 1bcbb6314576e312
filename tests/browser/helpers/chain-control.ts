/**
 * Direct control of the local Hardhat chain from a test, for failures that must really
 * happen on chain: pausing block production so a settlement transaction waits in the
 * mempool, front-running it with the payer's own transfer, and reading the outcome.
 */
import { createPublicClient, createWalletClient, http, parseAbi, parseGwei, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { BASE_USDC, localBase } from "../../helpers/chain";

const usdcAbi = parseAbi(["function transfer(address to, uint256 value) returns (bool)", "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)"]);

export interface PendingTx {
  hash: Hex;
  from: Address;
  to: Address | null;
  input: Hex;
}

export function chainControl(rpcUrl: string) {
  const chain = localBase(rpcUrl);
  const client = createPublicClient({ chain, transport: http(rpcUrl, { retryCount: 0 }) });
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  return {
    /** With automine off, transactions wait in the mempool until `mine()`. */
    setAutomine: (on: boolean) => rpc<boolean>("evm_setAutomine", [on]),
    mine: () => rpc<string>("evm_mine"),
    /** Polls the mempool until a transaction matches (or throws after `timeoutMs`). */
    async waitForPending(match: (tx: PendingTx) => boolean, timeoutMs = 10_000): Promise<PendingTx> {
      const until = Date.now() + timeoutMs;
      while (Date.now() < until) {
        const hit = (await rpc<PendingTx[]>("eth_pendingTransactions")).find(match);
        if (hit) return hit;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error("no matching transaction reached the mempool");
    },
    /**
     * A USDC transfer signed by `privateKey`, returning once it is sent (not mined). The
     * high priority fee puts it ahead of the facilitator's transactions in the next block.
     */
    async transferUsdc(privateKey: Hex, to: Address, value: bigint): Promise<Hex> {
      const wallet = createWalletClient({ account: privateKeyToAccount(privateKey), chain, transport: http(rpcUrl, { retryCount: 0 }) });
      return wallet.writeContract({
        address: BASE_USDC,
        abi: usdcAbi,
        functionName: "transfer",
        args: [to, value],
        gas: 100_000n,
        maxPriorityFeePerGas: parseGwei("500"),
        maxFeePerGas: parseGwei("1000"),
      });
    },
    receipt: (hash: Hex) => client.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 10_000 }),
    authorizationUsed: (from: Address, nonce: Hex) => client.readContract({ address: BASE_USDC, abi: usdcAbi, functionName: "authorizationState", args: [from, nonce] }),
  };
}
