/**
 * A local EVM chain for payment tests: Hardhat 2 (`hardhat node`, chain id 8453) with an
 * EIP-3009 USDC-like token compiled by solc-js and placed at the real Base USDC address,
 * plus Multicall3's tryAggregate at its canonical address. Real signatures, real
 * settlement transactions, real balances. `startChain({ node: "anvil" })` runs the same
 * chain on Foundry's anvil instead (from the @foundry-rs/anvil package).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { createPublicClient, createWalletClient, defineChain, http, parseAbi, type Address, type Hex } from "viem";
import { mnemonicToAccount, type HDAccount } from "viem/accounts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const require = createRequire(import.meta.url);

export const BASE_USDC: Address = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";
export const MULTICALL3: Address = "0xcA11bde05977b3631167028862bE2a173976CA11";
/** TestWalletFactory: deploys contract-wallet payers (ERC-1271) at CREATE2 addresses (ERC-6492). */
export const WALLET_FACTORY: Address = "0x6492000000000000000000000000000000006492";
export const walletFactoryAbi = parseAbi(["function deploy(address owner, bytes32 salt) returns (address)", "function addressOf(address owner, bytes32 salt) view returns (address)"]);
const MNEMONIC = "test test test test test test test test test test test junk";

export const usdcAbi = parseAbi([
  "function balanceOf(address) view returns (uint256)",
  "function mint(address to, uint256 value)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function name() view returns (string)",
  "function version() view returns (string)",
]);

let compiled: { usdc: Hex; multicall: Hex; factory: Hex } | undefined;

/** Runtime bytecode of the test token, Multicall3Lite and the wallet factory (solc-js, offline). */
export function compileContracts(): { usdc: Hex; multicall: Hex; factory: Hex } {
  if (compiled) return compiled;
  const solc = require("solc") as { compile(input: string): string };
  const source = readFileSync(join(root, "tests/chain/TestUSDC.sol"), "utf8");
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: "Solidity",
        sources: { "TestUSDC.sol": { content: source } },
        settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun", outputSelection: { "*": { "*": ["evm.deployedBytecode.object"] } } },
      }),
    ),
  ) as { errors?: Array<{ severity: string; formattedMessage: string }>; contracts: Record<string, Record<string, { evm: { deployedBytecode: { object: string } } }>> };
  const errors = (out.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const c = out.contracts["TestUSDC.sol"]!;
  compiled = {
    usdc: `0x${c.TestUSDC!.evm.deployedBytecode.object}`,
    multicall: `0x${c.Multicall3Lite!.evm.deployedBytecode.object}`,
    factory: `0x${c.TestWalletFactory!.evm.deployedBytecode.object}`,
  };
  return compiled;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

export const localBase = (rpcUrl: string) =>
  defineChain({ id: 8453, name: "Base (local)", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [rpcUrl] } } });

export interface Chain {
  rpcUrl: string;
  /** accounts[0] is the facilitator (pays gas); others are payers / receivers. */
  accounts: HDAccount[];
  privateKey(index: number): Hex;
  publicClient: ReturnType<typeof createPublicClient>;
  usdcBalance(addr: Address): Promise<bigint>;
  mintUsdc(to: Address, amount: bigint): Promise<void>;
  /** A raw JSON-RPC call to the node (hardhat_* / evm_* test methods included). */
  rpc(method: string, params: unknown[]): Promise<unknown>;
  /** Real block times: automine off, one block every `ms` (0 goes back to automine). */
  setIntervalMining(ms: number): Promise<void>;
  /** Where TestWalletFactory puts `owner`'s contract wallet for `salt` (it need not exist). */
  walletAddress(owner: Address, salt: Hex): Promise<Address>;
  /** Deploys `owner`'s contract wallet for `salt` (sent by accounts[9]); its address. */
  deployWallet(owner: Address, salt: Hex): Promise<Address>;
  stop(): Promise<void>;
}

/**
 * The anvil binary of the @foundry-rs/anvil package's platform build (its optional
 * dependency for this machine; the wrapper's own install script, which would fetch one
 * otherwise, is not run).
 */
function anvilBinary(): string {
  const arch = { x64: "amd64", arm64: "arm64" }[process.arch as string];
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  return join(dirname(require.resolve(`${pkg}/package.json`)), "bin", process.platform === "win32" ? "anvil.exe" : "anvil");
}

/**
 * Starts a chain: Hardhat's node by default (every payment test's), or `node: "anvil"`,
 * Foundry's node, which implements what Hardhat does not (EIP-7966's
 * eth_sendRawTransactionSync). TEST_CHAIN=anvil makes anvil the default, to run the
 * payment suites on it.
 */
export async function startChain(opts: { node?: "hardhat" | "anvil" } = {}): Promise<Chain> {
  opts = { node: process.env.TEST_CHAIN === "anvil" ? "anvil" : "hardhat", ...opts };
  const code = compileContracts();
  const port = await freePort();
  const child: ChildProcess =
    opts.node === "anvil"
      ? spawn(anvilBinary(), ["--host", "127.0.0.1", "--port", String(port), "--chain-id", "8453", "--hardfork", "cancun", "--accounts", "10", "--balance", "1000", "--mnemonic", MNEMONIC], { stdio: ["ignore", "pipe", "pipe"] })
      : spawn(
    process.execPath,
    [join(root, "node_modules/hardhat/internal/cli/bootstrap.js"), "node", "--config", join(root, "tests/chain/hardhat.config.cjs"), "--hostname", "127.0.0.1", "--port", String(port)],
    { cwd: join(root, "tests/chain"), stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: "true", DO_NOT_TRACK: "1" } },
  );
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${opts.node ?? "hardhat"} node did not start:\n${out.slice(-3000)}`)), 60_000);
    const check = () => {
      if (out.includes("Started HTTP and WebSocket JSON-RPC server") || out.includes("Listening on")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on("data", check);
    child.on("exit", (c) => {
      clearTimeout(timer);
      reject(new Error(`${opts.node ?? "hardhat"} node exited with ${c}:\n${out.slice(-3000)}`));
    });
  });
  const rpcUrl = `http://127.0.0.1:${port}`;
  const chain = localBase(rpcUrl);
  const publicClient = createPublicClient({ chain, transport: http(rpcUrl, { retryCount: 0 }) });
  const rpc = (method: string, params: unknown[]) =>
    fetch(rpcUrl, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) }).then(async (r) => {
      const j = (await r.json()) as { error?: { message: string }; result?: unknown };
      if (j.error) throw new Error(`${method}: ${j.error.message}`);
      return j.result;
    });
  await rpc("hardhat_setCode", [BASE_USDC, code.usdc]);
  await rpc("hardhat_setCode", [MULTICALL3, code.multicall]);
  await rpc("hardhat_setCode", [WALLET_FACTORY, code.factory]);
  const accounts = Array.from({ length: 10 }, (_, i) => mnemonicToAccount(MNEMONIC, { addressIndex: i }));
  const minter = createWalletClient({ account: accounts[9]!, chain, transport: http(rpcUrl, { retryCount: 0 }) });
  return {
    rpcUrl,
    accounts,
    privateKey: (i) => `0x${Buffer.from(accounts[i]!.getHdKey().privateKey!).toString("hex")}` as Hex,
    publicClient,
    usdcBalance: (addr) => publicClient.readContract({ address: BASE_USDC, abi: usdcAbi, functionName: "balanceOf", args: [addr] }),
    mintUsdc: async (to, amount) => {
      const hash = await minter.writeContract({ address: BASE_USDC, abi: usdcAbi, functionName: "mint", args: [to, amount] });
      await publicClient.waitForTransactionReceipt({ hash });
    },
    rpc,
    walletAddress: (owner, salt) => publicClient.readContract({ address: WALLET_FACTORY, abi: walletFactoryAbi, functionName: "addressOf", args: [owner, salt] }),
    deployWallet: async (owner, salt) => {
      const hash = await minter.writeContract({ address: WALLET_FACTORY, abi: walletFactoryAbi, functionName: "deploy", args: [owner, salt] });
      await publicClient.waitForTransactionReceipt({ hash });
      return publicClient.readContract({ address: WALLET_FACTORY, abi: walletFactoryAbi, functionName: "addressOf", args: [owner, salt] });
    },
    setIntervalMining: async (ms) => {
      // In this order on both nodes: anvil's evm_setIntervalMining(0) stops all mining,
      // automine included, until evm_setAutomine(true) turns it back on.
      if (ms === 0) {
        await rpc("evm_setIntervalMining", [0]);
        await rpc("evm_setAutomine", [true]);
      } else {
        // anvil reads the interval in whole seconds, Hardhat in milliseconds.
        if (opts.node === "anvil" && ms % 1000 !== 0) throw new Error(`anvil mines at whole-second intervals only, not ${ms} ms`);
        await rpc("evm_setAutomine", [false]);
        await rpc("evm_setIntervalMining", [opts.node === "anvil" ? ms / 1000 : ms]);
      }
    },
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once("exit", r));
        child.kill("SIGTERM");
        await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
    },
  };
}
